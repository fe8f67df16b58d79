#include "verifier/ClusterDeliveryChecker.h"

namespace tlxsim::verifier {

using namespace tlxsim::sim;

void ClusterDeliveryChecker::onBarrier(const BarrierEvent &e) {
  if (program_.clusterSize() < 2 || e.barrier.cta >= maxCtas_)
    return;
  auto entry = [&](Entry::Kind kind) {
    entries_[e.barrier].push_back(Entry{kind, e.agent, clocks_.agentClock(e.agent).get(e.agent), e.loc});
  };
  switch (e.action) {
  case BarrierAction::Init:
    entries_[e.barrier].clear();
    entry(Entry::Init);
    inits_.insert_or_assign(e.barrier, entries_[e.barrier].back());
    break;
  case BarrierAction::Arrive:
    remoteArrive(e);
    break;
  case BarrierAction::PhaseFlip:
    entries_[e.barrier].clear();
    break;
  case BarrierAction::WaitPass:
  case BarrierAction::WaitResume: // observed the last completed phase: the destination is in the next one
    entry(Entry::Wait);
    break;
  case BarrierAction::ExpectArrive:
    remoteArrive(e);
    entry(Entry::Arm);
    break;
  default:
    break;
  }
}

void ClusterDeliveryChecker::remoteArrive(const BarrierEvent &e) {
  if (e.asyncOp >= 0 || e.agent < 0 || cta(e.agent) == e.barrier.cta || cta(e.agent) >= maxCtas_)
    return; // asynchronous arrivals (tcgen05 commits) follow their issuer's deliveries
  auto init = inits_.find(e.barrier);
  if (init != inits_.end() && clocks_.agentClock(e.agent).get(init->second.agent) >= init->second.clock)
    return;
  if (!reported_.insert(e.loc).second)
    return;
  std::string bar = program_.barrierName(e.barrier.alloc, e.barrier.index);
  std::string to = std::to_string(e.barrier.cta);
  Finding f;
  f.cls = "cluster-barrier";
  f.location = loc(e.loc);
  f.message = "partition '" + partition(e.agent) + "' of CTA " + std::to_string(cta(e.agent)) + " arrives on " + bar +
              " of CTA " + to + " without being ordered after CTA " + to +
              " initialized it: a barrier used by other CTAs of the cluster must be initialized, made visible "
              "(fence.mbarrier_init.release.cluster) and followed by a cluster barrier before their first use";
  if (init != inits_.end())
    f.related.push_back(Related{loc(init->second.loc), partition(init->second.agent), -1, "",
                                "partition '" + partition(init->second.agent) + "' of CTA " + to + " initializes " +
                                    bar + " here, unordered with the arrive"});
  findings_.push_back(std::move(f));
}

void ClusterDeliveryChecker::onClusterDelivery(const ClusterDeliveryEvent &e) {
  int64_t from = cta(e.agent), to = e.barrier.cta;
  if (from == to || from >= maxCtas_ || to >= maxCtas_)
    return;
  const VectorClock &issuer = clocks_.agentClock(e.agent);
  const std::vector<Entry> &entries = entries_[e.barrier];
  for (const Entry &entry : entries)
    if (issuer.get(entry.agent) >= entry.clock)
      return; // ordered after the destination entered the current phase
  if (!reported_.insert(e.loc).second)
    return;
  std::string what = e.op == Op::TmaLoad ? "the TMA copy" : "the remote shared-memory store";
  std::string bar = program_.barrierName(e.barrier.alloc, e.barrier.index);
  Finding f;
  f.cls = "cluster-barrier";
  f.location = loc(e.loc);
  f.message = what + " of partition '" + partition(e.agent) + "' of CTA " + std::to_string(from) +
              " completes its bytes on " + bar + " of CTA " + std::to_string(to) +
              " without being ordered after CTA " + std::to_string(to) +
              " entered the barrier's current phase: no happens-before from its arming of " + bar +
              " (expect_tx), from its wait that released the previous phase of the stage, or from its init; the "
              "bytes may complete the previous phase while CTA " + std::to_string(to) +
              " still reads the stage, or reach a barrier not armed yet (every destination CTA must arm its barrier "
              "or release its stage before the issuer sends)";
  for (const Entry &entry : entries) {
    const char *kind = entry.kind == Entry::Init ? "initializes" : entry.kind == Entry::Wait ? "waits on" : "arms";
    f.related.push_back(Related{loc(entry.loc), partition(entry.agent), -1, "",
                                "partition '" + partition(entry.agent) + "' of CTA " + std::to_string(to) + " " +
                                    kind + " " + bar + " here, unordered with the issue"});
  }
  findings_.push_back(std::move(f));
}

} // namespace tlxsim::verifier
