#include "sim/GpuModel.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdlib>

#ifndef TLXSIM_MODELS_DIR
#define TLXSIM_MODELS_DIR "models"
#endif

namespace tlxsim::sim {

std::string GpuModel::defaultModelsDir() {
  if (const char *env = std::getenv("TLXSIM_MODELS"))
    return env;
  return TLXSIM_MODELS_DIR;
}

std::string GpuModel::defaultForTarget(llvm::StringRef target) {
  if (target == "cuda:90")
    return "h200";
  if (target == "cuda:100")
    return "b200";
  if (target == "hip:gfx942")
    return "mi300x";
  if (target == "hip:gfx950")
    return "mi355x";
  return "";
}

llvm::Expected<GpuModel> GpuModel::load(llvm::StringRef nameOrPath, llvm::StringRef modelsDir) {
  GpuModel model;
  model.path_ = nameOrPath.ends_with(".json") ? nameOrPath.str() : (modelsDir + "/" + nameOrPath + ".json").str();
  auto buffer = llvm::MemoryBuffer::getFile(model.path_);
  if (!buffer)
    return llvm::createStringError("unknown model '%s': cannot read %s", nameOrPath.str().c_str(),
                                   model.path_.c_str());
  auto json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return llvm::createStringError("%s: invalid JSON: %s", model.path_.c_str(),
                                   llvm::toString(json.takeError()).c_str());
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Object *params = root ? root->getObject("params") : nullptr;
  if (!params)
    return llvm::createStringError("%s: expected an object with \"params\"", model.path_.c_str());
  model.name_ = root->getString("name").value_or(nameOrPath).str();
  model.target_ = root->getString("target").value_or("").str();
  for (const auto &[key, value] : *params) {
    const llvm::json::Object *entry = value.getAsObject();
    std::optional<double> number = entry ? entry->getNumber("value") : std::nullopt;
    auto unit = entry ? entry->getString("unit") : std::nullopt;
    auto source = entry ? entry->getString("source") : std::nullopt;
    if (!number || !unit || !source || source->empty())
      return llvm::createStringError("%s: parameter '%s' needs numeric \"value\", \"unit\" and a non-empty \"source\"",
                                     model.path_.c_str(), key.str().c_str());
    model.params_[key] = Param{*number, unit->str(), source->str()};
  }
  return model;
}

llvm::Error GpuModel::set(llvm::StringRef assignment) {
  auto [key, text] = assignment.split('=');
  double value;
  if (text.empty() || text.getAsDouble(value))
    return llvm::createStringError("--set expects KNOB=NUMBER, got '%s'", assignment.str().c_str());
  auto it = params_.find(key);
  if (it == params_.end())
    return llvm::createStringError("--set: model '%s' has no parameter '%s'", name_.c_str(), key.str().c_str());
  it->second.value = value;
  it->second.source = "--set on the command line";
  return llvm::Error::success();
}

double GpuModel::get(llvm::StringRef key) const {
  auto it = params_.find(key);
  return it == params_.end() ? 0.0 : it->second.value;
}

llvm::Error GpuModel::require(llvm::ArrayRef<llvm::StringRef> keys) const {
  std::string missing;
  for (llvm::StringRef key : keys)
    if (!params_.count(key))
      missing += (missing.empty() ? "" : ", ") + key.str();
  if (missing.empty())
    return llvm::Error::success();
  return llvm::createStringError("%s: model '%s' lacks parameters: %s", path_.c_str(), name_.c_str(),
                                 missing.c_str());
}

} // namespace tlxsim::sim
