// `tlx-sim run`: launch a captured cubin / hsaco on the GPU through the CUDA driver API or HIP
// (tools/runner/), check it against a CPU reference, time it, and optionally record it.
#include "tools/CommandLine.h"

#include "runner/Record.h"
#include "runner/Runner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <ctime>

using namespace llvm;
using namespace tlxsim::runner;

namespace tlxsim::tool {
namespace {

cl::opt<int> itersOpt("iters",
                      cl::desc("Timed launches per round (default: as many as fit in --rep-ms, like do_bench)"),
                      cl::init(0), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<int> roundsOpt("rounds", cl::desc("Timing rounds; the median of the round medians is reported (default 3)"),
                       cl::init(3), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<double> warmupOpt("warmup-ms", cl::desc("Warm-up time per round in ms (default 25, as record.py)"), cl::init(25),
                          cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<double> repOpt("rep-ms", cl::desc("Timing budget per round in ms when --iters is not given (default 200, as record.py)"),
                       cl::init(200), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<std::string> timerOpt("timer",
                              cl::desc("Kernel timer: cupti (device durations from CUPTI's Activity API, as "
                                       "tlx_sim/record.py), events, or auto (cupti where libcupti loads; "
                                       "$TLXSIM_CUPTI names the library)"),
                              cl::init("auto"), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<int> timerItersOpt("timer-iters",
                           cl::desc("Launches timed by CUPTI after the event rounds, in --rounds groups (default 30)"),
                           cl::init(30), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<int> retriesOpt("retries",
                        cl::desc("Re-time the event rounds up to this many times while their CV exceeds --max-cv "
                                 "(default 2, as record.py)"),
                        cl::init(2), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<double> maxCvOpt("max-cv", cl::desc("CV of the round medians above which --retries re-times (default 0.03)"),
                         cl::init(0.03), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<bool> noFlushOpt("no-flush", cl::desc("Do not zero a 256 MiB buffer (L2 flush) before each timed launch"),
                         cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<uint64_t> seedOpt("seed", cl::desc("Seed of the input data and of the check's sample positions"), cl::init(0),
                          cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<std::string> referenceOpt("reference", cl::desc("Correctness reference: auto, gemm, attention or none"),
                                  cl::init("auto"), cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<bool> dryRunOpt("dry-run", cl::desc("Print the kernel parameter layout and the reference; launch nothing"),
                        cl::cat(launchCategory()), cl::sub(runCommand()));
cl::opt<std::string> recordOpt("record", cl::desc("Add the measurement to a trace file (traces/README.md)"),
                               cl::value_desc("traces/<gpu>/<kernel>.json"), cl::cat(launchCategory()),
                               cl::sub(runCommand()));
cl::opt<std::string> splitOpt("split", cl::desc("Split of a new record: fit or heldout (default fit)"), cl::init("fit"),
                              cl::cat(launchCategory()), cl::sub(runCommand()));

std::string today() {
  std::time_t now = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
  return buf;
}

const char *kindName(ReferenceKind k) { return referenceKindName(k); }

json::Object referenceJson(const ReferenceSpec &spec, const std::optional<CheckResult> &check) {
  json::Array operands;
  for (const auto &o : spec.operands)
    operands.push_back(o);
  json::Object out{{"kind", kindName(spec.kind)}, {"operands", std::move(operands)}};
  if (spec.kind == ReferenceKind::None)
    out["reason"] = spec.reason;
  if (check) {
    out["ok"] = check->ok;
    out["max_rel_err"] = check->maxRelErr;
    out["samples"] = check->samples;
    out["non_finite"] = check->nonFinite;
    if (!check->ok)
      out["message"] = check->message;
  }
  return out;
}

json::Value optionalInt(const std::optional<int> &v) { return v ? json::Value(*v) : json::Value(nullptr); }

int runDry(const Capture &capture) {
  std::optional<CubinParams> table;
  auto layout = layoutForCapture(capture, &table);
  if (!layout)
    return badInput(toString(layout.takeError()));
  auto reference = findReference(capture, referenceOpt);
  if (!reference)
    return badInput(toString(reference.takeError()));
  if (jsonOpt) {
    json::Object out{{"schema_version", 1},
                     {"command", "run"},
                     {"dry_run", true},
                     {"capture", capture.dir},
                     {"kernel", capture.metadata.name},
                     {"target", capture.target},
                     {"layout", layoutToJson(*layout)},
                     {"reference", referenceJson(*reference, std::nullopt)}};
    if (table)
      out["cubin_param_space"] = json::Object{{"offset", table->cbankOffset}, {"size", table->cbankSize}};
    outs() << formatv("{0:2}", json::Value(std::move(out))) << "\n";
    return kClean;
  }
  outs() << capture.metadata.name << " (" << capture.target << "): " << layout->params.size()
         << " parameters, " << layout->size << " bytes, parameter space at c[0x0][" << formatv("{0:x}", layout->base)
         << "]\n";
  for (const Param &p : layout->params) {
    outs() << formatv("  {0,5} {1,4}  {2,-12} {3,-24} ", p.offset, p.size, p.cType, p.name);
    if (p.kind == ParamKind::Scalar)
      outs() << formatv("= {0}", int64_t(p.bits));
    else if (p.kind == ParamKind::TensorMap)
      outs() << formatv("tensor map of {0} (box {1}x{2}, swizzle {3})", p.tensor, p.tensorMap->boxDim.back(),
                        p.tensorMap->boxDim.front(), p.tensorMap->swizzle);
    else
      outs() << (p.tensor.empty() ? "null" : "-> " + p.tensor);
    outs() << "\n";
  }
  outs() << "reference: " << kindName(reference->kind);
  if (reference->kind == ReferenceKind::None)
    outs() << " (" << reference->reason << ")";
  outs() << "\n";
  return kClean;
}

int runRun() {
  auto capture = readCapture(inputFile);
  if (!capture)
    return badInput(toString(capture.takeError()));
  if (referenceOpt != "auto" && referenceOpt != "none" && referenceOpt != "gemm" && referenceOpt != "attention")
    return badInput("--reference must be auto, gemm, attention or none");
  if (splitOpt != "fit" && splitOpt != "heldout")
    return badInput("--split must be fit or heldout");
  if (timerOpt != "auto" && timerOpt != "cupti" && timerOpt != "events")
    return badInput("--timer must be auto, cupti or events");
  if (timerItersOpt < 1 || retriesOpt < 0 || roundsOpt < 1)
    return badInput("--timer-iters and --rounds must be at least 1, --retries at least 0");
  if (dryRunOpt)
    return runDry(*capture);

  auto device = capture->isCuda() ? openCudaDevice() : openHipDevice();
  if (!device)
    return badInput("cannot run " + capture->dir + ": " + toString(device.takeError()));
  const DeviceInfo &info = (*device)->info();
  if (capture->isCuda() && info.arch != capture->metadata.arch)
    return badInput(formatv("{0} is compiled for sm_{1} but the GPU ({2}) is sm_{3}", capture->dir,
                            capture->metadata.arch, info.name, info.arch));
  RunOptions options;
  options.iters = itersOpt;
  options.rounds = roundsOpt;
  options.warmupMs = warmupOpt;
  options.repMs = repOpt;
  options.flushL2 = !noFlushOpt;
  options.seed = seedOpt;
  options.reference = referenceOpt;
  options.retries = retriesOpt;
  options.maxCv = maxCvOpt;
  options.timerIters = timerItersOpt;
  options.requireTimer = timerOpt == "cupti";
  // CUPTI times CUDA kernels; it is loaded after the driver, as the runner's only profiler.
  std::unique_ptr<KernelTimer> timer;
  std::string timerNote;
  if (timerOpt != "events") {
    auto opened = capture->isCuda() ? openCuptiTimer()
                                    : Expected<std::unique_ptr<KernelTimer>>(
                                          createStringError("CUPTI times CUDA kernels only"));
    if (opened)
      timer = std::move(*opened);
    else if (timerOpt == "cupti")
      return badInput("--timer cupti: " + toString(opened.takeError()));
    else
      timerNote = toString(opened.takeError());
  }
  options.timer = timer.get();
  auto result = runCapture(*capture, **device, options);
  if (!result)
    return badInput(toString(result.takeError()));
  RunResult &r = *result;
  if (r.timerNote.empty())
    r.timerNote = timerNote;
  bool failed = !r.kernelFailure.empty() || (r.check && !r.check->ok);

  if (!recordOpt.empty() && !failed) {
    RecordOptions record{recordOpt, splitOpt, today()};
    if (auto err = writeRecord(*capture, r, record))
      return badInput(toString(std::move(err)));
  }

  if (jsonOpt) {
    json::Array rounds;
    for (double t : r.roundMedianUs)
      rounds.push_back(t);
    json::Object out{
        {"schema_version", 1},
        {"command", "run"},
        {"capture", capture->dir},
        {"kernel", capture->metadata.name},
        {"config", capture->config},
        {"target", capture->target},
        {"device", json::Object{{"name", info.name}, {"arch", info.arch}, {"driver", info.driverVersion},
                                {"multiprocessors", info.multiprocessors}}},
        {"registers", r.registers},
        {"reference", referenceJson(r.reference, r.check)},
        {"kernel_failure", r.kernelFailure.empty() ? json::Value(nullptr) : json::Value(r.kernelFailure)},
        {"timing", json::Object{{"median_us", r.medianUs},
                                {"round_medians_us", std::move(rounds)},
                                {"min_us", r.timeUs.min},
                                {"max_us", r.timeUs.max},
                                {"mean_us", r.timeUs.mean},
                                {"cv", r.timeUs.cv},
                                {"iters_per_round", r.itersPerRound},
                                {"warmup_iters", r.warmupIters},
                                {"l2_flush", !noFlushOpt},
                                {"timer", r.timer},
                                {"timer_library", timer ? json::Value(timer->description()) : json::Value(nullptr)},
                                {"timer_note", r.timerNote.empty() ? json::Value(nullptr) : json::Value(r.timerNote)},
                                {"timer_iters", r.timer == "cupti" ? timerItersOpt : 0},
                                {"events_median_us", r.eventsMedianUs},
                                {"events_cv", r.eventsCv},
                                {"attempts", r.attempts}}},
        {"sm_clock_mhz", json::Object{{"before", optionalInt(r.smClockBeforeMHz)},
                                      {"after", optionalInt(r.smClockAfterMHz)},
                                      {"max", r.smClockMaxMHz ? *r.smClockMaxMHz : info.smClockMaxMHz}}},
        {"bytes", r.bytes},
        {"flops", r.reference.flops},
        {"tflops", r.medianUs > 0 && r.reference.flops > 0 ? json::Value(r.reference.flops / (r.medianUs * 1e6))
                                                           : json::Value(nullptr)},
        {"record", recordOpt.empty() || failed ? json::Value(nullptr) : json::Value(recordOpt)}};
    outs() << formatv("{0:2}", json::Value(std::move(out))) << "\n";
  } else {
    outs() << formatv("{0} {1} on {2} (sm_{3}, driver {4}): grid {5}x{6}x{7}, {8} threads, {9} B shared, {10} "
                      "registers\n",
                      capture->metadata.name, capture->config, info.name, info.arch, info.driverVersion,
                      capture->grid[0], capture->grid[1], capture->grid[2],
                      capture->metadata.numWarps * capture->metadata.warpSize, capture->metadata.shared,
                      r.registers);
    if (!r.kernelFailure.empty()) {
      outs() << "error: the kernel failed: " << r.kernelFailure << "\n";
    } else {
      if (r.check)
        outs() << formatv("check: {0} ({1}), {2} samples, max rel err {3:e2}: {4}\n", kindName(r.reference.kind),
                          llvm::join(r.reference.operands, ", "), r.check->samples, r.check->maxRelErr,
                          r.check->ok ? "ok" : "MISMATCH: " + r.check->message);
      else
        outs() << "check: none (" << r.reference.reason << ")\n";
      if (r.check && !r.check->ok)
        return kFindings; // not timed
      std::string rounds;
      for (double t : r.roundMedianUs)
        rounds += formatv(" {0:f1}", t).str();
      if (r.timer == "cupti")
        outs() << formatv("time: median {0:f1} us, CUPTI kernel durations (group medians{1}; min {2:f1}, max {3:f1} "
                          "over {4} launches, L2 {5}; events {6:f1} us)",
                          r.medianUs, rounds, r.timeUs.min, r.timeUs.max, timerItersOpt.getValue(),
                          noFlushOpt ? "not flushed" : "flushed", r.eventsMedianUs);
      else
        outs() << formatv("time: median {0:f1} us, events (round medians{1}; min {2:f1}, max {3:f1} over {4}x{5} "
                          "launches, L2 {6})",
                          r.medianUs, rounds, r.timeUs.min, r.timeUs.max, r.roundMedianUs.size(), r.itersPerRound,
                          noFlushOpt ? "not flushed" : "flushed");
      if (r.reference.flops > 0 && r.medianUs > 0)
        outs() << formatv(", {0:f1} TFLOP/s", r.reference.flops / (r.medianUs * 1e6));
      outs() << "\n";
      if (!r.timerNote.empty() && timerOpt != "events")
        outs() << "timer: events, not CUPTI: " << r.timerNote << "\n";
      if (r.smClockBeforeMHz)
        outs() << formatv("SM clock: {0} MHz before, {1} MHz after (max {2})\n", *r.smClockBeforeMHz,
                          r.smClockAfterMHz.value_or(0), r.smClockMaxMHz.value_or(info.smClockMaxMHz));
      if (!recordOpt.empty() && !failed)
        outs() << "recorded in " << recordOpt << "\n";
    }
  }
  if (!r.kernelFailure.empty())
    errs() << "tlx-sim: error: the kernel failed: " << r.kernelFailure << "\n";
  else if (r.check && !r.check->ok)
    errs() << "tlx-sim: error: wrong result: " << r.check->message << "\n";
  return failed ? kFindings : kClean;
}

RegisterCommand registerRun(runCommand(), runRun);

} // namespace
} // namespace tlxsim::tool
