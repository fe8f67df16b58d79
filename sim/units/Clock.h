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

/// The power weight of one cycle of tensor-core math that reads `operandBytes` of shared memory per `flops`
/// (wgmma: lowering/Wgmma.cpp), relative to the reference MMA whose weight is 1: (1 - g) + g x (its operand
/// bytes per cycle / `wgmma_power_ref_bytes_per_clk`), g = `wgmma_smem_power_fraction`, the share of the tensor
/// cores' dynamic power that reading operands from shared memory takes at the reference shape. A wgmma
/// m64nNk16 reads A (64 x 16) and B (16 x N) for 64 x N x 16 MACs (PTX ISA 9.1 9.7.15.5.1), so a wider N moves
/// fewer bytes per FLOP (fp16, both operands in shared memory: 128 B/clk at N = 64, 96 at 128, 80 at 256). The weight
/// is fitted (models/h200.json) and acts through the clock; measured in-run clocks of m64n128 and m64n256 GEMMs are
/// equal at the power cap (traces/h200/clock-probe-2026-12-02.txt), so on hardware the cost is in cycles, not clock.
/// 1 when the model has no such knob or `flops` is 0.
double tensorPowerWeight(const Costs &costs, double operandBytes, double flops);

/// The power of `unitCycles` cycles of an SM's full ALU-lane (or SFU) throughput, in cycles of the reference
/// wgmma's power: `alu_power_weight` x `unitCycles` (0 when the model has no such knob). Elementwise math draws
/// power too: a kernel whose softmax keeps the ALUs busy next to its MMAs holds a lower clock at the power cap.
double vectorPowerCycles(const Costs &costs, double unitCycles);

} // namespace tlxsim::sim::engine
