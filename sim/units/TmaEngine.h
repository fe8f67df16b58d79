// The SM's TMA engine: bulk tensor copies between global and shared memory. Internal to sim/.
#pragma once

#include "sim/units/Costs.h"
#include "sim/units/L2Hbm.h"
#include "sim/units/Pipe.h"

namespace tlxsim::sim::engine {

/// Moves `bytes` between global memory and one SM's shared memory, issued at `t`; returns the completion
/// cycle. A request streams at a bounded per-request rate (`tma_request_bytes_per_clk`) after the fixed latency
/// (a single copy does not reach the SM's fill bandwidth; hw-params.md section 7); the SM's TMA engine (`tma`,
/// `tma_bytes_per_clk_sm`), the device L2 and HBM are FIFO pipes whose bandwidth delays a request only once they
/// saturate. A store (`writeBack`) completes once L2 has taken the data; its write-back still occupies HBM.
Cycle tmaTransfer(const Costs &costs, Pipe &tma, MemorySystem &memory, Cycle t, int64_t bytes, bool l2Hit,
                  bool writeBack = false);

} // namespace tlxsim::sim::engine
