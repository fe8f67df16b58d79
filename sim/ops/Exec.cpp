// The op dispatcher: each Op belongs to one family, whose exec<Family> (one file under ops/) gives its semantics.
// Adding an op family: add its Op values (Program.h), a `Step Engine::Impl::execFoo(Agent &, const Instr &, Cycle)`
// in ops/Foo.cpp (declared in EngineState.h), and its rows in familyOf below (and in sharedOp if it touches state
// other agents see).
#include "sim/EngineState.h"

#include <array>

namespace tlxsim::sim {

using namespace engine;

namespace {

using Family = Step (Engine::Impl::*)(Engine::Impl::Agent &, const Instr &, Cycle);

/// The exec function of the family `op` belongs to.
Family familyOf(Op op) {
  using Impl = Engine::Impl;
  switch (op) {
  case Op::Const: case Op::Binary: case Op::Cmp: case Op::Select: case Op::Cast: case Op::ProgramId:
  case Op::NumPrograms: case Op::Unknown:
    return &Impl::execScalar;
  case Op::For: case Op::If: case Op::Yield: case Op::Return: case Op::WarpSpecialize: case Op::While:
  case Op::Condition:
    return &Impl::execControlFlow;
  case Op::LocalAlloc: case Op::MemDescIndex: case Op::MemDescView: case Op::LocalStore: case Op::LocalLoad:
  case Op::FenceAsync:
    return &Impl::execSharedMemory;
  case Op::InitBarrier: case Op::InvalBarrier: case Op::BarrierExpect: case Op::ArriveBarrier: case Op::WaitBarrier:
    return &Impl::execMbarrier;
  case Op::TmaLoad: case Op::TmaStore: case Op::TmaStoreWait: case Op::TmaStoreTokenWait:
    return &Impl::execTma;
  case Op::WgmmaIssue: case Op::WgmmaWait:
    return &Impl::execWgmma;
  case Op::Tc05Mma: case Op::Tc05Commit: case Op::Tc05Copy:
    return &Impl::execTcgen05;
  case Op::TensorOp: case Op::Dot:
    return &Impl::execRegister;
  case Op::GlobalLoad: case Op::GlobalStore:
    return &Impl::execGlobalMemory;
  case Op::AsyncCopy: case Op::AsyncCommit: case Op::AsyncWait:
    return &Impl::execAsyncCopy;
  case Op::NamedBarrier: case Op::CtaBarrier:
    return &Impl::execNamedBarrier;
  case Op::ClusterArrive: case Op::ClusterWait: case Op::ClusterCtaRank: case Op::MapRemote: case Op::RemoteStore:
    return &Impl::execCluster;
  case Op::Sleep: case Op::ReadBarrierPhase:
    return &Impl::execAmd;
  case Op::ClcTryCancel: case Op::ClcQuery: case Op::ClcLoad: case Op::ClcIsCanceled: case Op::ClcProgramId:
    return &Impl::execClc;
  }
  return nullptr;
}

} // namespace

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

/// familyOf per op, computed once: the dispatcher indexes it instead of switching on every instruction.
const std::array<Family, kNumOps> kFamilies = [] {
  std::array<Family, kNumOps> table{};
  for (size_t i = 0; i < kNumOps; ++i)
    table[i] = familyOf(static_cast<Op>(i));
  return table;
}();

} // namespace

const std::array<bool, kNumOps> engine::kSharedOps = [] {
  std::array<bool, kNumOps> table{};
  for (size_t i = 0; i < kNumOps; ++i)
    table[i] = sharedOp(static_cast<Op>(i));
  return table;
}();

Step Engine::Impl::exec(Agent &a, const Instr &in, Cycle now) {
  if (clustered && kSharedOps[static_cast<size_t>(in.op)]) {
    // An op reaching into the shared memory of a CTA of the cluster that has exited: reported, then dropped
    // (PTX ISA 9.1 5.1.1: a CTA's shared memory must not be accessed once it exited).
    int64_t gone = exitedPeerOf(a, in);
    if (gone >= 0) {
      busy(a, in, costs.mbarOp);
      ClusterBarrierEvent e{ClusterBarrierEvent::ExitedPeer, a.time, a.cta->id / program.clusterSize(), a.info.id,
                            in.loc, gone};
      emit<EvClusterBarrier>([&](Listener &l) { l.onClusterBarrier(e); });
      return next(a);
    }
  }
  Family family = kFamilies[static_cast<size_t>(in.op)];
  if (!family)
    return err(in, "internal: unhandled instruction");
  return (this->*family)(a, in, now);
}

} // namespace tlxsim::sim
