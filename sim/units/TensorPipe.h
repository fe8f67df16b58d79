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
};

} // namespace tlxsim::sim::engine
