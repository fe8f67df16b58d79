#include "verifier/DeadlockChecker.h"
#include "verifier/DeadlockCause.h"

#include <algorithm>
#include <set>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

namespace tlxsim::verifier {

using namespace tlxsim::sim;

DeadlockChecker::DeadlockChecker(const Program &program, size_t historyDepth)
    : CheckerBase(program), historyDepth_(historyDepth), history_(program) {}

void DeadlockChecker::onAgentStart(const AgentInfo &info, Cycle t) {
  CheckerBase::onAgentStart(info, t);
  if (info.id >= static_cast<int32_t>(agentBlock_.size()))
    agentBlock_.resize(info.id + 1, -1);
  agentBlock_[info.id] = info.rootBlock;
}

void DeadlockChecker::onAgentEnd(int32_t agent, Cycle t) {
  CheckerBase::onAgentEnd(agent, t);
  int64_t done = cta(agent);
  if (!ctaExited(done))
    return;
  // The CTA finished: its barriers can no longer be part of a deadlock.
  history_.eraseCta(done);
}

void DeadlockChecker::onBarrier(const BarrierEvent &e) {
  if (e.action == BarrierAction::WaitPass || e.action == BarrierAction::WaitResume) {
    History &h = history_[e.barrier];
    h.flipLoc = h.flipAgent = -1; // a wait observed the phases so far
    size_t index = partitionIndex(e.agent);
    if (h.passers.size() <= index)
      h.passers.resize(index + 1);
    h.passers.set(index);
    int64_t seen = observedPhase(e);
    if (h.observed.size() <= index) {
      h.observed.resize(index + 1, -1);
      h.everyPhase.resize(index + 1, true);
    }
    if (seen != h.observed[index] && seen != h.observed[index] + 1) // skipped or went back: not a stride-1 waiter
      h.everyPhase[index] = false;
    h.observed[index] = std::max(h.observed[index], seen);
    return;
  }
  if (e.action == BarrierAction::ExpectArrive || e.action == BarrierAction::CompleteTx ||
      (e.action == BarrierAction::Arrive && e.asyncOp >= 0)) {
    if (dataBarrier_.size() <= static_cast<size_t>(e.barrier.alloc))
      dataBarrier_.resize(e.barrier.alloc + 1);
    dataBarrier_[e.barrier.alloc] = true;
  }
  if ((e.action == BarrierAction::Arrive || e.action == BarrierAction::ExpectArrive) && e.asyncOp < 0 &&
      e.agent >= 0) {
    ArrivalSite &site = arrivalSites_[{e.barrier.cta, e.barrier.alloc}][e.loc];
    site.partitions.insert(partition(e.agent));
    site.slots.insert(e.barrier.index);
  }
  History &h = history_[e.barrier];
  if (e.action == BarrierAction::Arrive || e.action == BarrierAction::ExpectArrive) {
    h.lastArriveLoc = e.asyncOp < 0 ? e.loc : -1; // a thread's own arrive (not a tcgen05 completion)
    h.lastArriveAgent = e.agent;
  } else if (e.action == BarrierAction::CompleteTx) {
    h.lastArriveLoc = -1;
  } else if (e.action == BarrierAction::PhaseFlip) {
    if (h.lastArriveLoc >= 0 && h.lastArriveLoc == h.flipLoc && h.lastArriveAgent != h.flipAgent) {
      h.overArrivalLoc = h.lastArriveLoc;
      h.overArrivalAgents = {h.flipAgent, h.lastArriveAgent};
    }
    h.flipLoc = h.lastArriveLoc;
    h.flipAgent = h.lastArriveAgent;
  }
  if (h.ring.size() < historyDepth_) {
    h.ring.push_back(e);
  } else if (historyDepth_ > 0) { // full: overwrite the oldest
    h.ring[h.head] = e;
    h.head = (h.head + 1) % historyDepth_;
  }
  if (e.action == BarrierAction::Arrive || e.action == BarrierAction::ExpectArrive ||
      e.action == BarrierAction::CompleteTx) {
    size_t index = partitionIndex(e.agent);
    if (h.signalers.size() <= index)
      h.signalers.resize(index + 1);
    h.signalers.set(index);
    if (e.agent >= 0 && cta(e.agent) != e.barrier.cta) {
      PeerShare &share = peerSignals_[{e.barrier.cta, e.barrier.alloc}][cta(e.agent)];
      if (e.action == BarrierAction::CompleteTx)
        share.bytes[e.loc] = e.amount;
      else
        share.arrivals[e.loc] = e.action == BarrierAction::Arrive ? e.amount : 1;
      share.last = e;
    }
  }
}

void DeadlockChecker::onNamedBarrier(const NamedBarrierEvent &e) {
  if (e.completed)
    named_.erase({e.cta, e.id});
  else
    named_[{e.cta, e.id}] = e;
}

std::string DeadlockChecker::describe(const BarrierEvent &e) const {
  std::string who = "partition '" + partition(e.agent) + "'";
  std::string what;
  switch (e.action) {
  case BarrierAction::Init: what = "init with arrival count " + std::to_string(e.amount) + " by " + who; break;
  case BarrierAction::Inval: what = "inval by " + who; break;
  case BarrierAction::Arrive: what = "arrive (" + std::to_string(e.amount) + ") by " + who; break;
  case BarrierAction::ExpectArrive: what = "expect " + std::to_string(e.amount) + " tx bytes + arrive by " + who; break;
  case BarrierAction::CompleteTx: what = "TMA issued by " + who + " completed " + std::to_string(e.amount) + " tx bytes"; break;
  case BarrierAction::PhaseFlip: what = "phase completed"; break;
  case BarrierAction::WaitBlock: what = who + " blocks waiting for parity " + std::to_string(e.amount); break;
  default: what = "wait"; break;
  }
  return program_.barrierName(e.barrier.alloc, e.barrier.index) + ": " + what + " at cycle " +
         std::to_string(e.cycle) + "; after it: phase " + std::to_string(e.phase) + ", pending " +
         std::to_string(e.pending) + "/" + std::to_string(e.expected) + ", tx " + std::to_string(e.tx);
}

BarrierState DeadlockChecker::stateOf(const BlockedAgent &b) {
  const History &h = history_[b.barrier];
  BarrierState s{program_.barrierName(b.barrier.alloc, b.barrier.index)};
  if (h.size()) {
    s.phase = h.back().phase;
    s.pending = h.back().pending;
    s.expected = h.back().expected;
    s.tx = h.back().tx;
  }
  return s;
}

std::string DeadlockChecker::starvedNote(const BlockedAgent &b, bool initialized, bool withSites) {
  std::string name = stateOf(b).name;
  std::string text = "no partition has arrived on " + name +
                     (initialized ? " since it was initialized" : ", and it was never initialized");
  if (!withSites)
    return text;
  auto it = arrivalSites_.find({b.barrier.cta, b.barrier.alloc});
  std::string array = program_.allocs[b.barrier.alloc].name;
  std::string where = " in CTA " + std::to_string(b.barrier.cta);
  if (it == arrivalSites_.end())
    return text + "; no op arrived on any slot of " + array + where + ": its release (barrier_arrive) is missing or "
                  "never reached";
  std::string sites;
  for (const auto &[at, site] : it->second) {
    std::string who, list;
    for (const std::string &p : site.partitions)
      who += (who.empty() ? "'" : ", '") + p + "'";
    for (int64_t s : site.slots)
      list += (list.empty() ? "" : ", ") + std::to_string(s);
    sites += (sites.empty() ? "" : "; ") + loc(at).str() + " (partition" + (site.partitions.size() == 1 ? " " : "s ") +
             who + ", slot" + (site.slots.size() == 1 ? " " : "s ") + list + ")";
  }
  return text + "; the arrivals on " + array + where + " came from " + sites +
         ": a release that should reach slot " + std::to_string(b.barrier.index) + " goes to another slot or is not "
         "reached";
}

std::vector<WaitCause> DeadlockChecker::leadWithRootCause(std::vector<const BlockedAgent *> &waiting) {
  // Root cause first: the blocked mbarrier wait of highest rank (DeadlockCause.h) leads; ties keep agent order.
  std::vector<WaitCause> causes(waiting.size());
  for (size_t i = 0; i < waiting.size(); ++i) {
    const BlockedAgent &b = *waiting[i];
    if (!b.onBarrier)
      continue;
    const History &h = history_[b.barrier];
    int32_t block = b.agent < static_cast<int32_t>(agentBlock_.size()) ? agentBlock_[b.agent] : -1;
    size_t index = partitionIndex(b.agent);
    bool waitedBefore = index < h.passers.size() && h.passers.test(index);
    int64_t observed = index < h.observed.size() ? h.observed[index] : -1;
    bool every = index < h.everyPhase.size() && h.everyPhase[index];
    bool dataBarrier = static_cast<size_t>(b.barrier.alloc) < dataBarrier_.size() && dataBarrier_[b.barrier.alloc];
    BarrierState state = stateOf(b);
    bool unobserved = std::none_of(h.observed.begin(), h.observed.end(),
                                   [&](int64_t seen) { return seen >= state.phase - 1; });
    causes[i] = rankWait(state, b.parity, h.signalers.any(), waitedBefore, issuesCopies(program_, block),
                         waitedBefore ? observed : -1, every, !dataBarrier && issuesTensorMma(program_, block),
                         unobserved);
    // A release never made: this partition used up the barrier's free phases (it waited on it before, passing on
    // the fresh state), and no op of any partition has ever arrived on any slot of its array in this CTA, neither a
    // thread's arrive nor an async completion (an MMA's mbarriers, a commit, TMA bytes). Above a symptom (a trial's
    // Gluon GEMM with the MMA's mbarriers=[empty] dropped led with the epilogue's acc_ready wait), below every other
    // cause: where the partition that owes the release is itself blocked by one (an MMA partition stuck on its
    // tmem_empty parity never reaches its releases), that one leads.
    if (causes[i].rank < 0.4 && waitedBefore && !h.signalers.any() && !dataBarrier &&
        !arrivalSites_.count({b.barrier.cta, b.barrier.alloc}))
      causes[i] = {0.4, "this partition already passed its waits on the fresh phases of " + state.name +
                            ", and no op has arrived on any slot of " + program_.allocs[b.barrier.alloc].name +
                            " in CTA " + std::to_string(b.barrier.cta) +
                            " since: the release its readers owe (a barrier_arrive, or the MMA's mbarriers / a "
                            "tcgen05 commit) is missing or never reached"};
  }
  // A peer CTA that signalled this barrier's allocation has exited and the phase still misses its share: it ran
  // fewer rounds of the protocol the CTAs share, and the arrivals or bytes this phase needs from it never come.
  // Above every other cause but an over-arrival on the same wait (3.5, below: direct evidence of a wrong count).
  // TLX's hopper_gemm_ws with NUM_CTAS = 2 over 133 tiles on 132 CTAs: CTA 1 ends after one tile while CTA 0 runs
  // tile 132 and waits for CTA 1's half of B and its cta_bars arrive (read as "an expect-tx larger than its copies"
  // before).
  for (size_t i = 0; i < waiting.size(); ++i)
    if (waiting[i]->onBarrier)
      if (WaitCause peer = exitedPeerCause(*waiting[i]); peer.rank > causes[i].rank)
        causes[i] = peer;
  // More arrivals per round than the arrival count: two agents' arrivals at one site completed two phases with no
  // wait between them (two CTAs' arrivals on the leader's barrier of count 1): the phases run ahead of the waits'
  // parity, and whichever wait blocks is a symptom. Above every other cause (a TLX 2-CTA GEMM with
  // alloc_barriers(1, arrive_count=1) read as "starts one phase ahead", a new-user trial of 2026-12-05).
  for (size_t i = 0; i < waiting.size(); ++i) {
    const BlockedAgent &b = *waiting[i];
    if (!b.onBarrier)
      continue;
    const History &h = history_[b.barrier];
    if (h.overArrivalLoc < 0)
      continue;
    auto who = [&](int32_t agent) {
      return "partition '" + partition(agent) + "' of CTA " + std::to_string(cta(agent));
    };
    BarrierState state = stateOf(b);
    causes[i] = {3.5, "two phases of " + state.name + " completed with no wait between them, both by the arrive at " +
                          loc(h.overArrivalLoc).str() + " (" + who(h.overArrivalAgents.first) + ", then " +
                          who(h.overArrivalAgents.second) + "): each round brings more arrivals than its arrival " +
                          "count (" + std::to_string(state.expected) +
                          "), so its phases run ahead of the parity the waits expect: the arrival count it was initialized "
                          "with is too low, or an arrive is doubled"};
  }
  // Named barriers waiting on each other: two or more partitions blocked in bar.sync on different ids, each short of
  // its threads (a consumer's named_barrier_arrive for the other consumer dropped or on the wrong id in a ping-pong).
  // Above a symptom, below any mbarrier cause (a ping-pong consumer blocked in bar.sync behind a stalled consumer is
  // one named wait: no cycle).
  std::vector<size_t> named;
  std::set<int64_t> ids;
  for (size_t i = 0; i < waiting.size(); ++i)
    if (waiting[i]->kind == BlockedAgent::Named)
      if (auto it = named_.find({cta(waiting[i]->agent), waiting[i]->namedId});
          it != named_.end() && it->second.arrived < it->second.expected) {
        named.push_back(i);
        ids.insert(waiting[i]->namedId);
      }
  if (ids.size() >= 2) {
    const NamedBarrierEvent &e = named_.at({cta(waiting[named[0]]->agent), waiting[named[0]]->namedId});
    std::string others;
    for (int64_t id : ids)
      if (id != e.id)
        others += (others.empty() ? "" : ", ") + std::to_string(id);
    causes[named[0]] = {0.25, "named barrier " + std::to_string(e.id) + " got " + std::to_string(e.arrived) +
                                  " of its " + std::to_string(e.expected) +
                                  " threads, and the partitions that would complete it wait in bar.sync on named "
                                  "barrier " + others +
                                  ": the named barriers wait on each other; a named_barrier_arrive is missing, or "
                                  "arrives on the wrong id or with the wrong thread count"};
  }
  size_t lead = 0;
  for (size_t i = 1; i < waiting.size(); ++i)
    if (causes[i].rank > causes[lead].rank)
      lead = i;
  if (lead != 0) {
    std::rotate(waiting.begin(), waiting.begin() + lead, waiting.begin() + lead + 1);
    std::rotate(causes.begin(), causes.begin() + lead, causes.begin() + lead + 1);
  }
  return causes;
}

WaitCause DeadlockChecker::exitedPeerCause(const BlockedAgent &b) {
  auto signals = peerSignals_.find({b.barrier.cta, b.barrier.alloc});
  if (signals == peerSignals_.end())
    return {};
  BarrierState s = stateOf(b);
  auto sum = [](const std::map<int32_t, int64_t> &perSite) {
    int64_t total = 0;
    for (const auto &[at, n] : perSite)
      total += n;
    return total;
  };
  for (const auto &[peer, share] : signals->second) {
    if (!ctaExited(peer))
      continue;
    // The phase still misses what the peer brings to a round: some of its arrivals (at most its share), or bytes
    // (at least its copies' share); else the peer owes this phase nothing and the cause is this CTA's own.
    int64_t arrivals = sum(share.arrivals), bytes = sum(share.bytes);
    bool owes = (s.pending > 0 && arrivals > 0 && s.pending <= arrivals) || (s.tx > 0 && bytes > 0 && s.tx >= bytes);
    if (!owes)
      continue;
    const BarrierEvent &e = share.last;
    std::string what =
        e.action == BarrierAction::CompleteTx ? "the bytes of its multicast copy at " : "its remote arrive at ";
    return {3.7, "CTA " + std::to_string(peer) + " of the cluster has exited, and it signalled " +
                     program_.allocs[b.barrier.alloc].name + " of CTA " + std::to_string(b.barrier.cta) +
                     " before (" + what + loc(e.loc).str() + ", partition '" + partition(e.agent) + "', on " +
                     program_.barrierName(e.barrier.alloc, e.barrier.index) +
                     "): the CTAs of the cluster ran different numbers of rounds of the protocol they share (a loop "
                     "whose trip count depends on the CTA, such as a persistent tile loop over a tile count that does "
                     "not split evenly between the cluster's CTAs), so this phase waits for a peer that is gone"};
  }
  return {};
}

void DeadlockChecker::onStall(Cycle, const std::vector<BlockedAgent> &blocked) {
  // Report the lowest stalled CTA; count the others.
  std::map<int64_t, std::vector<const BlockedAgent *>> byCta;
  for (const BlockedAgent &b : blocked)
    byCta[cta(b.agent)].push_back(&b);
  const std::vector<const BlockedAgent *> *group = nullptr;
  for (const auto &[cta, agents] : byCta)
    for (const BlockedAgent *b : agents)
      if (b->kind != BlockedAgent::Join && !group)
        group = &agents;
  if (!group)
    group = &byCta.begin()->second;

  std::vector<const BlockedAgent *> waiting;
  for (const BlockedAgent *b : *group)
    if (b->kind != BlockedAgent::Join)
      waiting.push_back(b);

  auto iterationText = [&](const BlockedAgent &b) {
    if (b.iterations.empty())
      return std::string();
    return " (iteration " + std::to_string(b.iterations.back().second) + " of the loop at " +
           loc(b.iterations.back().first).str() + ")";
  };
  auto waitText = [&](const BlockedAgent &b) {
    std::string who = "partition '" + partition(b.agent) + "' of CTA " + std::to_string(cta(b.agent));
    if (b.kind == BlockedAgent::Cluster)
      return who + " waits forever on the cluster barrier" + iterationText(b);
    if (b.kind == BlockedAgent::Named) {
      auto it = named_.find({cta(b.agent), b.namedId});
      std::string state = it == named_.end() ? std::string()
                                             : ": " + std::to_string(it->second.arrived) + " of " +
                                                   std::to_string(it->second.expected) + " threads arrived";
      std::string bar = isPartitionBarrier(b.namedId) ? "the barrier of its partition's warps (ttg.barrier / gpu.barrier)"
                                      : "named barrier " + std::to_string(b.namedId);
      return who + " waits forever in bar.sync on " + bar + iterationText(b) + state;
    }
    BarrierState s = stateOf(b);
    return "partition '" + partition(b.agent) + "' of CTA " + std::to_string(cta(b.agent)) + " waits forever on " + s.name +
           " for parity " + std::to_string(b.parity) + iterationText(b) + ": the barrier is in phase " +
           std::to_string(s.phase) + " (parity " + std::to_string(s.phase & 1) + ") with " +
           std::to_string(s.pending) + " of " + std::to_string(s.expected) + " arrivals pending and tx-count " +
           std::to_string(s.tx);
  };

  std::vector<WaitCause> causes = leadWithRootCause(waiting);

  Finding f;
  f.cls = "deadlock";
  if (waiting.empty()) {
    const BlockedAgent &b = *group->front();
    f.location = loc(b.loc);
    f.message = "partition '" + partition(b.agent) + "' of CTA " + std::to_string(cta(b.agent)) + " never finishes";
    findings_.push_back(std::move(f));
    return;
  }
  const BlockedAgent &primary = *waiting.front();
  f.location = loc(primary.loc);
  f.message = waitText(primary) + "; no partition can progress";
  if (!causes.front().reason.empty())
    f.message += "; likely cause: " + causes.front().reason;
  if (primary.onBarrier)
    f.barrier = stateOf(primary);
  for (size_t i = 1; i < waiting.size(); ++i) {
    const BlockedAgent &b = *waiting[i];
    f.related.push_back(Related{loc(b.loc), partition(b.agent),
                                b.iterations.empty() ? -1 : b.iterations.back().second,
                                b.kind == BlockedAgent::Named     ? "wait_barrier_named"
                                : b.kind == BlockedAgent::Cluster ? "cluster_wait"
                                                                  : "wait_barrier",
                                waitText(b)});
  }
  for (const BlockedAgent *b : *group)
    if (b->kind == BlockedAgent::Join)
      f.related.push_back(Related{loc(b->loc), partition(b->agent), -1, "warp_specialize",
                                  "partition '" + partition(b->agent) +
                                      "' waits for its worker partitions to finish"});

  // Wait-for graph over the blocked partitions: A -> B when B has signalled A's barrier.
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Graph graph(waiting.size());
  for (size_t i = 0; i < waiting.size(); ++i) {
    if (!waiting[i]->onBarrier) { // named / cluster barrier: any other blocked partition may owe arrivals
      for (size_t j = 0; j < waiting.size(); ++j)
        if (j != i && partition(waiting[j]->agent) != partition(waiting[i]->agent))
          boost::add_edge(i, j, graph);
      continue;
    }
    const History &h = history_[waiting[i]->barrier];
    const llvm::SmallBitVector &signalers = h.signalers;
    bool initialized = false;
    for (size_t k = 0; k < h.size(); ++k)
      initialized |= h.at(k).action == BarrierAction::Init && h.at(k).status == BarrierStatus::Ok;
    // A fresh barrier's parity-0 wait (ranks 1 and 0.5, DeadlockCause.cpp) starves by its own parity: the
    // releases it waits for come only after it, so the note does not blame a missing or misdirected release.
    bool ownParity = i < causes.size() && (causes[i].rank == 1 || causes[i].rank == 0.5);
    if (signalers.none())
      f.notes.emplace_back(loc(waiting[i]->loc), starvedNote(*waiting[i], initialized, !ownParity));
    for (size_t j = 0; j < waiting.size(); ++j)
      if (size_t index = partitionIndex(waiting[j]->agent); index < signalers.size() && signalers.test(index))
        boost::add_edge(i, j, graph);
  }
  std::vector<int> component(waiting.size());
  int numComponents = boost::strong_components(graph, component.data());
  for (int c = 0; c < numComponents; ++c) {
    std::vector<size_t> members;
    for (size_t i = 0; i < waiting.size(); ++i)
      if (component[i] == c)
        members.push_back(i);
    if (members.size() < 2)
      continue;
    std::string cycle;
    for (size_t i : members) {
      const BlockedAgent &b = *waiting[i];
      std::string on = b.onBarrier                       ? stateOf(b).name
                       : b.kind == BlockedAgent::Named   ? "named barrier " + std::to_string(b.namedId)
                       : b.kind == BlockedAgent::Cluster ? "the cluster barrier"
                                                         : "its workers";
      cycle += "'" + partition(b.agent) + "' (on " + on + ") -> ";
    }
    cycle += "'" + partition(waiting[members.front()]->agent) + "'";
    f.notes.emplace_back(f.location, "wait-for cycle: " + cycle);
  }

  std::set<std::tuple<int64_t, int32_t, int64_t>> seen;
  for (const BlockedAgent *b : waiting) {
    if (!b->onBarrier)
      continue;
    if (!seen.insert({b->barrier.cta, b->barrier.alloc, b->barrier.index}).second)
      continue;
    const History &h = history_[b->barrier];
    for (size_t k = 0; k < h.size(); ++k)
      f.notes.emplace_back(loc(h.at(k).loc), describe(h.at(k)));
  }
  if (byCta.size() > 1)
    f.notes.emplace_back(f.location, std::to_string(byCta.size()) + " CTAs stalled; the first is reported");
  findings_.push_back(std::move(f));
}

} // namespace tlxsim::verifier
