// mbarrier protocol checks on every barrier operation (PTX ISA 9.1 §9.7.13.15):
// arrive-count (over-arrival, init count out of range) and barrier-lifecycle (use before
// init, re-init without inval). Each distinct op location is reported once.
#pragma once

#include "sim/Events.h"
#include "verifier/Finding.h"

#include <set>

namespace tlxsim::verifier {

class ProtocolChecker : public sim::Listener {
public:
  explicit ProtocolChecker(const sim::Program &program) : program_(program) {}

  void onAgentStart(const sim::AgentInfo &info, sim::Cycle t) override;
  void onBarrier(const sim::BarrierEvent &e) override;

  const std::vector<Finding> &findings() const { return findings_; }

private:
  const sim::Program &program_;
  std::vector<std::string> partitions_;
  std::set<std::pair<int32_t, int>> reported_;
  std::vector<Finding> findings_;
};

} // namespace tlxsim::verifier
