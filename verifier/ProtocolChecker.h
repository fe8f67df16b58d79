// mbarrier protocol checks on every barrier operation (PTX ISA 9.1 §9.7.13.15):
// arrive-count (over-arrival, init count out of range) and barrier-lifecycle (use before
// init, re-init without inval). Each distinct op location is reported once.
#pragma once

#include "verifier/BarrierTable.h"
#include "verifier/CheckerBase.h"
#include "verifier/Finding.h"

#include <set>

namespace tlxsim::verifier {

class ProtocolChecker : public CheckerBase {
public:
  explicit ProtocolChecker(const sim::Program &program) : CheckerBase(program), freshPass_(program) {}

  void onBarrier(const sim::BarrierEvent &e) override;

  const std::vector<Finding> &findings() const { return findings_; }

private:
  std::set<std::pair<int32_t, int>> reported_;
  /// Per barrier: the first wait that passed at once on it fresh (parity 1 in phase 0), for an over-arrival's note:
  /// a consumer whose full-barrier wait passed before any fill releases its stage early, and the producer's next
  /// expect-arrive then lands on a phase whose arrival is already made (a new-user trial, 2026-12-05).
  struct FreshPass {
    bool seen = false;
    sim::BarrierEvent wait{};
  };
  BarrierTable<FreshPass> freshPass_;
  std::vector<Finding> findings_;
};

} // namespace tlxsim::verifier
