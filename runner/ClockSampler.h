// The SM clock sampled while the runner times a kernel, as tlx_sim/hw_time.py's ClockSampler samples it for
// record.py: `nvidia-smi --query-gpu=clocks.sm -lms PERIOD` runs beside the timing and its samples give the record's
// `sm_clock_mhz.mean` (traces/README.md), which `tlx-sim xcheck` compares with the power model's clock.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Program.h"

#include <optional>
#include <string>
#include <vector>

namespace tlxsim::runner {

/// Starts `nvidia-smi --query-gpu=clocks.sm --format=csv,noheader,nounits -i GPU -lms periodMs` in the background
/// (GPU: smiDeviceSelector(); output to a temporary file) under coreutils' `timeout -k 1 maxSeconds` where it exists
/// (a runner killed by a signal, whose destructor never runs, leaves no sampler beyond maxSeconds), and waits up to
/// 3 s for its first sample so that nvidia-smi's start-up does not overlap the timing. stop() ends it (SIGTERM, KILL
/// 1 s later by `timeout`, the wrapper itself killed after 3 s) and returns the samples in MHz. Where nvidia-smi is
/// absent (a HIP host, a host without the NVIDIA driver) or cannot start, stop() returns no samples; nothing here
/// fails the run. Not copyable; the destructor stops a sampler still running.
class ClockSampler {
public:
  explicit ClockSampler(int periodMs = 50, int maxSeconds = 300);
  ~ClockSampler();
  ClockSampler(const ClockSampler &) = delete;
  ClockSampler &operator=(const ClockSampler &) = delete;

  /// Ends nvidia-smi and returns the SM clock samples (MHz) it printed, in order.
  std::vector<int> stop();

private:
  llvm::sys::ProcessInfo process_;
  std::string outputPath_;
  bool running_ = false;
};

/// nvidia-smi's `-i` for the GPU the runner opens (CUDA ordinal 0): the first entry of CUDA_VISIBLE_DEVICES (an index
/// or a UUID, both of which `-i` takes) where set, else "0". With CUDA_DEVICE_ORDER other than PCI_BUS_ID on a host
/// of mixed GPUs, CUDA's ordinal 0 may be another GPU than nvidia-smi's index 0.
std::string smiDeviceSelector();

/// The mean of `samples` (MHz), or none when there are none.
std::optional<double> meanClockMHz(const std::vector<int> &samples);

/// The SM clocks (MHz) of nvidia-smi's `clocks.sm` csv lines in `text` (one number per line; other lines and a last
/// line without its newline, cut off when nvidia-smi was stopped, skipped).
std::vector<int> parseClockSamples(llvm::StringRef text);

} // namespace tlxsim::runner
