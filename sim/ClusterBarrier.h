// The cluster barrier of one thread-block cluster (PTX ISA 9.1 9.7.13.2 `barrier.cluster.arrive` /
// `barrier.cluster.wait`, Triton's `ttng.cluster_arrive` / `ttng.cluster_wait`): it has no participant count;
// every non-exited thread of every CTA of the cluster must arrive before a wait returns. Partitions are the
// unit here: an agent arrives for all its warps.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

namespace tlxsim::sim {

class ClusterBarrier {
public:
  /// `agent` arrives on the current generation; false if it already arrived on it (a second arrive before the
  /// barrier completed).
  bool arrive(int32_t agent);
  /// Whether a wait of `agent` returns now: its last arrival's generation has completed.
  bool waitPasses(int32_t agent) const;
  /// Whether `agent` has arrived on any generation.
  bool hasArrived(int32_t agent) const;
  /// Records a blocked waiter.
  void block(int32_t agent) { waiters_.push_back(agent); }
  /// Completes the current generation if every agent of `live` has arrived (and `allStarted`); returns the
  /// waiters to wake.
  std::vector<int32_t> tryComplete(const std::vector<int32_t> &live, bool allStarted, bool &completed);
  int64_t generation() const { return generation_; }
  const std::set<int32_t> &arrived() const { return arrived_; }

private:
  int64_t generation_ = 0;
  std::set<int32_t> arrived_;
  std::vector<std::pair<int32_t, int64_t>> lastArrival_; ///< (agent, generation) of each agent's last arrive
  std::vector<int32_t> waiters_;
  int64_t lastOf(int32_t agent) const;
};

} // namespace tlxsim::sim
