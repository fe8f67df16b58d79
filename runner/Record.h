// Hardware trace records (traces/README.md): `tlx-sim run --record traces/<gpu>/<kernel>.json`
// adds or replaces one record of a kernel module's trace file and copies the capture that ran
// into traces/<gpu>/captures/<kernel>/<config>-<sha256 of the binary, 8 hex>/.
#pragma once

#include "runner/Capture.h"
#include "runner/Runner.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace tlxsim::runner {

/// The trace file's kernel name of a module, as tlx_sim.kernel_module.capture_dir and the plans
/// name it: the path under kernels/ without .py, a leading architecture folder (hopper, blackwell,
/// amd) dropped, other folders joined with '_': kernels/hopper/ws_gemm.py -> ws_gemm,
/// kernels/triton/gemm.py -> triton_gemm; a TLX tutorial of fbtriton's wheel is tlx_<its path under
/// tutorials/, '/' as '_'>: triton/language/extra/tlx/tutorials/hopper_gemm_ws.py -> tlx_hopper_gemm_ws.
std::string traceKernelName(llvm::StringRef module);

struct RecordOptions {
  std::string path;           ///< traces/<gpu>/<kernel>.json
  std::string split = "fit";  ///< for a new record; a replaced record keeps its split
  std::string date;           ///< env.recorded, YYYY-MM-DD
};

/// The record of one run (one element of "records"), with "recorder": "tlx-sim run" and, as
/// record.py writes them, "timing": "cupti" (measured_us: the median of the group medians of CUPTI
/// kernel durations, us) or "events" (the median of the event-timed rounds' medians, us), and
/// "do_bench_us" (the event rounds' median). "cv" is the sample CV of "times_us". `captureRel` is the
/// copied capture's folder relative to the trace file's folder.
llvm::json::Object makeRecord(const Capture &capture, const RunResult &run, llvm::StringRef split,
                              llvm::StringRef captureRel);

/// Merges `record` into the trace document `existing` (or a new one): a record with the same
/// config, shape and recorder is replaced (keeping its split), others are kept. Top-level
/// fields (schema_version 1, gpu, device_name, kernel = traceKernelName, module, target, env) are
/// set from the run. Errors when `existing` is not a trace of the same module.
llvm::Expected<llvm::json::Object> mergeRecord(std::optional<llvm::json::Object> existing, llvm::json::Object record,
                                               const Capture &capture, const RunResult &run, llvm::StringRef gpu,
                                               llvm::StringRef date);

/// Copies the capture, merges the record into options.path and writes it (2-space JSON).
llvm::Error writeRecord(const Capture &capture, const RunResult &run, const RecordOptions &options);

} // namespace tlxsim::runner
