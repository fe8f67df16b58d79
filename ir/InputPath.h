// The .ttgir an input path names (ir/InputPath.cpp).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tlxsim::ir {

/// The `.ttgir` file `path` names: `path` itself; the single `.ttgir` in a folder (a Triton cache or capture
/// folder); or, for a folder with no `.ttgir` of its own that holds exactly one capture folder (capture's or
/// run_script's `--out`), that folder's `.ttgir`. Empty, with a `path: error: ...` line on `diag`, otherwise (a
/// folder of several capture folders names the first of them as an example).
std::string resolveTTGIRPath(llvm::StringRef path, llvm::raw_ostream &diag);

} // namespace tlxsim::ir
