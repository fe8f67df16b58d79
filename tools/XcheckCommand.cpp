// `tlx-sim xcheck TRACES...`: predict every recorded hardware launch of traces/<gpu>/ and
// compare: per record measured, predicted and signed error; per kernel and overall the
// median and p90 absolute error and Spearman's rank correlation across configs, computed on
// the held-out records (the fit records may have been used to calibrate the model). Exit 1
// when the held-out median absolute error exceeds --max-median-error, its p90 --max-p90-error, a kernel's held-out
// Spearman is below --min-spearman, or a record cannot be predicted (design.md output
// contract, `xcheck`). Spearman ties measured times (and predicted times) closer than --tie-tolerance (their order is measurement
// noise: traces/README.md "Reproducibility"). With --proton DIR it also predicts the capture of every native Proton
// summary under DIR (tools/h200-proton.sh) and compares, per partition, the predicted share of the CTA lifetime
// spent waiting (and busy = 1 - wait) with Proton's; --max-partition-diff gates the difference in points. Those
// comparisons cover the records' own Proton summaries (`proton.summary`) too. A launch whose binary spills registers
// is listed "[spills]" and left out of the partition statistics and gate, as its time is left out of the timing ones.
#include "tools/CommandLine.h"
#include "tools/Simulation.h"
#include "tools/xcheck/Statistics.h"
#include "tools/xcheck/Traces.h"

#include "sim/GpuModel.h"
#include "sim/SummaryView.h"
#include "verifier/DeadlockChecker.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <optional>

using namespace llvm;

namespace tlxsim::tool {
namespace {

cl::list<std::string> tracePaths(cl::Positional, cl::OneOrMore, cl::desc("<traces/<gpu> folder or trace file>..."),
                                 cl::sub(xcheckCommand()));
cl::opt<std::string> splitOpt("split", cl::desc("Records to predict: all, fit or heldout (default all)"),
                              cl::init("all"), cl::cat(outputCategory()), cl::sub(xcheckCommand()));
cl::list<std::string> kernelOpts("kernel", cl::desc("Only the records of this kernel (repeatable)"),
                                 cl::cat(outputCategory()), cl::sub(xcheckCommand()));
cl::opt<double> maxMedianOpt("max-median-error",
                             cl::desc("Fail when the held-out median |error| exceeds this fraction (default 0.15)"),
                             cl::init(0.15), cl::cat(outputCategory()), cl::sub(xcheckCommand()));
cl::opt<double> maxP90Opt("max-p90-error",
                          cl::desc("Fail when the held-out p90 |error| exceeds this fraction (default 1: no gate)"),
                          cl::init(1.0), cl::cat(outputCategory()), cl::sub(xcheckCommand()));
cl::opt<double> minSpearmanOpt("min-spearman",
                               cl::desc("Fail when a kernel's held-out Spearman rho is below this (default 0.8)"),
                               cl::init(0.8), cl::cat(outputCategory()), cl::sub(xcheckCommand()));
cl::opt<double> tieToleranceOpt(
    "tie-tolerance",
    cl::desc("Measured times within this fraction of the smallest time of their group count as tied in Spearman's "
             "rho, and so do predicted times, in [0, 1) (default 0.015: orders of H200 records under 1.5 % apart did "
             "not reproduce between recording sessions)"),
    cl::init(0.015), cl::cat(outputCategory()), cl::sub(xcheckCommand()));
cl::opt<std::string> protonOpt(
    "proton",
    cl::desc("Also predict the capture of every native Proton summary DIR/*.summary.json (tlx-sim run --proton, "
             "tools/h200-proton.sh) and compare per partition the predicted wait fraction with Proton's"),
    cl::value_desc("DIR"), cl::cat(outputCategory()), cl::sub(xcheckCommand()));
cl::opt<double> maxPartitionDiffOpt(
    "max-partition-diff",
    cl::desc("Fail when a partition's predicted wait fraction differs from Proton's by more than this many "
             "percentage points (native summaries and records' proton.summary; default: no gate)"),
    cl::init(-1), cl::value_desc("POINTS"), cl::cat(outputCategory()), cl::sub(xcheckCommand()));
cl::opt<unsigned> jobsOpt("j", cl::desc("Records predicted in parallel (default: the hardware threads)"),
                          cl::init(0), cl::cat(outputCategory()), cl::sub(xcheckCommand()));

/// One record's prediction: time (µs) and bound, or why there is none.
struct Prediction {
  double timeUs = 0;
  double clockMhz = 0; ///< the SM clock the model ran the launch at (power model), MHz
  std::string bound;
  std::string error; ///< non-empty when the record could not be predicted
  std::map<std::string, double> waitFrac; ///< predicted wait fraction per partition
  /// Instrumented captures: per partition, the predicted share of the lifetime in each Proton scope (`proton_scopes`).
  std::map<std::string, std::map<std::string, double>> scopeFrac;
  bool instrumented = false;              ///< the capture holds Proton scopes (predict's proton_scope_frac)
  int32_t stackFrameBytes = 0;            ///< the binary's stack frame per thread
  std::string spill;                      ///< spillWarning: non-empty when the binary spills (not in the gate)
};

/// A record that could not be predicted, and why.
Prediction failedPrediction(std::string why) {
  Prediction p;
  p.error = std::move(why);
  return p;
}

Prediction predictRecord(const xcheck::TraceRecord &record) {
  SimulationRequest request;
  request.input = record.ttgir;
  request.launch = record.launch.getAsObject();
  request.launchContext = record.file + ": " + record.config + " " + record.shape + ": launch";
  request.model = modelOpt.empty() ? record.gpu : std::string(modelOpt);
  request.sets.assign(setOpts.begin(), setOpts.end());
  PreparedSimulation prepared;
  if (int code = prepareSimulation(request, prepared))
    return failedPrediction(code == kInternal ? "unsupported kernel" : "bad input");
  sim::SummaryView summary(*prepared.program, *prepared.model);
  verifier::DeadlockChecker deadlocks(*prepared.program);
  prepared.engine->addListener(&summary);
  prepared.engine->addListener(&deadlocks);
  auto result = prepared.engine->run();
  if (!result)
    return failedPrediction(toString(result.takeError()));
  if (!deadlocks.findings().empty())
    return failedPrediction("the simulation deadlocks: " + deadlocks.findings().front().message);
  json::Object out = summary.toJson(*result);
  Prediction p;
  p.timeUs = out.getNumber("time_us").value_or(0);
  p.clockMhz = out.getNumber("clock_mhz").value_or(0);
  p.bound = out.getString("bound").value_or("").str();
  p.stackFrameBytes = prepared.stackFrameBytes;
  p.spill = spillWarning(prepared.stackFrameBytes);
  if (const json::Array *parts = out.getArray("partitions"))
    for (const json::Value &v : *parts)
      if (const json::Object *part = v.getAsObject())
        if (auto name = part->getString("name")) {
          // an instrumented capture: the time inside its Proton scopes, which is what Proton's wait_frac measures
          auto scopes = part->getNumber("proton_scope_frac");
          p.instrumented = p.instrumented || scopes;
          p.waitFrac[name->str()] = scopes.value_or(part->getNumber("wait_frac").value_or(0));
          if (const json::Object *byScope = part->getObject("proton_scopes"))
            for (const auto &[scope, frac] : *byScope)
              p.scopeFrac[name->str()][scope.str()] = frac.getAsNumber().value_or(0);
        }
  return p;
}

/// The predicted wait fraction of partition `name` of `r` as Proton measured it: the time in the scopes Proton
/// recorded on that partition (TraceRecord::protonScopes; all of the partition's scopes where the summary names
/// none); the partition's wait fraction for a capture without scopes. Empty when the simulation has no such
/// partition.
std::optional<double> predictedWait(const xcheck::TraceRecord &r, const Prediction &p, const std::string &name) {
  auto it = p.waitFrac.find(name);
  if (it == p.waitFrac.end())
    return std::nullopt;
  auto measured = r.protonScopes.find(name);
  auto predicted = p.scopeFrac.find(name);
  if (measured == r.protonScopes.end() || predicted == p.scopeFrac.end())
    return it->second;
  double sum = 0;
  for (const auto &[scope, frac] : predicted->second)
    if (measured->second.count(scope))
      sum += frac;
  return std::min(1.0, sum);
}

/// Median / p90 |error| and Spearman rho of a set of records.
struct ErrorStats {
  size_t count = 0;
  std::optional<double> median, p90, rho;
};

ErrorStats statsOf(const std::vector<double> &measured, const std::vector<double> &predicted) {
  ErrorStats s;
  s.count = measured.size();
  std::vector<double> absErr;
  for (size_t i = 0; i < measured.size(); ++i)
    absErr.push_back(std::fabs(predicted[i] - measured[i]) / measured[i]);
  s.median = xcheck::quantile(absErr, 0.5);
  s.p90 = xcheck::quantile(absErr, 0.9);
  // Both sides at the measurement's resolution: an order the hardware cannot reproduce counts neither as a
  // disagreement (measured ties) nor as an agreement the model claims below it (predicted ties).
  s.rho = xcheck::spearman(xcheck::tieWithin(measured, tieToleranceOpt), xcheck::tieWithin(predicted, tieToleranceOpt));
  return s;
}

json::Value opt(std::optional<double> v) { return v ? json::Value(*v) : json::Value(nullptr); }
std::string pct(std::optional<double> v) { return v ? formatv("{0:f1} %", 100 * *v).str() : "-"; }
std::string num(std::optional<double> v) { return v ? formatv("{0:f2}", *v).str() : "-"; }

/// What the gate covers: every predicted record, less the spilled ones.
std::string gateCovers(size_t spilled) {
  if (spilled == 0)
    return "over every predicted record";
  return formatv("over the records whose binary does not spill; {0} spilled record{1} listed apart", spilled,
                 spilled == 1 ? "" : "s")
      .str();
}

/// One partition of a launch that Proton measured: its predicted and measured share of the CTA lifetime spent in
/// waits (busy = 1 - wait). `predicted` is empty when the simulation has no partition of that name.
struct PartitionDiff {
  size_t launch = 0; ///< index into the run's records (`fromSummary` false) or its Proton summaries (true)
  bool fromSummary = false;
  std::string name;
  double proton = 0;
  std::optional<double> predicted;
  /// The launch's binary spills registers (Prediction::spill): local-memory traffic is not modeled, so its partition
  /// picture is listed but left out of the statistics and the gate, as its time is.
  bool spilled = false;
  /// Predicted minus measured wait fraction in percentage points (equal and opposite for busy); empty without a
  /// prediction.
  std::optional<double> diffPoints() const {
    return predicted ? std::optional<double>(100 * (*predicted - proton)) : std::nullopt;
  }
};

/// The records an xcheck run selected, their predictions, and what follows from them: the statistics the gate
/// reads, its failures, the JSON records and the spilled records listed apart.
struct XcheckRun {
  std::vector<xcheck::TraceRecord> records;
  std::vector<Prediction> predictions;
  std::vector<xcheck::TraceRecord> summaries; ///< native Proton summaries (--proton): no measured time
  std::vector<Prediction> summaryPredictions;
  std::vector<PartitionDiff> partitions; ///< every Proton-measured partition, of records then summaries
  /// Records with Proton fractions whose capture is not instrumented: Proton measured its instrumented build, a
  /// different binary (ptxas compiles it differently, e.g. serializes its wgmma pipeline: sim/Binary.h), so they are
  /// not compared with this capture's prediction.
  size_t otherBuildSummaries = 0;
  ErrorStats heldout, fit;
  std::map<std::string, ErrorStats> perKernel; ///< held-out statistics per kernel
  std::vector<std::string> failures;
  std::vector<size_t> spilled; ///< records whose binary spills: listed apart, outside the statistics and the gate
  json::Array recordsJson;
};

/// Per partition of `r` that Proton measured: name, predicted and measured wait and busy fractions, and the
/// difference in points (predicted - measured wait).
json::Array partitionsJson(const xcheck::TraceRecord &r, const Prediction &p) {
  json::Array parts;
  for (const auto &[name, proton] : r.protonWaitFrac) {
    std::optional<double> predicted = predictedWait(r, p, name);
    json::Object o{{"name", name}, {"proton_wait_frac", proton}, {"proton_busy_frac", 1 - proton}};
    if (!predicted) {
      o["predicted_wait_frac"] = nullptr;
      o["predicted_busy_frac"] = nullptr;
      o["diff_points"] = nullptr;
    } else {
      o["predicted_wait_frac"] = *predicted;
      o["predicted_busy_frac"] = 1 - *predicted;
      o["diff_points"] = 100 * (*predicted - proton);
    }
    o["spilled"] = !p.spill.empty(); // listed, left out of the statistics and the gate
    parts.push_back(std::move(o));
  }
  return parts;
}

/// The SM clock the record's timed launches ran at, MHz: its Nsight cycles over its time where Nsight counted the
/// launch's cycles (`ncu.cycles`), else the mean of nvidia-smi's samples over the timing (`sm_clock_mhz.mean`). The
/// samples overstate the clock of short launches: nvidia-smi averages over 50 ms windows that include the gaps and
/// L2 flushes between launches, where the clock recovers (traces/h100-sxm/ncu/README.md: 1680 MHz sampled where
/// 1450 ran, 4096^3 GEMMs on an H100). None without either.
std::optional<double> measuredClock(const xcheck::TraceRecord &r) {
  if (r.measuredCycles)
    return *r.measuredCycles / r.measuredUs;
  return r.measuredClockMhz;
}

/// The error of the predicted SM cycles against the measured ones (time x clock on both sides, measuredClock): the
/// part of the time error that is not the clock's. None without a measured clock or a predicted one.
std::optional<double> cyclesError(const xcheck::TraceRecord &r, const Prediction &p) {
  auto clock = measuredClock(r);
  if (!clock || p.clockMhz <= 0)
    return std::nullopt;
  return (p.timeUs * p.clockMhz) / (r.measuredUs * *clock) - 1;
}

/// The JSON object of one predicted record (design.md's xcheck record).
json::Object recordJson(const xcheck::TraceRecord &r, const Prediction &p) {
  json::Object o{{"kernel", r.kernel}, {"config", r.config}, {"shape", r.shape}, {"split", r.split},
                 {"measured_us", r.measuredUs}};
  if (!p.error.empty()) {
    o["predicted_us"] = nullptr;
    o["error"] = nullptr;
    o["failure"] = p.error;
    return o;
  }
  o["predicted_us"] = p.timeUs;
  o["error"] = (p.timeUs - r.measuredUs) / r.measuredUs;
  o["bound"] = p.bound;
  o["clock_mhz"] = json::Object{
      {"predicted", p.clockMhz},
      {"measured", opt(measuredClock(r))},
      {"measured_from", r.measuredCycles ? json::Value("nsight_cycles")
                                         : r.measuredClockMhz ? json::Value("nvidia_smi") : json::Value(nullptr)}};
  o["cycles_error"] = opt(cyclesError(r, p));
  if (!r.protonWaitFrac.empty())
    o["partitions"] = partitionsJson(r, p);
  o["stack_frame_bytes"] = int64_t(p.stackFrameBytes);
  if (!p.spill.empty()) {
    o["spills"] = true;
    o["warning"] = p.spill;
  }
  return o;
}

/// The launch a partition comparison belongs to.
const xcheck::TraceRecord &launchOf(const XcheckRun &run, const PartitionDiff &d) {
  return d.fromSummary ? run.summaries[d.launch] : run.records[d.launch];
}

/// Collects every Proton-measured partition of the predicted records and summaries, and fails the gate where one's
/// |difference| exceeds --max-partition-diff points; a summary that cannot be predicted fails it too.
void comparePartitions(XcheckRun &run) {
  for (bool fromSummary : {false, true}) {
    const auto &launches = fromSummary ? run.summaries : run.records;
    const auto &predictions = fromSummary ? run.summaryPredictions : run.predictions;
    for (size_t i = 0; i < launches.size(); ++i) {
      const auto &r = launches[i];
      if (!predictions[i].error.empty()) {
        if (fromSummary)
          run.failures.push_back(r.file + ": " + predictions[i].error);
        continue;
      }
      if (!fromSummary && !r.protonWaitFrac.empty() && !predictions[i].instrumented) { // Proton: another build
        ++run.otherBuildSummaries;
        continue;
      }
      for (const auto &[name, proton] : r.protonWaitFrac) {
        PartitionDiff d{i, fromSummary, name, proton, predictedWait(r, predictions[i], name),
                        !predictions[i].spill.empty()};
        run.partitions.push_back(d);
      }
    }
  }
  if (!(maxPartitionDiffOpt >= 0))
    return;
  for (const PartitionDiff &d : run.partitions) {
    if (d.spilled)
      continue;
    const auto &r = launchOf(run, d);
    auto diff = d.diffPoints();
    if (!diff)
      run.failures.push_back(formatv("{0} {1} {2} {3}: no predicted partition of that name", r.kernel, r.config,
                                     r.shape, d.name).str());
    else if (std::fabs(*diff) > maxPartitionDiffOpt)
      run.failures.push_back(formatv("{0} {1} {2} {3}: predicted wait {4} vs Proton {5}: {6:f1} points, more than "
                                     "{7}", r.kernel, r.config, r.shape, d.name, pct(d.predicted), pct(d.proton),
                                     *diff, double(maxPartitionDiffOpt)).str());
  }
}

/// |difference| in points of every compared partition (not those of spilling binaries).
std::vector<double> absPartitionDiffs(const XcheckRun &run) {
  std::vector<double> diffs;
  for (const PartitionDiff &d : run.partitions)
    if (auto diff = d.diffPoints(); diff && !d.spilled)
      diffs.push_back(std::fabs(*diff));
  return diffs;
}

/// How many compared partitions belong to launches whose binary spills (listed, not counted nor gated).
size_t spilledPartitions(const XcheckRun &run) {
  return llvm::count_if(run.partitions, [](const PartitionDiff &d) { return d.spilled; });
}

/// Held-out statistics per kernel and overall, fit statistics overall, and the gate's failures.
void summarize(XcheckRun &run) {
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> heldoutByKernel;
  std::vector<double> hoMeasured, hoPredicted, fitMeasured, fitPredicted;
  for (size_t i = 0; i < run.records.size(); ++i) {
    const auto &r = run.records[i];
    const auto &p = run.predictions[i];
    run.recordsJson.push_back(recordJson(r, p));
    if (!p.error.empty()) {
      run.failures.push_back(r.kernel + " " + r.config + " " + r.shape + ": " + p.error);
    } else if (!p.spill.empty()) {
      run.spilled.push_back(i);
    } else if (r.split == "heldout") {
      heldoutByKernel[r.kernel].first.push_back(r.measuredUs);
      heldoutByKernel[r.kernel].second.push_back(p.timeUs);
      hoMeasured.push_back(r.measuredUs);
      hoPredicted.push_back(p.timeUs);
    } else {
      fitMeasured.push_back(r.measuredUs);
      fitPredicted.push_back(p.timeUs);
    }
  }
  run.heldout = statsOf(hoMeasured, hoPredicted);
  run.fit = statsOf(fitMeasured, fitPredicted);
  for (const auto &[kernel, mp] : heldoutByKernel)
    run.perKernel[kernel] = statsOf(mp.first, mp.second);
  if (run.heldout.median && *run.heldout.median > maxMedianOpt)
    run.failures.push_back(formatv("held-out median |error| {0} exceeds {1}", pct(run.heldout.median),
                                   pct(double(maxMedianOpt))).str());
  if (run.heldout.p90 && *run.heldout.p90 > maxP90Opt)
    run.failures.push_back(
        formatv("held-out p90 |error| {0} exceeds {1}", pct(run.heldout.p90), pct(double(maxP90Opt))).str());
  for (const auto &[kernel, s] : run.perKernel)
    if (s.rho && *s.rho < minSpearmanOpt)
      run.failures.push_back(formatv("{0}: held-out Spearman {1} below {2}", kernel, num(s.rho),
                                     num(double(minSpearmanOpt))).str());
  comparePartitions(run);
}

/// design.md's xcheck object.
void printJson(XcheckRun &run) {
  json::Object spearmanJson, kernelsJson;
  for (const auto &[kernel, s] : run.perKernel) {
    spearmanJson[kernel] = opt(s.rho);
    kernelsJson[kernel] = json::Object{{"heldout_count", int64_t(s.count)}, {"median_abs_error", opt(s.median)},
                                       {"p90_abs_error", opt(s.p90)}, {"spearman", opt(s.rho)}};
  }
  json::Array failuresJson;
  for (const auto &f : run.failures)
    failuresJson.push_back(f);
  json::Array summariesJson;
  for (size_t i = 0; i < run.summaries.size(); ++i) {
    const auto &r = run.summaries[i];
    const auto &p = run.summaryPredictions[i];
    json::Object o{{"file", r.file}, {"kernel", r.kernel}, {"config", r.config}, {"shape", r.shape}};
    if (p.error.empty()) {
      o["predicted_us"] = p.timeUs;
      o["bound"] = p.bound;
      o["partitions"] = partitionsJson(r, p);
    } else {
      o["failure"] = p.error;
    }
    summariesJson.push_back(std::move(o));
  }
  std::vector<double> diffs = absPartitionDiffs(run);
  json::Object partitionSummary{
      {"count", int64_t(diffs.size())},
      {"not_compared_other_build", int64_t(run.otherBuildSummaries)},
      {"spilled_count", int64_t(spilledPartitions(run))},
      {"median_abs_diff_points", opt(xcheck::quantile(diffs, 0.5))},
      {"max_abs_diff_points", diffs.empty() ? json::Value(nullptr) : json::Value(*llvm::max_element(diffs))},
      {"max_partition_diff", maxPartitionDiffOpt >= 0 ? json::Value(double(maxPartitionDiffOpt)) : nullptr}};
  json::Object summary{{"count", int64_t(run.records.size())},
                       {"heldout_count", int64_t(run.heldout.count)},
                       {"median_abs_error", opt(run.heldout.median)},
                       {"p90_abs_error", opt(run.heldout.p90)},
                       {"spearman", std::move(spearmanJson)},
                       {"tie_tolerance", double(tieToleranceOpt)},
                       {"kernels", std::move(kernelsJson)},
                       {"fit", json::Object{{"count", int64_t(run.fit.count)},
                                            {"median_abs_error", opt(run.fit.median)},
                                            {"p90_abs_error", opt(run.fit.p90)}}},
                       {"spilled_count", int64_t(run.spilled.size())},
                       {"gate_covers", gateCovers(run.spilled.size())},
                       {"partitions", std::move(partitionSummary)}};
  outs() << formatv("{0:2}", json::Value(json::Object{{"schema_version", 1},
                                                       {"command", "xcheck"},
                                                       {"records", std::move(run.recordsJson)},
                                                       {"proton_summaries", std::move(summariesJson)},
                                                       {"summary", std::move(summary)},
                                                       {"failures", std::move(failuresJson)},
                                                       {"pass", run.failures.empty()}}))
         << "\n";
}

/// Every record's measured and predicted time, then Proton wait fractions where recorded.
void printRecordTable(const XcheckRun &run) {
  outs() << formatv("{0,-20} {1,-9} {2,-24} {3,-8} {4,12} {5,12} {6,8}  {7}\n", "kernel", "config", "shape", "split",
                    "measured_us", "predicted_us", "error", "bound");
  for (size_t i = 0; i < run.records.size(); ++i) {
    const auto &r = run.records[i];
    const auto &p = run.predictions[i];
    if (!p.error.empty()) {
      outs() << formatv("{0,-20} {1,-9} {2,-24} {3,-8} {4,12:f1} {5,12} {6,8}  {7}\n", r.kernel, r.config, r.shape,
                        r.split, r.measuredUs, "-", "-", p.error);
      continue;
    }
    outs() << formatv("{0,-20} {1,-9} {2,-24} {3,-8} {4,12:f1} {5,12:f1} {6,7:f1}%  {7}\n", r.kernel, r.config,
                      r.shape, r.split, r.measuredUs, p.timeUs, 100 * (p.timeUs - r.measuredUs) / r.measuredUs,
                      p.spill.empty() ? p.bound : p.bound + " [spills]");
  }
}

/// Per Proton-measured partition: predicted and measured wait and busy fractions and their difference in points;
/// then the median and largest |difference|.
void printPartitionTable(const XcheckRun &run) {
  if (run.otherBuildSummaries)
    outs() << formatv("\n{0} records' Proton summaries not compared: Proton measured its instrumented build, and "
                      "the record's capture is the plain one (ptxas compiles them differently; compare the native "
                      "Proton captures, --proton)\n",
                      run.otherBuildSummaries);
  if (run.partitions.empty())
    return;
  outs() << "\nPartitions, predicted vs Proton (share of the CTA lifetime in waits; busy = 1 - wait; diff = predicted "
            "- Proton wait, points):\n";
  outs() << formatv("  {0,-20} {1,-13} {2,-26} {3,-11} {4,9} {5,9} {6,9} {7,9} {8,7}\n", "kernel", "config", "shape",
                    "partition", "wait pred", "wait hw", "busy pred", "busy hw", "diff");
  for (const PartitionDiff &d : run.partitions) {
    const auto &r = launchOf(run, d);
    auto diff = d.diffPoints();
    outs() << formatv("  {0,-20} {1,-13} {2,-26} {3,-11} {4,9} {5,9} {6,9} {7,9} {8,7}\n", r.kernel, r.config,
                      r.shape, d.name, pct(d.predicted), pct(d.proton),
                      pct(d.predicted ? std::optional<double>(1 - *d.predicted) : std::nullopt), pct(1 - d.proton),
                      (diff ? formatv("{0}", format("%+.1f", *diff)).str() : std::string("-")) +
                          (d.spilled ? " [spills]" : ""));
  }
  std::vector<double> diffs = absPartitionDiffs(run);
  size_t spilled = spilledPartitions(run);
  outs() << formatv("Partitions: {0} compared, median |diff| {1} points, max {2} points{3}\n", diffs.size(),
                    diffs.empty() ? std::string("-") : formatv("{0:f1}", *xcheck::quantile(diffs, 0.5)).str(),
                    diffs.empty() ? std::string("-") : formatv("{0:f1}", *llvm::max_element(diffs)).str(),
                    spilled ? formatv(" ({0} of spilling binaries listed, not counted nor gated)", spilled).str()
                            : std::string());
}

/// The time error split into the clock's and the cycles': predicted time / measured time = (predicted cycles /
/// measured cycles) / (predicted clock / measured clock), i.e. 1 + time = (1 + cycles) / (1 + clock). Per kernel,
/// over its predicted records with measured cycles or a measured mean SM clock (measuredClock; spilling binaries left
/// out), the signed medians of the three errors (medians of each column: they need not combine exactly) and how many
/// records' cycles Nsight counted. Two errors that cancel in the time (too few cycles at too low a clock) show here;
/// no gate.
void printClockSplit(const XcheckRun &run) {
  std::map<std::string, std::array<std::vector<double>, 3>> byKernel;
  std::map<std::string, size_t> nsight; // records whose cycles Nsight counted
  for (size_t i = 0; i < run.records.size(); ++i) {
    const auto &r = run.records[i];
    const auto &p = run.predictions[i];
    auto cycles = cyclesError(r, p);
    if (!p.error.empty() || !p.spill.empty() || !cycles)
      continue;
    auto &v = byKernel[r.kernel];
    v[0].push_back((p.timeUs - r.measuredUs) / r.measuredUs);
    v[1].push_back(p.clockMhz / *measuredClock(r) - 1);
    nsight[r.kernel] += r.measuredCycles ? 1 : 0;
    v[2].push_back(*cycles);
  }
  if (byKernel.empty())
    return;
  auto signedPct = [](const std::vector<double> &v) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f %%", 100 * *xcheck::quantile(v, 0.5));
    return std::string(text);
  };
  outs() << "\nTime error split into cycles and clock (records with measured cycles or clock, fit and held-out; "
            "signed medians: predicted / measured - 1; measured cycles from Nsight Compute where a record has them "
            "(nsight), else time x nvidia-smi's mean clock, which overstates short launches' clock):\n";
  outs() << formatv("  {0,-20} {1,5} {2,6} {3,10} {4,10} {5,10}\n", "kernel", "count", "nsight", "time", "clock",
                    "cycles");
  for (const auto &[kernel, v] : byKernel)
    outs() << formatv("  {0,-20} {1,5} {2,6} {3,10} {4,10} {5,10}\n", kernel, v[0].size(), nsight[kernel],
                      signedPct(v[0]), signedPct(v[1]), signedPct(v[2]));
}

/// The statistics, the spilled records and the gate's verdict.
void printSummary(const XcheckRun &run) {
  outs() << formatv("\nHeld-out records per kernel (Spearman: measured times within {0} of each other tied, and "
                    "predicted times):\n",
                    pct(double(tieToleranceOpt)));
  outs() << formatv("  {0,-20} {1,5} {2,12} {3,12} {4,9}\n", "kernel", "count", "median|err|", "p90|err|",
                    "spearman");
  for (const auto &[kernel, s] : run.perKernel)
    outs() << formatv("  {0,-20} {1,5} {2,12} {3,12} {4,9}\n", kernel, s.count, pct(s.median), pct(s.p90),
                      num(s.rho));
  outs() << formatv("Held-out: {0} records, median |error| {1}, p90 {2}\n", run.heldout.count,
                    pct(run.heldout.median), pct(run.heldout.p90));
  outs() << formatv("Fit:      {0} records, median |error| {1}, p90 {2}\n", run.fit.count, pct(run.fit.median),
                    pct(run.fit.p90));
  if (!run.spilled.empty()) {
    outs() << formatv("\nSpilled records ({0}; binary stack frame >= {1} B per thread; not in the statistics above "
                      "nor the gate):\n", run.spilled.size(), kSpillFrameBytes);
    for (size_t i : run.spilled) {
      const auto &r = run.records[i];
      const auto &p = run.predictions[i];
      outs() << formatv("  {0,-20} {1,-9} {2,-24} {3,-8} {4,12:f1} {5,12:f1} {6,7:f1}%\n    warning: {7}\n", r.kernel,
                        r.config, r.shape, r.split, r.measuredUs, p.timeUs,
                        100 * (p.timeUs - r.measuredUs) / r.measuredUs, p.spill);
    }
  }
  for (const auto &f : run.failures)
    outs() << "xcheck: FAIL: " << f << "\n";
  if (run.failures.empty())
    outs() << formatv("xcheck: pass (held-out median |error| <= {0}{1}, every kernel's Spearman >= {2}; {3})\n",
                      pct(double(maxMedianOpt)),
                      maxP90Opt < 1 ? formatv(", p90 <= {0}", pct(double(maxP90Opt))).str() : std::string(),
                      num(double(minSpearmanOpt)), gateCovers(run.spilled.size()));
}

/// --model and --set apply to every record: a typo, or a model of another target than the records' kernels, is
/// one usage error (exit 2) before any record runs, not a failed accuracy gate (exit 1) repeated per record.
int checkModelOptions(const std::vector<xcheck::TraceRecord> &records) {
  std::set<std::string> gpus;
  for (const xcheck::TraceRecord &r : records)
    gpus.insert(r.gpu);
  for (const std::string &gpu : gpus) {
    auto recorded = sim::GpuModel::load(gpu, sim::GpuModel::defaultModelsDir());
    if (!recorded)
      continue; // the record's own model: reported per record, as before
    std::string name = modelOpt.empty() ? gpu : std::string(modelOpt);
    auto model = sim::GpuModel::load(name, sim::GpuModel::defaultModelsDir());
    if (!model)
      return badInput("--model: " + toString(model.takeError()));
    for (const std::string &set : setOpts)
      if (Error err = model->set(set))
        return badInput(toString(std::move(err))); // says "--set: ..." itself
    auto family = [](StringRef target) { return target.split(':').first; };
    if (family(model->target()) != family(recorded->target()))
      return badInput("--model " + name + " models a " + model->target() + " GPU, but the records of " + gpu +
                      " are " + recorded->target() + " kernels");
  }
  return kClean;
}

int runXcheck() {
  if (splitOpt != "all" && splitOpt != "fit" && splitOpt != "heldout")
    return badInput("--split must be all, fit or heldout, not '" + splitOpt + "'");
  if (!(tieToleranceOpt >= 0 && tieToleranceOpt < 1))
    return badInput(formatv("--tie-tolerance must be in [0, 1), got {0}", double(tieToleranceOpt)).str());
  // The gate's thresholds: a fraction (0.15 = 15 %; "15" would be a gate of 1500 %), a rank correlation in [-1, 1].
  if (!(maxMedianOpt >= 0 && maxMedianOpt <= 1))
    return badInput(formatv("--max-median-error is a fraction in [0, 1] (0.15 = 15 %), got {0}",
                            double(maxMedianOpt)).str());
  if (!(maxP90Opt >= 0 && maxP90Opt <= 1))
    return badInput(formatv("--max-p90-error is a fraction in [0, 1] (0.10 = 10 %), got {0}", double(maxP90Opt)).str());
  if (!(minSpearmanOpt >= -1 && minSpearmanOpt <= 1))
    return badInput(formatv("--min-spearman is a rank correlation in [-1, 1], got {0}", double(minSpearmanOpt)).str());
  std::vector<std::string> paths(tracePaths.begin(), tracePaths.end());
  auto all = xcheck::readTraces(paths);
  if (!all)
    return badInput(toString(all.takeError()));
  XcheckRun run;
  for (auto &r : *all) {
    bool kernelOk = kernelOpts.empty() || llvm::is_contained(kernelOpts, r.kernel);
    if (kernelOk && (splitOpt == "all" || r.split == splitOpt))
      run.records.push_back(std::move(r));
  }
  if (run.records.empty())
    return badInput("no trace records selected under " + join(paths, ", "));
  if (int code = checkModelOptions(run.records))
    return code;
  if (!protonOpt.empty()) {
    auto summaries = xcheck::readProtonSummaries(protonOpt);
    if (!summaries)
      return badInput(toString(summaries.takeError()));
    for (auto &r : *summaries)
      if (kernelOpts.empty() || llvm::is_contained(kernelOpts, r.kernel))
        run.summaries.push_back(std::move(r));
  }

  run.predictions.resize(run.records.size());
  run.summaryPredictions.resize(run.summaries.size());
  {
    DefaultThreadPool pool(jobsOpt ? hardware_concurrency(jobsOpt) : hardware_concurrency());
    for (size_t i = 0; i < run.summaries.size(); ++i) // whole-size launches: started first
      pool.async([&, i] { run.summaryPredictions[i] = predictRecord(run.summaries[i]); });
    for (size_t i = 0; i < run.records.size(); ++i)
      pool.async([&, i] { run.predictions[i] = predictRecord(run.records[i]); });
    pool.wait();
  }
  summarize(run);
  if (jsonOpt) {
    printJson(run);
  } else {
    printRecordTable(run);
    printPartitionTable(run);
    printClockSplit(run);
    printSummary(run);
  }
  return run.failures.empty() ? kClean : kFindings;
}

RegisterCommand registerXcheck(xcheckCommand(), runXcheck);

} // namespace
} // namespace tlxsim::tool
