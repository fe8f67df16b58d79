// mbarrier semantics (PTX ISA 9.1 9.7.13.15): the CTA's barrier storage, init / inval / arrive / expect-tx /
// wait, phase flips waking waiters, and asynchronous signals (complete-tx, tcgen05 arrives).
#include "sim/EngineState.h"

#include <algorithm>
#include <cmath>

namespace tlxsim::sim {

using namespace engine;

/// Index of `key` among the flat barriers of a CTA, or -1.
int64_t Engine::Impl::flatIndex(const BarrierKey &key) const {
  if (key.alloc < 0 || key.alloc >= static_cast<int32_t>(barrierBase.size()) || barrierBase[key.alloc] < 0 ||
      key.index < 0 || key.index >= barrierCount[key.alloc])
    return -1;
  return barrierBase[key.alloc] + key.index;
}

MBarrier &Engine::Impl::barrier(Cta &cta, const BarrierKey &key) {
  int64_t flat = flatIndex(key);
  return flat >= 0 ? cta.flatBarriers[flat] : cta.barriers[barrierSlot(key.alloc, key.index)];
}

std::vector<int32_t> &Engine::Impl::waitersOf(Cta &cta, const BarrierKey &key) {
  int64_t flat = flatIndex(key);
  return flat >= 0 ? cta.flatWaiters[flat] : cta.waiters[barrierSlot(key.alloc, key.index)];
}

void Engine::Impl::barrierEvent(Cycle t, BarrierAction action, const BarrierKey &key, const MBarrier &bar, int32_t agent,
                  int32_t loc, int64_t amount, BarrierStatus status, int64_t asyncOp) {
  if (!wants<EvBarrier>()) // predict: nobody listens; the event is not built
    return;
  BarrierEvent e{t,   action,      key,          agent,          loc, amount, status, bar.phase(), bar.pending(),
                 bar.expected(), bar.tx(), asyncOp};
  emit<EvBarrier>([&](Listener &l) { l.onBarrier(e); });
}

/// Wakes every waiter whose parity test now passes (the phase flipped at `t`).
void Engine::Impl::phaseFlipped(Cta &cta, const BarrierKey &key, MBarrier &bar, Cycle t, int32_t agent, int32_t loc) {
  barrierEvent(t, BarrierAction::PhaseFlip, key, bar, agent, loc, 0, BarrierStatus::Ok);
  std::vector<int32_t> &list = waitersOf(cta, key);
  size_t kept = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    int32_t id = list[i];
    Agent &w = *agents[id];
    if (!bar.testWaitParity(w.waitParity)) {
      list[kept++] = id;
      continue;
    }
    w.state = Agent::Ready;
    w.time = std::max(w.time, t + cycles(costs.mbarWake)) + warpLag(w);
    w.work.addBarrierWait(key.alloc, w.time - w.waitSince);
    barrierEvent(w.time, BarrierAction::WaitResume, key, bar, id, w.waitLoc, w.waitParity, BarrierStatus::Ok);
    w.stack.back().pc++;
    push(w.time, Event::RunAgent, id);
  }
  list.resize(kept);
}

/// Schedules an asynchronous signal on a barrier at cycle `at` (see PendingSignal).
void Engine::Impl::signalAt(Cycle at, const PendingSignal &signal) {
  int32_t id;
  if (!freeSignals.empty()) {
    id = freeSignals.back();
    freeSignals.pop_back();
  } else {
    id = static_cast<int32_t>(signals_.size());
    signals_.emplace_back();
  }
  signals_[id] = signal;
  ++signal.cta->pendingSignals;
  push(at, Event::SignalDue, id);
}

/// InitBarrier, InvalBarrier, BarrierExpect, ArriveBarrier, WaitBarrier.
Step Engine::Impl::execMbarrier(Agent &a, const Instr &in, Cycle now) {
  Cta &cta = *a.cta;
  switch (in.op) {
  case Op::InitBarrier:
  case Op::InvalBarrier:
  case Op::BarrierExpect:
  case Op::ArriveBarrier: {
    BarrierKey key{};
    bool pred = true;
    if (!barrierOf(a, in.args[0], in, key))
      return Step::Error;
    int32_t predSlot = in.op == Op::BarrierExpect || in.op == Op::ArriveBarrier ? in.args[1] : -1;
    if (!predicate(a, predSlot, in, pred))
      return Step::Error;
    busy(a, in, costs.mbarOp);
    if (in.op == Op::ArriveBarrier && in.sub == 3) // sub 3: fbtriton's elected arrive (lowering/Mbarrier.cpp)
      electedSync(a, in);
    if (in.op == Op::ArriveBarrier && in.result >= 0)
      a.frame[in.result] = Value::unknown(-1); // amdg.arrive_barrier returns the old state
    if (!pred)
      return next(a);
    if (in.op == Op::ArriveBarrier && in.sub == 1) {
      // cp.async.mbarrier.arrive: arrives once all of the agent's earlier cp.async
      // complete (PTX ISA 9.1 9.7.9.25.3.3).
      int64_t last = !a.openCopies.ops.empty()  ? a.openCopies.ops.back()
                     : !a.copyGroups.empty()    ? a.copyGroups.back().ops.empty() ? -1 : a.copyGroups.back().ops.back()
                                                : -1;
      signalAt(std::max(a.time, copiesDone(a)), PendingSignal{last, a.info.id, &ctaOf(key), key, in.imm, in.loc, true});
      return next(a);
    }
    if (key.cta != cta.id && (in.op == Op::InitBarrier || in.op == Op::InvalBarrier))
      return err(in, "initializes or invalidates an mbarrier of another CTA of the cluster (mbarrier.init / inval take "
                 "only the executing CTA's shared memory)");
    if (in.op == Op::ArriveBarrier && in.imm2 != 0) { // multicast arrive: every CTA of the mask, in rank order
      if ((in.imm2 >> std::min(program.clusterSize(), 62)) != 0 || in.imm2 < 0)
        return err(in, "arrive CTA mask " + std::to_string(in.imm2) + " names CTAs outside " + program.clusterText());
      for (int32_t r = 0; r < program.clusterSize(); ++r)
        if (in.imm2 >> r & 1) {
          Cta *d = peerCta(cta, r, in);
          if (!d)
            return Step::Error;
          BarrierKey dk{d->id, key.alloc, key.index};
          MBarrier &bar = barrier(*d, dk);
          bool completed = false;
          BarrierStatus status = bar.arrive(in.imm, completed);
          barrierEvent(a.time, BarrierAction::Arrive, dk, bar, a.info.id, in.loc, in.imm, status);
          if (completed)
            phaseFlipped(*d, dk, bar, a.time, a.info.id, in.loc);
        }
      return next(a);
    }
    Cta &owner = ctaOf(key);
    MBarrier &bar = barrier(owner, key);
    bool completed = false;
    BarrierStatus status;
    BarrierAction action;
    int64_t amount = in.imm; // an arrive counts once per executing thread (threadMultiplicity)
    switch (in.op) {
    case Op::InitBarrier: status = bar.init(in.imm); action = BarrierAction::Init; break;
    case Op::InvalBarrier: status = bar.inval(); action = BarrierAction::Inval; break;
    case Op::BarrierExpect: status = bar.arriveExpectTx(in.imm, completed); action = BarrierAction::ExpectArrive; break;
    default:
      amount = in.imm * threadMultiplicity(a);
      if (in.sub == 2 && a.info.warp >= 0) // TLX perThread: this warp's threads of the partition's
        amount /= a.info.numWarps;
      status = bar.arrive(amount, completed);
      action = BarrierAction::Arrive;
      break;
    }
    barrierEvent(a.time, action, key, bar, a.info.id, in.loc, amount, status);
    if (completed)
      phaseFlipped(owner, key, bar, a.time, a.info.id, in.loc);
    return next(a);
  }
  case Op::WaitBarrier: {
    BarrierKey key{};
    int64_t parity = 0;
    bool pred = true;
    if (!barrierOf(a, in.args[0], in, key) || !intOf(a, in.args[1], in, parity) ||
        !predicate(a, in.args[2], in, pred))
      return Step::Error;
    if (!pred) {
      busyCycles(a, in, scalarCycles);
      return next(a);
    }
    if (key.cta != cta.id)
      return err(in, "waits on an mbarrier of another CTA of the cluster (mbarrier.try_wait takes only the executing "
                 "CTA's shared memory)");
    MBarrier &bar = barrier(cta, key);
    if (bar.initialized() && bar.testWaitParity(parity)) {
      // A passing wait still holds the warp for the try_wait's round trip through shared memory: the wait loop's
      // branch needs its predicate (PTX ISA 9.1 9.7.13.15.16; `mbarrier_try_wait_cycles`, whose source the model
      // file gives). Models without the knob charge the issue cost only.
      busy(a, in, std::isnan(costs.mbarTryWait) ? costs.mbarOp : std::max(costs.mbarOp, costs.mbarTryWait));
      barrierEvent(a.time, BarrierAction::WaitPass, key, bar, a.info.id, in.loc, parity,
                   BarrierStatus::Ok);
      a.time += warpLag(a);
      return next(a);
    }
    a.state = Agent::Blocked;
    a.waitKind = BlockedAgent::MBarrier;
    a.waitKey = key;
    a.waitParity = parity;
    a.waitLoc = in.loc;
    a.waitSince = a.time;
    barrierEvent(a.time, BarrierAction::WaitBlock, key, bar, a.info.id, in.loc, parity,
                 bar.initialized() ? BarrierStatus::Ok : bar.deadStatus());
    waitersOf(cta, key).push_back(a.info.id);
    return Step::Suspend;
  }
  default:
    break;
  }
  return err(in, "internal: execMbarrier reached with another op family's op");
}

} // namespace tlxsim::sim
