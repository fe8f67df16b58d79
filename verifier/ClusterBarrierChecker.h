// Cluster-barrier checks (class `cluster-barrier`; PTX ISA 9.1 9.7.13.2 barrier.cluster): the barrier has no
// participant count, so every non-exited thread of every CTA in the cluster must arrive before any wait
// returns. Reported: a wait that can never return, naming the partitions of the cluster that never arrived
// (e.g. a cluster barrier emitted inside one warp-specialized partition); a wait with no arrive before it; a
// second arrive before the barrier completed; an access to the shared memory of a CTA of the cluster that has
// already exited (DSMEM, multicast, 2-CTA operations: the CTA must not exit while peers may still access it).
#pragma once

#include "verifier/CheckerBase.h"
#include "verifier/Finding.h"

#include <map>
#include <set>

namespace tlxsim::verifier {

class ClusterBarrierChecker : public CheckerBase {
public:
  explicit ClusterBarrierChecker(const sim::Program &program) : CheckerBase(program) {}

  void onClusterBarrier(const sim::ClusterBarrierEvent &e) override;
  void onStall(sim::Cycle t, const std::vector<sim::BlockedAgent> &blocked) override;

  const std::vector<Finding> &findings() const { return findings_; }

private:
  std::map<int64_t, std::set<int32_t>> arrived_; ///< cluster -> agents arrived on its current generation
  std::map<int64_t, int32_t> arriveLoc_;         ///< cluster -> location of an arrive
  std::set<std::pair<int, int32_t>> reported_;
  std::vector<Finding> findings_;
};

} // namespace tlxsim::verifier
