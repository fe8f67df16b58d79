// The SM clock sampled while the runner times a kernel, as tlx_sim/hw_time.py ClockSampler does it for record.py:
// `nvidia-smi --query-gpu=clocks.sm -lms PERIOD` runs beside the timing and its samples give the record's
// `sm_clock_mhz.mean` (traces/README.md), which `tlx-sim xcheck` compares with the power model's clock.
#pragma once

#include "llvm/Support/Program.h"

#include <optional>
#include <string>
#include <vector>

namespace tlxsim::runner {

/// Starts `nvidia-smi --query-gpu=clocks.sm --format=csv,noheader,nounits -i 0 -lms periodMs` in the background
/// (its output to a temporary file) and, on stop(), ends it and returns the samples in MHz. Where nvidia-smi is
/// absent (a HIP host, a test with a stand-in driver) or cannot start, stop() returns no samples; nothing here
/// fails the run. Not copyable; the destructor stops a sampler still running.
class ClockSampler {
public:
  explicit ClockSampler(int periodMs = 50);
  ~ClockSampler();
  ClockSampler(const ClockSampler &) = delete;
  ClockSampler &operator=(const ClockSampler &) = delete;

  /// Ends nvidia-smi (SIGTERM) and returns the SM clock samples (MHz) it printed, in order.
  std::vector<int> stop();

private:
  llvm::sys::ProcessInfo process_;
  std::string outputPath_;
  bool running_ = false;
};

/// The mean of `samples` (MHz), or none when there are none.
std::optional<double> meanClockMHz(const std::vector<int> &samples);

/// The SM clocks (MHz) of nvidia-smi's `clocks.sm` csv lines in `text` (one number per line; other lines and a last
/// line without its newline, cut off when nvidia-smi was stopped, skipped).
std::vector<int> parseClockSamples(llvm::StringRef text);

} // namespace tlxsim::runner
