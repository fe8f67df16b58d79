// `tlx-sim run`: launch a captured kernel on the GPU as Triton 3.6 launches it, check its
// result, time it as tlx_sim/record.py does (do_bench rounds with events, then the device durations
// of CUPTI kernel records; events alone where CUPTI is absent), and report.
#pragma once

#include "runner/Capture.h"
#include "runner/CubinParams.h"
#include "runner/Cupti.h"
#include "runner/Device.h"
#include "runner/ParamLayout.h"
#include "runner/Reference.h"
#include "runner/Timing.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace tlxsim::runner {

struct RunOptions {
  int iters = 0;            ///< timed launches per round; 0: do_bench's rule from repMs
  double warmupMs = 25;     ///< warm-up budget per round, ms (record.py's --warmup default)
  double repMs = 200;       ///< timing budget per round when iters == 0, ms (record.py's --rep default)
  int rounds = 3;           ///< timing rounds; the reported median is the median of the round medians
  bool flushL2 = true;      ///< zero a 256 MiB buffer before each timed launch (do_bench's clear_cache)
  uint64_t seed = 0;        ///< input data and check sample positions
  std::string reference = "auto"; ///< findReference's request
  unsigned threads = 0;     ///< host threads for filling inputs (0: hardware concurrency)
  double maxCv = 0.03;      ///< re-time the rounds while the sample CV of their medians exceeds this
  int retries = 2;          ///< re-timings allowed (record.py --retries; 0: time once)
  /// Device-duration timer (CUPTI); null: the event timings are the measurement. With a timer,
  /// `timerIters` more launches (L2 flushed before each) follow the event rounds, and the
  /// measurement is the median of the medians of `rounds` groups of their durations (record.py).
  KernelTimer *timer = nullptr;
  int timerIters = 30;      ///< record.py --iters
  bool requireTimer = false; ///< a failing timer is an error instead of a fall back to events
  /// Where to put Proton's profile buffer (`--proton`): when set, the kernel runs once more after the
  /// checked launch with its profile_scratch zeroed, and the whole buffer (CTAs x profile_scratch_size
  /// bytes) is downloaded here before any timing. The capture must ask for a profile scratch.
  std::vector<uint8_t> *profileBuffer = nullptr;
  bool skipTiming = false;  ///< stop after the checked (and profile) launch: no timing (`--proton-only`)
};

/// The parameter layout of a capture with the cubin's parameter space base applied and checked
/// against the cubin's own parameter table (count, offset and size of every parameter). For hip
/// captures the base is 0 and no table is read. Errors: unreadable binary, layout mismatch.
llvm::Expected<ParamLayout> layoutForCapture(const Capture &capture, std::optional<CubinParams> *table = nullptr);

struct RunResult {
  DeviceInfo device;
  ParamLayout layout;
  ReferenceSpec reference;
  std::optional<CheckResult> check;      ///< absent when there is no reference
  std::string kernelFailure;             ///< a launch or execution error (exit 1), else empty
  int registers = 0;                     ///< per thread, as the driver reports
  int warmupIters = 0, itersPerRound = 0;
  std::vector<double> roundMedianUs;     ///< median of each round (events) or group (cupti), us
  Summary timeUs;                        ///< over every timed launch behind roundMedianUs, us
  double medianUs = 0;                   ///< median of roundMedianUs: the measurement
  std::string timer = "events";          ///< what medianUs comes from: "cupti" or "events"
  std::string timerNote;                 ///< why a requested timer was not used (events then), else empty
  double eventsMedianUs = 0;             ///< median of the event rounds' medians (do_bench_us), us
  double eventsCv = 0;                   ///< sample CV of those round medians
  int attempts = 0;                      ///< event timings made (1 + re-timings)
  std::optional<int> smClockBeforeMHz, smClockAfterMHz, smClockMaxMHz; ///< nvidia-smi / rocm-smi, where present
  std::vector<int> smClockSamplesMHz; ///< SM clock every 50 ms while timing (ClockSampler; empty without nvidia-smi)
  double bytes = 0;                      ///< bytes of all tensors (inputs and outputs)
};

/// Runs the capture on `device` (see the file comment). Setup problems (allocation, tensor map
/// encoding) are errors; a failing launch or a faulting kernel is reported in kernelFailure.
llvm::Expected<RunResult> runCapture(const Capture &capture, Device &device, const RunOptions &options);

/// (current, max) SM clock in MHz of the GPU smiDeviceSelector() names, from `nvidia-smi
/// --query-gpu=clocks.sm,clocks.max.sm`, as
/// tlx_sim/hw_time.py reads it; std::nullopt when nvidia-smi is absent or prints no numbers.
std::optional<std::pair<int, int>> readSmClock();

} // namespace tlxsim::runner
