// The .ttgir an input path names: a file, a Triton cache or capture folder, or a folder of capture folders.
// LLVM Support only: the static runner-only tlx-sim links it too (tools/CMakeLists.txt).
#include "ir/InputPath.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <vector>

namespace tlxsim::ir {

/// The entries of folder `path` that `keep` accepts, sorted.
template <typename Keep> static std::vector<std::string> entriesIn(llvm::StringRef path, Keep keep) {
  std::vector<std::string> found;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(path, ec), end; it != end && !ec; it.increment(ec))
    if (keep(it->path()))
      found.push_back(it->path());
  std::sort(found.begin(), found.end());
  return found;
}

/// The .ttgir files directly in folder `path`, sorted.
static std::vector<std::string> ttgirFilesIn(llvm::StringRef path) {
  return entriesIn(path, [](llvm::StringRef p) { return llvm::sys::path::extension(p) == ".ttgir"; });
}

std::string resolveTTGIRPath(llvm::StringRef path, llvm::raw_ostream &diag) {
  if (!llvm::sys::fs::is_directory(path))
    return path.str();
  std::vector<std::string> found = ttgirFilesIn(path);
  if (found.size() == 1)
    return found.front();
  if (found.empty()) {
    // A folder of capture folders (run_script's or capture's --out): the .ttgir of the one capture in it, or the
    // captures' names.
    std::vector<std::string> captures;
    for (const std::string &sub : entriesIn(path, [](llvm::StringRef p) { return llvm::sys::fs::is_directory(p); }))
      if (std::vector<std::string> inside = ttgirFilesIn(sub); inside.size() == 1)
        captures.push_back(inside.front());
    if (captures.size() == 1)
      return captures.front();
    if (!captures.empty()) {
      diag << path << ": error: this folder holds " << captures.size()
           << " capture folders, not a .ttgir file; name one of them, e.g. "
           << llvm::sys::path::parent_path(captures.front()) << "\n";
      return {};
    }
  }
  diag << path << ": error: expected exactly one .ttgir file in this directory, found " << found.size() << "\n";
  return {};
}

} // namespace tlxsim::ir
