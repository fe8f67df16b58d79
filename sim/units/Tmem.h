// Tensor memory (TMEM, Blackwell): the bandwidth of tcgen05.ld / tcgen05.st. Internal to sim/.
#pragma once

#include "sim/units/Lsu.h"

namespace tlxsim::sim::engine {

/// The cycles (unrounded) a partition of `warps` warps takes to move `bytes` between registers and TMEM at
/// `rate` = `tmem_bytes_per_clk_sm`: each warp moves its own 32 TMEM lanes, so the partition drives its SMSP
/// share of the SM's TMEM bandwidth (PTX ISA 9.1 9.7.16.8 tcgen05.ld / st).
inline double tmemCost(double rate, int32_t warps, int64_t bytes) {
  return static_cast<double>(bytes) / (rate * smspShare(warps));
}

} // namespace tlxsim::sim::engine
