// The .ttgir an input path names: a file, a Triton cache or capture folder, or a folder of capture folders.
// LLVM Support only: the static runner-only tlx-sim links it too (tools/CMakeLists.txt).
#include "ir/InputPath.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <vector>

namespace tlxsim::ir {

/// The .ttgir files directly in folder `path`, sorted.
static std::vector<std::string> ttgirFilesIn(llvm::StringRef path) {
  std::vector<std::string> found;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(path, ec), end; it != end && !ec; it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".ttgir")
      found.push_back(it->path());
  std::sort(found.begin(), found.end());
  return found;
}

std::string resolveTTGIRPath(llvm::StringRef path, llvm::raw_ostream &diag) {
  if (!llvm::sys::fs::is_directory(path))
    return path.str();
  std::vector<std::string> found = ttgirFilesIn(path);
  if (found.size() == 1)
    return found.front();
  if (found.empty()) {
    // A folder of capture folders (run_script's or capture's --out): the one capture in it, or their names.
    std::vector<std::string> captures;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(path, ec), end; it != end && !ec; it.increment(ec))
      if (llvm::sys::fs::is_directory(it->path()) && ttgirFilesIn(it->path()).size() == 1)
        captures.push_back(it->path());
    std::sort(captures.begin(), captures.end());
    if (captures.size() == 1)
      return ttgirFilesIn(captures.front()).front();
    if (!captures.empty()) {
      diag << path << ": error: this folder holds " << captures.size()
           << " capture folders, not a .ttgir file; name one of them, e.g. " << captures.front() << "\n";
      return {};
    }
  }
  diag << path << ": error: expected exactly one .ttgir file in this directory, found " << found.size() << "\n";
  return {};
}

} // namespace tlxsim::ir
