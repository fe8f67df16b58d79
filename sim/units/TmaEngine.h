// The SM's TMA engine: bulk tensor copies between global and shared memory. Internal to sim/.
#pragma once

#include "sim/units/Costs.h"
#include "sim/units/L2Hbm.h"
#include "sim/units/Pipe.h"

namespace tlxsim::sim::engine {

/// The latency of a TMA copy of `bytes` issued at `t`, in cycles (its streaming, bytes / tma_request_bytes_per_clk,
/// is added by tmaTransfer): `tma_latency_cycles` (the least loaded latency), or, where the model gives
/// `tma_queue_bytes_per_clk`, the time the device's copies already in flight take to drain at that rate (less this
/// copy's own streaming) when that is longer: a closed queue at its service rate, Little's law (M-H200
/// tools/bench/tma_latency_dist.cu: 132 SMs x S copies of 32 KB land after their bytes over ~5000-5500 B/clk, the
/// longer of that and a lone copy's latency, not their sum). Plus, where the model gives `tma_queue_wait_cycles`, a
/// queueing delay drawn from an exponential distribution of that mean (an M/M/1 queue's waiting time), capped at ten
/// means. A spread of latencies makes a pipeline with few stages stall on the slow copies while one with more
/// stages hides them (the H200's ws_gemm consumers wait 18.5 % of their life with S = 3 and 13.9 % with S = 4; a
/// constant latency gives both the same). Values and fit: models/h200.json, README "Loaded-latency queue"; without
/// either knob the latency is the constant. The draw is `copyKey`'s (tmaCopyKey): the same copy waits the same
/// whatever order the engine ran the other agents in, so a run is reproducible and a small change elsewhere does
/// not reshuffle every copy's delay.
double loadedLatency(const Costs &costs, InFlightBytes &inFlight, Cycle t, int64_t bytes, uint64_t copyKey);

/// The key of an agent's `n`-th TMA copy, for loadedLatency: its CTA, its partition's first warp, its warp (-1 for
/// a partition run as one agent) and `n`.
uint64_t tmaCopyKey(int64_t cta, int32_t firstWarp, int32_t warp, uint64_t n);

/// Moves `bytes` between global memory and one SM's shared memory, issued at `t`; returns the completion
/// cycle: the latency (loadedLatency) plus the transfer, which is limited by the copy's own streaming
/// rate (`tma_request_bytes_per_clk`) and queues behind the other copies in flight on the three shared paths, each a
/// FIFO pipe: the SM's TMA/L2->SMEM path (`tma`, `tma_bytes_per_clk_sm`), the device L2 (`l2_bytes_per_clk`, a
/// rate in time: Costs::l2BytesPerClkNow) and, on a miss, HBM (+ `hbm_extra_latency_cycles`). Loaded latency is
/// thus the queueing delay of the outstanding requests, not a constant. Measured on an H200
/// (tools/bench/tma_bench.cu, README "calibration"): one 4-32 KB L2-resident copy returns in 465 + bytes/107 clk,
/// back-to-back copies of one SM stream at ~105 B/clk, 132 SMs at ~9 TB/s from L2 and 4.2 TB/s from HBM.
/// A store (`writeBack`) completes once L2 has taken the data; its write-back still occupies HBM.
/// `copyKey` draws its queueing delay (loadedLatency).
Cycle tmaTransfer(const Costs &costs, Pipe &tma, MemorySystem &memory, Cycle t, int64_t bytes, bool l2Hit,
                  uint64_t copyKey, bool writeBack = false);

} // namespace tlxsim::sim::engine
