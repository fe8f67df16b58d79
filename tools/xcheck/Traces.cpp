#include "tools/xcheck/Traces.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;

namespace tlxsim::xcheck {
namespace {

Error fail(const Twine &message) { return createStringError(inconvertibleErrorCode(), message); }

/// The one `.ttgir` file in `dir`.
Expected<std::string> findTtgir(StringRef dir, const Twine &where) {
  std::error_code ec;
  std::vector<std::string> found;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    if (sys::path::extension(it->path()) == ".ttgir")
      found.push_back(it->path());
  if (ec)
    return fail(where + ": cannot list capture folder " + dir + ": " + ec.message());
  if (found.size() != 1)
    return fail(where + ": capture folder " + dir + " holds " + Twine(found.size()) + " .ttgir files, expected 1");
  return found.front();
}

/// "M=8192,N=8192" from {"M": 8192, "N": 8192} (keys sorted, as llvm::json::Object iterates unordered).
std::string shapeText(const json::Object &shape) {
  std::vector<std::string> keys;
  for (const auto &kv : shape)
    keys.push_back(kv.first.str());
  std::sort(keys.begin(), keys.end());
  std::string text;
  for (const std::string &k : keys) {
    const json::Value *v = shape.get(k);
    std::string value;
    if (auto i = v->getAsInteger())
      value = std::to_string(*i);
    else
      value = formatv("{0}", *v).str();
    text += (text.empty() ? "" : ",") + k + "=" + value;
  }
  return text;
}

/// Calls `visit(name, part)` for each object of `proton.summary.partitions` of `holder` (a trace record or a native
/// summary); nothing when absent.
void forEachProtonPartition(const json::Object &holder,
                            llvm::function_ref<void(StringRef, const json::Object &)> visit) {
  if (const json::Object *proton = holder.getObject("proton"))
    if (const json::Object *summary = proton->getObject("summary"))
      if (const json::Object *parts = summary->getObject("partitions"))
        for (const auto &[name, value] : *parts)
          if (const json::Object *part = value.getAsObject())
            visit(name, *part);
}

/// `proton.summary.partitions.*.wait_frac` of `holder`, sorted by partition name; empty when absent.
std::vector<std::pair<std::string, double>> protonWaitFractions(const json::Object &holder) {
  std::vector<std::pair<std::string, double>> fractions;
  forEachProtonPartition(holder, [&](StringRef name, const json::Object &part) {
    if (auto wait = part.getNumber("wait_frac"))
      fractions.emplace_back(name.str(), *wait);
  });
  std::sort(fractions.begin(), fractions.end());
  return fractions;
}

/// `proton.summary.partitions.*.scopes` of `holder`: per partition, the scope names Proton recorded.
std::map<std::string, std::set<std::string>> protonScopeNames(const json::Object &holder) {
  std::map<std::string, std::set<std::string>> names;
  forEachProtonPartition(holder, [&](StringRef name, const json::Object &part) {
    if (const json::Object *scopes = part.getObject("scopes"))
      for (const auto &scope : *scopes)
        names[name.str()].insert(scope.first.str());
  });
  return names;
}

/// The JSON object in file `path`.
Expected<json::Object> readObject(StringRef path) {
  auto buffer = MemoryBuffer::getFile(path);
  if (!buffer)
    return fail(path + ": cannot read: " + buffer.getError().message());
  auto parsed = json::parse((*buffer)->getBuffer());
  if (!parsed)
    return fail(path + ": invalid JSON: " + toString(parsed.takeError()));
  if (json::Object *root = parsed->getAsObject())
    return std::move(*root);
  return fail(path + ": expected a JSON object");
}

/// `capture` as a folder: relative to the working directory, else to the first folder above `file` under which it
/// exists. Empty when neither holds it.
std::string resolveCapture(StringRef capture, StringRef file) {
  if (sys::path::is_absolute(capture) || sys::fs::is_directory(capture))
    return capture.str();
  SmallString<256> dir(file);
  sys::path::remove_filename(dir);
  while (!dir.empty()) {
    SmallString<256> candidate(dir);
    sys::path::append(candidate, capture);
    if (sys::fs::is_directory(candidate))
      return std::string(candidate);
    StringRef parent = sys::path::parent_path(dir);
    if (parent == dir)
      break;
    dir.resize(parent.size()); // the parent is a prefix of `dir`: assigning the StringRef would read freed storage
  }
  return "";
}

/// One native Proton summary (readProtonSummaries) as a record.
Expected<TraceRecord> readProtonSummary(StringRef path) {
  auto root = readObject(path);
  if (!root)
    return root.takeError();
  auto capture = root->getString("capture");
  const json::Object *shape = root->getObject("shape");
  if (!capture || !shape)
    return fail(path + ": a Proton summary needs \"capture\" and \"shape\" (traces/README.md)");
  TraceRecord r;
  r.file = path.str();
  // "<kernel>-<shape>_<config>.summary.json": the kernel as its trace file names it (tlx_ prefix for TLX tutorials)
  r.kernel = sys::path::filename(path).split('-').first.str();
  r.config = root->getString("config").value_or("").str();
  r.shape = shapeText(*shape);
  r.split = "proton";
  r.protonWaitFrac = protonWaitFractions(*root);
  r.protonScopes = protonScopeNames(*root);
  if (r.protonWaitFrac.empty())
    return fail(path + ": no proton.summary.partitions.*.wait_frac");
  std::string dir = resolveCapture(*capture, path);
  if (dir.empty())
    return fail(path + ": capture folder " + *capture + " not found");
  auto ttgir = findTtgir(dir, path);
  if (!ttgir)
    return ttgir.takeError();
  r.ttgir = *ttgir;
  SmallString<256> launchPath(dir);
  sys::path::append(launchPath, "launch.json");
  auto launch = readObject(launchPath);
  if (!launch)
    return launch.takeError();
  r.launch = std::move(*launch);
  return r;
}

Error readFile(StringRef path, std::vector<TraceRecord> &out) {
  auto object = readObject(path);
  if (!object)
    return object.takeError();
  const json::Object *root = &*object;
  const json::Array *records = root->getArray("records");
  if (!records)
    return Error::success(); // not a trace file (e.g. plan.json)
  auto gpu = root->getString("gpu");
  auto kernel = root->getString("kernel");
  if (!gpu || !kernel)
    return fail(path + ": a trace file needs \"gpu\" and \"kernel\"");
  SmallString<256> folder(path);
  sys::path::remove_filename(folder);
  for (size_t i = 0; i < records->size(); ++i) {
    std::string where = formatv("{0}: records[{1}]", path, i).str();
    const json::Object *rec = (*records)[i].getAsObject();
    if (!rec)
      return fail(where + ": expected an object");
    TraceRecord r;
    r.file = path.str();
    r.gpu = gpu->str();
    r.kernel = kernel->str();
    auto config = rec->getString("config");
    auto split = rec->getString("split");
    auto measured = rec->getNumber("measured_us");
    auto capture = rec->getString("capture");
    const json::Object *shape = rec->getObject("shape");
    const json::Object *launch = rec->getObject("launch");
    if (!config || !split || !measured || !capture || !shape || !launch)
      return fail(where + ": needs config, shape, split, measured_us, launch and capture (traces/README.md)");
    if (*split != "fit" && *split != "heldout")
      return fail(where + ": split must be \"fit\" or \"heldout\", not \"" + *split + "\"");
    if (!(*measured > 0))
      return fail(where + ": measured_us must be positive");
    r.config = config->str();
    r.split = split->str();
    r.measuredUs = *measured;
    if (const json::Object *clock = rec->getObject("sm_clock_mhz"))
      if (auto mean = clock->getNumber("mean"); mean && *mean > 0)
        r.measuredClockMhz = *mean;
    if (const json::Object *ncu = rec->getObject("ncu"))
      if (auto cycles = ncu->getNumber("cycles"); cycles && *cycles > 0)
        r.measuredCycles = *cycles;
    r.shape = shapeText(*shape);
    SmallString<256> dir(folder);
    sys::path::append(dir, *capture);
    auto ttgir = findTtgir(dir, where);
    if (!ttgir)
      return ttgir.takeError();
    r.ttgir = *ttgir;
    r.launch = json::Object(*launch);
    r.protonWaitFrac = protonWaitFractions(*rec);
    r.protonScopes = protonScopeNames(*rec);
    out.push_back(std::move(r));
  }
  return Error::success();
}

} // namespace

Expected<std::vector<TraceRecord>> readTraces(const std::vector<std::string> &paths) {
  std::vector<TraceRecord> out;
  for (const std::string &path : paths) {
    if (!sys::fs::is_directory(path)) {
      if (!sys::fs::exists(path))
        return fail(path + ": no such file or folder");
      if (auto err = readFile(path, out))
        return err;
      continue;
    }
    std::error_code ec;
    std::vector<std::string> files;
    for (sys::fs::directory_iterator it(path, ec), end; it != end && !ec; it.increment(ec))
      if (sys::path::extension(it->path()) == ".json")
        files.push_back(it->path());
    if (ec)
      return fail(path + ": cannot list: " + ec.message());
    std::sort(files.begin(), files.end());
    for (const std::string &file : files)
      if (auto err = readFile(file, out))
        return err;
  }
  return out;
}

Expected<std::vector<TraceRecord>> readProtonSummaries(const std::string &dir) {
  std::error_code ec;
  std::vector<std::string> files;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    if (StringRef(it->path()).ends_with(".summary.json"))
      files.push_back(it->path());
  if (ec)
    return fail(dir + ": cannot list: " + ec.message());
  if (files.empty())
    return fail(dir + ": no *.summary.json (tlx-sim run --proton, tools/h200-proton.sh)");
  std::sort(files.begin(), files.end());
  std::vector<TraceRecord> out;
  for (const std::string &file : files) {
    auto r = readProtonSummary(file);
    if (!r)
      return r.takeError();
    out.push_back(std::move(*r));
  }
  return out;
}

} // namespace tlxsim::xcheck
