// TMA (cp.async.bulk.tensor, PTX ISA 9.1 9.7.9.25.5): loads completing tx bytes on their barrier (multicast,
// 2-CTA), stores forming bulk groups, the wait on them.
#include "sim/EngineState.h"
#include "sim/units/TmaEngine.h"

#include "llvm/ADT/SmallVector.h"

namespace tlxsim::sim {

using namespace engine;

namespace {

/// The L2 key of the TMA box `in` copies: the descriptor, the coordinates and, for a box a CGA layout splits
/// (`in.aux`: the CTA-id bits that pick a CTA's part, lowering/Tma.cpp), the issuing CTA's part of it.
uint64_t boxKey(Engine::Impl::Agent &a, const Instr &in, int32_t clusterRank) {
  uint64_t part = in.aux > 0 ? static_cast<uint64_t>(clusterRank & in.aux) + 1 : 0;
  uint64_t h = (static_cast<uint64_t>(a.frame[in.args[0]].alloc) * 0x9E3779B97F4A7C15ull) ^ part;
  for (int64_t i = 0; i < in.imm2; ++i)
    h = (h ^ static_cast<uint64_t>(a.frame[in.args[1 + i]].i)) * 0x100000001B3ull;
  return h;
}

} // namespace

/// TmaLoad, TmaStore, TmaStoreWait, TmaStoreTokenWait.
Step Engine::Impl::execTma(Agent &a, const Instr &in, Cycle now) {
  Cta &cta = *a.cta;
  Sm &sm = sms[cta.sm];
  Cycle start = a.time;
  int64_t x = 0;
  switch (in.op) {
  case Op::TmaLoad: {
    size_t n = static_cast<size_t>(in.imm2);
    BarrierKey key{};
    bool pred = true;
    int64_t mask = -1; // .multicast::cluster CTA mask; -1: the issuer's CTA only
    if (!barrierOf(a, in.args[n + 2], in, key) || !predicate(a, in.args[n + 3], in, pred) ||
        (in.args.size() > n + 4 && !intOf(a, in.args[n + 4], in, mask)))
      return Step::Error;
    for (size_t i = 1; i <= n; ++i)
      if (!intOf(a, in.args[i], in, x))
        return Step::Error;
    busy(a, in, costs.tmaIssue);
    if (!pred)
      return next(a);
    if (mask >= 0 && (mask >> std::min(program.clusterSize(), 62)) != 0)
      return err(in, "multicast CTA mask " + std::to_string(mask) + " names CTAs outside " + program.clusterText());
    // Destinations: the box lands at the same CTA-relative offset in every CTA of the mask and completes its
    // bytes on the barrier at the same offset there (PTX ISA 9.1 9.7.9.25.5.1, .multicast::cluster); a 2-CTA
    // copy (cta_group::2) completes them on the barrier of the destination's pair leader.
    llvm::SmallVector<Cta *, 4> dests; // no heap allocation for up to 4 destinations
    const Value &dstView = a.frame[in.args[n + 1]];
    if (mask < 0) {
      Cta *d = dstView.kind == Value::Mem && dstView.rank >= 0 ? peerCta(cta, dstView.rank, in) : &cta;
      if (!d)
        return Step::Error;
      dests.push_back(d);
    }
    for (int32_t r = 0; mask > 0 && r < program.clusterSize(); ++r)
      if (mask >> r & 1) {
        Cta *d = peerCta(cta, r, in);
        if (!d)
          return Step::Error;
        dests.push_back(d);
      }
    bool hit = memory.lookup(boxKey(a, in, static_cast<int32_t>(cta.id % program.clusterSize())), in.imm, costs.l2Size);
    Cycle done = tmaTransfer(costs, sm.tma, memory, a.time, in.imm, hit,
                             tmaCopyKey(cta.id, a.info.firstWarp, a.info.warp, a.tmaCopies++));
    for (Cta *d : dests) {
      BarrierKey dk = key;
      if (mask >= 0)
        dk.cta = d->id;
      if (in.sub == 1) { // two_cta
        std::vector<Cta *> pair = ctaPair(*d, in);
        if (pair.empty())
          return Step::Error;
        dk.cta = pair[0]->id;
      }
      int64_t op = issueAsync(a);
      if (dk.cta != cta.id) {
        ClusterDeliveryEvent ce{a.time, a.info.id, op, dk, in.imm, in.loc, in.op};
        emit<EvClusterDelivery>([&](Listener &l) { l.onClusterDelivery(ce); });
      }
      access(a, op, in.args[n + 1], in.viewElems[0], /*write=*/true, /*asyncProxy=*/true, in, d->id);
      signalAt(done, PendingSignal{op, a.info.id, &ctaOf(dk), dk, in.imm, in.loc});
      AsyncEvent e{AsyncEvent::TmaLoad, cta.sm, a.info.id, in.loc, a.time, done, in.imm, 0, hit, op};
      if (d == dests.front())
        emit<EvAsync>([&](Listener &l) { l.onAsync(e); });
    }
    return next(a);
  }
  case Op::TmaStore: {
    busy(a, in, costs.tmaIssue);
    Cycle done = tmaTransfer(costs, sm.tma, memory, a.time, in.imm, /*l2Hit=*/true,
                             tmaCopyKey(cta.id, a.info.firstWarp, a.info.warp, a.tmaCopies++), /*writeBack=*/true);
    int64_t op = issueAsync(a);
    access(a, op, in.args.back(), in.viewElems[0], /*write=*/false, /*asyncProxy=*/true, in);
    a.storeGroups.emplace_back(done, op);
    if (in.result >= 0) // fbtriton 3.7's token: names this store's bulk group
      a.frame[in.result] = Value::integer(op);
    AsyncEvent e{AsyncEvent::TmaStore, cta.sm, a.info.id, in.loc, a.time, done, in.imm, 0, true, op};
    emit<EvAsync>([&](Listener &l) { l.onAsync(e); });
    return next(a);
  }
  case Op::TmaStoreWait:
    return waitGroups(a, in, a.storeGroups, start);
  case Op::TmaStoreTokenWait: {
    // The store's group and every older one of this issuer (bulk groups complete in order for
    // cp.async.bulk.wait_group.read N: all but the N most recent). A token no store made (ub.poison, the
    // first iteration of a loop-carried token) names no group: nothing to wait for.
    const Value &token = a.frame[in.args[0]];
    while (token.kind == Value::Int && !a.storeGroups.empty() && a.storeGroups.front().second <= token.i) {
      auto [done, op] = a.storeGroups.front();
      a.time = std::max(a.time, done);
      a.storeGroups.pop_front();
      emit<EvAsyncRetired>([&](Listener &l) { l.onAsyncRetired(a.info.id, op, a.time); });
    }
    span(a, in, start, a.time, /*operandWait=*/false);
    return next(a);
  }
  default:
    break;
  }
  return err(in, "internal: execTma reached with another op family's op");
}

} // namespace tlxsim::sim
