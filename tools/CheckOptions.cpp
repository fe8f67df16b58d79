#include "tools/CheckOptions.h"

#include "tools/CommandLine.h"
#include "tools/OutputFile.h"
#include "verifier/Baseline.h"
#include "verifier/Sarif.h"
#include "verifier/Schedules.h"
#include "verifier/Verifier.h"

#include "sim/Timeline.h"
#include "sim/TraceView.h"

#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

using namespace llvm;

namespace tlxsim::tool {
namespace {

cl::opt<int> schedulesOpt("schedules",
                          cl::desc("Simulate N schedules: the default, producer-fast, consumer-fast and N-3 seeded "
                                   "latency perturbations; a finding names the schedule that exposed it"),
                          cl::value_desc("N"), cl::init(1), cl::cat(outputCategory()), cl::sub(checkCommand()));
cl::opt<uint64_t> scheduleSeedOpt("schedule-seed", cl::desc("Seed of the perturbed schedules (default 1)"),
                                  cl::init(1), cl::cat(outputCategory()), cl::sub(checkCommand()));
cl::opt<std::string> sarifOpt("sarif", cl::desc("Also write the findings as SARIF 2.1.0"), cl::value_desc("FILE"),
                              cl::cat(outputCategory()), cl::sub(checkCommand()));
cl::opt<std::string> baselineOpt("baseline", cl::desc("Suppress the findings recorded in a baseline file"),
                                 cl::value_desc("FILE"), cl::cat(outputCategory()), cl::sub(checkCommand()));
cl::opt<std::string> writeBaselineOpt("write-baseline",
                                      cl::desc("Write the findings of this run as a baseline file"),
                                      cl::value_desc("FILE"), cl::cat(outputCategory()), cl::sub(checkCommand()));

cl::opt<std::string> traceOutOpt("trace-out",
                                 cl::desc("Write the failing run as a Chrome/Perfetto trace: the schedule that exposed "
                                          "the first finding, else the replay of the first Z3 counterexample"),
                                 cl::value_desc("FILE"), cl::cat(outputCategory()), cl::sub(checkCommand()));

/// Records which SM ran each agent and the first agent that stalled (a deadlock's blocked wait), so that the
/// trace shows the SM of the failing barrier wait.
struct StallProbe : sim::Listener {
  std::map<int32_t, int32_t> smOf;
  int32_t stalledSm = -1;
  void onAgentStart(const sim::AgentInfo &info, sim::Cycle) override { smOf[info.id] = info.sm; }
  void onStall(sim::Cycle, const std::vector<sim::BlockedAgent> &blocked) override {
    for (const auto &b : blocked)
      if (stalledSm < 0 && smOf.count(b.agent))
        stalledSm = smOf[b.agent];
  }
};

/// Re-simulates the launch under `schedule`; appends the findings not yet in `seen`.
int runSchedule(PreparedSimulation &prepared, const verifier::Schedule &schedule,
                std::set<std::pair<std::string, std::string>> &seen, std::vector<verifier::Finding> &findings) {
  auto model = verifier::applySchedule(*prepared.model, schedule);
  if (!model)
    return badInput(toString(model.takeError()));
  sim::SimOptions options = prepared.options;
  options.warpLagCycles = schedule.warpLagCycles;
  auto engine = sim::Engine::create(*prepared.program, *model, prepared.launch, options);
  if (!engine)
    return badInput(inputFile + ": schedule " + schedule.name + ": " + toString(engine.takeError()));
  verifier::Verifier checks(*prepared.program);
  checks.attach(**engine);
  auto result = (*engine)->run();
  std::optional<FaultFinding> fault; // a kernel bug this schedule reaches: one more finding
  if (!result)
    if (Error rest = takeFault(result.takeError(), *prepared.program, fault))
      return badInput(inputFile + ": schedule " + schedule.name + ": " + toString(std::move(rest)));
  std::vector<verifier::Finding> found = checks.findings();
  if (fault)
    found.push_back(fault->finding);
  for (verifier::Finding &f : found)
    if (seen.insert({f.cls, f.location.str()}).second) {
      f.schedule = schedule.name;
      findings.push_back(std::move(f));
    }
  return kClean;
}

/// The schedule called `name` among those --schedules makes (the default when not found).
verifier::Schedule scheduleNamed(const std::string &name) {
  std::vector<verifier::Schedule> all = verifier::makeSchedules(std::max<int>(schedulesOpt, 1), scheduleSeedOpt);
  for (const auto &s : all)
    if (s.name == name)
      return s;
  return all.front();
}

} // namespace

bool traceOutRequested() { return !traceOutOpt.empty(); }

int writeTraceOut(PreparedSimulation &prepared, const std::string &scheduleName, const std::string &what) {
  verifier::Schedule schedule = scheduleNamed(scheduleName);
  auto model = verifier::applySchedule(*prepared.model, schedule);
  if (!model)
    return badInput(toString(model.takeError()));
  sim::SimOptions options = prepared.options; // the schedule's lagging warps, as runSchedule ran it
  options.warpLagCycles = schedule.warpLagCycles;
  // Run 1: the SM of the first stalled agent (else --sm). Run 2: the timeline of that SM.
  int32_t sm = smOpt;
  {
    auto engine = sim::Engine::create(*prepared.program, *model, prepared.launch, options);
    if (!engine)
      return badInput(toString(engine.takeError()));
    StallProbe probe;
    (*engine)->addListener(&probe);
    if (auto result = (*engine)->run(); !result) {
      std::optional<FaultFinding> fault;
      if (Error rest = takeFault(result.takeError(), *prepared.program, fault))
        return badInput("--trace-out: " + toString(std::move(rest)));
      errs() << "tlx-sim: warning: --trace-out: no trace written: the simulation stops at the "
             << fault->finding.cls << " finding above\n";
      return kClean;
    }
    if (probe.stalledSm >= 0)
      sm = probe.stalledSm;
  }
  auto engine = sim::Engine::create(*prepared.program, *model, prepared.launch, options);
  if (!engine)
    return badInput(toString(engine.takeError()));
  sim::Timeline timeline(*prepared.program, sm);
  (*engine)->addListener(&timeline);
  auto result = (*engine)->run();
  if (!result)
    return badInput("--trace-out: " + toString(result.takeError()));
  if (auto err = writeOutputFile(traceOutOpt, "the trace", [&](raw_ostream &out) {
        sim::writeChromeTrace(timeline,
                              {prepared.program->kernelName, model->name(), result->clockMhz, result->cycles}, out);
      }))
    return badInput(toString(std::move(err)));
  errs() << "tlx-sim: wrote the trace of " << what << " (SM " << sm << ") to " << traceOutOpt << "\n";
  return kClean;
}

int scheduleCount() { return schedulesOpt; }

int runSchedules(PreparedSimulation &prepared, std::vector<verifier::Finding> &findings) {
  if (jsonOpt)
    for (const auto *opt : {&sarifOpt, &writeBaselineOpt, &traceOutOpt})
      if (opt->getValue() == "-")
        return badInput("--" + opt->ArgStr.str() + " - and --json would both write to standard output: give a file");
  if (schedulesOpt < 1 || schedulesOpt > 1000)
    return badInput("--schedules must be between 1 and 1000, got " + std::to_string(schedulesOpt));
  if (schedulesOpt > 1) {
    std::set<std::pair<std::string, std::string>> seen;
    for (const verifier::Finding &f : findings)
      seen.insert({f.cls, f.location.str()});
    std::vector<verifier::Schedule> schedules = verifier::makeSchedules(schedulesOpt, scheduleSeedOpt);
    for (size_t i = 1; i < schedules.size(); ++i)
      if (int code = runSchedule(prepared, schedules[i], seen, findings))
        return code;
  }
  return kClean;
}

llvm::Expected<std::set<std::string>> acceptedFingerprints() {
  if (baselineOpt.empty())
    return std::set<std::string>{};
  return verifier::readBaseline(baselineOpt);
}

bool isAccepted(const verifier::Finding &finding, const std::set<std::string> &accepted) {
  return !accepted.empty() && accepted.count(verifier::fingerprint(finding));
}

int finishCheck(PreparedSimulation &prepared, std::vector<verifier::Finding> &findings,
                std::vector<verifier::Finding> &proofFindings, const std::set<std::string> &accepted) {
  auto both = [&] { // the dynamic findings, then the Z3 counterexamples
    std::vector<verifier::Finding> all = findings;
    all.insert(all.end(), proofFindings.begin(), proofFindings.end());
    return all;
  };
  if (!writeBaselineOpt.empty())
    if (auto err = writeOutputFile(writeBaselineOpt, "the baseline", [&](raw_ostream &os) {
          os << formatv("{0:2}", verifier::baselineJson(both())) << "\n";
        }))
      return badInput(toString(std::move(err)));
  auto accept = [&](const verifier::Finding &f) { return isAccepted(f, accepted); };
  std::erase_if(findings, accept);
  std::erase_if(proofFindings, accept);
  if (!sarifOpt.empty())
    if (auto err = writeOutputFile(sarifOpt, "SARIF", [&](raw_ostream &os) {
          os << formatv("{0:2}", json::Value(verifier::toSarif(both()))) << "\n";
        }))
      return badInput(toString(std::move(err)));
  if (traceOutRequested() && !findings.empty())
    return writeTraceOut(prepared, findings.front().schedule,
                         "schedule '" + findings.front().schedule + "', which exposed the first finding");
  return kClean;
}

} // namespace tlxsim::tool
