// SARIF 2.1.0 output of `check --sarif FILE` (OASIS Static Analysis Results Interchange Format 2.1.0,
// https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html), for code-review tools: one run of the
// driver `tlx-sim`, one rule per finding class (design.md), one result per finding at its Python line with
// the related accesses and notes as relatedLocations, the baseline fingerprint as a partial fingerprint and
// the schedule that exposed it as a property.
#pragma once

#include "verifier/Finding.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace tlxsim::verifier {

/// The SARIF log object for `findings`.
llvm::json::Object toSarif(const std::vector<Finding> &findings);

} // namespace tlxsim::verifier
