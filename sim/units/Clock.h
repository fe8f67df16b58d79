// Clock and power: cycle rounding and the power-limited SM clock. Internal to sim/.
#pragma once

#include "sim/Events.h"
#include "sim/units/Costs.h"

#include <cmath>

namespace tlxsim::sim::engine {

/// A cost in cycles, rounded up; saturates (rather than overflowing) for huge or
/// non-finite costs so that the cycle limit stops the run.
inline Cycle cycles(double x) {
  constexpr double kMax = 4.0e18;
  if (!(x > 0))
    return 0;
  if (x >= kMax)
    return static_cast<Cycle>(kMax);
  // ceil without the libm call (x86-64 has no SSE4.1 round by default): the truncation of a positive x below
  // 2^62 is exact, and one more when x has a fraction.
  Cycle whole = static_cast<Cycle>(x);
  return whole + (static_cast<double>(whole) < x ? 1 : 0);
}

/// The power-limited SM clock (MHz) at a tensor-core utilization in [0, 1]: the maximum
/// clock up to `clock_throttle_onset_util`, then falling linearly to
/// `clock_full_tensor_load_mhz` at full utilization (a GPU at its power cap trades clock for
/// tensor-core activity; below the onset the cap does not bind). Measured on the H200:
/// kernels that keep the tensor cores a quarter busy hold 1980 MHz, GEMMs near full load
/// run at 1400-1700 MHz (traces/h200, `sm_clock_mhz`).
double sustainedClockMhz(const Costs &costs, double utilization);

} // namespace tlxsim::sim::engine
