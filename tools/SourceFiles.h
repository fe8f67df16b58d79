// Finds the Python files that a kernel's locations name, for showing source lines (report) and for telling the user
// where relative paths live (check).
#pragma once

#include "ir/Location.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace tlxsim::tool {

/// Finds the files that locations name. A location's path is what the compiler recorded: absolute, relative to the
/// directory Triton ran in (repository-relative for this project's kernels), or, for a module imported from an
/// installed package (TLX's tutorials: `triton/language/extra/tlx/tutorials/...`), relative to that package's
/// site-packages directory. Candidates, in order: the path as given (from the current directory); the path under
/// each parent directory of the input file; under the site-packages directories (`lib/python3*/site-packages`) of
/// the virtual environments `.venv-tlx` and `.venv` in the current directory and in those parent directories, and
/// of `$VIRTUAL_ENV`. Lookups are cached.
class SourceFiles {
public:
  /// `input`: the checked file or capture directory (its parents are searched).
  explicit SourceFiles(llvm::StringRef input);
  /// The readable file `file` names, as a path from the current directory (absolute where found under a root), or
  /// "" when no candidate exists.
  std::string resolve(const std::string &file);
  /// The text of `loc`'s line (1-based), without its newline; "" if the file or line is not found.
  std::string line(const ir::SourceLoc &loc);

private:
  std::vector<std::string> roots_; ///< directories a relative path is tried under, in order
  std::map<std::string, std::string> resolved_;
  std::map<std::string, std::vector<std::string>> lines_;
};

} // namespace tlxsim::tool
