// Per-warp agents: a partition whose warps can diverge on synchronization (lowering/WarpDivergence.cpp) runs as one
// agent per warp, warp w on thread 32 w's path. What the warps do together, Triton issues once: ops of one elected
// thread of the partition's warp 0 run in warp 0's agent only; the partition-wide execution barrier becomes a
// rendezvous of the warps' agents.
#include "sim/EngineState.h"

namespace tlxsim::sim {

using namespace engine;

namespace {

/// Ops Triton's NVIDIA / AMD lowerings issue from a single (elected) thread of the partition, or, for wgmma and
/// cp.async whose work the engine models as the partition's, once per partition: executed by warp 0's agent.
/// Sources: TritonNVIDIAGPUToLLVM BarrierOpToLLVM (init / inval / expect / arrive predicated on thread 0), TMA and
/// tcgen05 lowerings (`createElectPredicateWarp0`), the wgmma warp-group op (one per warp group). Every warp runs
/// the rest: waits, shared / tensor memory accesses, register work, named and cluster barriers.
constexpr bool leaderOp(Op op) {
  switch (op) {
  case Op::InitBarrier: case Op::InvalBarrier: case Op::BarrierExpect: case Op::ArriveBarrier: case Op::TmaLoad:
  case Op::TmaStore: case Op::TmaStoreWait: case Op::TmaStoreTokenWait: case Op::WgmmaIssue: case Op::WgmmaWait:
  case Op::Tc05Mma: case Op::Tc05Commit: case Op::Tc05Copy: case Op::AsyncCopy: case Op::AsyncCommit:
  case Op::AsyncWait: case Op::RemoteStore: case Op::ClcTryCancel:
    return true;
  default:
    return false;
  }
}

} // namespace

bool Engine::Impl::skipsInWarp(const Agent &a, const Instr &in) const {
  if (a.info.warp <= 0 || !leaderOp(in.op))
    return false;
  if (in.op == Op::ArriveBarrier && in.sub == 2) // TLX `perThread`: every thread arrives (execMbarrier takes its share)
    return false;
  return !insideThreadIf(a);
}

Step Engine::Impl::skipInWarp(Agent &a, const Instr &in) {
  for (int32_t i = 0; i < in.numResults; ++i)
    a.frame[in.result + i] = Value{};
  return next(a);
}

Step Engine::Impl::partitionBarrier(Agent &a, const Instr &in) {
  busy(a, in, costs.ctaBarrier);
  int64_t count = static_cast<int64_t>(a.info.numWarps) * program.threadsPerWarp;
  return namedBarrierArrive(a, in, partitionBarrierId(a.info.warpGroup), count, program.threadsPerWarp,
                            /*sync=*/true);
}

} // namespace tlxsim::sim
