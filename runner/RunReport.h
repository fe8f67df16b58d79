// What `tlx-sim run` prints: the dry run's parameter layout and reference, and a run's device,
// check and timing, as text or as one JSON object (schema_version 1, "command": "run"). The
// subcommand (tools/RunCommand.cpp) only parses options and calls these.
#pragma once

#include "runner/Capture.h"
#include "runner/CubinParams.h"
#include "runner/ParamLayout.h"
#include "runner/Reference.h"
#include "runner/Runner.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>

namespace tlxsim::runner {

/// `tlx-sim run --timer`: which kernel timer to use.
enum class TimerChoice { Auto, Cupti, Events };

/// Parses auto / cupti / events. Errors: "--timer must be auto, cupti or events".
llvm::Expected<TimerChoice> parseTimerChoice(llvm::StringRef name);

/// The timer a run of `capture` uses under `choice`: CUPTI (CUDA captures only; loaded after the
/// driver), or null for events. With Auto a CUPTI that does not load is a `note` (events then);
/// with Cupti it is the error "--timer cupti: REASON".
llvm::Expected<std::unique_ptr<KernelTimer>> openTimerFor(const Capture &capture, TimerChoice choice,
                                                          std::string &note);

/// Opens the capture's device (CUDA driver API for cubins, HIP for hsaco) and checks that a cubin
/// is compiled for the GPU's compute capability. Errors: "cannot run DIR: REASON", or
/// "DIR is compiled for sm_X but the GPU (NAME) is sm_Y".
llvm::Expected<std::unique_ptr<Device>> openDeviceFor(const Capture &capture);

/// The reference of a run or dry run: kind, operands, the reason when there is none, and the
/// check's outcome (ok, max_rel_err, samples, non_finite, message when not ok) when `check` is set.
llvm::json::Object referenceJson(const ReferenceSpec &spec, const std::optional<CheckResult> &check);

/// The dry run's report: the parameter layout with offsets and sizes in bytes, the reference, and
/// the cubin's parameter space (offset, size) when `table` is set.
llvm::json::Object dryRunJson(const Capture &capture, const ParamLayout &layout,
                              const std::optional<CubinParams> &table, const ReferenceSpec &reference);
void printDryRun(llvm::raw_ostream &os, const Capture &capture, const ParamLayout &layout,
                 const ReferenceSpec &reference);

/// The options of a run that its report states.
struct RunReportOptions {
  bool flushL2 = true;        ///< the L2 was flushed before each timed launch
  int timerIters = 0;         ///< --timer-iters (reported when the timer is cupti)
  std::string timerLibrary;   ///< KernelTimer::description(), empty without a timer
  bool eventsRequested = false; ///< --timer events (no note about a missing CUPTI)
  std::string recordPath;     ///< the trace file written, empty when none was
};

/// Whether the run is a finding (exit 1): the kernel failed or its result is wrong.
bool runFailed(const RunResult &run);

/// The run's `sm_clock_mhz` as record.py writes it: `before` and `after` the timing (null where nvidia-smi gave
/// none), the `mean` (null without samples) and the count of the `samples` taken while timing (ClockSampler).
/// The record (Record.cpp) and the run report (runJson, which adds `max`) both write this object.
llvm::json::Object smClockJson(const RunResult &run);

/// A run's report: capture, device, registers, reference and check, timing in us (median of the
/// round / group medians, their list, min, max, mean, CV, iterations, timer, event timing), SM clock
/// in MHz, bytes, flops and TFLOP/s, and the record written.
llvm::json::Object runJson(const Capture &capture, const DeviceInfo &info, const RunResult &run,
                           const RunReportOptions &options);
void printRun(llvm::raw_ostream &os, const Capture &capture, const DeviceInfo &info, const RunResult &run,
              const RunReportOptions &options);

} // namespace tlxsim::runner
