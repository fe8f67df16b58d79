// Device over HIP, loaded with dlopen("libamdhip64.so...") and dlsym (hip_runtime_api.h from
// Debian's libamdhip64-dev 5.2.3 is used for types only, with __HIP_PLATFORM_AMD__ defined).
// Launches follow triton/backends/amd/driver.py: hipModuleLaunchKernel with
// blockDim.x = warp_size * num_warps and the metadata's shared memory.
#include "runner/Device.h"

#ifdef TLXSIM_RUNNER_HAVE_HIP
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime_api.h>

#include <dlfcn.h>

#include <vector>

namespace tlxsim::runner {
namespace {

// Entry points that kept their ABI from HIP 5 to HIP 6/7 (hipGetDeviceProperties did not:
// ROCm 6 renamed it hipGetDevicePropertiesR0600, so the runner asks attributes one by one).
#define TLXSIM_HIP_FUNCTIONS(X)                                                                                   \
  X(hipInit) X(hipGetDeviceCount) X(hipSetDevice) X(hipDeviceGetName) X(hipDeviceGetAttribute)                   \
  X(hipDriverGetVersion) X(hipModuleLoadData) X(hipModuleGetFunction) X(hipFuncGetAttribute)                     \
  X(hipModuleLaunchKernel) X(hipFree) X(hipMemcpyHtoD) X(hipMemcpyDtoH) X(hipMemsetD32Async)        \
  X(hipMemsetD16) X(hipDeviceSynchronize) X(hipStreamQuery) X(hipEventCreate) X(hipEventRecord) X(hipEventElapsedTime)             \
  X(hipEventDestroy) X(hipGetErrorString)

struct Api {
#define TLXSIM_DECLARE(name) decltype(&::name) name = nullptr;
  TLXSIM_HIP_FUNCTIONS(TLXSIM_DECLARE)
#undef TLXSIM_DECLARE
  hipError_t (*hipMalloc)(void **, size_t) = nullptr; // overloaded in C++ (a template too): named by type
};

class HipDevice final : public Device {
public:
  Api api;
  hipFunction_t function = nullptr;
  DeviceInfo deviceInfo;
  std::vector<hipEvent_t> events;

  llvm::Error check(hipError_t result, const char *what) {
    if (result == hipSuccess)
      return llvm::Error::success();
    const char *text = api.hipGetErrorString ? api.hipGetErrorString(result) : nullptr;
    return llvm::createStringError("%s failed: %s (hipError_t %d)", what, text ? text : "unknown error", int(result));
  }
  ~HipDevice() override {
    for (hipEvent_t e : events)
      (void)api.hipEventDestroy(e);
  }
  const DeviceInfo &info() const override { return deviceInfo; }

  llvm::Error loadKernel(llvm::StringRef binary, llvm::StringRef kernel, uint32_t sharedBytes) override {
    hipModule_t module;
    if (auto err = check(api.hipModuleLoadData(&module, binary.data()), "hipModuleLoadData"))
      return err;
    return check(api.hipModuleGetFunction(&function, module, kernel.str().c_str()), "hipModuleGetFunction");
  }
  llvm::Expected<std::pair<int, int>> kernelRegistersAndMaxThreads() override {
    int regs = 0, maxThreads = 0;
    if (auto err = check(api.hipFuncGetAttribute(&regs, HIP_FUNC_ATTRIBUTE_NUM_REGS, function), "hipFuncGetAttribute"))
      return err;
    if (auto err = check(api.hipFuncGetAttribute(&maxThreads, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function),
                         "hipFuncGetAttribute"))
      return err;
    return std::make_pair(regs, maxThreads);
  }
  llvm::Expected<uint64_t> allocate(size_t bytes) override {
    void *p = nullptr;
    if (auto err = check(api.hipMalloc(&p, bytes ? bytes : 1), "hipMalloc"))
      return err;
    return reinterpret_cast<uint64_t>(p);
  }
  void release(uint64_t address) override {
    if (!hung)
      (void)api.hipFree(reinterpret_cast<void *>(address));
  }
  llvm::Error upload(uint64_t dst, const void *src, size_t bytes) override {
    return check(api.hipMemcpyHtoD(hipDeviceptr_t(dst), const_cast<void *>(src), bytes), "hipMemcpyHtoD");
  }
  llvm::Error download(void *dst, uint64_t src, size_t bytes) override {
    return check(api.hipMemcpyDtoH(dst, hipDeviceptr_t(src), bytes), "hipMemcpyDtoH");
  }
  llvm::Error fill32(uint64_t dst, uint32_t value, size_t count) override {
    return check(api.hipMemsetD32Async(hipDeviceptr_t(dst), int(value), count, nullptr), "hipMemsetD32Async");
  }
  llvm::Error fill16(uint64_t dst, uint16_t value, size_t count) override {
    return check(api.hipMemsetD16(hipDeviceptr_t(dst), value, count), "hipMemsetD16");
  }
  llvm::Expected<std::array<uint8_t, 128>> encodeTensorMap(const TensorMapArgs &, uint64_t) override {
    return llvm::createStringError("CUtensorMap descriptors do not exist on HIP");
  }
  llvm::Error launch(const LaunchGeometry &g, void **params) override {
    if (g.clusterX != 1 || g.cooperative)
      return llvm::createStringError("the HIP runner launches plain grids only (no clusters, no cooperative launch)");
    return check(api.hipModuleLaunchKernel(function, g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1],
                                           g.block[2], g.sharedBytes, nullptr, params, nullptr),
                 "hipModuleLaunchKernel");
  }
  llvm::Error synchronize() override {
    hipError_t last = hipSuccess;
    return awaitIdle(
        [&] {
          last = api.hipStreamQuery(nullptr); // the null stream every launch of the runner uses
          return last == hipSuccess ? 0 : last == hipErrorNotReady ? 1 : 2;
        },
        [&] { return check(last, "hipStreamQuery (kernel execution)"); },
        [&] { return check(api.hipDeviceSynchronize(), "hipDeviceSynchronize (kernel execution)"); });
  }
  llvm::Error createEvents(size_t count) override {
    for (hipEvent_t e : events)
      (void)api.hipEventDestroy(e);
    events.assign(count, nullptr);
    for (hipEvent_t &e : events)
      if (auto err = check(api.hipEventCreate(&e), "hipEventCreate"))
        return err;
    return llvm::Error::success();
  }
  llvm::Error recordEvent(size_t index) override {
    return check(api.hipEventRecord(events.at(index), nullptr), "hipEventRecord");
  }
  llvm::Expected<float> elapsedMs(size_t start, size_t end) override {
    float ms = 0;
    if (auto err = check(api.hipEventElapsedTime(&ms, events.at(start), events.at(end)), "hipEventElapsedTime"))
      return err;
    return ms;
  }
};

} // namespace

llvm::Expected<std::unique_ptr<Device>> openHipDevice() {
  void *library = nullptr;
  for (const char *name : {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"})
    if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
      break;
  if (!library)
    return llvm::createStringError("no HIP runtime: dlopen(\"libamdhip64.so\") failed (%s); `tlx-sim run` needs an "
                                   "AMD GPU and ROCm",
                                   dlerror());
  auto device = std::make_unique<HipDevice>();
  Api &api = device->api;
#define TLXSIM_LOAD(name)                                                                                         \
  if (!(api.name = reinterpret_cast<decltype(api.name)>(dlsym(library, #name))))                                  \
    return llvm::createStringError("the HIP runtime has no %s", #name);
  TLXSIM_HIP_FUNCTIONS(TLXSIM_LOAD)
  TLXSIM_LOAD(hipMalloc)
#undef TLXSIM_LOAD
  HipDevice &d = *device;
  if (auto err = d.check(api.hipInit(0), "hipInit"))
    return err;
  int count = 0;
  if (auto err = d.check(api.hipGetDeviceCount(&count), "hipGetDeviceCount"))
    return err;
  if (count == 0)
    return llvm::createStringError("the HIP runtime sees no GPU");
  if (auto err = d.check(api.hipSetDevice(0), "hipSetDevice"))
    return err;
  char name[256] = {0};
  (void)api.hipDeviceGetName(name, sizeof name, 0);
  d.deviceInfo.name = name;
  int version = 0, clockKHz = 0;
  (void)api.hipDriverGetVersion(&version);
  d.deviceInfo.driverVersion = std::to_string(version);
  (void)api.hipDeviceGetAttribute(&d.deviceInfo.multiprocessors, hipDeviceAttributeMultiprocessorCount, 0);
  (void)api.hipDeviceGetAttribute(&clockKHz, hipDeviceAttributeClockRate, 0);
  d.deviceInfo.smClockMaxMHz = clockKHz / 1000;
  return std::unique_ptr<Device>(std::move(device));
}

} // namespace tlxsim::runner

#else // !TLXSIM_RUNNER_HAVE_HIP

namespace tlxsim::runner {
llvm::Expected<std::unique_ptr<Device>> openHipDevice() {
  return llvm::createStringError("this tlx-sim was built without the HIP headers (libamdhip64-dev), so it cannot "
                                 "launch hsaco binaries; rebuild with them installed");
}
} // namespace tlxsim::runner

#endif
