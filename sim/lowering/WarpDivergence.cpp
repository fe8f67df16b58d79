// Lowering: whether a warp_specialize partition's warps can diverge on synchronization, so that the engine runs it
// as one agent per warp instead of one agent on thread 0's path.
//
// On hardware each warp of a partition leaves an mbarrier wait on its own (PTX ISA 9.1 9.7.13.15.16: try_wait is
// per thread; warps are scheduled independently). One agent per partition is exact when every warp runs the same
// synchronization: then a lagging warp only delays what the whole partition does. It is not when a condition on the
// thread id selects some warps but not others for an mbarrier arrive / wait / expect, a named barrier or a shared /
// tensor memory access (`if warp_id == 0: arrive(empty)`, `tid < 32`, an elected thread of warp 0): the leader warp
// may release a stage while the other warps still wait on, or read, the previous phase (parity ABA, verifier/README.md
// case (b)). Only then is the partition split (Program::threadIfWarps gives each warp's share of the condition).
//
// AMD wave groups: Triton's BlockPingpong (third_party/amd/lib/TritonAMDGPUTransforms/BlockPingpong.cpp) holds the
// waves of `warpHigh` (thread id / 256 != 0) back by one s_barrier before the loop (`amdg.cond_barrier %warpHigh`) and
// re-aligns them after it (`amdg.cond_barrier %warpLow`): inside the loop the two wave groups run different clusters
// between the same s_barriers. S_BARRIER counts waves (CDNA3 ISA 4.5, S_BARRIER: it completes when every wave of the
// work-group arrived), so the k-th barrier of one group meets the k-th of the other. Such a main function runs as one
// agent per wave group (Program::waveGroups).
#include "sim/lowering/Lowerer.h"

#include "ir/Partitions.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace tlxsim::sim::lowering {

namespace {

/// Ops whose execution by some warps of a partition and not others makes the warps' synchronization differ.
bool synchronizes(Operation &op) {
  static const llvm::StringSet<> names = {
      "ttng.arrive_barrier", "ttng.wait_barrier", "ttng.barrier_expect", "amdg.arrive_barrier", "amdg.wait_barrier",
      "ttng.arrive_barrier_named", "ttng.wait_barrier_named", "ttg.local_load", "ttg.local_store",
      "ttng.tmem_load", "ttng.tmem_store", "amdg.read_barrier_phase"};
  return names.contains(op.getName().getStringRef());
}

} // namespace

std::vector<int32_t> Lowerer::threadsTakingPerWarp(Operation &op) {
  int64_t threads = ir::partitionThreads(op), perWarp = p.threadsPerWarp > 0 ? p.threadsPerWarp : 32;
  std::vector<int32_t> warps(static_cast<size_t>((threads + perWarp - 1) / perWarp), 0);
  for (int64_t tid = 0; tid < threads; ++tid) {
    bool usesTid = false;
    std::optional<int64_t> cond = threadValue(op.getOperand(0), tid, usesTid);
    if (!cond || !usesTid)
      return {};
    warps[tid / perWarp] += *cond != 0;
  }
  return warps;
}

bool Lowerer::warpsDiverge(Region &partition) {
  bool diverge = false;
  partition.walk([&](Operation *op) {
    if (diverge || op->getName().getStringRef() != "scf.if" || op->getNumOperands() != 1)
      return;
    std::vector<int32_t> warps = threadsTakingPerWarp(*op);
    if (warps.size() < 2 || std::all_of(warps.begin(), warps.end(), [&](int32_t n) { return n == warps[0]; }))
      return; // not a thread-id condition, or the same in every warp
    op->walk([&](Operation *inner) { diverge = diverge || synchronizes(*inner); });
  });
  return diverge;
}

void Lowerer::splitWaveGroups(Region &body) {
  bool specialized = false;
  std::vector<std::vector<int32_t>> sides; // per thread-id cond_barrier: the threads of each warp it holds back
  body.walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (name == "ttg.warp_specialize")
      specialized = true;
    else if (name == "amdg.cond_barrier" && op->getNumOperands() == 1)
      if (std::vector<int32_t> warps = threadsTakingPerWarp(*op); !warps.empty())
        sides.push_back(std::move(warps));
  });
  if (specialized || sides.empty())
    return;
  size_t warps = sides.front().size();
  int32_t perWarp = p.threadsPerWarp > 0 ? p.threadsPerWarp : 32;
  std::vector<std::vector<bool>> side(warps); // per warp: which side of each cond_barrier it takes
  for (const std::vector<int32_t> &s : sides)
    for (size_t w = 0; w < warps; ++w) {
      if (s.size() != warps || (s[w] != 0 && s[w] != perWarp))
        return; // a condition that splits a wave: not a phase shift of whole waves
      side[w].push_back(s[w] != 0);
    }
  std::vector<Program::WaveGroup> groups;
  for (size_t w = 0; w < warps; ++w) {
    if (w > 0 && side[w] == side[w - 1]) {
      ++groups.back().numWarps;
      continue;
    }
    for (const Program::WaveGroup &g : groups) // a side seen before, not adjacent: groups are not runs of warps
      if (side[static_cast<size_t>(g.firstWarp)] == side[w])
        return;
    groups.push_back({static_cast<int32_t>(w), 1});
  }
  if (groups.size() < 2)
    return;
  p.waveGroups = std::move(groups);
  p.hasPerWarpAgents = true; // ops of one elected thread run in the first group's agent (ops/WarpAgents.cpp)
  for (auto &block : p.blocks)
    for (Instr &barrier : block.instrs)
      if (barrier.op == Op::CtaBarrier) {
        barrier.op = Op::NamedBarrier;
        barrier.sub = 2;
      }
}

} // namespace tlxsim::sim::lowering
