// The deadlock checker: a listener that keeps each barrier's recent history and, when
// the simulation stalls, reports every blocked partition with the barrier, the parity it
// waits for, the barrier's phase, pending arrivals and tx-count, the wait-for cycle
// (Boost.Graph) and the history that led there. The error names the wait that is the likely root cause
// (DeadlockCause.h) with a one-line reason; the other blocked waits follow as related waits and notes.
#pragma once

#include "verifier/BarrierTable.h"
#include "verifier/CheckerBase.h"
#include "verifier/DeadlockCause.h"
#include "verifier/Finding.h"

#include "llvm/ADT/SmallBitVector.h"

#include <map>
#include <set>

namespace tlxsim::verifier {

class DeadlockChecker : public CheckerBase {
public:
  /// `historyDepth`: barrier events kept per barrier for the report.
  explicit DeadlockChecker(const sim::Program &program, size_t historyDepth = 6);

  void onAgentStart(const sim::AgentInfo &info, sim::Cycle t) override;
  void onAgentEnd(int32_t agent, sim::Cycle t) override;
  void onBarrier(const sim::BarrierEvent &e) override;
  void onNamedBarrier(const sim::NamedBarrierEvent &e) override;
  void onStall(sim::Cycle t, const std::vector<sim::BlockedAgent> &blocked) override;

  const std::vector<Finding> &findings() const { return findings_; }

private:
  /// What the checker keeps of one barrier: its last `historyDepth_` events other than waits that pass (a ring,
  /// oldest first from `head` once full) and the partitions that arrived on it or completed tx bytes on it.
  struct History {
    std::vector<sim::BarrierEvent> ring;
    size_t head = 0;
    llvm::SmallBitVector signalers; ///< by CheckerBase::partitionIndex
    llvm::SmallBitVector passers;   ///< partitions that completed a wait on it (passed at once or resumed)
    std::vector<int64_t> observed;  ///< by partition index: the newest phase its completed waits observed (-1)
    /// by partition index: its completed waits observed phases 0, 1, 2, ... one by one so far (a stride-1 waiter)
    std::vector<bool> everyPhase;
    /// Over-arrival between waits: the arrive that completed the latest phase (op location, agent; -1 none since
    /// the last completed wait), and the site whose arrivals by two different agents (CTAs, replicas) completed two
    /// phases in a row with no wait between them (-1: none seen): more arrivals per round than the arrival count.
    int32_t flipLoc = -1, flipAgent = -1, lastArriveLoc = -1, lastArriveAgent = -1;
    int32_t overArrivalLoc = -1;
    std::pair<int32_t, int32_t> overArrivalAgents{-1, -1};
    size_t size() const { return ring.size(); }
    const sim::BarrierEvent &at(size_t i) const { return ring[(head + i) % ring.size()]; } ///< 0 = oldest
    const sim::BarrierEvent &back() const { return at(ring.size() - 1); }
  };
  std::string describe(const sim::BarrierEvent &e) const;
  /// The barrier of blocked wait `b` as the checker last saw it (name, phase, pending arrivals, tx-count).
  BarrierState stateOf(const sim::BlockedAgent &b);
  /// Ranks the blocked waits (DeadlockCause.h) and moves the likely root cause to the front of `waiting`; returns
  /// the ranks in the new order.
  std::vector<WaitCause> leadWithRootCause(std::vector<const sim::BlockedAgent *> &waiting);
  /// The exited-peer cause of blocked wait `b` (rank 3.7, DeadlockCause.h), or rank 0: another CTA of the cluster
  /// signalled its barrier in earlier phases and has exited since.
  WaitCause exitedPeerCause(const sim::BlockedAgent &b);

  size_t historyDepth_;
  std::vector<int32_t> agentBlock_; ///< per agent: the block its partition starts in (AgentInfo::rootBlock)
  /// Per barrier allocation (Program::allocs index): some slot of it, in some CTA, got expect-tx bytes, a copy's
  /// completion or an async op's arrival (a tcgen05 commit): a barrier data arrives on, not a release barrier.
  std::vector<bool> dataBarrier_;
  /// Per CTA and barrier allocation: the sites (op location, partition name) that arrived on it, with the slots they
  /// hit: a starved slot's note names where its sibling slots' releases in the blocked wait's CTA come from (a
  /// release to the wrong slot) or says that no op ever arrived on the allocation there (a release never reached).
  struct ArrivalSite {
    std::set<std::string> partitions;
    std::set<int64_t> slots;
  };
  /// What another CTA of the cluster brings to a round of an allocation's barriers: per op location, the arrivals
  /// of its latest remote arrive and the bytes of its latest multicast copy, and its latest such event.
  struct PeerShare {
    std::map<int32_t, int64_t> arrivals, bytes;
    sim::BarrierEvent last{};
  };
  /// (CTA, alloc) -> signalling CTA -> its share, over all slots (the exited-peer cause: a tile that only one CTA
  /// runs may wait on a slot the peer never reached).
  std::map<std::pair<int64_t, int32_t>, std::map<int64_t, PeerShare>> peerSignals_;
  /// (CTA, alloc) -> op location -> who, which slots
  std::map<std::pair<int64_t, int32_t>, std::map<int32_t, ArrivalSite>> arrivalSites_;
  /// The note on a starved slot (no arrival since its init) of blocked wait `b`'s barrier, with where the array's
  /// arrivals came from when `withSites` (see arrivalSites_).
  std::string starvedNote(const sim::BlockedAgent &b, bool initialized, bool withSites);
  BarrierTable<History> history_;
  std::map<std::pair<int64_t, int64_t>, sim::NamedBarrierEvent> named_; ///< (cta, id) -> last arrival
  std::vector<Finding> findings_;
};

} // namespace tlxsim::verifier
