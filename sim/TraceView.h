// Chrome / Perfetto trace JSON of a Timeline (the "JSON Array/Object Format" of the Trace
// Event Format: complete "X" events, flow "s"/"f" events, "M" metadata naming processes and
// threads). One process per CTA that ran on the recorded SM (a thread per partition) and one
// for the SM's hardware units (a thread per unit lane). Timestamps are microseconds at the
// simulated SM clock; every event also carries its cycles in `args`. The output depends only
// on the simulation, so two runs give byte-identical files.
#pragma once

#include "sim/MeasuredTimeline.h"
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

/// A measured timeline drawn next to the predicted one, as one more process ("measured (Proton): ...") with a thread
/// per warp: each scope at (start + shift) in the measured timeline's unit, converted to microseconds at the
/// simulated clock when that unit is cycles (so that an iteration of both spans the same width when the model's
/// cycles per iteration are right). `shift` is the predicted steady-state window's start minus the measured one's
/// (sim/SteadyState.h), in the measured unit.
struct TraceOverlay {
  const MeasuredTimeline *measured = nullptr;
  double shift = 0;
};

/// Writes `timeline` as one Chrome trace JSON object to `os`, with `overlay`'s measured timeline if it has one.
void writeChromeTrace(const Timeline &timeline, const TraceInfo &info, llvm::raw_ostream &os,
                      const TraceOverlay &overlay = {});

} // namespace tlxsim::sim
