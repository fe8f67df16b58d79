// Execution barriers: named barriers (bar.sync / bar.arrive, PTX ISA 9.1 9.7.13.1) and CTA barriers.
#include "sim/EngineState.h"

namespace tlxsim::sim {

using namespace engine;

Step Engine::Impl::namedBarrierArrive(Agent &a, const Instr &in, int64_t id, int64_t count, int64_t threads,
                                      bool sync) {
  Cta &cta = *a.cta;
  NamedBarriers::Result r = cta.named.arrive(id, count, threads, a.info.id, sync);
  NamedBarrierEvent e{a.time, cta.id, a.info.id, in.loc, id, count, threads, sync, r.expected, r.arrived,
                      r.generation, r.completed};
  emit<EvNamedBarrier>([&](Listener &l) { l.onNamedBarrier(e); });
  for (int32_t w : r.released)
    wake(w, a.time);
  if (sync && !r.completed) {
    a.state = Agent::Blocked;
    a.waitKind = BlockedAgent::Named;
    a.waitNamed = id;
    a.waitLoc = in.loc;
    return Step::Suspend;
  }
  return next(a);
}

/// NamedBarrier, CtaBarrier.
Step Engine::Impl::execNamedBarrier(Agent &a, const Instr &in, Cycle now) {
  switch (in.op) {
  case Op::NamedBarrier: {
    if (in.sub == 2)
      return partitionBarrier(a, in);
    int64_t id = 0, count = 0;
    if (!intOf(a, in.args[0], in, id) || !intOf(a, in.args[1], in, count))
      return Step::Error;
    busy(a, in, costs.mbarOp);
    bool sync = in.sub == 1;
    // counted per warp: the agent's warps (one for the agent of one warp of a per-warp partition)
    int64_t threads = static_cast<int64_t>(a.info.warp >= 0 ? 1 : a.info.numWarps) * program.threadsPerWarp;
    return namedBarrierArrive(a, in, id, count, threads, sync);
  }
  case Op::CtaBarrier:
    if (in.imm2 == 0 && !a.ldsReads.empty()) // the fenced forms' release fence: s_waitcnt lgkmcnt(0)
      retireLdsReads(a, 0);
    busy(a, in, costs.ctaBarrier);
    return next(a);
  default:
    break;
  }
  return err(in, "internal: execNamedBarrier reached with another op family's op");
}

} // namespace tlxsim::sim
