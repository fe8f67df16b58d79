#include "runner/Runner.h"

#include "runner/ClockSampler.h"
#include "runner/HostData.h"
#include "runner/Measure.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <thread>

namespace tlxsim::runner {

namespace {

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readBinary(const Capture &c) {
  auto buffer = llvm::MemoryBuffer::getFile(c.binaryPath, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError("%s: cannot read: %s", c.binaryPath.c_str(), buffer.getError().message().c_str());
  return std::move(*buffer);
}

/// Device allocations released at scope exit.
struct Allocations {
  Device &device;
  std::vector<uint64_t> addresses;
  ~Allocations() {
    for (uint64_t a : addresses)
      device.release(a);
  }
  llvm::Expected<uint64_t> get(size_t bytes) {
    auto a = device.allocate(bytes);
    if (a)
      addresses.push_back(*a);
    return a;
  }
};

/// The NaN pattern and word size used to poison an output before the checked launch.
std::optional<std::pair<uint32_t, int>> nanPattern(llvm::StringRef dtype) {
  if (dtype == "fp16")
    return std::make_pair(0x7e00u, 2);
  if (dtype == "bf16")
    return std::make_pair(0x7fc0u, 2);
  if (dtype == "fp32" || dtype == "f32")
    return std::make_pair(0x7fc00000u, 4);
  return std::nullopt;
}

/// CTAs of a launch: the grid times the CTAs per cluster (scratch buffers hold one slice per CTA).
int64_t launchedCtas(const Capture &c) { return c.grid[0] * c.grid[1] * c.grid[2] * c.metadata.numCtas; }

uint64_t nameStream(llvm::StringRef name) { // FNV-1a: a stable stream id per tensor name
  uint64_t h = 1469598103934665603ull;
  for (char ch : name)
    h = (h ^ uint8_t(ch)) * 1099511628211ull;
  return h;
}

} // namespace

std::optional<std::pair<int, int>> readSmClock() {
  std::string gpu = smiDeviceSelector(); // an index or a UUID; anything else is not handed to the shell
  if (!llvm::all_of(gpu, [](char c) { return llvm::isAlnum(c) || c == '-'; }))
    return std::nullopt;
  std::string command =
      "nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv,noheader,nounits -i " + gpu + " 2>/dev/null";
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe)
    return std::nullopt;
  int current = 0, max = 0;
  int fields = fscanf(pipe, "%d , %d", &current, &max);
  pclose(pipe);
  if (fields != 2)
    return std::nullopt;
  return std::make_pair(current, max);
}

llvm::Expected<ParamLayout> layoutForCapture(const Capture &c, std::optional<CubinParams> *tableOut) {
  if (!c.isCuda())
    return buildParamLayout(c, 0);
  auto binary = readBinary(c);
  if (!binary)
    return binary.takeError();
  auto table = readCubinParams((*binary)->getBuffer(), c.metadata.name);
  if (!table)
    return llvm::createStringError("%s: %s", c.binaryPath.c_str(), llvm::toString(table.takeError()).c_str());
  if (tableOut)
    *tableOut = *table;
  auto layout = buildParamLayout(c, table->cbankOffset);
  if (!layout)
    return layout.takeError();
  const auto &ours = layout->params;
  if (ours.size() != table->params.size())
    return llvm::createStringError("%s: the kernel has %zu parameters but the launch packs %zu (signature and "
                                   "binary disagree)",
                                   c.binaryPath.c_str(), table->params.size(), ours.size());
  for (size_t i = 0; i < ours.size(); ++i) {
    const CubinParam &p = table->params[i];
    if (p.ordinal != i || p.offset != ours[i].offset || p.size != ours[i].size)
      return llvm::createStringError("%s: parameter %zu (%s) is at offset %u size %u in the cubin but the launch "
                                     "packs it at offset %u size %u",
                                     c.binaryPath.c_str(), i, ours[i].name.c_str(), p.offset, p.size,
                                     ours[i].offset, ours[i].size);
  }
  return layout;
}

namespace {

/// Device addresses of the tensors by name, plus "global_scratch" / "profile_scratch".
using Addresses = std::map<std::string, uint64_t>;

/// One allocation per tensor, filled with seeded normal data (HostData.h fillRandom) and uploaded;
/// then the kernel's global and profile scratch (per CTA sizes times the CTAs). Adds the tensors'
/// bytes to result.bytes.
llvm::Error uploadInputs(const Capture &c, Device &device, const RunOptions &options, Allocations &allocations,
                         HostTensors &host, Addresses &addresses, RunResult &result) {
  unsigned fillThreads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  for (const auto &[name, t] : c.tensors) {
    size_t bytes = size_t(t.extentElements()) * dtypeBytes(t.dtype);
    std::vector<uint8_t> &data = host[name];
    data.resize(bytes);
    if (auto err = fillRandom(data.data(), t.extentElements(), t.dtype, options.seed, nameStream(name), fillThreads))
      return llvm::createStringError("tensor %s: %s", name.c_str(), llvm::toString(std::move(err)).c_str());
    auto address = allocations.get(bytes);
    if (!address)
      return address.takeError();
    if (auto err = device.upload(*address, data.data(), bytes))
      return err;
    addresses[name] = *address;
    result.bytes += double(bytes);
  }
  const int64_t ctas = launchedCtas(c);
  if (c.isCuda() && c.metadata.globalScratchSize > 0) {
    auto a = allocations.get(size_t(ctas * c.metadata.globalScratchSize));
    if (!a)
      return a.takeError();
    addresses["global_scratch"] = *a;
  }
  if (c.metadata.profileScratchSize > 0) {
    auto a = allocations.get(size_t(ctas * c.metadata.profileScratchSize));
    if (!a)
      return a.takeError();
    addresses["profile_scratch"] = *a;
    if (auto err = device.fill32(*a, 0, size_t(ctas * c.metadata.profileScratchSize) / 4)) // Proton zeroes it too
      return err;
    if (auto err = device.synchronize())
      return err;
  }
  return llvm::Error::success();
}

/// `--proton`: one more launch over a zeroed profile scratch, then the buffer's download into
/// options.profileBuffer. A failing launch sets result.kernelFailure.
llvm::Error captureProfile(const Capture &c, const PreparedLaunch &launch, const RunOptions &options,
                           const Addresses &addresses, RunResult &result) {
  auto it = addresses.find("profile_scratch");
  if (it == addresses.end())
    return llvm::createStringError("%s: the kernel has no profile scratch (profile_scratch_size 0): it was not "
                                   "compiled under Proton's instrumentation mode (capture with --proton)",
                                   c.dir.c_str());
  const size_t bytes = size_t(launchedCtas(c) * c.metadata.profileScratchSize);
  if (auto err = launch.device.fill32(it->second, 0, bytes / 4))
    return err;
  if (auto err = launch.launch()) {
    result.kernelFailure = llvm::toString(std::move(err));
    return llvm::Error::success();
  }
  if (auto err = launch.device.synchronize()) {
    result.kernelFailure = llvm::toString(std::move(err));
    return llvm::Error::success();
  }
  options.profileBuffer->resize(bytes);
  return launch.device.download(options.profileBuffer->data(), it->second, bytes);
}

/// The parameter values, each at a naturally aligned host address of `storage` (the driver
/// copies them to the offsets of the kernel's parameter space): scalars, device pointers (null
/// for an absent tensor) and 128-byte tensor maps encoded by the device. Returns one pointer
/// per parameter, as cuLaunchKernelEx's kernelParams wants them.
llvm::Expected<std::vector<void *>> packParams(const ParamLayout &layout, Device &device, const Addresses &addresses,
                                               std::unique_ptr<uint8_t, decltype(&std::free)> &storage) {
  std::vector<size_t> hostOffsets;
  size_t hostSize = 0;
  for (const Param &p : layout.params) {
    hostSize = (hostSize + p.align - 1) / p.align * p.align;
    hostOffsets.push_back(hostSize);
    hostSize += p.size;
  }
  storage.reset(static_cast<uint8_t *>(std::aligned_alloc(128, (hostSize + 127) / 128 * 128)));
  std::memset(storage.get(), 0, hostSize);
  std::vector<void *> params;
  for (size_t i = 0; i < layout.params.size(); ++i) {
    const Param &p = layout.params[i];
    uint8_t *slot = storage.get() + hostOffsets[i];
    params.push_back(slot);
    switch (p.kind) {
    case ParamKind::Scalar:
      std::memcpy(slot, &p.bits, p.size);
      break;
    case ParamKind::Pointer:
    case ParamKind::Scratch: {
      uint64_t address = p.tensor.empty() ? 0 : addresses.at(p.tensor);
      std::memcpy(slot, &address, 8);
      break;
    }
    case ParamKind::TensorMap: {
      auto map = device.encodeTensorMap(*p.tensorMap, addresses.at(p.tensor));
      if (!map)
        return llvm::createStringError("tensor descriptor %s: %s", p.name.c_str(),
                                       llvm::toString(map.takeError()).c_str());
      std::memcpy(slot, map->data(), 128);
      break;
    }
    }
  }
  return params;
}

/// Triton's launch geometry: grid x times the cluster size, num_warps * warp_size threads.
LaunchGeometry launchGeometry(const Capture &c) {
  LaunchGeometry geometry;
  geometry.grid = {uint32_t(c.grid[0] * c.metadata.numCtas), uint32_t(c.grid[1]), uint32_t(c.grid[2])};
  geometry.block = {uint32_t(c.metadata.numWarps * c.metadata.warpSize), 1, 1};
  geometry.sharedBytes = uint32_t(c.metadata.shared);
  geometry.clusterX = uint32_t(c.metadata.numCtas);
  geometry.cooperative = c.metadata.launchCooperativeGrid;
  geometry.pdl = c.metadata.launchPdl;
  return geometry;
}

/// The first launch, then (with a reference) the checked launch over a NaN-poisoned output,
/// its download and result.check. A failing launch or kernel sets result.kernelFailure.
llvm::Error launchAndCheck(const Capture &c, const PreparedLaunch &launch, const RunOptions &options,
                           HostTensors &host, Addresses &addresses, RunResult &result) {
  Device &device = launch.device;
  auto failed = [&](llvm::Error err) {
    result.kernelFailure = llvm::toString(std::move(err));
    return llvm::Error::success();
  };
  if (auto err = launch.launch())
    return failed(std::move(err));
  if (auto err = device.synchronize())
    return failed(std::move(err));
  if (result.reference.kind == ReferenceKind::None)
    return llvm::Error::success();
  const std::string &out = result.reference.output();
  const TensorSpec &spec = c.tensors.at(out);
  std::vector<uint8_t> &data = host[out];
  if (auto nan = nanPattern(spec.dtype)) {
    llvm::Error err = nan->second == 2 ? device.fill16(addresses[out], uint16_t(nan->first), data.size() / 2)
                                       : device.fill32(addresses[out], nan->first, data.size() / 4);
    if (err)
      return err;
    if (auto err = device.synchronize())
      return err;
  }
  if (auto err = launch.launch())
    return failed(std::move(err));
  if (auto err = device.synchronize())
    return failed(std::move(err));
  if (auto err = device.download(data.data(), addresses[out], data.size()))
    return err;
  result.check = checkReference(result.reference, c, host, options.seed, options.threads);
  return llvm::Error::success();
}

} // namespace

llvm::Expected<RunResult> runCapture(const Capture &c, Device &device, const RunOptions &options) {
  RunResult result;
  result.device = device.info();
  auto layout = layoutForCapture(c);
  if (!layout)
    return layout.takeError();
  result.layout = *layout;
  auto reference = findReference(c, options.reference);
  if (!reference)
    return reference.takeError();
  result.reference = *reference;

  auto binary = readBinary(c);
  if (!binary)
    return binary.takeError();
  if (auto err = device.loadKernel((*binary)->getBuffer(), c.metadata.name, uint32_t(c.metadata.shared)))
    return err;
  auto regs = device.kernelRegistersAndMaxThreads();
  if (!regs)
    return regs.takeError();
  result.registers = regs->first;
  const int threads = c.metadata.numWarps * c.metadata.warpSize;
  if (threads > regs->second)
    return llvm::createStringError("the kernel needs %d threads per block but the driver allows %d (out of "
                                   "resources, as Triton would report)",
                                   threads, regs->second);

  Allocations allocations{device, {}};
  HostTensors host;
  Addresses addresses;
  if (auto err = uploadInputs(c, device, options, allocations, host, addresses, result))
    return err;
  std::unique_ptr<uint8_t, decltype(&std::free)> paramStorage(nullptr, &std::free);
  auto params = packParams(result.layout, device, addresses, paramStorage);
  if (!params)
    return params.takeError();
  PreparedLaunch launch{device, launchGeometry(c), params->data()};

  if (auto err = launchAndCheck(c, launch, options, host, addresses, result))
    return err;
  if (!result.kernelFailure.empty() || (result.check && !result.check->ok))
    return result; // a timing of a wrong kernel is worthless
  if (options.profileBuffer) {
    if (auto err = captureProfile(c, launch, options, addresses, result))
      return err;
    if (!result.kernelFailure.empty())
      return result;
  }
  if (options.skipTiming)
    return result;

  // Timing, as tlx_sim/record.py (runner/Measure.h).
  if (options.flushL2) {
    launch.flushWords = size_t(256) << 20 >> 2;
    auto a = allocations.get(launch.flushWords * 4);
    if (!a)
      return a.takeError();
    launch.flushBuffer = *a;
  }
  if (auto clock = readSmClock()) {
    result.smClockBeforeMHz = clock->first;
    result.smClockMaxMHz = clock->second;
  }
  ClockSampler sampler(/*periodMs=*/50); // beside both timings, as record.py's sampler
  if (auto err = timeEventRounds(launch, options, result))
    return err;
  if (!result.kernelFailure.empty())
    return result;
  if (auto err = timeWithKernelTimer(launch, c.metadata.name, options, result))
    return err;
  if (!result.kernelFailure.empty())
    return result;
  result.smClockSamplesMHz = sampler.stop();
  if (auto clock = readSmClock())
    result.smClockAfterMHz = clock->first;
  return result;
}

} // namespace tlxsim::runner
