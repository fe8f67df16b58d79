// tx-count checks (PTX ISA 9.1 §9.7.13.15.2, §9.7.13.15.5): per barrier phase, the bytes
// registered with expect-tx must equal the bytes the TMA copies complete on it, and
// |tx-count| must stay within 2^20 - 1.
#pragma once

#include "verifier/BarrierTable.h"
#include "verifier/CheckerBase.h"
#include "verifier/Finding.h"

#include <set>

namespace tlxsim::verifier {

class TxCountChecker : public CheckerBase {
public:
  explicit TxCountChecker(const sim::Program &program) : CheckerBase(program), phases_(program) {}

  void onBarrier(const sim::BarrierEvent &e) override;
  /// A stalled waiter whose barrier has all arrivals but a non-zero tx-count waits for
  /// bytes that never come (or got more than it expected): report the expect site.
  void onStall(sim::Cycle t, const std::vector<sim::BlockedAgent> &blocked) override;

  const std::vector<Finding> &findings() const { return findings_; }

private:
  /// Accounting of the current phase of one barrier.
  struct Phase {
    int64_t expected = 0, delivered = 0, copies = 0;
    int32_t expectLoc = -1, expectAgent = -1;
    int64_t phase = 0, pending = 0, arrivals = 0, tx = 0; ///< the barrier's state after the latest event
  };
  BarrierTable<Phase> phases_;
  std::set<int32_t> reportedLocs_;
  std::vector<Finding> findings_;
};

} // namespace tlxsim::verifier
