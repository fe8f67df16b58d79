// The GPU a launch runs on, behind one interface for the CUDA driver API and HIP. Both
// drivers are loaded at run time (dlopen of libcuda.so.1 / libamdhip64.so), so tlx-sim builds
// and its tests run where there is no GPU and no driver; opening a device then fails with a
// clear message (`tlx-sim run` exits 2).
#pragma once

#include <chrono>
#include <thread>

#include "runner/ParamLayout.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace tlxsim::runner {

/// What the runner reports about the device and its driver.
struct DeviceInfo {
  std::string name;          ///< "NVIDIA H200"
  std::string driverVersion; ///< "13.0" (CUDA driver API version) or the HIP runtime version
  std::string arch;          ///< "90" (compute capability major*10+minor) or "gfx942"
  int multiprocessors = 0;
  int smClockMaxMHz = 0;     ///< the device's maximum SM clock, MHz (CU_DEVICE_ATTRIBUTE_CLOCK_RATE / 1000)
};

/// One launch's geometry, as Triton's launcher computes it from the grid and the metadata.
struct LaunchGeometry {
  std::array<uint32_t, 3> grid{1, 1, 1};  ///< blocks (grid x already multiplied by the cluster size)
  std::array<uint32_t, 3> block{1, 1, 1}; ///< threads
  uint32_t sharedBytes = 0;               ///< dynamic shared memory
  uint32_t clusterX = 1;                  ///< CTAs per cluster (metadata num_ctas)
  bool cooperative = false;
  bool pdl = false;                       ///< programmatic stream serialization (launch_pdl)
};

class Device {
public:
  virtual ~Device() = default;
  virtual const DeviceInfo &info() const = 0;
  /// Loads the binary (cubin / hsaco bytes) and finds `kernel`; sets the dynamic shared memory
  /// limit as Triton's load_binary does when `sharedBytes` exceeds 48 KiB.
  virtual llvm::Error loadKernel(llvm::StringRef binary, llvm::StringRef kernel, uint32_t sharedBytes) = 0;
  /// Registers per thread and the largest block the loaded kernel allows.
  virtual llvm::Expected<std::pair<int, int>> kernelRegistersAndMaxThreads() = 0;
  virtual llvm::Expected<uint64_t> allocate(size_t bytes) = 0;
  virtual void release(uint64_t address) = 0;
  virtual llvm::Error upload(uint64_t dst, const void *src, size_t bytes) = 0;
  virtual llvm::Error download(void *dst, uint64_t src, size_t bytes) = 0;
  /// Asynchronous fill of `count` 32-bit words on the launch stream (the L2 flush of do_bench).
  virtual llvm::Error fill32(uint64_t dst, uint32_t value, size_t count) = 0;
  /// Synchronous fill of `count` 16-bit words (NaN poisoning of fp16 outputs).
  virtual llvm::Error fill16(uint64_t dst, uint16_t value, size_t count) = 0;
  /// The 128-byte CUtensorMap for `args` over the tensor at `address` (CUDA only).
  virtual llvm::Expected<std::array<uint8_t, 128>> encodeTensorMap(const TensorMapArgs &args, uint64_t address) = 0;
  /// Launches the loaded kernel on the stream; `params[i]` points at parameter i's bytes.
  virtual llvm::Error launch(const LaunchGeometry &geometry, void **params) = 0;
  /// Waits until the work launched so far is done, at most `hangTimeoutS` seconds: past it, an error that says the
  /// kernel hangs (a deadlocked mbarrier protocol never finishes; the GPU cannot be freed from inside the process,
  /// so the caller exits, and the driver tears the context down).
  virtual llvm::Error synchronize() = 0;
  /// Seconds synchronize() waits for launched work before it reports a hang (`tlx-sim run --hang-timeout`).
  double hangTimeoutS = 60;
  /// Set by synchronize() when it reported a hang: the kernel still runs, so release() frees nothing (freeing
  /// would wait for it) and the process must end without tearing the device down (RunCommand: _Exit).
  bool hung = false;

protected:
  /// synchronize() of a driver: polls `query` (pollStream's states) for at most hangTimeoutS; a hang sets `hung`
  /// and returns hangError, a driver error `onError()`; an idle stream ends with `sync()` (the driver's own wait).
  template <typename Query, typename OnError, typename Sync>
  llvm::Error awaitIdle(Query query, OnError onError, Sync sync);

public:
  /// Makes `count` timing events (replacing earlier ones), records event `index` on the stream,
  /// and reads the milliseconds between two recorded events after a synchronize.
  virtual llvm::Error createEvents(size_t count) = 0;
  virtual llvm::Error recordEvent(size_t index) = 0;
  virtual llvm::Expected<float> elapsedMs(size_t start, size_t end) = 0;
};

/// The error synchronize() returns when launched work is still running after `seconds`.
inline llvm::Error hangError(double seconds) {
  return llvm::createStringError(
      "the kernel has not finished after %g s (--hang-timeout): it hangs, a deadlocked synchronization protocol "
      "(`tlx-sim check` names the wait that never completes), or runs far longer than any timing needs",
      seconds);
}

/// Polls `query` (0: the stream is idle, 1: still running, anything else: an error the caller reports) every
/// 100 us until it is idle or `seconds` have passed. Returns 0, 1 (timed out) or the error.
template <typename Query> int pollStream(Query query, double seconds) {
  auto start = std::chrono::steady_clock::now();
  for (;;) {
    int state = query();
    if (state != 1)
      return state;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds)
      return 1;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

template <typename Query, typename OnError, typename Sync>
llvm::Error Device::awaitIdle(Query query, OnError onError, Sync sync) {
  int state = pollStream(query, hangTimeoutS);
  if (state == 1) {
    hung = true;
    return hangError(hangTimeoutS);
  }
  return state == 2 ? onError() : sync();
}

/// Opens device 0 through the CUDA driver API (dlopen("libcuda.so.1")). Fails when the tool was
/// built without cuda.h, the driver is missing, or no device is present.
llvm::Expected<std::unique_ptr<Device>> openCudaDevice();
/// Opens device 0 through HIP (dlopen of libamdhip64). Fails when built without the HIP
/// headers, the runtime is missing, or no device is present.
llvm::Expected<std::unique_ptr<Device>> openHipDevice();

} // namespace tlxsim::runner
