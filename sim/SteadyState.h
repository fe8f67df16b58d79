// The zoomed view of one CTA's steady state: a window of a few loop iterations in the middle of the CTA's life, in
// SM cycles (so that the model's cycles per iteration compare with the hardware's whatever the clocks), for the
// predicted timeline (sim/Timeline.h, the first CTA on the recorded SM) and for a measured one
// (sim/MeasuredTimeline.h, Proton). Both become a LaneChart (rows of spans in microseconds) that the report draws
// one above the other (TimelineSvg.h writeLaneChartSvg); the trace aligns the measured timeline to the predicted
// one at the windows' starts (TraceView.h).
//
// An iteration is found without knowing the loop: the wait that repeats most often on one row of the CTA (the same
// mbarrier array, or the same Proton scope, on one partition or warp) marks one per iteration; the window runs
// from its middle occurrence over the next `iterations` occurrences.
#pragma once

#include "sim/MeasuredTimeline.h"
#include "sim/Timeline.h"

#include <string>
#include <vector>

namespace tlxsim::sim {

/// A time window in its chart's unit (LaneChart::unit), and what it was derived from (e.g. "4 iterations of
/// 'wait ready' on default").
struct TimeWindow {
  double from = 0, to = 0;
  std::string basis;
};

/// A span of a LaneChart row; `cls` is the report's CSS class of its kind (issue, barwait, asyncwait, mma, ...).
struct ChartSpan {
  double start = 0, end = 0;
  std::string cls, label;
};

struct ChartRow {
  std::string name;
  std::vector<ChartSpan> spans;
};

/// Rows of spans over one window (spans clipped to it). Times are SM cycles, or microseconds for a measured
/// timeline not recorded in cycles (`unit`).
struct LaneChart {
  std::string title;
  std::string unit = "cycles"; ///< "cycles" or "us"
  TimeWindow window;
  std::vector<ChartRow> rows;
};

/// The steady-state window of the first CTA that ran on `timeline`'s SM and its partitions' and the SM's units'
/// slices in it, in SM cycles. An empty chart (no rows) when the SM ran no CTA.
LaneChart predictedSteadyState(const Timeline &timeline, int iterations);

/// The steady-state window of `measured` and one row per warp with scopes in it. Scopes named "wgmma_wait" draw as
/// asynchronous waits, other "wait..." scopes as mbarrier waits, the rest as issuing.
LaneChart measuredSteadyState(const MeasuredTimeline &measured, int iterations);

/// The window of `iterations` repetitions of the most frequent wait among `starts` (per row and wait, named like
/// "'wait ready' on default": start times, each list sorted); the whole [begin, end] when nothing repeats.
TimeWindow steadyWindow(const std::vector<std::pair<std::string, std::vector<double>>> &starts, int iterations,
                        double begin, double end);

} // namespace tlxsim::sim
