// Kernel device durations from CUPTI's Activity API, the timer of tlx_sim/record.py (torch.profiler
// reads the same CUPTI kernel records). libcupti is loaded at run time (dlopen), so tlx-sim builds
// and runs where there is none; `tlx-sim run` then times with events (Device::recordEvent).
//
// Source: CUPTI Activity API (docs.nvidia.com/cupti, "CUPTI Activity API"; cupti_activity.h):
// cuptiActivityRegisterCallbacks hands CUPTI two callbacks, one that gives it empty buffers and one
// that receives filled ones; cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) makes it
// write one kernel record per launch (CUpti_ActivityKernelN: start and end, device timestamps in ns;
// correlationId, increasing with the API call; the function name); cuptiActivityFlushAll delivers
// the buffers; cuptiActivityGetNextRecord walks a buffer's records.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tlxsim::runner {

/// Times the launches made between start() and stop() by their device durations.
class KernelTimer {
public:
  virtual ~KernelTimer() = default;
  /// What times the kernels, for reports: "cupti (/path/to/libcupti.so.12)".
  virtual std::string description() const = 0;
  /// Starts collecting kernel records (launches made before are not reported).
  virtual llvm::Error start() = 0;
  /// Call after the device is synchronized: stops collecting and returns the device duration
  /// (end - start) in us of every launch of the function named exactly `kernel` since start(),
  /// in launch order. Errors: the library failed, or records were dropped.
  virtual llvm::Expected<std::vector<double>> stop(llvm::StringRef kernel) = 0;
};

/// One kernel record as CUPTI reports it: device timestamps in ns.
struct KernelActivity {
  std::string name;           ///< the function name (a Triton kernel's symbol, unmangled)
  uint64_t startNs = 0, endNs = 0;
  uint32_t correlationId = 0; ///< increases with the launch call
};

/// The durations in us of the records named exactly `kernel`, ordered by correlation id (launch
/// order); records of other kernels and incomplete ones (start or end 0, end before start) are
/// left out.
std::vector<double> kernelDurationsUs(std::vector<KernelActivity> records, llvm::StringRef kernel);

/// The libraries tried, in order, for `tlxsimCupti` ($TLXSIM_CUPTI) and `cudaHome` ($CUDA_HOME):
/// TLXSIM_CUPTI alone when set (an explicit choice is never replaced by another library); else
/// libcupti.so, libcupti.so.13, libcupti.so.12 (the loader's search path), then
/// CUDA_HOME/extras/CUPTI/lib64/libcupti.so, CUDA_HOME/lib64/libcupti.so and the same under
/// /usr/local/cuda.
std::vector<std::string> cuptiCandidates(std::optional<std::string> tlxsimCupti,
                                         std::optional<std::string> cudaHome);

/// Loads CUPTI (the first of cuptiCandidates of the environment that dlopen accepts and that has
/// the Activity API) and registers its buffer callbacks; one per process. Errors: built without
/// the CUPTI headers, or no candidate loads (the message lists each one's dlerror).
llvm::Expected<std::unique_ptr<KernelTimer>> openCuptiTimer();

} // namespace tlxsim::runner
