// `tlx-sim trace FILE [launch options] -o out.json`: simulate one launch and write the
// Chrome/Perfetto trace of one SM (sim/TraceView.h), built by the Timeline listener.
// Findings of the verifier are printed as diagnostics (stderr) and make the exit code 1;
// the trace is written either way (a deadlocked kernel's trace shows where it stalls). With --proton TRACE.json a
// measured timeline of the same launch is added as one more process, aligned at the steady-state windows' starts.
#include "tools/CommandLine.h"
#include "tools/OutputFile.h"
#include "tools/Simulation.h"

#include "sim/SteadyState.h"
#include "sim/Timeline.h"
#include "sim/TraceView.h"
#include "verifier/Verifier.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;

namespace tlxsim::tool {
namespace {

int runTrace() {
  PreparedSimulation prepared;
  if (int code = prepareSimulation(prepared))
    return code;
  if (smOpt < 0)
    return badInput("--sm must be a non-negative SM index");
  if (steadyIterationsOpt < 1) // the zoomed view's window: at least one loop iteration (more than exist: as many as do)
    return badInput("--steady-iterations must be at least 1, got " + std::to_string(steadyIterationsOpt));
  const sim::Program &program = *prepared.program;
  sim::Timeline timeline(program, smOpt);
  verifier::Verifier checks(program);
  WarningCollector warnings(program);
  warnings.warnings = prepared.warnings; // the binary's (spills), then the simulator's
  checks.attach(*prepared.engine);
  prepared.engine->addListener(&warnings);
  prepared.engine->addListener(&timeline);
  auto result = prepared.engine->run();
  for (const auto &w : warnings.warnings)
    errs() << w << "\n";
  if (!result)
    return badInput(toString(result.takeError()));
  if (smOpt >= result->numSms)
    return badInput("--sm " + Twine(smOpt) + " is beyond the model's " + Twine(result->numSms) + " SMs");
  if (timeline.tracks().empty()) // e.g. --max-ctas 2 and --sm 5: the trace would hold the SM's name alone
    errs() << "tlx-sim: warning: SM " << smOpt << " ran no CTA in this simulation (" << result->ctasSimulated
           << " CTAs on " << result->numSms << " SMs); the trace has no events\n";

  std::optional<sim::MeasuredTimeline> measured;
  sim::TraceOverlay overlay;
  if (!protonTimelineOpt.empty()) {
    auto read = sim::readProtonTimeline(protonTimelineOpt);
    if (!read)
      return badInput(toString(read.takeError()));
    measured = std::move(*read);
    // Aligned at the steady-state windows' starts: the same iteration of both sit above each other.
    sim::LaneChart predicted = sim::predictedSteadyState(timeline, steadyIterationsOpt);
    sim::LaneChart observed = sim::measuredSteadyState(*measured, steadyIterationsOpt);
    // The predicted window is in cycles; a measured one not in cycles is in microseconds at the simulated clock.
    double predictedFrom = predicted.window.from / (measured->inCycles ? 1 : result->clockMhz);
    overlay = {&*measured, predictedFrom - observed.window.from};
  }
  if (auto err = writeOutputFile(outputOpt, "the trace", [&](raw_ostream &out) {
        sim::writeChromeTrace(timeline, {program.kernelName, prepared.model->name(), result->clockMhz, result->cycles},
                              out, overlay);
      }))
    return badInput(toString(std::move(err)));
  const auto findings = checks.findings();
  for (const auto &f : findings)
    verifier::print(f, errs());
  return findings.empty() ? kClean : kFindings;
}

RegisterCommand registerTrace(traceCommand(), runTrace);

} // namespace
} // namespace tlxsim::tool
