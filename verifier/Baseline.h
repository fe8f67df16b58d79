// Baselines: findings accepted in CI and suppressed on later runs (`check --write-baseline FILE`, then
// `check --baseline FILE`). A finding is matched by its fingerprint: class, file, the message with every
// number replaced (iterations, cycles, phases, line numbers in the text) and the text of the source line it
// points at (not its number), so edits that move code keep the baseline valid.
#pragma once

#include "verifier/Finding.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <set>
#include <string>
#include <vector>

namespace tlxsim::verifier {

/// The fingerprint of `finding` (16 hex digits).
std::string fingerprint(const Finding &finding);

/// `findings` as a baseline file's content: {"schema_version": 1, "findings": [{fingerprint, class, location,
/// message}]}, one entry per fingerprint.
llvm::json::Value baselineJson(const std::vector<Finding> &findings);

/// The fingerprints of a baseline file. Errors: unreadable file, invalid JSON, missing fields.
llvm::Expected<std::set<std::string>> readBaseline(const std::string &path);

} // namespace tlxsim::verifier
