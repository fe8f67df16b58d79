// The deadlock checker: a listener that keeps each barrier's recent history and, when
// the simulation stalls, reports every blocked partition with the barrier, the parity it
// waits for, the barrier's phase, pending arrivals and tx-count, the wait-for cycle
// (Boost.Graph) and the history that led there.
#pragma once

#include "verifier/CheckerBase.h"
#include "verifier/Finding.h"

#include <deque>
#include <map>
#include <set>
#include <unordered_map>

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
  std::string describe(const sim::BarrierEvent &e) const;

  size_t historyDepth_;
  std::unordered_map<int64_t, int32_t> liveAgents_; ///< per CTA
  std::unordered_map<sim::BarrierKey, std::deque<sim::BarrierEvent>, sim::BarrierKeyHash> history_;
  std::unordered_map<sim::BarrierKey, std::set<std::string>, sim::BarrierKeyHash> signalers_;
  std::map<std::pair<int64_t, int64_t>, sim::NamedBarrierEvent> named_; ///< (cta, id) -> last arrival
  std::vector<Finding> findings_;
};

} // namespace tlxsim::verifier
