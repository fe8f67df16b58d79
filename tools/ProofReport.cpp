#include "tools/ProofReport.h"

#include <cstdlib>
#include <future>
#include <map>
#include <set>

#include "tools/CheckOptions.h"
#include "tools/CommandLine.h"
#include "tools/Simulation.h"

#include "verifier/Verifier.h"
#include "verifier/proof/StrengthReduce.h"
#include "ir/Location.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"

using namespace llvm;

namespace tlxsim::tool {
namespace {

cl::list<std::string> assumeOpts("assume",
                                 cl::desc("Assumption for the Z3 proofs on a scalar argument or the grid "
                                          "(num_programs_x, program_id_x), e.g. 'K>=64' (repeatable)"),
                                 cl::value_desc("NAME OP VALUE"), cl::sub(checkCommand()));
cl::opt<double> timeoutOpt("timeout",
                           cl::desc("Z3 limit per query in nominal seconds (default 30): a deterministic resource "
                                    "limit of 1e6 Z3 rlimit units per second, the same verdicts at any load; a "
                                    "wall-clock safety net at 10 x the seconds + 10 s. The k-induction step, the "
                                    "last phase, may spend what is left of --proof-budget"),
                           cl::init(30.0), cl::sub(checkCommand()));
cl::opt<double> budgetOpt("proof-budget",
                          cl::desc("Z3 limit for all queries of one kernel in nominal seconds (default 200): 1e6 "
                                   "rlimit units per second summed over the queries, a bound on the proofs whatever "
                                   "the number of properties and retries; wall-clock safety net at 10 x the seconds + 10 s"),
                          cl::init(200.0), cl::sub(checkCommand()));
cl::opt<bool> noProofsOpt("no-proofs",
                          cl::desc("Skip the Z3 proofs (also when the environment sets TLXSIM_NO_PROOFS=1, as the "
                                   "test suite does for tests about dynamic findings; --proofs overrides it)"),
                          cl::sub(checkCommand()));
cl::opt<bool> proofsOpt("proofs", cl::desc("Run the Z3 proofs even when TLXSIM_NO_PROOFS is set"),
                        cl::sub(checkCommand()));

/// Whether `check` skips the prover: --no-proofs, or TLXSIM_NO_PROOFS=1 without --proofs.
bool proofsDisabled() {
  if (noProofsOpt)
    return true;
  const char *env = std::getenv("TLXSIM_NO_PROOFS");
  return !proofsOpt && env && std::string(env) == "1";
}
cl::opt<bool> noPreconditionsOpt("no-preconditions",
                                 cl::desc("Do not assume the kernel's launch preconditions (launch.json "
                                          "\"preconditions\", declared by the kernel module's PRECONDITIONS)"),
                                 cl::sub(checkCommand()));

/// The kernel's integer scalar arguments by their Python names (as in launch.json): with the grid
/// quantities, the names an assumption may constrain.
std::set<std::string> scalarArguments(mlir::ModuleOp module) {
  std::set<std::string> names;
  for (mlir::Operation &op : module.getBody()->getOperations())
    if (op.getName().getStringRef() == "tt.func" && op.getNumRegions() == 1 && !op.getRegion(0).empty())
      for (mlir::BlockArgument arg : op.getRegion(0).front().getArguments())
        if (mlir::isa<mlir::IntegerType>(arg.getType()))
          if (auto name = ir::variableName(arg.getLoc()))
            names.insert(*name);
  return names;
}

/// Whether `name` is num_programs_x|y|z or program_id_x|y|z.
bool isGridQuantity(StringRef name) {
  return (name.consume_front("num_programs_") || name.consume_front("program_id_")) &&
         (name == "x" || name == "y" || name == "z");
}

cl::opt<int> proofStepsOpt("proof-steps",
                           cl::desc("Lock-step iterations of bounded model checking, 1 to 64 (default 2 x stages "
                                    "+ 1, raised to what the induction needs)"),
                           cl::init(0), cl::sub(checkCommand()));

/// A replay's bound: 5x the instructions of the full 8192^3 WS GEMM (hopper/ws_gemm/s3, 20.3 M), about 10 s at
/// check's speed. A counterexample launch beyond it (a huge trip count the solver picked) is left unconfirmed.
constexpr uint64_t kReplayInstructions = 100'000'000ull;
/// Wall-clock bound of a replay: Z3 picks the launch, and with the checkers attached a persistent kernel's launch of
/// 100 M instructions took over 26 min (TLX hopper_fa_ws_pipelined_pingpong_persistent, 2026-12-02).
constexpr double kReplaySeconds = 60;
/// A counterexample at program_id_x = p (y and z 0) is replayed with the first p + 1 CTAs (whole clusters) when p
/// is below this: the simulation runs the first CTAs of the grid, and a violation of one CTA (a cluster whose CTAs
/// run different tile counts) shows only where that CTA runs. Above it the replay keeps the checked CTAs.
constexpr int64_t kReplayMaxProgramId = 256;

/// Re-runs the simulation at the counterexample's launch; returns a one-line summary and sets `reproduced` when
/// the simulation reports a finding there (for stage-ownership, one about the counterexample's buffer: mentions)
/// or stops on an error of the kernel at that launch.
std::string replay(const verifier::proof::ProofResult &r, bool writeTrace, bool &reproduced) {
  reproduced = false;
  std::vector<std::string> savedArgs(argOpts.begin(), argOpts.end());
  std::string savedGrid = gridOpt;
  std::string launch;
  std::array<int64_t, 3> grid{1, 1, 1}, pid{0, 0, 0};
  bool haveGrid = false;
  auto axis = [](StringRef xyz) { return xyz == "x" ? 0 : xyz == "y" ? 1 : 2; };
  for (auto &[name, value] : r.params) {
    StringRef n(name);
    if (n.consume_front("program_id_")) {
      pid[axis(n)] = value;
    } else if (n.consume_front("num_programs_")) {
      grid[axis(n)] = value;
      haveGrid = true;
    } else if (n != "cluster_rank" && !n.contains('#')) {
      argOpts.push_back(name + "=" + std::to_string(value));
      launch += " --arg " + name + "=" + std::to_string(value);
    }
  }
  if (haveGrid) {
    gridOpt = formatv("{0},{1},{2}", grid[0], grid[1], grid[2]).str();
    launch += " --grid " + gridOpt.getValue();
  }
  if (launch.empty()) // the violation needs no launch value of its own (e.g. only the CTA's rank in its cluster)
    launch = " the checked launch";
  std::string out, unsimulated;
  {
    PreparedSimulation prepared;
    std::string err;
    raw_string_ostream es(err);
    int code;
    {
      // prepareSimulation prints its errors to stderr; a failed replay is reported in one line.
      SimulationRequest request = requestFromOptions();
      bool outside = request.maxCtas > 0 && (pid[1] > 0 || pid[2] > 0 || pid[0] >= request.maxCtas);
      if (outside && pid[1] == 0 && pid[2] == 0 && pid[0] < kReplayMaxProgramId) {
        request.maxCtas = pid[0] + 1; // rounded up to whole clusters by the engine
        launch += " --max-ctas " + std::to_string(pid[0] + 1);
      } else if (outside)
        unsimulated = formatv(" (the counterexample's CTA ({0}, {1}, {2}) is not among the simulated CTAs)", pid[0],
                              pid[1], pid[2])
                          .str();
      request.maxInstructions = kReplayInstructions;
      request.maxSeconds = kReplaySeconds;
      request.binaryTiming = false; // as `check` runs: the IR's asynchrony (Simulation.h)
      code = prepareSimulation(request, prepared);
    }
    if (code != kClean) {
      out = "replay at" + launch + " not run (the launch is incomplete or invalid, see above): not reproduced";
    } else {
      if (writeTrace)
        writeTraceOut(prepared, "default",
                      "the replay of the first Z3 counterexample (" + r.property + " on " + r.barrier + ", at" +
                          launch + ")");
      verifier::Verifier checks(*prepared.program);
      checks.attach(*prepared.engine);
      auto result = prepared.engine->run();
      if (!result) {
        handleAllErrors(
            result.takeError(),
            [&](const sim::LimitError &) {
              out = formatv("replay at{0}: not finished within {1} simulated instructions or {2} s (a launch "
                            "this large is not replayed whole): not reproduced",
                            launch, kReplayInstructions, kReplaySeconds)
                        .str();
            },
            [&](const sim::KernelFault &f) {
              reproduced = true;
              out = "replay at" + launch + ": the simulation reproduces it: " + f.cls + ": " + f.message;
            },
            [&](const ErrorInfoBase &e) {
              reproduced = true;
              out = "replay at" + launch + ": the simulation stops: " + e.message();
            });
      } else {
        auto findings = checks.findings();
        // With --schedules N the replay runs the launch under the same N schedules as `check` (a wrong parity
        // that laps a phase deadlocks under some timings only); a schedule that cannot run leaves the default's.
        if (scheduleCount() > 1) {
          std::vector<verifier::Finding> withSchedules = findings;
          if (runSchedules(prepared, withSchedules) == kClean)
            findings = std::move(withSchedules);
        }
        // A stage-ownership counterexample is about one data buffer: only a finding about that buffer reproduces
        // it, a race on another buffer of a buggy kernel confirms nothing (a new-user trial, 2026-12-05: one on
        // q_tiles "confirmed" by the replay's race-war on kv_tiles). A barrier's counterexample shows through
        // its consequences, which may name only the data it guards (a drain wait passed early: race-raw on the
        // accumulator): any finding.
        bool oneBuffer = r.property == "stage-ownership";
        auto same = llvm::find_if(findings, [&](const verifier::Finding &f) {
          return !oneBuffer || verifier::mentions(f, r.barrier);
        });
        reproduced = same != findings.end();
        std::string more = findings.size() > 1 ? formatv(" (+{0} more)", findings.size() - 1).str() : "";
        if (findings.empty())
          out = "replay at" + launch + ": the simulation of this launch reports no finding" + unsimulated +
                ": not reproduced (an imbalance no wait observes at this launch, or a limitation of the prover's "
                "encoding; not a finding)";
        else if (!reproduced)
          out = "replay at" + launch + ": the simulation's findings there (" + findings.front().cls + ": " +
                findings.front().message + more + ") concern no " +
                r.barrier + ": not reproduced";
        else
          out = "replay at" + launch + ": the simulation reproduces it: " + same->cls + ": " + same->message + more;
      }
    }
  }
  argOpts.clear();
  for (auto &a : savedArgs)
    argOpts.push_back(a);
  gridOpt = savedGrid;
  return out;
}

/// ProofOutcome::outsideLaunch for counterexample `r`: empty when the proofs had an assumption (a stated domain).
std::vector<std::string> outsideLaunch(const verifier::proof::ProofResult &r, const ProofOutcome &outcome) {
  std::vector<std::string> out;
  if (!outcome.domainUnstated || !outcome.assumptions.empty())
    return out;
  for (auto &[name, value] : r.params) {
    StringRef n(name);
    if (n.starts_with("program_id_") || n.starts_with("num_programs_") || n == "cluster_rank" || n.contains('#'))
      continue;
    auto it = outcome.launchValues.find(name);
    if (it != outcome.launchValues.end() && it->second >= 1 && value <= 0)
      out.push_back(formatv("{0}={1} (the checked launch: {2})", name, value, it->second).str());
  }
  return out;
}

} // namespace

PendingProofs startProofs(mlir::ModuleOp module, const sim::Launch &launch) {
  PendingProofs pending;
  ProofOutcome &out = pending.outcome;
  if (proofsDisabled())
    return pending;
  if (!(timeoutOpt > 0) || !(budgetOpt > 0)) {
    errs() << "tlx-sim: error: --timeout and --proof-budget take a positive number of seconds (got "
           << format("%g", timeoutOpt.getValue()) << " and " << format("%g", budgetOpt.getValue()) << ")\n";
    out.badInput = true;
    return pending;
  }
  if (proofStepsOpt < 0 || proofStepsOpt > verifier::proof::kMaxBmcSteps) {
    errs() << "tlx-sim: error: --proof-steps takes 1 to " << verifier::proof::kMaxBmcSteps
           << " lock-step steps (0: the default, 2 x stages + 1), got " << proofStepsOpt << "\n";
    out.badInput = true;
    return pending;
  }
  verifier::proof::ProofOptions options;
  options.timeoutSeconds = timeoutOpt;
  options.budgetSeconds = budgetOpt;
  options.bmcSteps = proofStepsOpt;
  // The launch's preconditions (sim::Launch::preconditions, checked to be strings when the launch was read):
  // constraints the kernel declares it needs (kernels/README.md), the prover's default assumptions.
  std::vector<std::string> texts = noPreconditionsOpt ? std::vector<std::string>{} : launch.preconditions;
  out.preconditions = texts;
  texts.insert(texts.end(), assumeOpts.begin(), assumeOpts.end());
  std::set<std::string> arguments = scalarArguments(module);
  for (const std::string &text : texts) {
    verifier::proof::Assumption a;
    std::string err = verifier::proof::parseAssumption(text, a);
    if (err.empty() && !isGridQuantity(a.name) && !arguments.count(a.name))
      err = "'" + a.name + "' is neither a scalar argument of the kernel (" + llvm::join(arguments, ", ") +
            ") nor num_programs_x|y|z / program_id_x|y|z";
    if (!err.empty()) {
      if (out.assumptions.size() < out.preconditions.size())
        badInput(launchFilePath() + ": \"preconditions\": " + err);
      else
        badInput("--assume: " + err);
      out.badInput = true;
      return pending;
    }
    options.assumptions.push_back(a);
    out.assumptions.push_back(text);
  }
  // The launch check simulates (prepareSimulation's, flags over the launch file): counterexamples keep its values
  // where they can.
  options.launch = namedLaunchValues(launch);
  out.launchValues = options.launch;
  out.domainUnstated = launch.domainUnstated;
  out.ran = true;
  // The prover only reads the module (it creates no attribute or type: the MLIR context is built without threading,
  // ir/Dialects.cpp) and owns its Z3 context; its limits are Z3 resource units, so running it next to the simulation
  // changes no verdict.
  // Loop-carried products in their carried form (StrengthReduce.h): built here, before the prover's thread and the
  // simulation use the (single-threaded) MLIR context; the prover reads the clone, the simulation the original.
  pending.reduced = std::make_shared<mlir::OwningOpRef<mlir::ModuleOp>>(verifier::proof::strengthReduced(module));
  mlir::ModuleOp proved = *pending.reduced ? pending.reduced->get() : module;
  pending.report = std::async(std::launch::async, [proved, options = std::move(options)]() mutable {
    return verifier::proof::proveProtocol(proved, options);
  });
  return pending;
}

/// Waits for the prover's thread. On a terminal, a prover still running kProverNoteSeconds after the simulation
/// gets a note first, so that a user of an interactive `check` knows what the wait is and how to shorten it (the
/// TLX Blackwell GEMMs spend their whole --proof-budget, about 2 minutes here). Pipes and files (CI, lit, scripts)
/// never get it: their output must not depend on timing.
static void waitForProver(std::future<verifier::proof::ProofReport> &report) {
  constexpr auto kProverNoteSeconds = std::chrono::seconds(2);
  if (!llvm::sys::Process::StandardErrIsDisplayed() ||
      report.wait_for(kProverNoteSeconds) == std::future_status::ready)
    return;
  errs() << "tlx-sim: note: the simulation is done; waiting for the Z3 proofs (at most --proof-budget "
         << format("%g", budgetOpt.getValue())
         << " s of Z3 resource units; --no-proofs skips them, a smaller --proof-budget bounds them)\n";
}

ProofOutcome finishProofs(PendingProofs &pending, bool traceCounterexample) {
  ProofOutcome out = std::move(pending.outcome);
  auto noTrace = [&] {
    if (traceCounterexample && traceOutRequested() && !out.counterexample)
      errs() << "tlx-sim: note: --trace-out: no finding and no counterexample: no failing run to trace, no file "
                "written\n";
  };
  if (!out.ran) {
    if (!out.badInput)
      noTrace();
    return out;
  }
  waitForProver(pending.report);
  out.report = pending.report.get();
  out.unsatAssumptions = out.report.assumptionsUnsat;
  for (const auto &r : out.report.results)
    if (r.verdict == "counterexample") {
      bool reproduced = false;
      out.replays.push_back(
          replay(r, traceCounterexample && traceOutRequested() && !out.counterexampleTraced, reproduced));
      out.replayReproduces.push_back(reproduced);
      out.outsideLaunch.push_back(outsideLaunch(r, out));
      reproduced = reproduced && out.outsideLaunch.back().empty(); // outside an unstated domain: a warning
      out.reproduced.push_back(reproduced);
      out.counterexample |= reproduced;
      out.counterexampleTraced = true;
    }
  noTrace();
  return out;
}

void printProofs(const ProofOutcome &outcome, raw_ostream &os, bool simulationFound) {
  if (!outcome.ran)
    return;
  if (!outcome.preconditions.empty())
    os << "tlx-sim: proofs assume the kernel's launch preconditions (launch.json): "
       << llvm::join(outcome.preconditions, ", ") << "\n";
  if (!outcome.report.results.empty()) // every verdict's (Driver::statePremises)
    for (const std::string &p : outcome.report.premises)
      os << "tlx-sim: proofs rest on a premise: " << p << "\n";
  size_t replay = 0;
  for (const auto &r : outcome.report.results) {
    std::string head = r.location.str() + ": ";
    std::string what = r.property + " on " + r.barrier + " (" + llvm::join(r.partitions, ", ") + ")";
    if (r.verdict == "proved")
      os << head << "remark: proof: " << what << ": proved for all trip counts (" << r.witness << ")\n";
    else if (r.verdict == "bounded")
      os << head << "warning: proof: " << what << ": bounded: no violation up to " << r.bound
         << " lock-step iterations, not proved beyond (" << r.witness << ")\n";
    else if (r.verdict == "timeout")
      os << head << "warning: proof: " << what << ": timeout (" << r.witness << ")\n";
    else {
      bool confirmed = replay < outcome.reproduced.size() && outcome.reproduced[replay];
      const std::vector<std::string> *outside =
          replay < outcome.outsideLaunch.size() && !outcome.outsideLaunch[replay].empty() ? &outcome.outsideLaunch[replay]
                                                                                        : nullptr;
      std::string assume;
      if (outside)
        for (const std::string &o : *outside)
          assume += (assume.empty() ? "--assume '" : " --assume '") + o.substr(0, o.find('=')) + ">=1'";
      if (outside)
        os << head << "warning: proof: " << what << ": counterexample outside the checked launch: "
           << llvm::join(*outside, ", ")
           << ", and the launch file states no domain (no \"preconditions\", no kernel module): if the host never "
           << "launches it, say so (" << assume << ", or launch.json \"preconditions\"); if it does, this is a bug "
           << "at that launch: " << r.witness << "\n";
      else if (confirmed)
        os << head << "error: proof: " << what << ": counterexample: " << r.witness << "\n";
      else
        os << head << "warning: proof: " << what << ": unconfirmed counterexample (its replay does not reproduce "
           << "it: a barrier left unbalanced that no wait observes at that launch, or a limitation of the prover; "
           << "not a finding): " << r.witness << "\n";
      if (replay < outcome.replays.size())
        os << head << "note: " << outcome.replays[replay++] << "\n";
    }
  }
  for (const auto &n : outcome.report.notes)
    os << "tlx-sim: note: proof: " << n << "\n";
  bool anyProved = std::any_of(outcome.report.results.begin(), outcome.report.results.end(),
                               [](const auto &r) { return r.verdict == "proved"; });
  if (simulationFound && anyProved) // "proved" next to a deadlock reads as a contradiction: say what is proved
    os << "tlx-sim: note: proof: what is proved is the protocol's invariants (parities alternate, phases and tx-counts "
          "balance, indices stay in range, stages are owned and fenced), not progress: the simulation's findings "
          "above stand (verifier/README.md, \"Properties\")\n";
  std::map<std::string, int> byVerdict;
  size_t cex = 0;
  for (const auto &r : outcome.report.results)
    if (r.verdict != "counterexample")
      ++byVerdict[r.verdict];
    else
      ++byVerdict[cex < outcome.reproduced.size() && outcome.reproduced[cex++] ? "counterexample" : "unconfirmed"];
  std::string counts;
  for (const char *v : {"counterexample", "unconfirmed", "timeout", "bounded", "proved"})
    if (byVerdict.count(v))
      counts += (counts.empty() ? " (" : ", ") + std::to_string(byVerdict[v]) + " " + v;
  os << formatv("tlx-sim: proofs: {0} verdict{1}{2}, {3:F2} s of Z3 ({4:F1} M rlimit units)\n",
                outcome.report.results.size(), outcome.report.results.size() == 1 ? "" : "s",
                counts.empty() ? "" : counts + ")", outcome.report.seconds, outcome.report.rlimit / 1e6);
  std::map<std::string, int> byReason;
  for (const auto &r : outcome.report.results)
    if (!r.reason.empty())
      ++byReason[r.reason];
  std::string reasons;
  for (const auto &[reason, n] : byReason)
    reasons += (reasons.empty() ? "" : ", ") + std::to_string(n) + " " + reason;
  if (!reasons.empty())
    os << "tlx-sim: note: proof: not proved because: " << reasons << " (verifier/README.md, \"Why not proved\")\n";
}

std::vector<verifier::Finding> counterexampleFindings(const ProofOutcome &outcome) {
  std::vector<verifier::Finding> out;
  size_t cex = 0;
  for (const auto &r : outcome.report.results)
    if (r.verdict == "counterexample" && cex < outcome.reproduced.size() && outcome.reproduced[cex++]) {
      verifier::Finding f;
      f.cls = "proof:" + r.property;
      f.location = r.location;
      f.message = r.property + " on " + r.barrier + ": counterexample: " + r.witness;
      f.schedule = "proof";
      out.push_back(std::move(f));
    }
  return out;
}

json::Array proofsJson(const ProofOutcome &outcome) {
  json::Array out;
  size_t replay = 0;
  for (const auto &r : outcome.report.results) {
    json::Array parts;
    for (const auto &p : r.partitions)
      parts.push_back(p);
    bool unconfirmed = r.verdict == "counterexample" &&
                       !(replay < outcome.reproduced.size() && outcome.reproduced[replay]);
    json::Object o{{"property", r.property},
                   {"verdict", unconfirmed ? "unconfirmed" : r.verdict},
                   {"barrier", r.barrier},
                   {"partitions", std::move(parts)},
                   {"location", r.location.str()},
                   {"bound", r.bound >= 0 ? json::Value(r.bound) : json::Value(nullptr)},
                   {"seconds", r.seconds},
                   {"assumptions", json::Array(outcome.assumptions)},
                   {"premises", json::Array(outcome.report.premises)}};
    if (r.verdict == "counterexample") {
      json::Object params;
      for (auto &[n, v] : r.params)
        params[n] = v;
      json::Object w;
      w["text"] = r.witness;
      w["params"] = std::move(params);
      w["step"] = r.step;
      w["iteration"] = r.iteration;
      w["reproduced"] = !unconfirmed;
      if (replay < outcome.outsideLaunch.size() && !outcome.outsideLaunch[replay].empty()) {
        // a warning (verdict unconfirmed): the launch is outside the checked one's domain, which nothing states
        w["outside_launch"] = json::Array(outcome.outsideLaunch[replay]);
        w["reproduced"] = bool(outcome.replayReproduces[replay]);
      }
      if (replay < outcome.replays.size())
        w["replay"] = outcome.replays[replay++];
      o["witness"] = std::move(w);
    } else {
      o["witness"] = r.witness;
    }
    if (!r.limit.empty())
      o["limit"] = r.limit; // which limit stopped the query of a `timeout` verdict
    if (!r.reason.empty())
      o["reason"] = r.reason; // why a `bounded` / `timeout` verdict is not proved
    out.push_back(std::move(o));
  }
  return out;
}

json::Array proofNotesJson(const ProofOutcome &outcome) {
  json::Array out;
  for (const auto &n : outcome.report.notes)
    out.push_back(n);
  return out;
}

} // namespace tlxsim::tool
