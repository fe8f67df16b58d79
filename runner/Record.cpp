#include "runner/Record.h"

#include "runner/RunReport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/ADT/StringExtras.h"

namespace tlxsim::runner {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

constexpr const char *kRecorder = "tlx-sim run";

} // namespace

std::string traceKernelName(llvm::StringRef module) {
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef rel = module;
  rel.consume_back(".py");
  // TLX's own tutorials (captured from fbtriton's wheel as they are): tlx_<tutorial file stem>.
  if (rel.consume_front("triton/language/extra/tlx/tutorials/"))
    return "tlx_" + llvm::join(llvm::split(rel, '/'), "_");
  rel.consume_front("kernels/");
  rel.split(parts, '/');
  if (parts.size() > 1 && llvm::is_contained({"hopper", "blackwell", "amd"}, parts.front()))
    parts.erase(parts.begin());
  return llvm::join(parts, "_");
}

namespace {

std::string moduleStem(const Capture &c) { return traceKernelName(c.module.empty() ? c.kernel : c.module); }

Object shapeObject(const Capture &c) {
  Object shape;
  for (const auto &[key, value] : c.shape)
    shape[key] = value;
  return shape;
}

} // namespace

Object makeRecord(const Capture &c, const RunResult &run, llvm::StringRef split, llvm::StringRef captureRel) {
  Object launch;
  for (const char *key : {"grid", "args", "descs", "ptrs"})
    if (const Value *v = c.launchJson.get(key))
      launch[key] = *v;
  Array times;
  for (double t : run.roundMedianUs)
    times.push_back(t);
  Object record{{"config", c.config},
                {"shape", shapeObject(c)},
                {"split", split},
                {"launch", std::move(launch)},
                {"capture", captureRel},
                {"measured_us", run.medianUs},
                {"times_us", std::move(times)},
                {"cv", sampleCv(run.roundMedianUs)},
                {"min_us", run.timeUs.min},
                {"max_us", run.timeUs.max},
                {"iterations", run.itersPerRound},
                {"sm_clock_mhz", smClockJson(run)},
                {"correct", run.check ? Value(run.check->ok) : Value(nullptr)},
                {"max_rel_err", run.check ? Value(run.check->maxRelErr) : Value(nullptr)},
                {"flops", run.reference.flops > 0 ? Value(run.reference.flops) : Value(nullptr)},
                {"bytes", run.bytes},
                {"registers", run.registers},
                {"timing", run.timer},
                {"do_bench_us", run.eventsMedianUs},
                {"recorder", kRecorder}};
  return record;
}

llvm::Expected<Object> mergeRecord(std::optional<Object> existing, Object record, const Capture &c,
                                   const RunResult &run, llvm::StringRef gpu, llvm::StringRef date) {
  Object doc = existing ? std::move(*existing) : Object{};
  if (existing) {
    auto module = doc.getString("module");
    if (module && !c.module.empty() && *module != c.module)
      return llvm::createStringError("the trace file is for module %s, not %s", module->str().c_str(),
                                     c.module.c_str());
  }
  Array records;
  if (Array *old = doc.getArray("records")) {
    for (Value &v : *old) {
      Object *o = v.getAsObject();
      bool same = o && o->getString("config") == llvm::StringRef(c.config) &&
                  o->getString("recorder") == llvm::StringRef(kRecorder) && o->get("shape") &&
                  *o->get("shape") == *record.get("shape");
      if (same) {
        if (auto split = o->getString("split"))
          record["split"] = *split;
        continue;
      }
      records.push_back(std::move(v));
    }
  }
  records.push_back(std::move(record));
  Object env = doc.getObject("env") ? *doc.getObject("env") : Object{};
  env["driver"] = run.device.driverVersion;
  env["sm_clock_max_mhz"] = run.smClockMaxMHz ? *run.smClockMaxMHz : run.device.smClockMaxMHz;
  env["recorded"] = date;
  doc["schema_version"] = 1;
  if (!doc.getString("gpu")) // a trace file keeps the GPU it was made for (traces/h200/tlx/ is still h200)
    doc["gpu"] = gpu;
  doc["device_name"] = run.device.name;
  doc["kernel"] = moduleStem(c);
  doc["module"] = c.module;
  doc["target"] = c.target;
  doc["env"] = std::move(env);
  doc["records"] = std::move(records);
  return doc;
}

llvm::Error writeRecord(const Capture &c, const RunResult &run, const RecordOptions &options) {
  llvm::SmallString<256> folder(options.path);
  llvm::sys::path::remove_filename(folder);
  if (folder.empty())
    folder = ".";
  // The GPU is the folder after `traces` (traces/<gpu>/..., also traces/h200/tlx/), else the file's folder name,
  // else the device name's last word ("NVIDIA H200" -> h200). An existing trace file keeps its own (mergeRecord).
  std::string gpu = llvm::sys::path::filename(folder).str();
  for (auto it = llvm::sys::path::begin(folder), end = llvm::sys::path::end(folder); it != end; ++it)
    if (*it == "traces" && std::next(it) != end) {
      gpu = std::next(it)->str();
      break;
    }
  if (gpu.empty() || gpu == "." || gpu == "..")
    gpu = llvm::StringRef(run.device.name).rsplit(' ').second.lower();
  auto binary = llvm::MemoryBuffer::getFile(c.binaryPath, false, false);
  if (!binary)
    return llvm::createStringError("%s: %s", c.binaryPath.c_str(), binary.getError().message().c_str());
  auto digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef((*binary)->getBuffer()));
  std::string hash = llvm::toHex(digest, /*LowerCase=*/true).substr(0, 8);
  std::string rel = ("captures/" + moduleStem(c) + "/" + c.config + "-" + hash);
  llvm::SmallString<256> copyDir(folder);
  llvm::sys::path::append(copyDir, rel);
  if (auto ec = llvm::sys::fs::create_directories(copyDir))
    return llvm::createStringError("%s: %s", copyDir.c_str(), ec.message().c_str());
  for (std::string file : {std::string("launch.json"), c.kernel + ".json", c.kernel + ".ttgir",
                           llvm::sys::path::filename(c.binaryPath).str()}) {
    llvm::SmallString<256> from(c.dir), to(copyDir);
    llvm::sys::path::append(from, file);
    llvm::sys::path::append(to, file);
    if (!llvm::sys::fs::exists(from))
      continue;
    if (auto ec = llvm::sys::fs::copy_file(from, to))
      return llvm::createStringError("copying %s: %s", from.c_str(), ec.message().c_str());
  }
  std::optional<Object> existing;
  if (llvm::sys::fs::exists(options.path)) {
    auto text = llvm::MemoryBuffer::getFile(options.path);
    if (!text)
      return llvm::createStringError("%s: %s", options.path.c_str(), text.getError().message().c_str());
    auto parsed = llvm::json::parse((*text)->getBuffer());
    if (!parsed)
      return llvm::createStringError("%s: %s", options.path.c_str(), llvm::toString(parsed.takeError()).c_str());
    if (!parsed->getAsObject())
      return llvm::createStringError("%s: not a JSON object", options.path.c_str());
    existing = *parsed->getAsObject();
  }
  auto doc = mergeRecord(std::move(existing), makeRecord(c, run, options.split, rel), c, run, gpu, options.date);
  if (!doc)
    return llvm::createStringError("%s: %s", options.path.c_str(), llvm::toString(doc.takeError()).c_str());
  std::error_code ec;
  llvm::raw_fd_ostream out(options.path, ec);
  if (ec)
    return llvm::createStringError("%s: %s", options.path.c_str(), ec.message().c_str());
  out << llvm::formatv("{0:2}", Value(std::move(*doc))) << "\n";
  return llvm::Error::success();
}

} // namespace tlxsim::runner
