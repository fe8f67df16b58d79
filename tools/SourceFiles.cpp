#include "tools/SourceFiles.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace llvm;

namespace tlxsim::tool {

namespace {

/// `venv`'s site-packages directories (lib/python3*/site-packages), if `venv` is a directory.
void addSitePackages(StringRef venv, std::vector<std::string> &out) {
  SmallString<256> lib(venv);
  sys::path::append(lib, "lib");
  std::error_code ec;
  for (sys::fs::directory_iterator it(lib, ec), end; !ec && it != end; it.increment(ec)) {
    if (!sys::path::filename(it->path()).starts_with("python3"))
      continue;
    SmallString<256> site(it->path());
    sys::path::append(site, "site-packages");
    if (sys::fs::is_directory(site))
      out.push_back(std::string(site));
  }
}

} // namespace

SourceFiles::SourceFiles(StringRef input) {
  SmallString<256> dir(input);
  sys::fs::make_absolute(dir);
  std::vector<std::string> parents;
  for (StringRef d = sys::path::parent_path(dir); !d.empty(); d = sys::path::parent_path(d)) {
    parents.push_back(d.str());
    if (d == sys::path::root_path(d))
      break;
  }
  roots_ = parents;
  SmallString<256> cwd;
  if (!sys::fs::current_path(cwd))
    parents.insert(parents.begin(), std::string(cwd));
  for (const std::string &p : parents)
    for (const char *venv : {".venv-tlx", ".venv"}) {
      SmallString<256> v(p);
      sys::path::append(v, venv);
      addSitePackages(v, roots_);
    }
  if (std::optional<std::string> venv = sys::Process::GetEnv("VIRTUAL_ENV"))
    addSitePackages(*venv, roots_);
}

std::string SourceFiles::resolve(const std::string &file) {
  auto it = resolved_.find(file);
  if (it != resolved_.end())
    return it->second;
  std::string found;
  if (sys::fs::exists(file)) {
    found = file;
  } else if (!sys::path::is_absolute(file)) {
    for (const std::string &root : roots_) {
      SmallString<256> p(root);
      sys::path::append(p, file);
      if (sys::fs::exists(p)) {
        found = std::string(p);
        break;
      }
    }
  }
  return resolved_.emplace(file, found).first->second;
}

std::string SourceFiles::line(const ir::SourceLoc &loc) {
  if (!loc.valid())
    return "";
  auto it = lines_.find(loc.file);
  if (it == lines_.end()) {
    std::vector<std::string> lines;
    if (std::string path = resolve(loc.file); !path.empty())
      if (auto buffer = MemoryBuffer::getFile(path)) {
        SmallVector<StringRef> parts;
        (*buffer)->getBuffer().split(parts, '\n');
        for (StringRef p : parts)
          lines.push_back(p.rtrim("\r").str());
      }
    it = lines_.emplace(loc.file, std::move(lines)).first;
  }
  return loc.line >= 1 && loc.line <= it->second.size() ? it->second[loc.line - 1] : "";
}

} // namespace tlxsim::tool
