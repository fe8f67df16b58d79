#include "verifier/TxCountChecker.h"


namespace tlxsim::verifier {

using namespace tlxsim::sim;

void TxCountChecker::onBarrier(const BarrierEvent &e) {
  switch (e.action) {
  case BarrierAction::Init:
  case BarrierAction::PhaseFlip:
    phases_.erase(e.barrier);
    break;
  case BarrierAction::ExpectArrive: {
    if (e.amount < 0 && reportedLocs_.insert(e.loc).second) {
      Finding f;
      f.cls = "tx-count";
      f.location = loc(e.loc);
      f.message = "expect-tx of a negative byte count (" + std::to_string(e.amount) + ") on " +
                  program_.barrierName(e.barrier.alloc, e.barrier.index);
      findings_.push_back(std::move(f));
    }
    Rounds &rounds = rounds_[{e.barrier.cta, e.barrier.alloc}];
    rounds.lastExpect = e.amount;
    rounds.expectSites.insert(e.loc);
    Phase &p = phases_[e.barrier];
    p.expected += e.amount;
    p.expectLoc = e.loc;
    p.expectAgent = e.agent;
    break;
  }
  case BarrierAction::CompleteTx: {
    if (e.loc >= 0)
      rounds_[{e.barrier.cta, e.barrier.alloc}].copySites[{e.loc, e.agent >= 0 ? cta(e.agent) : e.barrier.cta}] =
          e.amount;
    Phase &p = phases_[e.barrier];
    p.delivered += e.amount;
    ++p.copies;
    break;
  }
  default:
    break;
  }
  if (Phase *p = phases_.find(e.barrier)) {
    p->phase = e.phase;
    p->pending = e.pending;
    p->arrivals = e.expected;
    p->tx = e.tx;
  }
  if (e.status == BarrierStatus::TxOutOfRange && reportedLocs_.insert(e.loc).second) {
    Finding f;
    f.cls = "tx-count";
    f.location = loc(e.loc);
    f.message = "tx-count of " + program_.barrierName(e.barrier.alloc, e.barrier.index) + " reached " +
                std::to_string(e.tx) + " bytes, outside the +-(2^20 - 1) the mbarrier holds (PTX ISA 9.1 9.7.13.15.2)";
    f.barrier = BarrierState{program_.barrierName(e.barrier.alloc, e.barrier.index), e.phase, e.pending, e.expected, e.tx};
    findings_.push_back(std::move(f));
  }
}

void TxCountChecker::onStall(Cycle, const std::vector<BlockedAgent> &blocked) {
  for (const BlockedAgent &b : blocked) {
    if (!b.onBarrier)
      continue;
    const Phase *found = phases_.find(b.barrier);
    if (!found)
      continue;
    const Phase &p = *found;
    if (p.expected == p.delivered || p.expectLoc < 0)
      continue;
    auto rounds = rounds_.find({b.barrier.cta, b.barrier.alloc});
    int64_t round = 0; // one copy of each site and issuing CTA
    bool exitedIssuer = false;
    if (rounds != rounds_.end())
      for (const auto &[site, bytes] : rounds->second.copySites) {
        round += bytes;
        exitedIssuer |= site.second != b.barrier.cta && ctaExited(site.second);
      }
    // Bytes owed by a peer CTA that has exited (its multicast copies filled this barrier in earlier rounds) while
    // the expect equals a round's copies: the CTAs ran different numbers of rounds, not a wrong expect; the deadlock
    // finding names the peer.
    if (exitedIssuer && round == p.expected)
      continue;
    if (!reportedLocs_.insert(p.expectLoc).second)
      continue;
    std::string name = program_.barrierName(b.barrier.alloc, b.barrier.index);
    Finding f;
    f.cls = "tx-count";
    f.location = loc(p.expectLoc);
    int64_t diff = p.expected - p.delivered;
    f.message = "expect-tx registered " + std::to_string(p.expected) + " bytes on " + name + ", but the " +
                std::to_string(p.copies) + " TMA cop" + (p.copies == 1 ? "y" : "ies") + " completing on it delivered " +
                std::to_string(p.delivered) + "; " +
                (diff > 0 ? std::to_string(diff) + " bytes never arrive"
                          : std::to_string(-diff) + " bytes too many arrive") +
                ", so the phase never completes";
    // The per-round picture: one copy of each site against one expect (each site issues one copy per round in the
    // usual pipeline), when the stalled phase's own sums (spread over rounds by the wrong count) differ from it.
    if (rounds != rounds_.end() && !rounds->second.copySites.empty() && rounds->second.expectSites.size() == 1) {
      std::string list;
      for (const auto &[site, bytes] : rounds->second.copySites)
        list += (list.empty() ? "" : ", ") + std::to_string(bytes) + " bytes from " + loc(site.first).str() +
                (site.second != b.barrier.cta ? " (issued by CTA " + std::to_string(site.second) + ")" : "");
      int64_t expect = rounds->second.lastExpect;
      if (round != expect && (round != p.delivered || expect != p.expected)) // else the phase's sums say it
        f.message += "; per round, one copy of each site delivers " + std::to_string(round) + " bytes (" + list +
                     ") against the " + std::to_string(expect) + " its expect registers";
    }
    f.barrier = BarrierState{name, p.phase, p.pending, p.arrivals, p.tx};
    f.related.push_back(Related{loc(b.loc), partition(b.agent), b.iterations.empty() ? -1 : b.iterations.back().second,
                                "wait_barrier",
                                "partition '" + partition(b.agent) + "' waits on " + name + " forever"});
    findings_.push_back(std::move(f));
  }
}

} // namespace tlxsim::verifier
