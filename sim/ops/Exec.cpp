// The op dispatcher: each Op belongs to one family, whose exec<Family> (one file under ops/) gives its semantics.
// Adding an op family: add its Op values (Program.h), a `Step Engine::Impl::execFoo(Agent &, const Instr &, Cycle)`
// in ops/Foo.cpp (declared in EngineState.h), and its case list in exec() below (and in sharedOp if it touches
// state other agents see).
#include "sim/EngineState.h"

#include <array>

namespace tlxsim::sim {

using namespace engine;

namespace {

/// Whether `op` touches state other agents see (the list behind Impl::isShared).
constexpr bool sharedOp(Op op) {
  switch (op) {
  case Op::InitBarrier: case Op::InvalBarrier: case Op::BarrierExpect: case Op::WaitBarrier:
  case Op::ArriveBarrier: case Op::TmaLoad: case Op::TmaStore: case Op::WgmmaIssue: case Op::WarpSpecialize:
  case Op::Tc05Mma: case Op::Tc05Commit: case Op::GlobalLoad: case Op::GlobalStore: case Op::AsyncCopy:
  case Op::Dot: case Op::Tc05Copy: case Op::ReadBarrierPhase: case Op::LocalLoad: case Op::LocalStore:
  case Op::NamedBarrier: case Op::ClusterArrive: case Op::ClusterWait: case Op::RemoteStore:
  case Op::ClcTryCancel: case Op::ClcQuery: case Op::ClcLoad:
    return true;
  default:
    return false;
  }
}

} // namespace

const std::array<bool, kNumOps> engine::kSharedOps = [] {
  std::array<bool, kNumOps> table{};
  for (size_t i = 0; i < kNumOps; ++i)
    table[i] = sharedOp(static_cast<Op>(i));
  return table;
}();

bool Engine::Impl::dropForExitedPeer(Agent &a, const Instr &in) {
  // An op reaching into the shared memory of a CTA of the cluster that has exited: reported, then dropped
  // (PTX ISA 9.1 5.1.1: a CTA's shared memory must not be accessed once it exited).
  int64_t gone = exitedPeerOf(a, in);
  if (gone < 0)
    return false;
  busy(a, in, costs.mbarOp);
  ClusterBarrierEvent e{ClusterBarrierEvent::ExitedPeer, a.time, a.cta->id / program.clusterSize(), a.info.id,
                        in.loc, gone};
  emit<EvClusterBarrier>([&](Listener &l) { l.onClusterBarrier(e); });
  next(a);
  return true;
}

Step Engine::Impl::exec(Agent &a, const Instr &in, Cycle now) {
  // The cluster check lives out of line (dropForExitedPeer): exec itself stays a jump table of tail calls.
  if (clustered && kSharedOps[static_cast<size_t>(in.op)] && dropForExitedPeer(a, in))
    return Step::Continue;
  if (program.hasPerWarpAgents && skipsInWarp(a, in)) // ops of warp 0's elected thread (ops/WarpAgents.cpp)
    return skipInWarp(a, in);
  // One case list per family: a switch of direct calls (a jump table), cheaper per instruction than an indirect
  // call through a table of member-function pointers.
  switch (in.op) {
  case Op::Const: case Op::Binary: case Op::Cmp: case Op::Select: case Op::Cast: case Op::ProgramId:
  case Op::NumPrograms: case Op::ProtonRecord: case Op::MembarSync: case Op::Unknown:
    return execScalar(a, in, now);
  case Op::For: case Op::If: case Op::Yield: case Op::Return: case Op::WarpSpecialize: case Op::While:
  case Op::Condition:
    return execControlFlow(a, in, now);
  case Op::LocalAlloc: case Op::MemDescIndex: case Op::MemDescView: case Op::LocalStore: case Op::LocalLoad:
  case Op::FenceAsync:
    return execSharedMemory(a, in, now);
  case Op::InitBarrier: case Op::InvalBarrier: case Op::BarrierExpect: case Op::ArriveBarrier: case Op::WaitBarrier:
    return execMbarrier(a, in, now);
  case Op::TmaLoad: case Op::TmaStore: case Op::TmaStoreWait: case Op::TmaStoreTokenWait:
    return execTma(a, in, now);
  case Op::WgmmaIssue: case Op::WgmmaWait:
    return execWgmma(a, in, now);
  case Op::Tc05Mma: case Op::Tc05Commit: case Op::Tc05Copy:
    return execTcgen05(a, in, now);
  case Op::TensorOp: case Op::Dot:
    return execRegister(a, in, now);
  case Op::GlobalLoad: case Op::GlobalStore:
    return execGlobalMemory(a, in, now);
  case Op::AsyncCopy: case Op::AsyncCommit: case Op::AsyncWait:
    return execAsyncCopy(a, in, now);
  case Op::NamedBarrier: case Op::CtaBarrier:
    return execNamedBarrier(a, in, now);
  case Op::ClusterArrive: case Op::ClusterWait: case Op::ClusterCtaRank: case Op::MapRemote: case Op::RemoteStore:
    return execCluster(a, in, now);
  case Op::Sleep: case Op::ReadBarrierPhase: case Op::LgkmWait:
    return execAmd(a, in, now);
  case Op::ClcTryCancel: case Op::ClcQuery: case Op::ClcLoad: case Op::ClcIsCanceled: case Op::ClcProgramId:
    return execClc(a, in, now);
  }
  return unhandledOp(in);
}

Step Engine::Impl::unhandledOp(const Instr &in) { return err(in, "internal: unhandled instruction"); }

} // namespace tlxsim::sim
