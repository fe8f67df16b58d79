#include "tools/xcheck/Traces.h"

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

Error readFile(StringRef path, std::vector<TraceRecord> &out) {
  auto buffer = MemoryBuffer::getFile(path);
  if (!buffer)
    return fail(path + ": cannot read: " + buffer.getError().message());
  auto parsed = json::parse((*buffer)->getBuffer());
  if (!parsed)
    return fail(path + ": invalid JSON: " + toString(parsed.takeError()));
  const json::Object *root = parsed->getAsObject();
  if (!root)
    return fail(path + ": expected a JSON object");
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
    r.shape = shapeText(*shape);
    SmallString<256> dir(folder);
    sys::path::append(dir, *capture);
    auto ttgir = findTtgir(dir, where);
    if (!ttgir)
      return ttgir.takeError();
    r.ttgir = *ttgir;
    r.launch = json::Object(*launch);
    if (const json::Object *proton = rec->getObject("proton"))
      if (const json::Object *summary = proton->getObject("summary"))
        if (const json::Object *parts = summary->getObject("partitions"))
          for (const auto &[name, value] : *parts)
            if (const json::Object *part = value.getAsObject())
              if (auto wait = part->getNumber("wait_frac"))
                r.protonWaitFrac.emplace_back(name.str(), *wait);
    std::sort(r.protonWaitFrac.begin(), r.protonWaitFrac.end());
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

} // namespace tlxsim::xcheck
