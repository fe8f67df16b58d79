#include "runner/Measure.h"

#include "runner/Timing.h"

#include <algorithm>

namespace tlxsim::runner {

namespace {

/// Launch errors and kernel faults end the run as a finding (RunResult::kernelFailure), not an error.
void recordFailure(RunResult &result, llvm::Error err) { result.kernelFailure = llvm::toString(std::move(err)); }
llvm::Error kernelFailed(RunResult &result, llvm::Error err) {
  recordFailure(result, std::move(err));
  return llvm::Error::success();
}

/// One round: warm-up launches, then `iters` flushed launches each between events 2i and 2i+1.
/// Returns the per-launch times in us; empty with result.kernelFailure set when a launch failed.
llvm::Expected<std::vector<double>> timeRound(const PreparedLaunch &launch, int warmupIters, int iters,
                                              RunResult &result) {
  Device &device = launch.device;
  for (int i = 0; i < warmupIters; ++i)
    if (auto err = launch.launch())
      {
      recordFailure(result, std::move(err));
      return std::vector<double>{};
    }
  for (int i = 0; i < iters; ++i) {
    if (auto err = launch.flushL2())
      return err;
    if (auto err = device.recordEvent(2 * i))
      return err;
    if (auto err = launch.launch())
      {
      recordFailure(result, std::move(err));
      return std::vector<double>{};
    }
    if (auto err = device.recordEvent(2 * i + 1))
      return err;
  }
  if (auto err = device.synchronize())
    {
      recordFailure(result, std::move(err));
      return std::vector<double>{};
    }
  std::vector<double> times;
  for (int i = 0; i < iters; ++i) {
    auto ms = device.elapsedMs(2 * i, 2 * i + 1);
    if (!ms)
      return ms.takeError();
    times.push_back(*ms * 1000.0);
  }
  return times;
}

/// do_bench's estimate: the mean time in ms of 5 flushed launches between two events.
llvm::Expected<double> estimateMs(const PreparedLaunch &launch, RunResult &result) {
  Device &device = launch.device;
  if (auto err = device.createEvents(2))
    return err;
  if (auto err = device.recordEvent(0))
    return err;
  for (int i = 0; i < 5; ++i) {
    if (auto err = launch.flushL2())
      return err;
    if (auto err = launch.launch())
      {
      recordFailure(result, std::move(err));
      return 0.0;
    }
  }
  if (auto err = device.recordEvent(1))
    return err;
  if (auto err = device.synchronize())
    {
      recordFailure(result, std::move(err));
      return 0.0;
    }
  auto estimate = device.elapsedMs(0, 1);
  if (!estimate)
    return estimate.takeError();
  return *estimate / 5;
}

} // namespace

llvm::Error timeEventRounds(const PreparedLaunch &launch, const RunOptions &options, RunResult &result) {
  auto estimate = estimateMs(launch, result);
  if (!estimate)
    return estimate.takeError();
  if (!result.kernelFailure.empty())
    return llvm::Error::success();
  result.warmupIters = iterationsFor(options.warmupMs, *estimate);
  result.itersPerRound = options.iters > 0 ? options.iters : iterationsFor(options.repMs, *estimate);
  if (auto err = launch.device.createEvents(2 * size_t(result.itersPerRound)))
    return err;
  std::vector<double> bestAll, bestRounds;
  double bestCv = 0;
  for (int attempt = 0; attempt <= std::max(0, options.retries); ++attempt) {
    std::vector<double> all, rounds;
    for (int round = 0; round < std::max(1, options.rounds); ++round) {
      auto times = timeRound(launch, result.warmupIters, result.itersPerRound, result);
      if (!times)
        return times.takeError();
      if (!result.kernelFailure.empty())
        return llvm::Error::success();
      all.insert(all.end(), times->begin(), times->end());
      rounds.push_back(summarize(*times).median);
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
  return llvm::Error::success();
}

llvm::Error timeWithKernelTimer(const PreparedLaunch &launch, llvm::StringRef kernel, const RunOptions &options,
                                RunResult &result) {
  KernelTimer *timer = options.timer;
  if (!timer)
    return llvm::Error::success();
  bool launchFailed = false; // a launch or the kernel failed (not the timer)
  auto timed = [&]() -> llvm::Expected<std::vector<double>> {
    if (auto err = timer->start())
      return err;
    for (int i = 0; i < options.timerIters; ++i) {
      if (auto err = launch.flushL2()) {
        llvm::consumeError(timer->stop(kernel).takeError());
        return err;
      }
      if (auto err = launch.launch()) {
        launchFailed = true;
        llvm::consumeError(timer->stop(kernel).takeError());
        return err;
      }
    }
    llvm::Error synced = launch.device.synchronize();
    auto durations = timer->stop(kernel);
    if (synced) {
      launchFailed = true;
      llvm::consumeError(durations.takeError());
      return synced;
    }
    if (durations && int(durations->size()) != options.timerIters)
      return llvm::createStringError("%s reported %zu launches of %s, not %d", timer->description().c_str(),
                                     durations->size(), kernel.str().c_str(), options.timerIters);
    return durations;
  }();
  if (!timed && launchFailed)
    return kernelFailed(result, timed.takeError());
  if (timed) {
    result.timer = "cupti";
    result.roundMedianUs = groupMedians(*timed, std::max(1, options.rounds));
    result.timeUs = summarize(*timed);
    result.medianUs = summarize(result.roundMedianUs).median;
  } else if (options.requireTimer) {
    return timed.takeError();
  } else {
    result.timerNote = timer->description() + ": " + llvm::toString(timed.takeError());
  }
  return llvm::Error::success();
}

} // namespace tlxsim::runner
