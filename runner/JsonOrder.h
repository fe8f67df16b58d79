// Member order of JSON objects. llvm::json::Object does not keep insertion order, but a
// kernel's parameters are positional: the order of launch.json's "signature" object is the
// order of the kernel's arguments (Triton writes it from the function's parameter list).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tlxsim::runner {

/// The keys, in file order, of the object that is the value of top-level member `member` of
/// the JSON document `text` (e.g. "signature" of launch.json). The document must be valid JSON
/// (parse it with llvm::json first); fails when the member is missing or not an object.
llvm::Expected<std::vector<std::string>> orderedMemberKeys(llvm::StringRef text, llvm::StringRef member);

} // namespace tlxsim::runner
