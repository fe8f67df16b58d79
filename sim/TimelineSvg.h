// SVG renderings of a Timeline for the HTML report: the timeline of one SM (a row per CTA
// residency slot and partition, a row per unit lane; issuing, barrier waits and async waits
// in distinct colours, slices narrower than a pixel merged), and a wait-time histogram.
// Inline SVG only: no scripts, fonts or external references.
#pragma once

#include "sim/SteadyState.h"
#include "sim/Timeline.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tlxsim::sim {

/// `text` with &, <, >, " and ' escaped for XML / HTML.
std::string xmlEscape(const std::string &text);

/// The timeline of `timeline`'s SM as one <svg> element, `width` pixels wide; the time axis
/// is labelled in microseconds at `clockMhz`.
void writeTimelineSvg(const Timeline &timeline, double clockMhz, llvm::raw_ostream &os, int width = 1200);

/// `chart` as one <svg> element, `width` pixels wide: a row per chart row, spans in their CSS class (the timeline's
/// legend), the time axis in the chart's unit (cycles or microseconds) from the window's start. `axisSpan` (in the
/// chart's unit; 0: the chart's own window) is the time the plot's width stands for, so that two charts drawn one
/// above the other (predicted and measured) share one scale.
void writeLaneChartSvg(const LaneChart &chart, llvm::raw_ostream &os, int width = 1200, double axisSpan = 0);

/// A bar chart of one barrier's wait-time histogram (log2 buckets of cycles) as one <svg>.
void writeWaitHistogramSvg(const WaitHistogram &histogram, llvm::raw_ostream &os);

} // namespace tlxsim::sim
