#include "runner/Runner.h"

#include "runner/HostData.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
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

uint64_t nameStream(llvm::StringRef name) { // FNV-1a: a stable stream id per tensor name
  uint64_t h = 1469598103934665603ull;
  for (char ch : name)
    h = (h ^ uint8_t(ch)) * 1099511628211ull;
  return h;
}

} // namespace

std::optional<std::pair<int, int>> readSmClock() {
  FILE *pipe = popen("nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv,noheader,nounits -i 0 "
                     "2>/dev/null",
                     "r");
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

  // Inputs: one allocation per tensor, filled with seeded normal data.
  Allocations allocations{device, {}};
  HostTensors host;
  std::map<std::string, uint64_t> addresses;
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
  const int64_t ctas = c.grid[0] * c.grid[1] * c.grid[2] * c.metadata.numCtas;
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
  }

  // The parameter values, each at a naturally aligned host address (the driver copies them to
  // the offsets of the kernel's parameter space).
  std::vector<size_t> hostOffsets;
  size_t hostSize = 0;
  for (const Param &p : result.layout.params) {
    hostSize = (hostSize + p.align - 1) / p.align * p.align;
    hostOffsets.push_back(hostSize);
    hostSize += p.size;
  }
  std::unique_ptr<uint8_t, decltype(&std::free)> paramBytes(
      static_cast<uint8_t *>(std::aligned_alloc(128, (hostSize + 127) / 128 * 128)), &std::free);
  std::memset(paramBytes.get(), 0, hostSize);
  std::vector<void *> params;
  for (size_t i = 0; i < result.layout.params.size(); ++i) {
    const Param &p = result.layout.params[i];
    uint8_t *slot = paramBytes.get() + hostOffsets[i];
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

  LaunchGeometry geometry;
  geometry.grid = {uint32_t(c.grid[0] * c.metadata.numCtas), uint32_t(c.grid[1]), uint32_t(c.grid[2])};
  geometry.block = {uint32_t(threads), 1, 1};
  geometry.sharedBytes = uint32_t(c.metadata.shared);
  geometry.clusterX = uint32_t(c.metadata.numCtas);
  geometry.cooperative = c.metadata.launchCooperativeGrid;
  geometry.pdl = c.metadata.launchPdl;
  auto launchOnce = [&]() -> llvm::Error { return device.launch(geometry, params.data()); };
  auto kernelFailed = [&](llvm::Error err) {
    result.kernelFailure = llvm::toString(std::move(err));
    return std::move(result);
  };

  // First launch, then the checked launch over a NaN-poisoned output.
  if (auto err = launchOnce())
    return kernelFailed(std::move(err));
  if (auto err = device.synchronize())
    return kernelFailed(std::move(err));
  if (result.reference.kind != ReferenceKind::None) {
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
    if (auto err = launchOnce())
      return kernelFailed(std::move(err));
    if (auto err = device.synchronize())
      return kernelFailed(std::move(err));
    if (auto err = device.download(data.data(), addresses[out], data.size()))
      return err;
    result.check = checkReference(result.reference, c, host, options.seed, options.threads);
    if (!result.check->ok)
      return result; // a timing of a wrong kernel is worthless
  }

  // Timing, as tlx_sim/record.py: do_bench rounds (an estimate from 5 launches, warm-up, then each
  // launch between two events after zeroing a 256 MiB buffer: the L2 flush), re-timed while their
  // CV is high; then, with a device-duration timer, more flushed launches timed by CUPTI.
  uint64_t flush = 0;
  const size_t flushWords = size_t(256) << 20 >> 2;
  if (options.flushL2) {
    auto a = allocations.get(flushWords * 4);
    if (!a)
      return a.takeError();
    flush = *a;
  }
  auto flushL2 = [&]() -> llvm::Error {
    return options.flushL2 ? device.fill32(flush, 0, flushWords) : llvm::Error::success();
  };
  if (auto clock = readSmClock()) {
    result.smClockBeforeMHz = clock->first;
    result.smClockMaxMHz = clock->second;
  }
  if (auto err = device.createEvents(2))
    return err;
  if (auto err = device.recordEvent(0))
    return err;
  for (int i = 0; i < 5; ++i) {
    if (auto err = flushL2())
      return err;
    if (auto err = launchOnce())
      return kernelFailed(std::move(err));
  }
  if (auto err = device.recordEvent(1))
    return err;
  if (auto err = device.synchronize())
    return kernelFailed(std::move(err));
  auto estimate = device.elapsedMs(0, 1);
  if (!estimate)
    return estimate.takeError();
  const double estimateMs = *estimate / 5;
  result.warmupIters = iterationsFor(options.warmupMs, estimateMs);
  result.itersPerRound = options.iters > 0 ? options.iters : iterationsFor(options.repMs, estimateMs);
  if (auto err = device.createEvents(2 * size_t(result.itersPerRound)))
    return err;
  std::vector<double> bestAll, bestRounds;
  double bestCv = 0;
  for (int attempt = 0; attempt <= std::max(0, options.retries); ++attempt) {
    std::vector<double> all, rounds;
    for (int round = 0; round < std::max(1, options.rounds); ++round) {
      for (int i = 0; i < result.warmupIters; ++i)
        if (auto err = launchOnce())
          return kernelFailed(std::move(err));
      for (int i = 0; i < result.itersPerRound; ++i) {
        if (auto err = flushL2())
          return err;
        if (auto err = device.recordEvent(2 * i))
          return err;
        if (auto err = launchOnce())
          return kernelFailed(std::move(err));
        if (auto err = device.recordEvent(2 * i + 1))
          return err;
      }
      if (auto err = device.synchronize())
        return kernelFailed(std::move(err));
      std::vector<double> times;
      for (int i = 0; i < result.itersPerRound; ++i) {
        auto ms = device.elapsedMs(2 * i, 2 * i + 1);
        if (!ms)
          return ms.takeError();
        times.push_back(*ms * 1000.0);
      }
      all.insert(all.end(), times.begin(), times.end());
      rounds.push_back(summarize(times).median);
    }
    ++result.attempts;
    double cv = sampleCv(rounds);
    if (attempt == 0 || cv < bestCv)
      bestAll = std::move(all), bestRounds = std::move(rounds), bestCv = cv;
    if (cv <= options.maxCv)
      break;
  }
  result.roundMedianUs = bestRounds;
  result.timeUs = summarize(bestAll);
  result.medianUs = result.eventsMedianUs = summarize(bestRounds).median;
  result.eventsCv = bestCv;

  if (options.timer) {
    // Device durations of `timerIters` launches, each after an L2 flush (record.py
    // kernel_durations_us), in `rounds` groups whose medians give the measurement.
    bool launchFailed = false; // a launch or the kernel failed (not the timer)
    auto timed = [&]() -> llvm::Expected<std::vector<double>> {
      if (auto err = options.timer->start())
        return err;
      for (int i = 0; i < options.timerIters; ++i) {
        if (auto err = flushL2()) {
          llvm::consumeError(options.timer->stop(c.metadata.name).takeError());
          return err;
        }
        if (auto err = launchOnce()) {
          launchFailed = true;
          llvm::consumeError(options.timer->stop(c.metadata.name).takeError());
          return err;
        }
      }
      llvm::Error synced = device.synchronize();
      auto durations = options.timer->stop(c.metadata.name);
      if (synced) {
        launchFailed = true;
        llvm::consumeError(durations.takeError());
        return synced;
      }
      if (durations && int(durations->size()) != options.timerIters)
        return llvm::createStringError("%s reported %zu launches of %s, not %d", options.timer->description().c_str(),
                                       durations->size(), c.metadata.name.c_str(), options.timerIters);
      return durations;
    }();
    if (!timed && launchFailed)
      return kernelFailed(timed.takeError());
    if (timed) {
      result.timer = "cupti";
      result.roundMedianUs = groupMedians(*timed, std::max(1, options.rounds));
      result.timeUs = summarize(*timed);
      result.medianUs = summarize(result.roundMedianUs).median;
    } else if (options.requireTimer) {
      return timed.takeError();
    } else {
      result.timerNote = options.timer->description() + ": " + llvm::toString(timed.takeError());
    }
  }
  if (auto clock = readSmClock())
    result.smClockAfterMHz = clock->first;
  return result;
}

} // namespace tlxsim::runner
