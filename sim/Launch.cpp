#include "sim/Launch.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

namespace tlxsim::sim {

/// CUDA's maximum grid dimensions (CUDA C++ Programming Guide section 20.2).
static constexpr int64_t kMaxGrid[3] = {(int64_t(1) << 31) - 1, 65535, 65535};

static llvm::Error checkGrid(const std::array<int64_t, 3> &grid, llvm::StringRef where) {
  for (int i = 0; i < 3; ++i)
    if (grid[i] > kMaxGrid[i])
      return llvm::createStringError("%s: grid dimension %d is %lld, above the limit %lld", where.str().c_str(), i,
                                     static_cast<long long>(grid[i]), static_cast<long long>(kMaxGrid[i]));
  return llvm::Error::success();
}

static llvm::Error parseDims(llvm::StringRef text, char sep, std::vector<int64_t> &dims, llvm::StringRef what) {
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, sep);
  dims.clear();
  for (llvm::StringRef part : parts) {
    int64_t value;
    if (part.trim().getAsInteger(10, value) || value <= 0)
      return llvm::createStringError("%s: expected positive integers separated by '%c', got '%s'", what.str().c_str(),
                                     sep, text.str().c_str());
    dims.push_back(value);
  }
  return llvm::Error::success();
}

llvm::Error Launch::setGrid(llvm::StringRef text) {
  std::vector<int64_t> dims;
  if (auto err = parseDims(text, ',', dims, "--grid"))
    return err;
  if (dims.size() > 3)
    return llvm::createStringError("--grid takes at most 3 dimensions, got '%s'", text.str().c_str());
  grid = {1, 1, 1};
  for (size_t i = 0; i < dims.size(); ++i)
    grid[i] = dims[i];
  haveGrid = true;
  return checkGrid(grid, "--grid");
}

llvm::Error Launch::setArg(llvm::StringRef text) {
  auto [name, value] = text.split('=');
  int64_t number;
  double real;
  if (!name.empty() && !value.trim().getAsInteger(0, number)) {
    args[name] = number;
    floatArgs.erase(name);
  } else if (!name.empty() && !value.trim().empty() && !value.trim().getAsDouble(real) && std::isfinite(real)) {
    floatArgs[name] = real;
    args.erase(name);
  } else {
    return llvm::createStringError("--arg expects NAME=INTEGER or NAME=NUMBER (a float argument), got '%s'",
                                   text.str().c_str());
  }
  flagArgs.insert(name);
  return llvm::Error::success();
}

llvm::Error Launch::setDesc(llvm::StringRef text) {
  auto [name, shape] = text.split('=');
  if (name.empty())
    return llvm::createStringError("--desc expects NAME=D0xD1[x...], got '%s'", text.str().c_str());
  flagDescs.insert(name);
  return parseDims(shape, 'x', descShapes[name], "--desc " + name.str());
}

llvm::Error Launch::loadJson(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError("%s: cannot read launch spec: %s", path.str().c_str(),
                                   buffer.getError().message().c_str());
  auto json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return llvm::createStringError("%s: invalid JSON: %s", path.str().c_str(), llvm::toString(json.takeError()).c_str());
  const llvm::json::Object *root = json->getAsObject();
  if (!root)
    return llvm::createStringError("%s: expected a JSON object", path.str().c_str());
  return loadJsonObject(*root, path);
}

llvm::Error Launch::loadJsonObject(const llvm::json::Object &spec, llvm::StringRef path) {
  const llvm::json::Object *root = &spec;
  auto bad = [&](llvm::StringRef what) {
    return llvm::createStringError("%s: %s", path.str().c_str(), what.str().c_str());
  };
  if (const llvm::json::Value *version = root->get("schema_version"))
    if (version->getAsInteger() != 1)
      return bad("\"schema_version\" must be 1 (the launch format this tlx-sim reads)");
  // Keys of the wrong type are errors, not ignored: a dropped "args" or "preconditions" changes the answer silently.
  for (llvm::StringRef key : {"args", "descs", "ptrs"})
    if (const llvm::json::Value *value = root->get(key); value && !value->getAsObject())
      return bad("\"" + key.str() + "\" must be an object keyed by the kernel's Python argument names");
  domainUnstated = !root->get("preconditions") && !root->get("module");
  if (const llvm::json::Value *value = root->get("kernel")) {
    auto name = value->getAsString();
    if (!name)
      return bad("\"kernel\" must be a string (the kernel's name)");
    specKernel = name->str();
    specKernelOrigin = path.str();
  }
  if (const llvm::json::Value *value = root->get("preconditions")) {
    const llvm::json::Array *list = value->getAsArray();
    if (!list)
      return bad("\"preconditions\" must be a list of strings like \"K>=1\"");
    preconditions.clear();
    for (const llvm::json::Value &entry : *list) {
      auto text = entry.getAsString();
      if (!text)
        return bad("\"preconditions\" must be a list of strings like \"K>=1\"");
      preconditions.push_back(text->str());
    }
  }
  if (const llvm::json::Value *gridValue = root->get("grid")) {
    const llvm::json::Array *dims = gridValue->getAsArray();
    if (!dims || dims->empty() || dims->size() > 3)
      return bad("\"grid\" must be a list of 1 to 3 positive integers");
    grid = {1, 1, 1};
    for (size_t i = 0; i < dims->size(); ++i) {
      auto d = (*dims)[i].getAsInteger();
      if (!d || *d <= 0)
        return bad("\"grid\" must be a list of 1 to 3 positive integers");
      grid[i] = *d;
    }
    haveGrid = true;
    if (auto err = checkGrid(grid, path.str() + ": \"grid\""))
      return err;
  }
  if (const llvm::json::Value *value = root->get("cluster_dims")) {
    const llvm::json::Array *dims = value->getAsArray();
    auto invalid = [&] { return bad("\"cluster_dims\" must be a list of 1 to 3 positive integers"); };
    if (!dims || dims->empty() || dims->size() > 3)
      return invalid();
    clusterDims = std::array<int64_t, 3>{1, 1, 1};
    for (size_t i = 0; i < dims->size(); ++i) {
      auto d = (*dims)[i].getAsInteger();
      if (!d || *d <= 0)
        return invalid();
      (*clusterDims)[i] = *d;
    }
  }
  if (const llvm::json::Object *scalars = root->getObject("args")) {
    for (const auto &[name, value] : *scalars) {
      specArgOrigin[name] = path.str() + ": \"args\"." + name.str();
      if (auto number = value.getAsInteger()) {
        args[name] = *number;
      } else if (auto real = value.getAsNumber()) {
        floatArgs[name] = *real; // a float scalar (e.g. sm_scale); bind() checks the argument is a float
      } else {
        return bad("\"args\"." + name.str() + " must be a number");
      }
    }
  }
  if (const llvm::json::Object *descs = root->getObject("descs")) {
    for (const auto &[name, value] : *descs) {
      const llvm::json::Array *shape = value.getAsArray();
      if (!shape)
        if (const llvm::json::Object *desc = value.getAsObject())
          shape = desc->getArray("shape");
      if (!shape)
        return bad("\"descs\"." + name.str() + " must be a shape list or an object with \"shape\"");
      std::vector<int64_t> dims;
      for (const llvm::json::Value &d : *shape) {
        auto number = d.getAsInteger();
        if (!number || *number <= 0)
          return bad("\"descs\"." + name.str() + " shape must hold positive integers");
        dims.push_back(*number);
      }
      descShapes[name] = dims;
      specDescOrigin[name] = path.str() + ": \"descs\"." + name.str();
    }
  }
  if (const llvm::json::Object *ptrs = root->getObject("ptrs")) {
    for (const auto &[name, value] : *ptrs) {
      const llvm::json::Object *ptr = value.getAsObject();
      if (!ptr)
        return bad("\"ptrs\"." + name.str() + " must be an object with \"shape\" and \"dtype\" (and optionally "
                   "\"values\")");
      const llvm::json::Value *contents = ptr->get("values");
      if (!contents)
        continue; // shape and dtype only (the runner allocates the buffer)
      const llvm::json::Array *list = contents->getAsArray();
      std::vector<int64_t> values;
      for (size_t k = 0; list && k < list->size(); ++k)
        if (auto number = (*list)[k].getAsInteger())
          values.push_back(*number);
      if (!list || values.size() != list->size())
        return bad("\"ptrs\"." + name.str() + ".values must be a list of integers (the buffer's contents, row-major)");
      if (const llvm::json::Array *shape = ptr->getArray("shape")) { // the tensor's elements, all of them
        int64_t elements = 1;
        for (const llvm::json::Value &d : *shape)
          elements *= d.getAsInteger().value_or(1);
        if (elements != static_cast<int64_t>(values.size()))
          return bad("\"ptrs\"." + name.str() + ".values holds " + std::to_string(values.size()) +
                     " integers, but its \"shape\" has " + std::to_string(elements) + " elements");
      }
      ptrValues[name] = std::move(values);
    }
  }
  if (const llvm::json::Object *signature = root->getObject("signature"))
    for (const auto &entry : *signature)
      signatureNames.insert(entry.first);
  return llvm::Error::success();
}

std::vector<std::string> Launch::divisibilityWarnings(const Program &program) const {
  std::vector<std::string> warnings;
  for (const KernelArg &arg : program.args) {
    auto it = args.find(arg.name);
    if (arg.kind != KernelArg::Scalar || arg.divisibility <= 1 || it == args.end() ||
        it->second % arg.divisibility == 0)
      continue;
    warnings.push_back("argument '" + arg.name + "' = " + std::to_string(it->second) + " is not a multiple of " +
                       std::to_string(arg.divisibility) + ", which the kernel was compiled assuming (tt.divisibility: "
                       "Triton specializes on it and compiles another kernel for such a value); the prediction runs "
                       "this kernel's IR at it");
  }
  return warnings;
}

std::vector<std::string> Launch::unusedValueWarnings(const Program &program) const {
  std::vector<std::string> warnings;
  auto warn = [&](const llvm::StringMap<std::string> &origins, KernelArg::Kind kind, llvm::StringRef what) {
    std::string known;
    llvm::StringSet<> names, anyKind; // an entry naming an argument of another kind (a pointer) is not a typo
    for (const KernelArg &arg : program.args) {
      anyKind.insert(arg.name);
      if (arg.kind == kind && names.insert(arg.name).second)
        known += (known.empty() ? "" : ", ") + arg.name;
    }
    std::vector<std::string> unused;
    for (const auto &entry : origins)
      if (!anyKind.count(entry.getKey()) && !signatureNames.count(entry.getKey()) &&
          !(kind == KernelArg::Desc ? flagDescs.count(entry.getKey()) : flagArgs.count(entry.getKey())))
        unused.push_back(entry.getValue() + ": warning: the kernel has no " + what.str() +
                         " of that name (it has: " + (known.empty() ? std::string("none") : known) +
                         "); the value is not used");
    llvm::sort(unused); // StringMap order is not stable
    warnings.insert(warnings.end(), unused.begin(), unused.end());
  };
  warn(specArgOrigin, KernelArg::Scalar, "scalar argument");
  warn(specDescOrigin, KernelArg::Desc, "tensor-descriptor argument");
  if (forOtherKernel(program))
    warnings.insert(warnings.begin(), specKernelOrigin + ": warning: the launch spec is for kernel '" + specKernel +
                                          "', this module's kernel is '" + program.kernelName +
                                          "': its values are used by argument name");
  return warnings;
}

std::array<int64_t, 3> Launch::ctaGrid(const Program &program) const {
  std::array<int64_t, 3> ctas = grid;
  if (program.numCtas > 1)
    for (int i = 0; i < 3; ++i)
      ctas[i] *= program.clusterDims[i];
  return ctas;
}

llvm::Error Launch::checkClusters(const Program &program) const {
  std::array<int64_t, 3> ctas = ctaGrid(program);
  if (program.numCtas > 1)
    if (auto err = checkGrid(ctas, "the CTA grid (the grid times the cluster shape, ttg.num-ctas > 1)"))
      return err;
  const auto &c = program.clusterDims;
  if (clusterDims && ((*clusterDims)[0] != c[0] || (*clusterDims)[1] != c[1] || (*clusterDims)[2] != c[2]))
    return llvm::createStringError(
        "the launch's cluster_dims (%lld, %lld, %lld) disagree with the module's cluster shape (%d, %d, %d) "
        "(ttg.cluster-dim-x/-y/-z, else ttg.num-ctas along x)",
        static_cast<long long>((*clusterDims)[0]), static_cast<long long>((*clusterDims)[1]),
        static_cast<long long>((*clusterDims)[2]), c[0], c[1], c[2]);
  if (ctas[0] % c[0] || ctas[1] % c[1] || ctas[2] % c[2])
    return llvm::createStringError(
        "the grid (%lld, %lld, %lld) is not a whole number of clusters of shape (%d, %d, %d) along every dimension "
        "(module attributes ttg.cluster-dim-x/-y/-z): CUDA rejects the launch (CUDA_ERROR_INVALID_CLUSTER_SIZE)",
        static_cast<long long>(ctas[0]), static_cast<long long>(ctas[1]), static_cast<long long>(ctas[2]), c[0],
        c[1], c[2]);
  return llvm::Error::success();
}

llvm::Expected<std::vector<Value>> Launch::bind(const Program &program) const {
  std::vector<Value> frame(program.numSlots);
  std::vector<std::string> missing, invalid;
  // Values given by flag must name an argument of the kernel (a launch spec's may not: unusedValueWarnings).
  auto checkFlags = [&](const llvm::StringSet<> &flags, KernelArg::Kind kind, llvm::StringRef flag,
                        llvm::StringRef what) {
    for (const auto &name : flags) {
      bool known = false;
      std::string names;
      for (const KernelArg &arg : program.args)
        if (arg.kind == kind) {
          known |= arg.name == name.getKey();
          names += (names.empty() ? "" : ", ") + arg.name;
        }
      if (!known)
        invalid.push_back(flag.str() + " " + name.getKey().str() + ": the kernel has no " + what.str() +
                          " of that name (it has: " + (names.empty() ? std::string("none") : names) + ")");
    }
  };
  checkFlags(flagArgs, KernelArg::Scalar, "--arg", "scalar argument");
  checkFlags(flagDescs, KernelArg::Desc, "--desc", "tensor-descriptor argument");
  if (!haveGrid)
    missing.push_back("the grid (--grid X[,Y[,Z]])");
  for (size_t i = 0; i < program.args.size(); ++i) {
    const KernelArg &arg = program.args[i];
    switch (arg.kind) {
    case KernelArg::Scalar: {
      auto it = args.find(arg.name);
      bool haveFloat = floatArgs.count(arg.name) > 0;
      if (arg.isFloat && (it != args.end() || haveFloat)) {
        frame[arg.slot] = Value::tensor(); // float scalars carry no data (see bind's docstring)
        break;
      }
      if (it == args.end() && haveFloat) {
        invalid.push_back("argument '" + arg.name + "' = " + std::to_string(floatArgs.lookup(arg.name)) +
                          " is not an integer (the kernel's argument is i" + std::to_string(arg.bits) + ")");
        break;
      }
      if (it == args.end()) {
        missing.push_back("scalar argument '" + arg.name + "' (--arg " + arg.name + "=VALUE)");
        break;
      }
      // The value must fit the argument's type as Triton passes it: an i1 is 0 or 1, an iN (N < 64) is signed
      // (triton/runtime/jit.py mangle_type types an int in [-2^31, 2^31) as i32 and a larger one as i64 or u64,
      // which compiles another kernel: 3000000000 for an i32 K is not a launch of this binary; it used to wrap to a
      // negative K and a kernel that did no work).
      int64_t value = it->second;
      bool fits = arg.bits >= 64 || (arg.bits == 1 ? value == 0 || value == 1
                                                   : value >= -(int64_t(1) << (arg.bits - 1)) &&
                                                         value < (int64_t(1) << (arg.bits - 1)));
      if (!fits)
        invalid.push_back("argument '" + arg.name + "' = " + std::to_string(value) + " does not fit its i" +
                          std::to_string(arg.bits) + " type" +
                          (arg.bits == 32 ? " (Triton passes an int outside [-2^31, 2^31) as i64: another kernel)"
                                          : ""));
      else
        frame[arg.slot] = Value::integer(value);
      break;
    }
    case KernelArg::Pointer: // address 0 of the argument's buffer (Value::alloc), followed by scalar tt.addptr
      frame[arg.slot] = Value::integer(0);
      frame[arg.slot].alloc = static_cast<int32_t>(i);
      break;
    case KernelArg::Desc: {
      auto it = descShapes.find(arg.name);
      if (it == descShapes.end()) {
        missing.push_back("the " + std::to_string(arg.block.size()) + "-d global shape of descriptor '" + arg.name +
                          "' (--desc " + arg.name + "=D0x...)");
        break;
      }
      if (it->second.size() != arg.block.size()) {
        invalid.push_back("descriptor '" + arg.name + "' is " + std::to_string(arg.block.size()) +
                          "-d, but its shape has " + std::to_string(it->second.size()) + " dimensions");
        break;
      }
      frame[arg.slot] = Value{Value::Desc, static_cast<int32_t>(i), 0};
      break;
    }
    case KernelArg::DescShape:
    case KernelArg::DescStride: {
      auto it = descShapes.find(arg.name);
      if (it == descShapes.end() || arg.dim >= static_cast<int32_t>(it->second.size()))
        break; // reported with the descriptor
      const std::vector<int64_t> &shape = it->second;
      int64_t value = shape[arg.dim];
      if (arg.kind == KernelArg::DescStride) {
        value = 1;
        for (size_t d = arg.dim + 1; d < shape.size(); ++d)
          value *= shape[d];
      }
      frame[arg.slot] = Value::integer(value);
      break;
    }
    }
  }
  if (!missing.empty() || !invalid.empty()) {
    std::string message;
    for (size_t i = 0; i < invalid.size(); ++i)
      message += (i ? "; " : "") + invalid[i];
    if (!missing.empty())
      message += (message.empty() ? "" : "; ") + std::string("the launch lacks ");
    for (size_t i = 0; i < missing.size(); ++i)
      message += (i ? "; " : "") + missing[i];
    if (forOtherKernel(program))
      message = specKernelOrigin + " is a launch of kernel '" + specKernel + "', not of this module's '" +
                program.kernelName + "' (another capture's launch.json?): " + message;
    return llvm::createStringError("%s", message.c_str());
  }
  return frame;
}

} // namespace tlxsim::sim
