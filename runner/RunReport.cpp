#include "runner/RunReport.h"

#include "runner/ClockSampler.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace tlxsim::runner {

using llvm::formatv;
namespace json = llvm::json;

llvm::Expected<TimerChoice> parseTimerChoice(llvm::StringRef name) {
  if (name == "auto")
    return TimerChoice::Auto;
  if (name == "cupti")
    return TimerChoice::Cupti;
  if (name == "events")
    return TimerChoice::Events;
  return llvm::createStringError("--timer must be auto, cupti or events");
}

llvm::Expected<std::unique_ptr<KernelTimer>> openTimerFor(const Capture &capture, TimerChoice choice,
                                                          std::string &note) {
  if (choice == TimerChoice::Events)
    return nullptr;
  auto opened = capture.isCuda() ? openCuptiTimer()
                                 : llvm::Expected<std::unique_ptr<KernelTimer>>(
                                       llvm::createStringError("CUPTI times CUDA kernels only"));
  if (opened)
    return std::move(*opened);
  if (choice == TimerChoice::Cupti)
    return llvm::createStringError("--timer cupti: " + llvm::toString(opened.takeError()));
  note = llvm::toString(opened.takeError());
  return nullptr;
}

llvm::Expected<std::unique_ptr<Device>> openDeviceFor(const Capture &capture) {
  auto device = capture.isCuda() ? openCudaDevice() : openHipDevice();
  if (!device)
    return llvm::createStringError("cannot run " + capture.dir + ": " + llvm::toString(device.takeError()));
  const DeviceInfo &info = (*device)->info();
  if (capture.isCuda() && info.arch != capture.metadata.arch)
    return llvm::createStringError(formatv("{0} is compiled for sm_{1} but the GPU ({2}) is sm_{3}", capture.dir,
                                           capture.metadata.arch, info.name, info.arch)
                                       .str());
  return std::move(*device);
}

json::Object referenceJson(const ReferenceSpec &spec, const std::optional<CheckResult> &check) {
  json::Array operands;
  for (const auto &o : spec.operands)
    operands.push_back(o);
  json::Object out{{"kind", referenceKindName(spec.kind)}, {"operands", std::move(operands)}};
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

json::Object dryRunJson(const Capture &capture, const ParamLayout &layout, const std::optional<CubinParams> &table,
                        const ReferenceSpec &reference) {
  json::Object out{{"schema_version", 1},
                   {"command", "run"},
                   {"dry_run", true},
                   {"capture", capture.dir},
                   {"kernel", capture.metadata.name},
                   {"target", capture.target},
                   {"layout", layoutToJson(layout)},
                   {"reference", referenceJson(reference, std::nullopt)}};
  if (table)
    out["cubin_param_space"] = json::Object{{"offset", table->cbankOffset}, {"size", table->cbankSize}};
  return out;
}

void printDryRun(llvm::raw_ostream &os, const Capture &capture, const ParamLayout &layout,
                 const ReferenceSpec &reference) {
  os << capture.metadata.name << " (" << capture.target << "): " << layout.params.size() << " parameters, "
     << layout.size << " bytes, parameter space at c[0x0][" << formatv("{0:x}", layout.base) << "]\n";
  for (const Param &p : layout.params) {
    os << formatv("  {0,5} {1,4}  {2,-12} {3,-24} ", p.offset, p.size, p.cType, p.name);
    if (p.kind == ParamKind::Scalar)
      os << formatv("= {0}", int64_t(p.bits));
    else if (p.kind == ParamKind::TensorMap)
      os << formatv("tensor map of {0} (box {1}x{2}, swizzle {3})", p.tensor, p.tensorMap->boxDim.back(),
                    p.tensorMap->boxDim.front(), p.tensorMap->swizzle);
    else
      os << (p.tensor.empty() ? "null" : "-> " + p.tensor);
    os << "\n";
  }
  os << "reference: " << referenceKindName(reference.kind);
  if (reference.kind == ReferenceKind::None)
    os << " (" << reference.reason << ")";
  os << "\n";
}

bool runFailed(const RunResult &run) { return !run.kernelFailure.empty() || (run.check && !run.check->ok); }

namespace {

json::Value optionalInt(const std::optional<int> &v) { return v ? json::Value(*v) : json::Value(nullptr); }

json::Value optionalString(const std::string &s) { return s.empty() ? json::Value(nullptr) : json::Value(s); }

json::Object timingJson(const RunResult &r, const RunReportOptions &options) {
  json::Array rounds;
  for (double t : r.roundMedianUs)
    rounds.push_back(t);
  return json::Object{{"median_us", r.medianUs},
                      {"round_medians_us", std::move(rounds)},
                      {"min_us", r.timeUs.min},
                      {"max_us", r.timeUs.max},
                      {"mean_us", r.timeUs.mean},
                      {"cv", r.timeUs.cv},
                      {"iters_per_round", r.itersPerRound},
                      {"warmup_iters", r.warmupIters},
                      {"l2_flush", options.flushL2},
                      {"timer", r.timer},
                      {"timer_library", optionalString(options.timerLibrary)},
                      {"timer_note", optionalString(r.timerNote)},
                      {"timer_iters", r.timer == "cupti" ? options.timerIters : 0},
                      {"events_median_us", r.eventsMedianUs},
                      {"events_cv", r.eventsCv},
                      {"attempts", r.attempts}};
}

/// The timing line: the measurement in us, its rounds or CUPTI groups, and TFLOP/s.
void printTiming(llvm::raw_ostream &os, const RunResult &r, const RunReportOptions &options) {
  std::string rounds;
  for (double t : r.roundMedianUs)
    rounds += formatv(" {0:f1}", t).str();
  const char *l2 = options.flushL2 ? "flushed" : "not flushed";
  if (r.timer == "cupti")
    os << formatv("time: median {0:f1} us, CUPTI kernel durations (group medians{1}; min {2:f1}, max {3:f1} "
                  "over {4} launches, L2 {5}; events {6:f1} us)",
                  r.medianUs, rounds, r.timeUs.min, r.timeUs.max, options.timerIters, l2, r.eventsMedianUs);
  else
    os << formatv("time: median {0:f1} us, events (round medians{1}; min {2:f1}, max {3:f1} over {4}x{5} "
                  "launches, L2 {6})",
                  r.medianUs, rounds, r.timeUs.min, r.timeUs.max, r.roundMedianUs.size(), r.itersPerRound, l2);
  if (r.reference.flops > 0 && r.medianUs > 0)
    os << formatv(", {0:f1} TFLOP/s", r.reference.flops / (r.medianUs * 1e6));
  os << "\n";
}

} // namespace

json::Object smClockJson(const RunResult &run) {
  auto mean = meanClockMHz(run.smClockSamplesMHz);
  return json::Object{{"before", optionalInt(run.smClockBeforeMHz)},
                      {"after", optionalInt(run.smClockAfterMHz)},
                      {"mean", mean ? json::Value(*mean) : json::Value(nullptr)},
                      {"samples", int64_t(run.smClockSamplesMHz.size())}};
}

json::Object runJson(const Capture &capture, const DeviceInfo &info, const RunResult &r,
                     const RunReportOptions &options) {
  json::Object clockWithMax = smClockJson(r);
  clockWithMax["max"] = r.smClockMaxMHz ? *r.smClockMaxMHz : info.smClockMaxMHz;
  return json::Object{
      {"schema_version", 1},
      {"command", "run"},
      {"capture", capture.dir},
      {"kernel", capture.metadata.name},
      {"config", capture.config},
      {"target", capture.target},
      {"device", json::Object{{"name", info.name}, {"arch", info.arch}, {"driver", info.driverVersion},
                              {"multiprocessors", info.multiprocessors}}},
      {"registers", r.registers},
      {"reference", referenceJson(r.reference, r.check)},
      {"kernel_failure", optionalString(r.kernelFailure)},
      {"timing", timingJson(r, options)},
      {"sm_clock_mhz", std::move(clockWithMax)},
      {"bytes", r.bytes},
      {"flops", r.reference.flops},
      {"tflops", r.medianUs > 0 && r.reference.flops > 0 ? json::Value(r.reference.flops / (r.medianUs * 1e6))
                                                         : json::Value(nullptr)},
      {"record", optionalString(options.recordPath)}};
}

void printRun(llvm::raw_ostream &os, const Capture &capture, const DeviceInfo &info, const RunResult &r,
              const RunReportOptions &options) {
  os << formatv("{0} {1} on {2} (sm_{3}, driver {4}): grid {5}x{6}x{7}, {8} threads, {9} B shared, {10} "
                "registers\n",
                capture.metadata.name, capture.config, info.name, info.arch, info.driverVersion, capture.grid[0],
                capture.grid[1], capture.grid[2], capture.metadata.numWarps * capture.metadata.warpSize,
                capture.metadata.shared, r.registers);
  if (!r.kernelFailure.empty()) {
    os << "error: the kernel failed: " << r.kernelFailure << "\n";
    return;
  }
  if (r.check)
    os << formatv("check: {0} ({1}), {2} samples, max rel err {3:e2}: {4}\n", referenceKindName(r.reference.kind),
                  llvm::join(r.reference.operands, ", "), r.check->samples, r.check->maxRelErr,
                  r.check->ok ? "ok" : "MISMATCH: " + r.check->message);
  else
    os << "check: none (" << r.reference.reason << ")\n";
  if (r.check && !r.check->ok)
    return; // not timed
  printTiming(os, r, options);
  if (!r.timerNote.empty() && !options.eventsRequested)
    os << "timer: events, not CUPTI: " << r.timerNote << "\n";
  if (r.smClockBeforeMHz)
    os << formatv("SM clock: {0} MHz before, {1} MHz after (max {2})", *r.smClockBeforeMHz,
                  r.smClockAfterMHz.value_or(0), r.smClockMaxMHz.value_or(info.smClockMaxMHz));
  if (auto mean = meanClockMHz(r.smClockSamplesMHz))
    os << formatv("{0}mean {1:f0} MHz over {2} samples while timing", r.smClockBeforeMHz ? ", " : "SM clock: ",
                  *mean, r.smClockSamplesMHz.size());
  if (r.smClockBeforeMHz || !r.smClockSamplesMHz.empty())
    os << "\n";
  if (!options.recordPath.empty())
    os << "recorded in " << options.recordPath << "\n";
}

} // namespace tlxsim::runner
