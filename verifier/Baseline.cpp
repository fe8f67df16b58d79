#include "verifier/Baseline.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cctype>

namespace tlxsim::verifier {

namespace {

/// The text of line `line` of `file`, trimmed; empty if unreadable.
std::string sourceLine(const std::string &file, unsigned line) {
  auto buffer = llvm::MemoryBuffer::getFile(file);
  if (!buffer || line == 0)
    return {};
  llvm::StringRef text = (*buffer)->getBuffer();
  for (unsigned i = 1; i < line && !text.empty(); ++i)
    text = text.split('\n').second;
  return text.split('\n').first.trim().str();
}

std::string withoutNumbers(const std::string &text) {
  std::string out;
  for (char c : text)
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (out.empty() || out.back() != '#')
        out += '#';
    } else {
      out += c;
    }
  return out;
}

} // namespace

std::string fingerprint(const Finding &f) {
  std::string line = sourceLine(f.location.file, f.location.line);
  std::string key = f.cls + "\n" + llvm::sys::path::filename(f.location.file).str() + "\n" + withoutNumbers(f.message) +
                    "\n" + (line.empty() ? std::to_string(f.location.line) : line);
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::format_hex_no_prefix(llvm::xxh3_64bits(llvm::StringRef(key)), 16);
  return out;
}

llvm::json::Value baselineJson(const std::vector<Finding> &findings) {
  llvm::json::Array entries;
  std::set<std::string> seen;
  for (const Finding &f : findings) {
    std::string fp = fingerprint(f);
    if (!seen.insert(fp).second)
      continue;
    entries.push_back(llvm::json::Object{
        {"fingerprint", fp}, {"class", f.cls}, {"location", f.location.str()}, {"message", f.message}});
  }
  return llvm::json::Object{{"schema_version", 1}, {"findings", std::move(entries)}};
}

llvm::Expected<std::set<std::string>> readBaseline(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError("%s: cannot read baseline: %s", path.c_str(), buffer.getError().message().c_str());
  auto json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return llvm::createStringError("%s: invalid JSON: %s", path.c_str(), llvm::toString(json.takeError()).c_str());
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Array *entries = root ? root->getArray("findings") : nullptr;
  if (!entries)
    return llvm::createStringError("%s: a baseline is an object with a 'findings' array", path.c_str());
  std::set<std::string> out;
  for (const llvm::json::Value &entry : *entries) {
    const llvm::json::Object *obj = entry.getAsObject();
    auto fp = obj ? obj->getString("fingerprint") : std::nullopt;
    if (!fp)
      return llvm::createStringError("%s: every baseline entry needs a 'fingerprint' string", path.c_str());
    out.insert(fp->str());
  }
  return out;
}

} // namespace tlxsim::verifier
