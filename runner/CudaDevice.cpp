// Device over the CUDA driver API, loaded with dlopen("libcuda.so.1") and cuGetProcAddress
// (cuda.h is used for types and enums only; nothing links against libcuda).
#include "runner/Device.h"

#ifdef TLXSIM_RUNNER_HAVE_CUDA
#include <cuda.h>
#include <dlfcn.h>

#include <cstring>
#include <vector>

namespace tlxsim::runner {
namespace {

// The driver entry points the runner uses, fetched with cuGetProcAddress for CUDA_VERSION of the
// headers, so each pointer has the ABI of the prototype cuda.h declares.
#define TLXSIM_CUDA_FUNCTIONS(X)                                                                                  \
  X(cuInit) X(cuDriverGetVersion) X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetName) X(cuDeviceGetAttribute)  \
  X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuStreamQuery) X(cuModuleLoadData) X(cuModuleGetFunction) \
  X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuFuncSetCacheConfig) X(cuMemAlloc) X(cuMemFree)               \
  X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemsetD32Async) X(cuMemsetD16) X(cuLaunchKernelEx)                       \
  X(cuTensorMapEncodeTiled) X(cuEventCreate) X(cuEventRecord) X(cuEventElapsedTime) X(cuEventDestroy)          \
  X(cuGetErrorString)

struct Api {
#define TLXSIM_DECLARE(name) decltype(&::name) name = nullptr;
  TLXSIM_CUDA_FUNCTIONS(TLXSIM_DECLARE)
#undef TLXSIM_DECLARE
};

class CudaDevice final : public Device {
public:
  Api api;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUfunction function = nullptr;
  DeviceInfo deviceInfo;
  std::vector<CUevent> events;

  llvm::Error check(CUresult result, const char *what) {
    if (result == CUDA_SUCCESS)
      return llvm::Error::success();
    const char *text = nullptr;
    if (api.cuGetErrorString)
      api.cuGetErrorString(result, &text);
    return llvm::createStringError("%s failed: %s (CUresult %d)", what, text ? text : "unknown error", int(result));
  }

  ~CudaDevice() override {
    for (CUevent e : events)
      api.cuEventDestroy(e);
  }

  const DeviceInfo &info() const override { return deviceInfo; }

  llvm::Error loadKernel(llvm::StringRef binary, llvm::StringRef kernel, uint32_t sharedBytes) override {
    CUmodule module;
    // cuModuleLoadData needs the image to outlive the call only; the cubin is a complete ELF.
    if (auto err = check(api.cuModuleLoadData(&module, binary.data()), "cuModuleLoadData"))
      return err;
    if (auto err = check(api.cuModuleGetFunction(&function, module, kernel.str().c_str()), "cuModuleGetFunction"))
      return err;
    // triton/backends/nvidia/driver.c loadBinary: above 48 KiB, prefer shared memory and raise
    // the dynamic limit to the opt-in maximum less the static shared memory.
    int optin = 0;
    if (auto err = check(api.cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                                  device),
                         "cuDeviceGetAttribute"))
      return err;
    if (sharedBytes > uint32_t(optin))
      return llvm::createStringError("the kernel needs %u bytes of shared memory; the device allows %d",
                                     sharedBytes, optin);
    if (sharedBytes > 49152 && optin > 49152) {
      if (auto err = check(api.cuFuncSetCacheConfig(function, CU_FUNC_CACHE_PREFER_SHARED), "cuFuncSetCacheConfig"))
        return err;
      int staticShared = 0;
      if (auto err = check(api.cuFuncGetAttribute(&staticShared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function),
                           "cuFuncGetAttribute"))
        return err;
      if (auto err = check(api.cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                  optin - staticShared),
                           "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)"))
        return err;
    }
    return llvm::Error::success();
  }

  llvm::Expected<std::pair<int, int>> kernelRegistersAndMaxThreads() override {
    int regs = 0, maxThreads = 0;
    if (auto err = check(api.cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, function), "cuFuncGetAttribute"))
      return err;
    if (auto err = check(api.cuFuncGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function),
                         "cuFuncGetAttribute"))
      return err;
    return std::make_pair(regs, maxThreads);
  }

  llvm::Expected<uint64_t> allocate(size_t bytes) override {
    CUdeviceptr p = 0;
    if (auto err = check(api.cuMemAlloc(&p, bytes ? bytes : 1), "cuMemAlloc"))
      return err;
    return uint64_t(p);
  }
  void release(uint64_t address) override {
    if (!hung)
      api.cuMemFree(CUdeviceptr(address));
  }
  llvm::Error upload(uint64_t dst, const void *src, size_t bytes) override {
    return check(api.cuMemcpyHtoD(CUdeviceptr(dst), src, bytes), "cuMemcpyHtoD");
  }
  llvm::Error download(void *dst, uint64_t src, size_t bytes) override {
    return check(api.cuMemcpyDtoH(dst, CUdeviceptr(src), bytes), "cuMemcpyDtoH");
  }
  llvm::Error fill32(uint64_t dst, uint32_t value, size_t count) override {
    return check(api.cuMemsetD32Async(CUdeviceptr(dst), value, count, nullptr), "cuMemsetD32Async");
  }
  llvm::Error fill16(uint64_t dst, uint16_t value, size_t count) override {
    return check(api.cuMemsetD16(CUdeviceptr(dst), value, count), "cuMemsetD16");
  }

  llvm::Expected<std::array<uint8_t, 128>> encodeTensorMap(const TensorMapArgs &a, uint64_t address) override {
    CUtensorMap map;
    // driver.c passes fixed arrays of 5; the API reads rank entries (rank - 1 strides).
    std::vector<cuuint64_t> dims(a.globalDim.begin(), a.globalDim.end()),
        strides(a.globalStrides.begin(), a.globalStrides.end());
    std::vector<cuuint32_t> box(a.boxDim.begin(), a.boxDim.end()),
        elementStrides(a.elementStrides.begin(), a.elementStrides.end());
    if (auto err = check(api.cuTensorMapEncodeTiled(&map, CUtensorMapDataType(a.dataType), a.rank,
                                                    reinterpret_cast<void *>(address), dims.data(), strides.data(),
                                                    box.data(), elementStrides.data(),
                                                    CUtensorMapInterleave(a.interleave), CUtensorMapSwizzle(a.swizzle),
                                                    CUtensorMapL2promotion(a.l2Promotion),
                                                    CUtensorMapFloatOOBfill(a.oobFill)),
                         "cuTensorMapEncodeTiled"))
      return err;
    std::array<uint8_t, 128> out;
    static_assert(sizeof(CUtensorMap) == 128);
    std::memcpy(out.data(), &map, 128);
    return out;
  }

  llvm::Error launch(const LaunchGeometry &g, void **params) override {
    // triton/backends/nvidia/driver.py _launch: cluster and cooperative/PDL attributes.
    CUlaunchAttribute attrs[4];
    unsigned count = 0;
    if (g.pdl) {
      attrs[count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attrs[count++].value.programmaticStreamSerializationAllowed = 1;
    }
    if (g.cooperative) {
      attrs[count].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
      attrs[count++].value.cooperative = 1;
    }
    if (g.clusterX != 1) {
      attrs[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attrs[count].value.clusterDim.x = g.clusterX;
      attrs[count].value.clusterDim.y = 1;
      attrs[count++].value.clusterDim.z = 1;
      attrs[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
      attrs[count++].value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
      if (g.clusterX == 16)
        if (auto err = check(api.cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
                             "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)"))
          return err;
    }
    CUlaunchConfig config{};
    config.gridDimX = g.grid[0];
    config.gridDimY = g.grid[1];
    config.gridDimZ = g.grid[2];
    config.blockDimX = g.block[0];
    config.blockDimY = g.block[1];
    config.blockDimZ = g.block[2];
    config.sharedMemBytes = g.sharedBytes;
    config.hStream = nullptr;
    config.attrs = attrs;
    config.numAttrs = count;
    return check(api.cuLaunchKernelEx(&config, function, params, nullptr), "cuLaunchKernelEx");
  }

  llvm::Error synchronize() override {
    CUresult last = CUDA_SUCCESS;
    return awaitIdle(
        [&] {
          last = api.cuStreamQuery(nullptr); // the legacy stream every launch and copy of the runner uses
          return last == CUDA_SUCCESS ? 0 : last == CUDA_ERROR_NOT_READY ? 1 : 2;
        },
        [&] { return check(last, "cuStreamQuery (kernel execution)"); },
        [&] { return check(api.cuCtxSynchronize(), "cuCtxSynchronize (kernel execution)"); });
  }

  llvm::Error createEvents(size_t count) override {
    for (CUevent e : events)
      api.cuEventDestroy(e);
    events.assign(count, nullptr);
    for (CUevent &e : events)
      if (auto err = check(api.cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate"))
        return err;
    return llvm::Error::success();
  }
  llvm::Error recordEvent(size_t index) override {
    return check(api.cuEventRecord(events.at(index), nullptr), "cuEventRecord");
  }
  llvm::Expected<float> elapsedMs(size_t start, size_t end) override {
    float ms = 0;
    if (auto err = check(api.cuEventElapsedTime(&ms, events.at(start), events.at(end)), "cuEventElapsedTime"))
      return err;
    return ms;
  }
};

} // namespace

llvm::Expected<std::unique_ptr<Device>> openCudaDevice() {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return llvm::createStringError("no CUDA driver: dlopen(\"libcuda.so.1\") failed (%s); `tlx-sim run` needs an "
                                   "NVIDIA GPU and its driver",
                                   dlerror());
  using GetProc = CUresult (*)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
  auto getProc = reinterpret_cast<GetProc>(dlsym(library, "cuGetProcAddress_v2"));
  if (!getProc)
    return llvm::createStringError("libcuda.so.1 has no cuGetProcAddress_v2 (driver older than CUDA 12)");
  // The ABI version each entry point is fetched at: CUDA_VERSION of the headers, except where
  // cuda.h's unversioned prototype is an older ABI than the newest symbol of that name. For CUDA 13,
  // cuCtxSynchronize at version 13000 is cuCtxSynchronize_v2(CUcontext) (cudaTypedefs.h
  // PFN_cuCtxSynchronize_v13000) while cuda.h declares cuCtxSynchronize(void), the 2000 ABI: calling
  // the v2 pointer with no argument hands the driver a garbage context ("context is destroyed").
  auto abiVersion = [](llvm::StringRef name) { return name == "cuCtxSynchronize" ? 2000 : CUDA_VERSION; };
  auto device = std::make_unique<CudaDevice>();
  Api &api = device->api;
#define TLXSIM_LOAD(name)                                                                                         \
  {                                                                                                                \
    CUdriverProcAddressQueryResult status;                                                                         \
    void *fn = nullptr;                                                                                            \
    if (getProc(#name, &fn, abiVersion(#name), CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS || !fn)      \
      return llvm::createStringError("the CUDA driver has no %s for CUDA %d (driver too old?)", #name,            \
                                     abiVersion(#name));                                                           \
    api.name = reinterpret_cast<decltype(api.name)>(fn);                                                           \
  }
  TLXSIM_CUDA_FUNCTIONS(TLXSIM_LOAD)
#undef TLXSIM_LOAD
  CudaDevice &d = *device;
  if (auto err = d.check(api.cuInit(0), "cuInit"))
    return err;
  int count = 0;
  if (auto err = d.check(api.cuDeviceGetCount(&count), "cuDeviceGetCount"))
    return err;
  if (count == 0)
    return llvm::createStringError("the CUDA driver sees no GPU");
  if (auto err = d.check(api.cuDeviceGet(&d.device, 0), "cuDeviceGet"))
    return err;
  if (auto err = d.check(api.cuDevicePrimaryCtxRetain(&d.context, d.device), "cuDevicePrimaryCtxRetain"))
    return err;
  if (auto err = d.check(api.cuCtxSetCurrent(d.context), "cuCtxSetCurrent"))
    return err;
  char name[256] = {0};
  api.cuDeviceGetName(name, sizeof name, d.device);
  d.deviceInfo.name = name;
  int version = 0, major = 0, minor = 0, clockKHz = 0;
  api.cuDriverGetVersion(&version);
  d.deviceInfo.driverVersion = std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
  api.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d.device);
  api.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d.device);
  api.cuDeviceGetAttribute(&d.deviceInfo.multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d.device);
  api.cuDeviceGetAttribute(&clockKHz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, d.device);
  d.deviceInfo.arch = std::to_string(major * 10 + minor);
  d.deviceInfo.smClockMaxMHz = clockKHz / 1000;
  return std::unique_ptr<Device>(std::move(device));
}

} // namespace tlxsim::runner

#else // !TLXSIM_RUNNER_HAVE_CUDA

namespace tlxsim::runner {
llvm::Expected<std::unique_ptr<Device>> openCudaDevice() {
  return llvm::createStringError("this tlx-sim was built without the CUDA headers (cuda.h), so it cannot launch "
                                 "cubins; rebuild with the CUDA toolkit installed");
}
} // namespace tlxsim::runner

#endif
