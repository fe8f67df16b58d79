#include "runner/ClockSampler.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

namespace tlxsim::runner {

namespace {

/// Whether the file at `path` holds at least one complete line.
bool hasLine(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer && (*buffer)->getBuffer().contains('\n');
}

} // namespace

ClockSampler::ClockSampler(int periodMs, int maxSeconds) {
  auto smi = llvm::sys::findProgramByName("nvidia-smi");
  if (!smi)
    return;
  llvm::SmallString<128> path;
  if (llvm::sys::fs::createTemporaryFile("tlxsim-clock", "csv", path))
    return;
  outputPath_ = path.str().str();
  std::string period = std::to_string(periodMs), limit = std::to_string(maxSeconds), gpu = smiDeviceSelector();
  llvm::SmallVector<llvm::StringRef, 12> args;
  auto timeout = llvm::sys::findProgramByName("timeout");
  if (timeout)
    args = {*timeout, "-k", "1", limit}; // TERM at the limit or when we send one, KILL 1 s later
  args.append({*smi, "--query-gpu=clocks.sm", "--format=csv,noheader,nounits", "-i", gpu, "-lms", period});
  llvm::StringRef devNull("/dev/null"), out(outputPath_);
  std::optional<llvm::StringRef> redirects[] = {devNull, out, devNull};
  std::string error;
  process_ = llvm::sys::ExecuteNoWait(args.front(), args, std::nullopt, redirects, 0, &error);
  running_ = process_.Pid > 0;
  // nvidia-smi's start-up (driver attach, 0.1 s to seconds without persistence mode) before the timing, not in it
  for (int i = 0; running_ && i < 300 && !hasLine(outputPath_); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

ClockSampler::~ClockSampler() {
  if (running_ || !outputPath_.empty())
    stop();
}

std::vector<int> ClockSampler::stop() {
  std::vector<int> samples;
  if (running_) {
    ::kill(process_.Pid, SIGTERM); // `timeout` forwards it to nvidia-smi and kills it 1 s later if it is still there
    llvm::sys::Wait(process_, /*SecondsToWait=*/3); // then SIGKILL: a sampler stuck in the driver never blocks us
    running_ = false;
  }
  if (outputPath_.empty())
    return samples;
  if (auto buffer = llvm::MemoryBuffer::getFile(outputPath_))
    samples = parseClockSamples((*buffer)->getBuffer());
  llvm::sys::fs::remove(outputPath_);
  outputPath_.clear();
  return samples;
}

std::string smiDeviceSelector() {
  const char *visible = std::getenv("CUDA_VISIBLE_DEVICES");
  llvm::StringRef first = visible ? llvm::StringRef(visible).split(',').first.trim() : llvm::StringRef();
  return first.empty() ? "0" : first.str();
}

std::optional<double> meanClockMHz(const std::vector<int> &samples) {
  if (samples.empty())
    return std::nullopt;
  double sum = 0;
  for (int mhz : samples)
    sum += mhz;
  return sum / static_cast<double>(samples.size());
}

std::vector<int> parseClockSamples(llvm::StringRef text) {
  std::vector<int> samples;
  llvm::SmallVector<llvm::StringRef, 64> lines;
  // a last line without its newline was cut off when nvidia-smi was stopped: "15" of "1530"
  size_t end = text.rfind('\n');
  text.substr(0, end == llvm::StringRef::npos ? 0 : end + 1).split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines) {
    int mhz = 0;
    if (!line.trim().getAsInteger(10, mhz) && mhz > 0)
      samples.push_back(mhz);
  }
  return samples;
}

} // namespace tlxsim::runner
