// Per-warp agents: a partition whose warps can diverge on synchronization (lowering/WarpDivergence.cpp) runs as one
// agent per warp, warp w on thread 32 w's path; an AMD main function whose cond_barriers phase-shift its waves runs
// as one agent per wave group (Program::waveGroups), on its first warp's path. What the warps do together, Triton issues once: ops of one elected
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
  if (a.info.waveGroupOf >= 0) { // a wave group of an AMD main function: s_barrier counts all the CTA's waves
    bool take = true;
    if (!in.args.empty() && !predicate(a, in.args[0], in, take)) // amdg.cond_barrier: only the waves it holds back
      return Step::Error;
    if (!take) {
      busyCycles(a, in, scalarCycles);
      return next(a);
    }
  }
  if (in.imm2 == 0 && !a.ldsReads.empty()) // the fenced forms' release fence: s_waitcnt lgkmcnt(0)
    retireLdsReads(a, 0);
  busy(a, in, costs.ctaBarrier);
  if (a.info.waveGroupOf >= 0)
    return namedBarrierArrive(a, in, partitionBarrierId(a.info.waveGroupOf),
                              static_cast<int64_t>(program.numWarps) * program.threadsPerWarp,
                              static_cast<int64_t>(a.info.numWarps) * program.threadsPerWarp, /*sync=*/true);
  int64_t count = static_cast<int64_t>(a.info.numWarps) * program.threadsPerWarp;
  return namedBarrierArrive(a, in, partitionBarrierId(a.info.warpGroup), count, program.threadsPerWarp,
                            /*sync=*/true);
}

} // namespace tlxsim::sim
