// AMD-only semantics: s_sleep, amdg.read_barrier_phase (TLX LDS barrier spin loops), s_waitcnt vmcnt.
#include "sim/EngineState.h"

namespace tlxsim::sim {

using namespace engine;

/// AMD `s_waitcnt vmcnt(n)` (`amdg.async_wait {num_inst = n}`, what Triton's UpdateAsyncWaitCount makes of
/// `ttg.async_wait`): the wave's vector-memory counter counts outstanding instructions, not commit groups,
/// and they complete in issue order (AMD CDNA3/CDNA4 ISA, "s_waitcnt"; commit groups do not exist in the
/// hardware). Retires `a`'s oldest copies, committed or not, until at most `n` of their direct-to-LDS
/// instructions (per thread, Lowering's count) are outstanding; the agent waits until the retired ones landed.
void Engine::Impl::retireCopyInstructions(Agent &a, int64_t n) {
  auto outstanding = [&] {
    int64_t total = 0;
    for (const Agent::CopyGroup &g : a.copyGroups)
      for (int64_t k : g.instrs)
        total += k;
    for (int64_t k : a.openCopies.instrs)
      total += k;
    return total;
  };
  int64_t left = outstanding();
  auto retireFront = [&](Agent::CopyGroup &g) {
    a.time = std::max(a.time, g.opDone.front());
    left -= g.instrs.front();
    int64_t op = g.ops.front();
    emit<EvAsyncRetired>([&](Listener &l) { l.onAsyncRetired(a.info.id, op, a.time); });
    g.ops.erase(g.ops.begin());
    g.instrs.erase(g.instrs.begin());
    g.opDone.erase(g.opDone.begin());
  };
  // A copy whose instructions retire only in part is still in flight: its remaining instructions stay counted.
  auto retire = [&](Agent::CopyGroup &g) {
    if (g.instrs.front() <= left - n) {
      retireFront(g);
    } else {
      a.time = std::max(a.time, g.opDone.front()); // (its earlier instructions landed; timing as the whole copy)
      g.instrs.front() -= left - n;
      left = n;
    }
  };
  while (left > n && !a.copyGroups.empty()) {
    Agent::CopyGroup &g = a.copyGroups.front();
    if (g.ops.empty()) {
      a.copyGroups.pop_front();
      continue;
    }
    retire(g);
  }
  while (left > n && !a.openCopies.ops.empty())
    retire(a.openCopies);
  while (!a.copyGroups.empty() && a.copyGroups.front().ops.empty())
    a.copyGroups.pop_front();
}

/// The wait for an AMD vector-memory load's result (the `s_waitcnt vmcnt(k)` the compiler puts before its first use,
/// k = the wave's vector-memory instructions issued after the load; LLVM SIInsertWaitcnts scores it so): vmcnt
/// decrements in issue order (AMD CDNA3/CDNA4 ISA, "s_waitcnt"; direct-to-LDS `buffer_load ... lds` /
/// `global_load_lds` are vector-memory loads counted by vmcnt), so every direct-to-LDS copy the agent issued before
/// the load, up to async op `op`, has landed: retire them, oldest first; the agent waits until they landed.
void Engine::Impl::retireCopiesThrough(Agent &a, int64_t op) {
  auto retireFrom = [&](Agent::CopyGroup &g) {
    while (!g.ops.empty() && g.ops.front() <= op) {
      a.time = std::max(a.time, g.opDone.front());
      int64_t id = g.ops.front();
      emit<EvAsyncRetired>([&](Listener &l) { l.onAsyncRetired(a.info.id, id, a.time); });
      g.ops.erase(g.ops.begin());
      g.instrs.erase(g.instrs.begin());
      g.opDone.erase(g.opDone.begin());
    }
    return g.ops.empty();
  };
  while (!a.copyGroups.empty() && retireFrom(a.copyGroups.front()))
    a.copyGroups.pop_front();
  if (a.copyGroups.empty())
    retireFrom(a.openCopies);
}

/// Sleep, ReadBarrierPhase.
Step Engine::Impl::execAmd(Agent &a, const Instr &in, Cycle now) {
  switch (in.op) {
  case Op::Sleep: {
    double unit = 0;
    if (!optionalKnob(costs.sleepUnit, "s_sleep_unit_cycles", in, unit))
      return Step::Error;
    busy(a, in, static_cast<double>(std::max<int64_t>(in.imm, 1)) * unit);
    return next(a);
  }
  case Op::ReadBarrierPhase: {
    BarrierKey key{};
    if (!barrierOf(a, in.args[0], in, key))
      return Step::Error;
    busy(a, in, costs.mbarOp);
    MBarrier &bar = barrier(ctaOf(key), key);
    a.frame[in.result] = Value::integer(bar.phase() & 1);
    // Reading a newly completed phase (the spin loop of TLX's AMD LDS barriers) acquires it, as a parity wait
    // that passes: the waiter's later accesses are ordered after the arrivals of that phase.
    int64_t &seen = a.phasesRead[std::make_tuple(key.cta, key.alloc, key.index)];
    if (bar.phase() > 0 && bar.phase() != seen) {
      seen = bar.phase();
      barrierEvent(a.time, BarrierAction::WaitPass, key, bar, a.info.id, in.loc, (bar.phase() - 1) & 1,
                   BarrierStatus::Ok);
    }
    return next(a);
  }
  default:
    break;
  }
  return err(in, "internal: execAmd reached with another op family's op");
}

} // namespace tlxsim::sim
