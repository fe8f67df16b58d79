// Chrome / Perfetto trace JSON of a Timeline (the "JSON Array/Object Format" of the Trace
// Event Format: complete "X" events, flow "s"/"f" events, "M" metadata naming processes and
// threads). One process per CTA that ran on the recorded SM (a thread per partition) and one
// for the SM's hardware units (a thread per unit lane). Timestamps are microseconds at the
// simulated SM clock; every event also carries its cycles in `args`. The output depends only
// on the simulation, so two runs give byte-identical files.
#pragma once

#include "sim/Timeline.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tlxsim::sim {

/// What the trace's header (`otherData`) records about the run.
struct TraceInfo {
  std::string kernel, model;
  double clockMhz = 0; ///< SM clock that converts cycles to microseconds (> 0)
  Cycle cycles = 0;    ///< kernel time in cycles
};

/// Writes `timeline` as one Chrome trace JSON object to `os`.
void writeChromeTrace(const Timeline &timeline, const TraceInfo &info, llvm::raw_ostream &os);

} // namespace tlxsim::sim
