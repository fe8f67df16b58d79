// tcgen05 (PTX ISA 9.1 9.7.16): tc_gen5_mma[_scaled] on the tensor pipe (in issue order, 2-CTA pairs), commit
// arrives, tcgen05.cp (smem -> TMEM). TMEM ld/st are register work (ops/Register.cpp, units/Tmem.h).
#include "sim/EngineState.h"

namespace tlxsim::sim {

using namespace engine;

/// Tc05Mma, Tc05Commit, Tc05Copy.
Step Engine::Impl::execTcgen05(Agent &a, const Instr &in, Cycle now) {
  Cta &cta = *a.cta;
  Sm &sm = sms[cta.sm];
  switch (in.op) {
  case Op::Tc05Mma: {
    bool pred = true;
    if (!predicate(a, in.args[4], in, pred))
      return Step::Error;
    busy(a, in, costs.wgmmaIssue);
    if (!pred)
      return next(a);
    // cta_group::2 reads and writes the same views in both CTAs of the pair and arrives on the barriers of both
    // (Triton lowers its commit to tcgen05.commit.cta_group::2 .multicast::cluster, mask 3 << leader rank). Only
    // the pair's even CTA issues it: a cta_group::2 tcgen05.mma is one instruction of one CTA that operates on the
    // shared and tensor memory of both CTAs of the pair (PTX ISA 9.1 9.7.16), and Triton / fbtriton 3.7 MMAv5.cpp
    // predicate the MMA and its commits on %cluster_ctarank & 1 == 0 (SASS: UTCHMMA.2CTA under that branch), so
    // the odd CTA's op issues nothing.
    std::vector<Cta *> pair = {&cta};
    if (in.sub & 2) {
      pair = ctaPair(cta, in);
      if (pair.empty())
        return Step::Error;
      if (pair[0] != &cta)
        return next(a);
    }
    std::vector<BarrierKey> signals;
    for (int64_t i = 0; i < in.imm2; ++i) {
      BarrierKey key{};
      bool arrive = true;
      if (!barrierOf(a, in.args[5 + i], in, key) || !predicate(a, in.args[5 + in.imm2 + i], in, arrive))
        return Step::Error;
      for (Cta *c : pair)
        if (arrive)
          signals.push_back(in.sub & 2 ? BarrierKey{c->id, key.alloc, key.index} : key);
    }
    // tcgen05 ops share the SM's tensor cores with wgmma and complete in issue order; a 2-CTA MMA runs its share
    // (in.imm) on the tensor cores of each CTA of the pair and completes when both have (lowering/Tcgen05.cpp).
    Cycle work = cycles(static_cast<double>(in.imm) / costs.tensorFlopsPerClk);
    Cycle begin = sm.tensor.run(a.time, work, powerCycles);
    Cycle done = std::max(a.lastTc05Done, sm.tensor.free() + cycles(costs.wgmmaLatency));
    std::vector<std::pair<int32_t, Cycle>> peerRuns; // the pair's other SM: its begin
    int64_t flops = in.imm;
    for (Cta *c : pair)
      if (c != &cta) {
        if (c->sm == cta.sm) { // the hardware puts the pair on two SMs of a TPC; run as if so, its share counted
          flops += in.imm;
          continue;
        }
        Sm &peer = sms[c->sm];
        peerRuns.emplace_back(c->sm, peer.tensor.run(a.time, work, powerCycles));
        done = std::max(done, peer.tensor.free() + cycles(costs.wgmmaLatency));
      }
    int64_t op = issueAsync(a, a.lastTc05Op);
    for (Cta *c : pair) {
      int64_t id = in.sub & 2 ? c->id : -1;
      access(a, op, in.args[0], in.viewElems[0], /*write=*/false, /*asyncProxy=*/true, in, id);
      access(a, op, in.args[1], in.viewElems[1], /*write=*/false, /*asyncProxy=*/true, in, id);
      access(a, op, in.args[2], in.viewElems[2], /*write=*/true, /*asyncProxy=*/true, in, id);
    }
    a.lastTc05Op = op;
    a.lastTc05Done = done;
    AsyncEvent e{AsyncEvent::TensorCore, cta.sm, a.info.id, in.loc, begin, sm.tensor.free(), 0, flops, true, op};
    emit<EvAsync>([&](Listener &l) { l.onAsync(e); });
    for (auto [peerSm, peerBegin] : peerRuns) {
      AsyncEvent pe{AsyncEvent::TensorCore, peerSm, a.info.id, in.loc, peerBegin, sms[peerSm].tensor.free(), 0, in.imm,
                    true, op};
      emit<EvAsync>([&](Listener &l) { l.onAsync(pe); });
    }
    for (const BarrierKey &key : signals)
      signalAt(done, PendingSignal{op, a.info.id, &ctaOf(key), key, 1, in.loc, /*arrive=*/true});
    if (in.sub & 1) { // synchronous: the issuer waits for the MMA
      a.time = std::max(a.time, done);
      emit<EvAsyncRetired>([&](Listener &l) { l.onAsyncRetired(a.info.id, op, a.time); });
    }
    return next(a);
  }
  case Op::Tc05Commit: {
    BarrierKey key{};
    bool pred = true;
    if (!barrierOf(a, in.args[0], in, key) || !predicate(a, in.args[1], in, pred))
      return Step::Error;
    busy(a, in, costs.mbarOp);
    if (!pred)
      return next(a);
    // arrives once all earlier tcgen05 ops of this agent completed (PTX ISA 9.1 9.7.16.12.1); two_ctas: on the
    // barrier of both CTAs of the pair, issued by the pair's even CTA only (fbtriton 3.7's lowering predicates it
    // on %cluster_ctarank & 1 == 0, as the MMA: in SASS `@P UTCBAR.2CTA.MULTICAST` with P = elect && !(rank & 1))
    std::vector<Cta *> targets = {&ctaOf(key)};
    if (in.sub == 1 && (targets = ctaPair(cta, in)).empty())
      return Step::Error;
    if (in.sub == 1 && targets[0] != &cta)
      return next(a);
    for (Cta *c : targets)
      signalAt(std::max(a.time, a.lastTc05Done),
               PendingSignal{a.lastTc05Op, a.info.id, c, BarrierKey{c->id, key.alloc, key.index}, 1, in.loc, true});
    return next(a);
  }
  case Op::Tc05Copy: {
    BarrierKey key{};
    bool hasBarrier = in.args[2] >= 0;
    if (hasBarrier && !barrierOf(a, in.args[2], in, key))
      return Step::Error;
    busy(a, in, costs.wgmmaIssue);
    // tcgen05.cp reads shared memory at its bandwidth and completes in order with the
    // issuer's other tcgen05 ops (PTX ISA 9.1 9.7.16.9.1).
    sm.tensor.run(a.time, cycles(static_cast<double>(in.imm) / costs.smemBytesPerClk), powerCycles, /*math=*/false);
    Cycle done = std::max(a.lastTc05Done, sm.tensor.free() + cycles(costs.wgmmaLatency));
    int64_t op = issueAsync(a, a.lastTc05Op);
    access(a, op, in.args[0], in.viewElems[0], /*write=*/false, /*asyncProxy=*/true, in);
    access(a, op, in.args[1], in.viewElems[1], /*write=*/true, /*asyncProxy=*/true, in);
    a.lastTc05Op = op;
    a.lastTc05Done = done;
    if (hasBarrier)
      signalAt(done, PendingSignal{op, a.info.id, &ctaOf(key), key, 1, in.loc, /*arrive=*/true});
    return next(a);
  }
  default:
    break;
  }
  return err(in, "internal: execTcgen05 reached with another op family's op");
}

} // namespace tlxsim::sim
