#include "runner/ClockSampler.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <csignal>

namespace tlxsim::runner {

ClockSampler::ClockSampler(int periodMs) {
  auto smi = llvm::sys::findProgramByName("nvidia-smi");
  if (!smi)
    return;
  llvm::SmallString<128> path;
  if (llvm::sys::fs::createTemporaryFile("tlxsim-clock", "csv", path))
    return;
  outputPath_ = path.str().str();
  std::string period = std::to_string(periodMs);
  llvm::SmallVector<llvm::StringRef, 8> args = {*smi, "--query-gpu=clocks.sm", "--format=csv,noheader,nounits",
                                                "-i", "0", "-lms", period};
  llvm::StringRef devNull("/dev/null"), out(outputPath_);
  std::optional<llvm::StringRef> redirects[] = {devNull, out, devNull};
  std::string error;
  process_ = llvm::sys::ExecuteNoWait(*smi, args, std::nullopt, redirects, 0, &error);
  running_ = process_.Pid > 0;
}

ClockSampler::~ClockSampler() {
  if (running_)
    stop();
  else if (!outputPath_.empty())
    llvm::sys::fs::remove(outputPath_);
}

std::vector<int> ClockSampler::stop() {
  std::vector<int> samples;
  if (running_) {
    ::kill(process_.Pid, SIGTERM);
    llvm::sys::Wait(process_, /*SecondsToWait=*/std::nullopt);
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
  text = text.substr(0, text.rfind('\n') == llvm::StringRef::npos ? 0 : text.rfind('\n') + 1);
  text.split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines) {
    int mhz = 0;
    if (!line.trim().getAsInteger(10, mhz) && mhz > 0)
      samples.push_back(mhz);
  }
  return samples;
}

} // namespace tlxsim::runner
