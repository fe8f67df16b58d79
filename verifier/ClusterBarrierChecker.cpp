#include "verifier/ClusterBarrierChecker.h"

namespace tlxsim::verifier {

using namespace tlxsim::sim;

void ClusterBarrierChecker::onClusterBarrier(const ClusterBarrierEvent &e) {
  auto finding = [&](int kind, std::string message) {
    if (!reported_.insert({kind, e.loc}).second)
      return;
    Finding f;
    f.cls = "cluster-barrier";
    f.location = loc(e.loc);
    f.message = std::move(message);
    findings_.push_back(std::move(f));
  };
  switch (e.action) {
  case ClusterBarrierEvent::Arrive:
    arrived_[e.cluster].insert(e.agent);
    arriveLoc_.emplace(e.cluster, e.loc);
    break;
  case ClusterBarrierEvent::DoubleArrive:
    finding(0, "partition '" + partition(e.agent) + "' of CTA " + std::to_string(cta(e.agent)) +
                   " arrives on the cluster barrier twice before it completed (barrier.cluster.arrive needs a "
                   "barrier.cluster.wait in between)");
    break;
  case ClusterBarrierEvent::WaitWithoutArrive:
    finding(1, "partition '" + partition(e.agent) + "' of CTA " + std::to_string(cta(e.agent)) +
                   " waits on the cluster barrier without arriving on it first: the wait can never return");
    break;
  case ClusterBarrierEvent::Complete:
    arrived_[e.cluster].clear();
    break;
  case ClusterBarrierEvent::ExitedPeer:
    finding(3, "partition '" + partition(e.agent) + "' of CTA " + std::to_string(cta(e.agent)) +
                   " accesses the shared memory of CTA " + std::to_string(e.generation) +
                   " of its cluster, which has already exited (the access is dropped): a CTA must not exit while "
                   "other CTAs of its cluster may still access its shared memory (PTX ISA 9.1 5.1.1; end with a "
                   "cluster barrier)");
    break;
  default:
    break;
  }
}

void ClusterBarrierChecker::onStall(Cycle, const std::vector<BlockedAgent> &blocked) {
  for (const BlockedAgent &b : blocked) {
    if (b.kind != BlockedAgent::Cluster || !reported_.insert({2, b.loc}).second)
      continue;
    int64_t cluster = cta(b.agent) / program_.clusterSize();
    const std::set<int32_t> &arrived = arrived_[cluster];
    Finding f;
    f.cls = "cluster-barrier";
    f.location = loc(b.loc);
    std::string missing;
    for (const BlockedAgent &other : blocked)
      if (cta(other.agent) / program_.clusterSize() == cluster && !arrived.count(other.agent)) {
        missing += (missing.empty() ? "" : ", ") + std::string("partition '") + partition(other.agent) +
                   "' of CTA " + std::to_string(cta(other.agent));
        f.related.push_back(Related{loc(other.loc), partition(other.agent), -1, "",
                                    "partition '" + partition(other.agent) + "' of CTA " +
                                        std::to_string(cta(other.agent)) +
                                        " never arrives on the cluster barrier; it is blocked here"});
      }
    f.message = "partition '" + partition(b.agent) + "' of CTA " + std::to_string(cta(b.agent)) +
                " waits on the cluster barrier forever: every non-exited thread of every CTA of the cluster must "
                "arrive (barrier.cluster has no participant count), but " +
                (missing.empty() ? std::string("some threads") : missing) + " never arrive";
    findings_.push_back(std::move(f));
  }
}

} // namespace tlxsim::verifier
