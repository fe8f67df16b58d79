// Options of `tlx-sim check` beyond the shared launch options: --schedules / --schedule-seed (re-run the
// launch under several latency schedules), --sarif FILE, --baseline FILE, --write-baseline FILE and
// --trace-out FILE (the failing run as a Chrome/Perfetto trace, sim/TraceView.h).
#pragma once

#include "tools/Simulation.h"
#include "verifier/Finding.h"

#include "llvm/Support/Error.h"

#include <set>
#include <string>
#include <vector>

namespace tlxsim::tool {

/// Adds the findings of the extra schedules (--schedules N > 1) to `findings` (from the default schedule),
/// deduplicated by class and location (the first schedule that exposed a finding names it). Returns kClean, or
/// kBadInput / kInternal after printing why.
int runSchedules(PreparedSimulation &prepared, std::vector<verifier::Finding> &findings);

/// The schedules `check` simulates (--schedules, default 1): the default one and its perturbations.
int scheduleCount();

/// The fingerprints of --baseline's file (empty without --baseline). Errors: as verifier::readBaseline.
llvm::Expected<std::set<std::string>> acceptedFingerprints();

/// Whether `finding` is in `accepted` (acceptedFingerprints()); computes its fingerprint (which reads the
/// source line) only when a baseline was given.
bool isAccepted(const verifier::Finding &finding, const std::set<std::string> &accepted);

/// Applies --write-baseline (all findings and proof counterexamples of the run), removes the ones `accepted`
/// (the --baseline) from both lists, writes --sarif with the rest, and with --trace-out writes the trace of the
/// schedule that exposed the first remaining dynamic finding. `proofFindings` are the Z3 counterexamples as
/// findings of class `proof:<property>` (tools/ProofReport.h). Returns kClean, or kBadInput after printing why.
int finishCheck(PreparedSimulation &prepared, std::vector<verifier::Finding> &findings,
                std::vector<verifier::Finding> &proofFindings, const std::set<std::string> &accepted);

/// Whether --trace-out was given.
bool traceOutRequested();

/// Re-simulates `prepared`'s launch under the --schedules schedule `scheduleName` ("default" and unknown names:
/// the model as is) and writes its Chrome/Perfetto trace (sim/TraceView.h) to --trace-out: the timeline of the
/// SM whose agent stalled first (a deadlock's failing barrier wait), else of --sm. `what` names the run in the
/// message on stderr. Returns kClean, or kBadInput after printing why.
int writeTraceOut(PreparedSimulation &prepared, const std::string &scheduleName, const std::string &what);

} // namespace tlxsim::tool
