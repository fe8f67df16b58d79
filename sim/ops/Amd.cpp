// AMD-only semantics: s_sleep, amdg.read_barrier_phase (TLX LDS barrier spin loops), s_waitcnt vmcnt, and the LDS
// reads that LGKM_CNT keeps in flight (s_waitcnt lgkmcnt).
#include "sim/EngineState.h"

namespace tlxsim::sim {

using namespace engine;

namespace {
/// LGKM_CNT's width on gfx9 (CDNA3 / CDNA4 ISA, S_WAITCNT: 4 bits): no more LDS instructions can be outstanding, so
/// LLVM's SIInsertWaitcnts waits before issuing more.
constexpr int64_t kLgkmMax = 15;
} // namespace

/// An AMD `local_load` issues ds_read instructions whose data returns later: until lgkmcnt retires them, the LDS
/// may still be read (CDNA3 ISA 4.4 "Data Dependency Resolution"). The read is the async op `op`; its access stays
/// open (the race checker orders it only where its retirement is seen). Instructions per thread: one per 16 bytes
/// (ds_read_b128) of the thread's share of the CTA's tile (the partition's warps, all of the CTA's for wave groups).
void Engine::Impl::issueLdsRead(Agent &a, const Instr &in, int64_t op) {
  int64_t warps = a.info.waveGroupOf >= 0 ? program.numWarps : a.info.numWarps;
  int64_t perThread = std::max<int64_t>(1, warps * program.threadsPerWarp);
  int64_t instrs = std::max<int64_t>(1, (in.imm / perThread + 15) / 16);
  a.ldsReads.emplace_back(op, instrs);
  if (in.result >= 0)
    a.ldsSlots[in.result] = op;
  retireLdsReads(a, kLgkmMax);
}

void Engine::Impl::retireLdsReads(Agent &a, int64_t keep) {
  if (keep < 0)
    return;
  int64_t left = 0;
  for (const auto &read : a.ldsReads)
    left += read.second;
  while (left > keep && !a.ldsReads.empty()) {
    auto [op, instrs] = a.ldsReads.front();
    a.ldsReads.pop_front();
    left -= instrs;
    emit<EvAsyncRetired>([&](Listener &l) { l.onAsyncRetired(a.info.id, op, a.time); });
  }
  if (a.ldsReads.empty())
    a.ldsSlots.clear();
}

void Engine::Impl::awaitLdsReads(Agent &a, const Instr &in, size_t first) {
  int64_t through = -1;
  for (size_t i = first; i < in.args.size(); ++i)
    if (in.args[i] >= 0)
      if (auto it = a.ldsSlots.find(in.args[i]); it != a.ldsSlots.end()) {
        through = std::max(through, it->second);
        a.ldsSlots.erase(it);
      }
  while (through >= 0 && !a.ldsReads.empty() && a.ldsReads.front().first <= through) {
    int64_t op = a.ldsReads.front().first;
    a.ldsReads.pop_front();
    emit<EvAsyncRetired>([&](Listener &l) { l.onAsyncRetired(a.info.id, op, a.time); });
  }
  if (a.ldsReads.empty())
    a.ldsSlots.clear();
}

void Engine::Impl::forwardLdsReads(Agent &a, const std::vector<int32_t> &from, size_t first,
                                   const std::vector<int32_t> &to) {
  std::vector<int64_t> ops(to.size(), -1); // read first: a yield may permute the slots
  for (size_t i = 0; i < to.size() && first + i < from.size(); ++i)
    if (from[first + i] >= 0)
      if (auto it = a.ldsSlots.find(from[first + i]); it != a.ldsSlots.end())
        ops[i] = it->second;
  for (size_t i = 0; i < to.size(); ++i) {
    if (ops[i] >= 0)
      a.ldsSlots[to[i]] = ops[i];
    else
      a.ldsSlots.erase(to[i]);
  }
}

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

/// Sleep, ReadBarrierPhase, LgkmWait.
Step Engine::Impl::execAmd(Agent &a, const Instr &in, Cycle now) {
  switch (in.op) {
  case Op::LgkmWait:
    retireLdsReads(a, in.imm); // (the data's timing is the results' scoreboard: the wait adds none)
    busyCycles(a, in, scalarCycles);
    return next(a);
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
