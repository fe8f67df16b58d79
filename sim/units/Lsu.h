// The SM's load/store unit and shared-memory pipe, and the sub-partition (SMSP) share of a partition.
// Internal to sim/.
#pragma once

#include "sim/units/Costs.h"
#include "sim/units/L2Hbm.h"
#include "sim/units/Pipe.h"

#include <algorithm>
#include <cmath>

namespace tlxsim::sim::engine {

/// The fraction of the SM's 4 sub-partition (SMSP) pipes a partition of `warps` warps
/// drives: warps are assigned to the 4 schedulers round-robin (CPG 20.8.1).
inline double smspShare(int32_t warps) { return std::min(4, std::max(1, warps)) / 4.0; }

/// The issue cost (cycles, unrounded) of moving `bytes` through the LSU: one warp instruction moves up to
/// `lsu_bytes_per_thread_instr` per thread, and each of the partition's SMSPs (up to 4 of its `warps`) issues one
/// per `scalar_op_cycles`.
inline double lsuIssueCost(const Costs &costs, int32_t threadsPerWarp, int32_t warps, int64_t bytes) {
  double perInstr = costs.lsuVectorBytes * threadsPerWarp * std::min(4, std::max(1, warps));
  return std::ceil(static_cast<double>(bytes) / perInstr) * costs.scalarOp;
}

/// A load/store of `bytes` between registers (or, for cp.async, shared memory) and global
/// memory through the SM's LSU (`lsu`), the device L2 and, on an L2 miss or a write-back, HBM; the
/// LSU, L2 and HBM are FIFO pipes. Returns when the data is back (a load) or L2 took it.
Cycle lsuTransfer(const Costs &costs, Pipe &lsu, MemorySystem &memory, Cycle t, int64_t bytes, bool l2Hit,
                  bool write);

/// st.shared / ld.shared / ldmatrix (ds_write / ds_read) bytes crossing the SM's shared memory (`smem`, a FIFO
/// pipe at `smem_bytes_per_clk_sm`) from `issued`; returns when they have crossed.
Cycle smemTransfer(const Costs &costs, Pipe &smem, Cycle issued, int64_t bytes);

} // namespace tlxsim::sim::engine
