// mbarrier protocol checks on every barrier operation (PTX ISA 9.1 §9.7.13.15):
// arrive-count (over-arrival, init count out of range) and barrier-lifecycle (use before
// init, re-init without inval). Each distinct op location is reported once.
#pragma once

#include "verifier/CheckerBase.h"
#include "verifier/Finding.h"

#include <set>

namespace tlxsim::verifier {

class ProtocolChecker : public CheckerBase {
public:
  explicit ProtocolChecker(const sim::Program &program) : CheckerBase(program) {}

  void onBarrier(const sim::BarrierEvent &e) override;

  const std::vector<Finding> &findings() const { return findings_; }

private:
  std::set<std::pair<int32_t, int>> reported_;
  std::vector<Finding> findings_;
};

} // namespace tlxsim::verifier
