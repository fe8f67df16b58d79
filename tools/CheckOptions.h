// Options of `tlx-sim check` beyond the shared launch options: --schedules / --schedule-seed (re-run the
// launch under several latency schedules), --sarif FILE, --baseline FILE and --write-baseline FILE.
#pragma once

#include "tools/Simulation.h"
#include "verifier/Finding.h"

#include <vector>

namespace tlxsim::tool {

/// Adds the findings of the extra schedules (--schedules N > 1) to `findings` (from the default schedule),
/// deduplicated by class and location (the first schedule that exposed a finding names it), then applies
/// --write-baseline, --baseline and --sarif. Returns kClean, or kBadInput / kInternal after printing why.
int finishCheck(PreparedSimulation &prepared, std::vector<verifier::Finding> &findings);

} // namespace tlxsim::tool
