// A measured timeline: one CTA's scopes from a Proton instrumentation trace (the Chrome trace JSON that
// `tlx-sim run --proton OUT.json` or Proton's own Python writer produces: one process per CTA, named
// "<kernel> Core<sm> CTA<id>", one thread per warp, "warp <n> (line <l>)", complete "X" events in microseconds).
// The report and the trace draw it under the predicted timeline of the same launch (sim/SteadyState.h).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace tlxsim::sim {

/// One scope instance of one warp, in the timeline's unit (MeasuredTimeline::inCycles).
struct MeasuredScope {
  std::string name; ///< the scope's name (`pl.enter_scope` / TLX record, or capture --proton-waits' "wait_<barrier>")
  int32_t warp = 0; ///< warp index in the CTA (Triton: the default partition's warps first, then the workers')
  double start = 0, end = 0;
};

/// One CTA of a Proton trace.
struct MeasuredTimeline {
  std::string source; ///< the file it was read from
  std::string cta;    ///< the process name, e.g. "ws_gemm_kernel Core0 CTA8"
  std::vector<MeasuredScope> scopes; ///< sorted by (warp, start)
  double begin = 0, end = 0;         ///< first start and last end over the CTA's scopes
  /// Times are SM clock cycles: Proton's instrumentation records the SM's cycle counter and its Chrome writer puts
  /// cycles / 1000 in "ts" / "dur" with args {"Unit": "GPU cycle"} (third_party/proton TraceDataIO, runner/
  /// ProtonTrace.cpp). Otherwise (another unit) they are the trace's microseconds.
  bool inCycles = false;
};

/// Reads the CTA named `cta` (empty: the one with the smallest CTA number) from the Proton Chrome trace at `path`.
/// Errors name the file: unreadable or malformed JSON, no "traceEvents", no complete events, no such CTA, a thread
/// name that is not "warp <n> ...".
llvm::Expected<MeasuredTimeline> readProtonTimeline(llvm::StringRef path, llvm::StringRef cta = "");

} // namespace tlxsim::sim
