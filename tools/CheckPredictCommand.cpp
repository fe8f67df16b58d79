// `tlx-sim check` and `tlx-sim predict`: simulate one launch; check attaches the verifier's checkers and prints
// their findings, predict attaches the summary view only and prints it (design.md output contract). A predict run
// that stalls is simulated again with all checkers (findingsOfStall) to print the deadlock and no time; findings of
// a run that completes (races, protocol errors) are check's to report, and predict gives such a kernel its time.
#include "tools/CheckOptions.h"
#include "tools/CommandLine.h"
#include "tools/PredictSweep.h"
#include "tools/ProofReport.h"
#include "tools/Simulation.h"
#include "tools/SourceFiles.h"

#include "sim/SummaryView.h"
#include "verifier/Verifier.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace llvm;

namespace tlxsim::tool {
namespace {

/// A finding's path is what the compiler recorded; where it does not open from the current directory but lies under
/// a source root (tools/SourceFiles.h: the input's parent directories, a venv's site-packages, as for TLX's
/// tutorials), one note per file says where it is, so that the locations above can be opened.
void noteSourceRoots(const std::vector<verifier::Finding> &findings, raw_ostream &os) {
  std::vector<std::string> unopened; // in the findings' order, once each
  std::set<std::string> seen;
  for (const auto &f : findings) {
    const std::string &file = f.location.file;
    if (!file.empty() && !sys::path::is_absolute(file) && !sys::fs::exists(file) && seen.insert(file).second)
      unopened.push_back(file);
  }
  if (unopened.empty()) // the roots are only looked for when a path needs them
    return;
  SourceFiles sources(inputFile);
  for (const std::string &file : unopened)
    if (std::string path = sources.resolve(file); !path.empty())
      os << "tlx-sim: note: " << file << " is " << path << "\n";
}

/// ", N schedules" after the default schedule's numbers when --schedules N > 1 ran them all; empty otherwise.
std::string schedulesText() {
  return scheduleCount() > 1 ? ", " + std::to_string(scheduleCount()) + " schedules" : std::string();
}

int run(bool predict) {
  PreparedSimulation prepared;
  SimulationRequest request = requestFromOptions();
  request.binaryTiming = predict; // check: the IR's wgmma asynchrony, whatever ptxas made of it
  if (int code = prepareSimulation(request, prepared))
    return code;
  const sim::Program &program = *prepared.program;
  sim::Engine &engine = *prepared.engine;

  // check: the Z3 proofs run on their own thread next to the simulation (and the --schedules runs).
  PendingProofs pendingProofs;
  if (!predict)
    pendingProofs = startProofs(*prepared.module, prepared.launch);

  verifier::Verifier checks(program);
  sim::SummaryView summary(program, *prepared.model);
  WarningCollector warnings(program);
  warnings.warnings = prepared.warnings; // the binary's (spills), then the simulator's
  if (!predict)
    checks.attach(engine);
  engine.addListener(&warnings);
  if (predict)
    engine.addListener(&summary);
  auto ran = engine.run();
  std::optional<FaultFinding> fault; // a kernel bug that stopped the simulation (sim::KernelFault)
  if (!ran) {
    if (Error rest = takeFault(ran.takeError(), program, fault)) {
      for (const auto &w : warnings.warnings) // they often explain the failure
        errs() << w << "\n";
      return badInput(toString(std::move(rest)));
    }
  }
  sim::SimResult result = fault ? sim::SimResult{} : *ran;
  if (fault)
    result.ctasSimulated = fault->ctasSimulated;
  if (!result.occupancyWarning.empty())
    warnings.warnings.push_back(inputFile + ": warning: " + result.occupancyWarning);
  if (int64_t cluster = program.clusterSize(); request.maxCtas > 0 && cluster > 1 && request.maxCtas % cluster)
    warnings.warnings.push_back(formatv("{0}: warning: --max-ctas {1} is rounded up to whole clusters of {2} CTAs "
                                        "(the CTAs of a cluster run together): {3} CTAs simulated",
                                        inputFile, request.maxCtas, cluster,
                                        std::min(result.gridCtas, program.wholeClusters(request.maxCtas)))
                                    .str());

  std::vector<verifier::Finding> findings;
  if (!predict)
    findings = checks.findings(); // after a fault: what the checkers saw before it
  if (fault) {
    findings.push_back(fault->finding);
  } else if (predict && result.stalled) {
    auto stallFindings = findingsOfStall(prepared);
    if (!stallFindings)
      return badInput(toString(stallFindings.takeError()));
    findings = std::move(*stallFindings);
  }
  ProofOutcome proofs; // Z3 verdicts for all trip counts (check only)
  size_t suppressedCounterexamples = 0;
  size_t reportedCounterexamples = 0; // confirmed Z3 counterexamples outside the baseline (printed with the proofs)
  bool simulationFound = false; // findings of the simulated schedules (not the proofs') outside the baseline
  if (!predict) {
    if (int code = runSchedules(prepared, findings)) // --schedules (tools/CheckOptions.cpp)
      return code;
    auto accepted = acceptedFingerprints();
    if (!accepted)
      return badInput(toString(accepted.takeError()));
    bool dynamicLeft =
        llvm::any_of(findings, [&](const verifier::Finding &f) { return !isAccepted(f, *accepted); });
    simulationFound = dynamicLeft;
    proofs = finishProofs(pendingProofs, /*traceCounterexample=*/!dynamicLeft);
    if (proofs.badInput)
      return kBadInput;
    std::vector<verifier::Finding> proofFindings = counterexampleFindings(proofs);
    size_t counterexamples = proofFindings.size();
    if (int code = finishCheck(prepared, findings, proofFindings, *accepted)) // --baseline, --sarif, --trace-out
      return code;
    suppressedCounterexamples = counterexamples - proofFindings.size();
    reportedCounterexamples = proofFindings.size();
    proofs.counterexample = !proofFindings.empty();
  }
  json::Array findingsJson, warningsJson;
  for (const auto &f : findings)
    findingsJson.push_back(verifier::toJson(f));
  for (const auto &w : warnings.warnings)
    warningsJson.push_back(w);

  if (jsonOpt) {
    json::Object out;
    if (predict && findings.empty())
      out = summary.toJson(result);
    else
      out = json::Object{{"schema_version", 1}, {"kernel", program.kernelName}};
    out["command"] = predict ? "predict" : "check";
    out["findings"] = std::move(findingsJson);
    if (!predict) {
      out["proofs"] = proofsJson(proofs);
      out["proof_notes"] = proofNotesJson(proofs);
      // The cost of the proofs, as the text summary line gives it: Z3 seconds and resource units (--proof-budget)
      out["proof_z3_seconds"] = proofs.report.seconds;
      out["proof_rlimit_units"] = static_cast<int64_t>(proofs.report.rlimit);
    }
    out["warnings"] = std::move(warningsJson);
    out["ctas_simulated"] = result.ctasSimulated;
    if (prepared.wgmmaIssue.instructions > 0) // what the cubin's SASS says about its wgmma pipeline (sim/Binary.h)
      out["binary_wgmma"] = json::Object{{"instructions", prepared.wgmmaIssue.instructions},
                                         {"serialized", prepared.wgmmaIssue.serialized},
                                         {"simulated_serialized", prepared.options.wgmmaSerialized}};
    if (prepared.tmaIssue.copies > 0) // the SASS path of its TMA loads (sim/Binary.h cubinTmaIssue)
      out["binary_tma"] = json::Object{{"loop_copies", prepared.tmaIssue.copies},
                                       {"loop_instructions", prepared.tmaIssue.loopInstructions},
                                       {"simulated", prepared.options.tmaLoopInstructionsPerCopy >= 0}};
    if (predict && !findings.empty() && result.ctasPerSm > 0) {
      // no time, but the occupancy the run used is known (it does not depend on the kernel's synchronization)
      out["ctas_per_sm"] = result.ctasPerSm;
      out["occupancy_limit"] = result.occupancyLimit;
      out["shared_bytes_per_cta"] = result.sharedBytesPerCta;
      out["registers_per_thread"] = result.registersPerThread;
      out["shared_bytes_from"] = result.sharedSource;
      out["registers_from"] = result.registersSource;
    }
    outs() << formatv("{0:2}", json::Value(std::move(out))) << "\n";
  } else {
    for (const auto &w : warnings.warnings)
      errs() << w << "\n";
    for (const auto &f : findings)
      verifier::print(f, outs());
    noteSourceRoots(findings, outs());
    if (predict && findings.empty())
      summary.print(result, outs());
    else if (!predict && findings.empty() && reportedCounterexamples > 0)
      // the proofs printed below are the findings: "no findings" above their errors read as a contradiction
      outs() << "tlx-sim check: no findings in the simulated schedules (" << result.ctasSimulated
             << " CTAs simulated on " << prepared.model->name() << ", " << result.cycles << " cycles"
             << schedulesText() << "); " << reportedCounterexamples << " proof counterexample"
             << (reportedCounterexamples == 1 ? "" : "s") << " below\n";
    else if (!predict && findings.empty())
      outs() << "tlx-sim check: no findings (" << result.ctasSimulated << " CTAs simulated on "
             << prepared.model->name() << ", " << result.cycles << " cycles" << schedulesText() << ")\n";
    else
      outs() << "tlx-sim " << (predict ? "predict" : "check") << ": " << findings.size() << " finding"
             << (findings.size() == 1 ? "" : "s") << (predict ? "; no time predicted" : "") << "\n";
  }
  if (!jsonOpt) {
    printProofs(proofs, outs(), simulationFound);
    if (suppressedCounterexamples)
      outs() << "tlx-sim: " << suppressedCounterexamples << " proof counterexample"
             << (suppressedCounterexamples == 1 ? "" : "s") << " accepted by the baseline (--baseline)\n";
  }
  if (proofs.unsatAssumptions)
    return badInput("the --assume constraints admit no launch of this kernel (the prover also takes each scalar "
                    "argument within +-2^30, its tt.divisibility, and at most 2^20 programs per grid axis)");
  return findings.empty() && !proofs.counterexample ? kClean : kFindings;
}

int runCheck() { return run(/*predict=*/false); }
int runPredict() { return sweepArgOpt.empty() ? run(/*predict=*/true) : runPredictSweep(); }

RegisterCommand registerCheck(checkCommand(), runCheck);
RegisterCommand registerPredict(predictCommand(), runPredict);

} // namespace
} // namespace tlxsim::tool
