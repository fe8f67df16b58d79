// Timing a loaded kernel as tlx_sim/record.py does: do_bench rounds timed with events, re-timed
// while their CV is high, then (with a device-duration timer) CUPTI durations of more launches.
// Internal to runCapture (runner/Runner.cpp).
#pragma once

#include "runner/Device.h"
#include "runner/Runner.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

namespace tlxsim::runner {

/// A loaded kernel with its packed parameters, launched on the device's stream, and the 256 MiB
/// buffer whose zeroing flushes the L2 before a timed launch (do_bench's clear_cache).
struct PreparedLaunch {
  Device &device;
  LaunchGeometry geometry;
  void **params = nullptr;
  uint64_t flushBuffer = 0;      ///< device address; 0: no flush
  size_t flushWords = 0;         ///< 32-bit words of flushBuffer

  llvm::Error launch() const { return device.launch(geometry, params); }
  llvm::Error flushL2() const {
    return flushBuffer ? device.fill32(flushBuffer, 0, flushWords) : llvm::Error::success();
  }
};

/// The event timing of do_bench (triton/testing.py): an estimate from 5 launches, then
/// options.rounds rounds of warm-up launches and itersPerRound flushed launches each between two
/// events, re-timed up to options.retries times while the sample CV of the round medians exceeds
/// options.maxCv (the attempt with the lowest CV is kept). Fills warmupIters, itersPerRound,
/// roundMedianUs, timeUs, medianUs, eventsMedianUs, eventsCv and attempts of `result` (us). A failing
/// launch or kernel sets result.kernelFailure and returns success; driver errors are returned.
llvm::Error timeEventRounds(const PreparedLaunch &launch, const RunOptions &options, RunResult &result);

/// With options.timer: options.timerIters flushed launches timed by their device durations, in
/// options.rounds groups whose medians' median becomes result.medianUs (timer "cupti"; record.py
/// kernel_durations_us). A failing timer is an error under options.requireTimer, else a timerNote
/// (the event timing stays the measurement). A failing launch or kernel sets result.kernelFailure.
llvm::Error timeWithKernelTimer(const PreparedLaunch &launch, llvm::StringRef kernel, const RunOptions &options,
                                RunResult &result);

} // namespace tlxsim::runner
