#include "sim/ClusterBarrier.h"

#include <algorithm>

namespace tlxsim::sim {

int64_t ClusterBarrier::lastOf(int32_t agent) const {
  for (const auto &[a, g] : lastArrival_)
    if (a == agent)
      return g;
  return -1;
}

bool ClusterBarrier::arrive(int32_t agent) {
  if (!arrived_.insert(agent).second)
    return false;
  for (auto &[a, g] : lastArrival_)
    if (a == agent) {
      g = generation_;
      return true;
    }
  lastArrival_.emplace_back(agent, generation_);
  return true;
}

bool ClusterBarrier::hasArrived(int32_t agent) const { return lastOf(agent) >= 0; }

bool ClusterBarrier::waitPasses(int32_t agent) const {
  int64_t g = lastOf(agent);
  return g >= 0 && g < generation_;
}

std::vector<int32_t> ClusterBarrier::tryComplete(const std::vector<int32_t> &live, bool allStarted, bool &completed) {
  completed = false;
  if (!allStarted || arrived_.empty())
    return {};
  for (int32_t agent : live)
    if (!arrived_.count(agent))
      return {};
  completed = true;
  ++generation_;
  arrived_.clear();
  std::vector<int32_t> wake;
  std::vector<int32_t> still;
  for (int32_t w : waiters_)
    (waitPasses(w) ? wake : still).push_back(w);
  waiters_ = std::move(still);
  return wake;
}

} // namespace tlxsim::sim
