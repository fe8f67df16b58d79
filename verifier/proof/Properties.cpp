// The properties on the ghost state (Encoder.h): wait-parity, phase-balance, tx-balance, slot-range,
// stage-ownership (with the wgmma depth) and proxy-fence, as violation conditions of the events of one lock-step
// step (apply), of the kernel's end (checkEnd) and of a step boundary (checkBoundary, the tx-per-step lemma).
// Semantics: PTX ISA mbarrier (phases, parity, tx-count), wgmma.wait_group, fence.proxy.async.
#include "verifier/proof/Encoder.h"

#include "ir/OpSyntax.h"

using namespace mlir;

namespace tlxsim::verifier::proof {

/// An arrive a thread issues itself when it reaches the op (ttng.arrive_barrier, and the arrive that follows a TMA
/// store's token wait), as opposed to one the hardware signals when an async op completes (tcgen05 commit / MMA
/// barriers, TMA bytes): a release of whatever that partition still reads.
static bool isThreadArrive(Operation &op) {
  llvm::StringRef name = op.getName().getStringRef();
  return name == "ttng.arrive_barrier" || name == "ttng.async_tma_store_token_wait";
}

/// The TMA store (`ttng.async_tma_copy_local_to_global`) whose token a `ttng.async_tma_store_token_wait` waits on;
/// null for any other token (a loop-carried or `scf.if` result, `ub.poison`, a TMA reduce): its arrive is then
/// paired by the slot index alone, as every other arrive.
static Operation *tokenStore(Operation &wait) {
  if (wait.getName().getStringRef() != "ttng.async_tma_store_token_wait")
    return nullptr;
  Operation *def = tokenDef(wait);
  return def && def->getName().getStringRef() == "ttng.async_tma_copy_local_to_global" ? def : nullptr;
}

void Encoder::learnReleases(const std::vector<Event> &events) {
  // (partition, data buffer) -> (stage index term, reading op)
  std::map<std::pair<int, int>, std::vector<std::pair<z3::expr, Operation *>>> reads;
  std::set<Operation *> readers; // the ops of the step's reads
  for (const Event &e : events)
    if (e.k == Event::Read) {
      reads[{e.part, e.group}].push_back({e.idx.simplify(), e.op});
      readers.insert(e.op);
    }
  for (const Event &e : events) {
    if (e.k != Event::Arrive)
      continue;
    z3::expr slot = e.idx.simplify();
    // A token wait's arrive follows its own store's read of shared memory and releases that store's source only
    // (fbtriton's autoWS epilogue: two one-slot buffers stored back to back, each token wait arriving on its own
    // buffer's barrier; by the slot index alone, 0 == 0, the first arrive also "released" the second buffer, still
    // read by the second store in flight).
    Operation *store = tokenStore(*e.op);
    if (!readers.count(store)) // the store's read of its source is no event of this step: by the slot alone
      store = nullptr;
    for (auto &[key, terms] : reads)
      if (key.first == e.part && groups[key.second].slots == groups[e.group].slots &&
          writersWaitOn(groups[key.second], groups[e.group]))
        for (const auto &[t, reader] : terms)
          if (z3::eq(t, slot) && (!store || reader == store))
            groups[key.second].releases.insert(e.group);
  }
}

/// Whether the per-slot flag that `idx` selects is set: the OR over slots s of (idx == s && flags[s]).
static z3::expr selectedFlag(z3::context &c, const std::vector<z3::expr> &flags, const z3::expr &idx) {
  z3::expr_vector any(c);
  for (size_t s = 0; s < flags.size(); ++s)
    any.push_back(idx == static_cast<int>(s) && flags[s]);
  return z3::mk_or(any);
}

bool Encoder::writersWaitOn(const Group &buf, const Group &rel) const {
  for (int w : buf.tmaWriters)
    if (rel.waiters.count(w))
      return true;
  for (int w : buf.genericWriters)
    if (rel.waiters.count(w))
      return true;
  return false;
}

bool Encoder::mayRelease(int r, int b) const {
  const Group &rel = groups[r], &buf = groups[b];
  if (rel.data || rel.slots != buf.slots)
    return false;
  // A barrier the buffer's writers never wait on hands nothing back to them, whatever its index: a pipelined
  // loop's peeled MMA reads q_tiles[0] and signals qk_fulls[0] with the same constant index, which made qk_fulls a
  // "release" of q_tiles (fbtriton's pipelined blackwell_fa_ws_pipelined, a new-user trial, 2026-12-05).
  return buf.releases.empty() ? writersWaitOn(buf, rel) : buf.releases.count(r) > 0;
}

void Encoder::apply(Ghost &g, const std::vector<Event> &events, std::vector<Violation> &viol) {
  if (collecting) {
    if (scanReleases)
      learnReleases(events);
    return;
  }
  // TMA stores are followed within one lock-step step (one loop iteration): a store still in flight when the
  // iteration ends is taken as retired, so the state carries nothing the induction would need an invariant for
  // (a release or rewrite in a later iteration before the wait is not seen: a missed bug, never a false one).
  for (auto &[key, inflight] : g.inflight)
    if (groups[key.second].storeReaders.count(key.first))
      for (z3::expr &f : inflight)
        f = c.bool_val(false);
  // Stage ownership, per lock-step step (one loop iteration): the slot of each partition's last wait on
  // each barrier in this step (-1: none yet). A TMA write of stage j completes on slot j of its barrier
  // array and follows the writer's wait on slot j of the barrier its readers release the stage with; a
  // read of stage j follows the reader's wait on slot j of the barrier the stage's TMA writes complete on.
  std::map<std::pair<int, int>, z3::expr> lastWait;
  auto waited = [&](int part, int group) {
    auto it = lastWait.find({part, group});
    return it == lastWait.end() ? c.int_val(-1) : it->second;
  };
  // wgmma depth (part of stage-ownership): a stage a partition's wgmma may still be reading, `hit` selecting it.
  auto stillRead = [&](int part, int group, const z3::expr &idx) -> std::optional<z3::expr> {
    auto it = g.inflight.find({part, group});
    if (it == g.inflight.end())
      return std::nullopt;
    return selectedFlag(c, it->second, idx);
  };
  StepLog stepLog; // this step's barrier events (a same-parity re-wait in one iteration)
  for (const Event &e : events) {
    if (recordSlots && e.group >= 0 && !e.peer && e.k != Event::Alloc && e.k != Event::Named)
      slotUses.emplace_back(e.op, e.group, e.idx, e.guard);
    if (e.k == Event::Alloc) {
      restart(g, e, viol);
      continue;
    }
    if (e.k == Event::Named) {
      applyNamed(g, e);
      continue;
    }
    // wgmma groups (Dot, DotWait) and TMA-store bulk groups (a store's Read, StoreWait) of the partition: a new
    // group ages the in-flight ones, a wait retires those older than its pendings.
    bool storeRead = e.k == Event::Read && e.amount == 2 && groups[e.group].storeReaders.count(e.part);
    if (e.k == Event::Dot || e.k == Event::DotWait || e.k == Event::StoreWait || storeRead) {
      bool store = e.k == Event::StoreWait || storeRead;
      for (auto &[key, inflight] : g.inflight) {
        const Group &buf = groups[key.second];
        if (key.first != e.part || !(store ? buf.storeReaders : buf.wgmmaReaders).count(e.part))
          continue;
        std::vector<z3::expr> &age = g.age.at(key);
        for (size_t s = 0; s < inflight.size(); ++s)
          if (e.k == Event::Dot || storeRead)
            age[s] = z3::ite(e.guard && age[s] < c.int_val(ageCap), age[s] + 1, age[s]);
          else
            inflight[s] = inflight[s] && !(e.guard && age[s] > c.int_val(e.amount));
      }
      if (!storeRead)
        continue;
    }
    // A stage handed to a writer while a wgmma of this partition may still read it: overwritten by this
    // partition (TMA load, generic store) or released to another one (an arrive on the barrier its writers
    // wait on before they refill the stage).
    if (e.k == Event::Tma && e.dgroup >= 0 && !e.peer && !e.issueOnly)
      if (auto r = stillRead(e.part, e.dgroup, *e.didx))
        viol.push_back({StageOwnership, e.dgroup, e.guard && *r, e.op, e.part});
    if (e.k == Event::Write)
      if (auto r = stillRead(e.part, e.group, e.idx))
        viol.push_back({StageOwnership, e.group, e.guard && *r, e.op, e.part});
    if (e.k == Event::Arrive && !e.peer && isThreadArrive(*e.op))
      for (auto &[key, inflight] : g.inflight) {
        const Group &buf = groups[key.second], &rel = groups[e.group];
        if (key.first != e.part || !mayRelease(e.group, key.second) || buf.fill.count(e.group))
          continue;
        if (writersWaitOn(buf, rel))
          viol.push_back({StageOwnership, key.second, e.guard && *stillRead(e.part, key.second, e.idx), e.op, e.part});
      }
    // Stages held by their readers: taken by a wait on the fill barrier's slot, given back by a release.
    if (e.k == Event::Wait || e.k == Event::Arrive)
      for (auto &[key, held] : g.held) {
        const Group &buf = groups[key.second];
        bool take = e.k == Event::Wait && buf.fill.count(e.group);
        bool give = e.k == Event::Arrive && !e.peer && !buf.fill.count(e.group) && mayRelease(e.group, key.second);
        if (key.first != e.part || !(take || give))
          continue;
        for (size_t s = 0; s < held.size(); ++s) {
          z3::expr hit = e.guard && e.idx == static_cast<int>(s);
          held[s] = take ? held[s] || hit : held[s] && !hit;
        }
        // A release: a thread arrive on one of the buffer's learned releases that its writers wait on before they
        // refill it (not, say, a cluster-sync arrive at the same slot of a one-slot barrier).
        auto rel = g.released.find(key);
        if (rel == g.released.end() || (give && (!buf.releases.count(e.group) || !isThreadArrive(*e.op) ||
                                                 !writersWaitOn(buf, groups[e.group]))))
          continue;
        for (size_t s = 0; s < rel->second.size(); ++s) {
          z3::expr hit = e.guard && e.idx == static_cast<int>(s);
          rel->second[s] = take ? rel->second[s] && !hit : rel->second[s] || hit;
        }
      }
    if (e.issueOnly) { // the issuer's view of an op whose effect reaches the cluster's barriers (`peer` events)
      viol.push_back({SlotRange, e.group, e.guard && (e.idx < 0 || e.idx >= groups[e.group].slots), e.op, e.part});
      continue;
    }
    if ((e.k == Event::Read && e.wgmma) || storeRead) {
      std::vector<z3::expr> &inflight = g.inflight.at({e.part, e.group}), &age = g.age.at({e.part, e.group});
      for (size_t s = 0; s < inflight.size(); ++s) {
        z3::expr hit = e.guard && e.idx == static_cast<int>(s);
        inflight[s] = inflight[s] || hit;
        age[s] = z3::ite(hit, c.int_val(1), age[s]);
      }
    }
    // proxy-fence: an async-proxy read (wgmma / tcgen05 operand, TMA store) of a buffer some partition wrote
    // through the generic proxy needs a fence.proxy.async after that write (fences of any partition count).
    if (e.k == Event::Fence) {
      for (auto &[key, d] : g.dirty)
        d = d && !e.guard;
      continue;
    }
    if (e.k == Event::Write) {
      z3::expr &d = g.dirty.at({e.part, e.group});
      d = d || e.guard;
      continue;
    }
    if (e.k == Event::Read && e.amount >= 1) {
      z3::expr_vector pending(c);
      for (auto &[key, d] : g.dirty)
        if (key.second == e.group)
          pending.push_back(d);
      if (!pending.empty())
        viol.push_back({ProxyFence, e.group, e.guard && z3::mk_or(pending), e.op, e.part});
    }
    if (e.k == Event::Read && e.amount == 2)
      continue; // a TMA store reads no stage a barrier hands to it: only its release is checked (in flight above)
    if (e.k == Event::Read) {
      const Group &buf = groups[e.group];
      for (int f : buf.fill)
        if (groups[f].slots == buf.slots && buf.fill.size() == 1) {
          // The reader's latest wait on the fill barrier in this step names another stage, and it does not
          // hold this one from an earlier wait either.
          z3::expr w = waited(e.part, f);
          z3::expr bad = e.guard && w != -1 && w != e.idx;
          if (auto h = g.held.find({e.part, e.group}); h != g.held.end())
            bad = bad && !selectedFlag(c, h->second, e.idx);
          viol.push_back({StageOwnership, e.group, bad, e.op, e.part});
        }
      // A read of a stage the reader released by its own arrive and has not waited for since.
      if (auto rel = g.released.find({e.part, e.group}); rel != g.released.end())
        viol.push_back({StageOwnership, e.group, e.guard && selectedFlag(c, rel->second, e.idx), e.op, e.part});
      continue;
    }
    if (e.k == Event::Tma && e.dgroup >= 0 && !e.peer) {
      const Group &buf = groups[e.dgroup];
      if (groups[e.group].slots == buf.slots)
        viol.push_back({StageOwnership, e.dgroup, e.guard && e.idx != *e.didx, e.op, e.part});
      for (size_t r = 0; r < groups.size(); ++r) {
        const Group &rel = groups[r];
        bool releasedByReaders = false;
        for (int p : rel.arrivers)
          releasedByReaders |= buf.readers.count(p) > 0;
        if (static_cast<int>(r) == e.group || !mayRelease(static_cast<int>(r), e.dgroup) || !releasedByReaders ||
            !rel.waiters.count(e.part))
          continue;
        z3::expr w = waited(e.part, static_cast<int>(r));
        viol.push_back({StageOwnership, e.dgroup, e.guard && w != -1 && w != *e.didx, e.op, e.part});
      }
    }
    if (e.k == Event::Wait)
      lastWait.insert_or_assign({e.part, e.group}, z3::ite(e.guard, e.idx, waited(e.part, e.group)));
    applySlots(g, e, viol, stepLog);
  }
}

void Encoder::findDrainWaiters() {
  for (Group &grp : groups)
    for (int w : grp.waiters)
      if (parts[w].l2 && grp.arrivers == std::set<int>{w} && grp.asyncArrivers.count(w) && grp.loopWaiters.count(w) &&
          !grp.innerWaiters.count(w) && !grp.afterWaiters.count(w))
        grp.drainWaiters.insert(w);
}

size_t Encoder::phaseWaiters(const Group &grp) const {
  std::set<int> keys;
  for (int w : grp.waiters)
    keys.insert(phaseOwner(w));
  return keys.size();
}

int Encoder::firstJudge(const Group &grp) const {
  for (int w : grp.waiters)
    if (!grp.drainWaiters.count(w))
      return phaseOwner(w);
  return -1;
}

// A wait for the parity of the waiter's previous wait on the slot names the phase after the next one (a phase /
// parity not flipped) unless it re-observes the phase that wait observed: PTX ISA mbarrier.try_wait.parity passes
// while the barrier's current phase parity differs from the operand, so a second wait with no phase completed in
// between passes at once and consumes none. TLX's blackwell_gemm_ws waits twice on one A slot when NUM_MMA_GROUPS
// = 2 (`A_smem_empty_bars[last_a_buf]`, then `[a_buf]` of group 1, both `phase ^ 1`). A candidate pair: both waits
// straight-line code of one iteration (`w` this step, its op before `e`'s in the same block, the same partition) on
// the same barrier and phase values (SSA); none (std::nullopt, no term) otherwise. Taken as a re-observation when
// `w` selected the slot, the waiter's B is unchanged since (within a step a partition's events are contiguous: only
// its own arrivals lie between) and the waiter signalled no barrier in between that a signaller of the waited one
// waits on, at the same slot index (it would let them complete the next phase first: the stage-j-to-slot-j pairing
// of the stage ownership check). Lock-step order cannot say more (a signal at another index, a chain through a third
// partition, a named barrier), so each candidate pair is a premise of the kernel's verdicts (reobservable,
// Driver::statePremises), which the simulation's parity-aliasing and deadlock checks judge on their schedules.
std::optional<z3::expr> Encoder::reobserves(const StepLog &log, const StepLog::Wait &w, const Event &e, int s,
                                            const z3::expr &B) {
  if (w.part != e.part || w.slot != s || !w.op || !e.op || w.op->getBlock() != e.op->getBlock() ||
      !w.op->isBeforeInBlock(e.op))
    return std::nullopt;
  auto same = [&](const char *operand) {
    auto a = ir::getOperandGroup(w.op, operand), b = ir::getOperandGroup(e.op, operand);
    return a && b && a->size() == 1 && b->size() == 1 && (*a)[0] == (*b)[0];
  };
  if (!same("alloc") || !same("phase"))
    return std::nullopt;
  reobservable[e.group].insert({w.op, e.op});
  z3::expr straddled = c.bool_val(false);
  const std::set<int> &signallers = groups[e.group].signallers;
  for (size_t i = w.signalsBefore; i < log.signals.size(); ++i) {
    const StepLog::Signal &sig = log.signals[i];
    bool enables = false;
    for (int q : groups[sig.group].waiters)
      enables |= signallers.count(q) > 0;
    if (sig.part == e.part && enables)
      straddled = straddled || (sig.guard && sig.idx == s);
  }
  return w.hit && B == w.B && !straddled;
}

// The barrier accounting of one event per slot its index may select: the slot range, a wait's parity against the
// partition's previous wait on the slot, the phase balance (arrivals and expects add, a wait consumes one phase of
// `count` arrivals; a first wait on parity 1 targets the initial, complete phase) and the tx-count.
void Encoder::applySlots(Ghost &g, const Event &e, std::vector<Violation> &viol, StepLog &log) {
  if (e.k == Event::Arrive || e.k == Event::Expect || e.k == Event::Tma)
    log.signals.push_back({e.part, e.group, e.idx, e.guard});
  const Group &grp = groups[e.group];
  viol.push_back({SlotRange, e.group, e.guard && (e.idx < 0 || e.idx >= grp.slots), e.op, e.part});
  for (int s = 0; s < grp.slots; ++s) {
    z3::expr hit = e.guard && e.idx == s;
    int64_t n = grp.count[s];
    switch (e.k) {
    case Event::Wait: {
      auto key = phaseKey(e.group, e.part);
      z3::expr &has = g.has[key][s], &last = g.last[key][s], &B = g.B[key][s], &D = g.D[key][s];
      if (grp.drainWaiters.count(e.part)) {
        // A drain wait (Group::drainWaiters) names the phase the waiter's last arrival on the slot completes:
        // after A arrivals (B counts them modulo 2 n), parity (A / n - 1) mod 2, i.e. 1 before any arrival (the
        // wait passes at once: nothing is in flight). PTX ISA mbarrier.try_wait.parity: the wait completes when
        // the phase of that parity has completed. It consumes no phase.
        z3::expr lapPos = z3::mod(B, (int)(2 * n));
        viol.push_back({WaitParity, e.group, hit && e.parity != z3::ite(lapPos < (int)n, c.int_val(1), c.int_val(0)),
                        e.op, e.part});
        break;
      }
      z3::expr again = hit && has && e.parity == last;
      std::optional<z3::expr> reobserved; // see reobserves; none: the terms as without the rule
      std::vector<StepLog::Wait> &mine = log.waits[key];
      for (const StepLog::Wait &w : mine)
        if (auto r = reobserves(log, w, e, s, B))
          reobserved = reobserved ? *reobserved || *r : *r;
      if (reobserved)
        reobserved = again && *reobserved;
      viol.push_back({WaitParity, e.group, reobserved ? again && !*reobserved : again, e.op, e.part});
      z3::expr take = reobserved ? hit && !*reobserved : hit, first = hit && !has;
      if (auto av = g.avail.find(key); av != g.avail.end())
        av->second[s] = z3::ite(first, B, av->second[s]);
      B = B - z3::ite(take, c.int_val(n), c.int_val(0)) + z3::ite(first && e.parity == 1, c.int_val(n), c.int_val(0));
      D = D || (first && e.parity == 1);
      last = z3::ite(hit, e.parity, last);
      mine.push_back({e.op, e.part, s, hit, B, log.signals.size()});
      has = has || hit;
      break;
    }
    case Event::Arrive:
    case Event::Expect:
      for (auto &[key, B] : g.B) {
        if (key.first != e.group)
          continue;
        B[s] = B[s] + z3::ite(hit, c.int_val(e.k == Event::Arrive ? e.amount : 1), c.int_val(0));
        if (grp.drainWaiters.count(key.second)) // a drain waiter's count, modulo two phases: bounded state
          B[s] = z3::ite(hit, z3::mod(B[s], (int)(2 * n)), B[s]);
      }
      if (e.k == Event::Expect)
        g.tx[e.group][s] = g.tx[e.group][s] + z3::ite(hit, c.int_val(e.amount), c.int_val(0));
      break;
    case Event::Tma:
      g.tx[e.group][s] = g.tx[e.group][s] - z3::ite(hit, c.int_val(e.amount), c.int_val(0));
      break;
    case Event::Read: case Event::Write: case Event::Fence: case Event::Dot: case Event::DotWait:
    case Event::StoreWait: case Event::Alloc: case Event::Named:
      break; // no barrier slot accounting: data stages, proxies, wgmma / store groups, instances, named barriers
    }
  }
}

void Encoder::restart(Ghost &g, const Event &e, std::vector<Violation> &viol) {
  // The previous instance ends here: its phases balanced as at the kernel's end (checkEnd), then a fresh one.
  checkEnd(g, e.guard, viol, e.group);
  for (auto &[key, B] : g.B) {
    if (key.first != e.group)
      continue;
    for (size_t s = 0; s < B.size(); ++s) {
      B[s] = z3::ite(e.guard, c.int_val(0), B[s]);
      g.D.at(key)[s] = g.D.at(key)[s] && !e.guard;
      g.has.at(key)[s] = g.has.at(key)[s] && !e.guard;
    }
  }
  for (z3::expr &tx : g.tx[e.group])
    tx = z3::ite(e.guard, c.int_val(0), tx);
}

void Encoder::checkEnd(const Ghost &g, const z3::expr &when, std::vector<Violation> &viol, int only) {
  if (collecting)
    return;
  for (auto &[key, B] : g.B) {
    const Group &grp = groups[key.first];
    if ((only >= 0 && key.first != only) || grp.drainWaiters.count(key.second))
      continue; // a drain waiter consumes no phase: the other waiters judge the slot's balance
    for (int s = 0; s < grp.slots; ++s) {
      int64_t n = grp.count[s];
      z3::expr hi = z3::ite(g.D.at(key)[s], c.int_val(n), c.int_val(0));
      // A phase completed by plain arrivals that nobody waits for is harmless at the end; one completed
      // by TMA bytes or tcgen05 may still be in flight when the kernel ends (and the barrier is invalidated).
      // Judged per waiter on the slots it waits on: a slot only another partition waits on (TLX's replicated
      // consumers, q_fulls[cid]) is that partition's; a slot nobody waits on is every waiter's.
      z3::expr_vector others(c);
      for (auto &[k2, h2] : g.has)
        if (k2.first == key.first && !grp.drainWaiters.count(k2.second))
          others.push_back(h2[s]);
      z3::expr mine = g.has.at(key)[s] || !z3::mk_or(others);
      // Laps before the first wait: the waiter may have observed a phase 2 m later than the one the count gives
      // (the same parity), the 2 m phases before it completed by its first wait (`avail`); the barrier's phases
      // complete in order, so the last one observed retires the earlier ones (PTX ISA mbarrier phase completion).
      // Whether the parity then names one phase on every schedule is the simulation's parity-aliasing check.
      z3::expr over = c.bool_val(false);
      if (grp.asyncSignals) {
        z3::expr skipped = B[s] - z3::mod(B[s], (int)(2 * n));
        auto av = g.avail.find(key);
        z3::expr lapped = av == g.avail.end()
                              ? c.bool_val(false)
                              : g.has.at(key)[s] && z3::mod(B[s], (int)(2 * n)) <= hi && skipped <= av->second[s];
        over = mine && B[s] > hi && !lapped;
      }
      // Several waiters: a waiter's balance on a slot it has not waited on is the slot's arrivals, the same
      // in every such waiter's, and a waiter that has waited there has the same arrivals modulo the count less
      // the phases it consumed: the slot is judged by the waiters that waited on it, or, when none has, by the
      // first waiter alone (its balance equals the others', Lemmas.cpp learnGhostLemmas).
      z3::expr judged = c.bool_val(true);
      if (phaseWaiters(grp) > 1)
        judged = key.second == firstJudge(grp) ? mine : g.has.at(key)[s];
      viol.push_back({PhaseBalance, key.first,
                      when && judged && (B[s] < 0 || over || z3::mod(B[s], (int)n) != 0), nullptr, key.second});
    }
  }
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (int s = 0; s < groups[gi].slots && !groups[gi].data && !groups[gi].named && (only < 0 || (int)gi == only); ++s)
      viol.push_back({TxBalance, static_cast<int>(gi), when && g.tx[gi][s] != 0, nullptr, -1});
  if (only < 0)
    checkNamedEnd(g, when, viol);
}

void Encoder::checkBoundary(const State &st, const z3::expr &when, std::vector<Violation> &viol) {
  if (collecting)
    return;
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (int s = 0; s < groups[gi].slots && !groups[gi].data && !groups[gi].named; ++s)
      viol.push_back({LemmaTx, static_cast<int>(gi), when && st.ghost->tx[gi][s] != 0, nullptr, -1});
}

} // namespace tlxsim::verifier::proof
