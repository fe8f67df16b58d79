// A FIFO pipe: the shape of every bandwidth-limited unit (tensor cores, TMA engine, LSU, shared memory, L2, HBM).
// Internal to sim/.
#pragma once

#include "sim/Events.h"

#include <algorithm>

namespace tlxsim::sim::engine {

/// A unit that serves requests one after another: a request issued at `at` that keeps the unit busy for
/// `duration` cycles starts when the unit is free. Delays a request only once the unit saturates.
struct Pipe {
  Cycle free = 0; ///< the cycle from which the unit is idle

  /// Reserves the unit for `duration` cycles from `at` at the earliest; returns the cycle the request starts.
  Cycle reserve(Cycle at, Cycle duration) {
    Cycle begin = std::max(at, free);
    free = begin + duration;
    return begin;
  }
};

} // namespace tlxsim::sim::engine
