// The SM's tensor cores: one FIFO pipe shared by wgmma, tcgen05 (MMA and tcgen05.cp), mma.sync and MFMA.
// Internal to sim/.
#pragma once

#include "sim/units/Pipe.h"

namespace tlxsim::sim::engine {

/// The tensor pipe of one SM. `busyCycles` accumulates the cycles of math it ran (the clock model's tensor-core
/// utilization sums them over SMs); tcgen05.cp occupies the pipe without counting as math.
struct TensorPipe {
  Pipe pipe;

  /// Runs `duration` cycles of work from `at` at the earliest; returns its start. `math`: the work counts toward
  /// the tensor-core utilization `busy` (summed over SMs) that lowers the clock (units/Clock.h), each cycle
  /// weighted by its power `weight` (units/Clock.h tensorPowerWeight; 1 for the reference MMA).
  Cycle run(Cycle at, Cycle duration, double &busy, bool math = true, double weight = 1.0) {
    Cycle begin = pipe.reserve(at, duration);
    if (math)
      busy += weight * static_cast<double>(pipe.free - begin);
    return begin;
  }
  /// When the work issued so far is done.
  Cycle free() const { return pipe.free; }

  /// When a warp group that issued `instructions` wgmma.mma_async instructions of one dot, which run back to back
  /// on the pipe from `begin` for `duration` cycles, is done issuing if at most `depth` issued wgmmas may wait for
  /// the pipe (`wgmma_queue_depth`): its last instruction issues once the instruction `depth` places ahead of it
  /// starts, begin + (instructions - 1 - depth) x duration / instructions. Until then the warp group is held at
  /// issue (busy, not in a wait). `depth` NaN or < 1 (no such knob): never held (returns 0).
  static Cycle issueRelease(Cycle begin, Cycle duration, int64_t instructions, double depth) {
    if (!(depth >= 1) || instructions <= 1)
      return 0;
    double ahead = static_cast<double>(instructions - 1) - depth;
    if (ahead <= 0)
      return 0;
    return begin + static_cast<Cycle>(ahead * static_cast<double>(duration) / static_cast<double>(instructions));
  }
};

} // namespace tlxsim::sim::engine
