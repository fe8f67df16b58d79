// tx-count checks (PTX ISA 9.1 §9.7.13.15.2, §9.7.13.15.5): per barrier phase, the bytes
// registered with expect-tx must equal the bytes the TMA copies complete on it, and
// |tx-count| must stay within 2^20 - 1.
#pragma once

#include "verifier/BarrierTable.h"
#include "verifier/CheckerBase.h"
#include "verifier/Finding.h"

#include <map>
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
  /// Per CTA and barrier allocation: the bytes one completion of each copy site (op location, issuing CTA: a
  /// multicast site delivers one copy from each CTA of the cluster) delivered on it, and the bytes of its latest
  /// expect-tx: the per-round picture of a stalled phase (an expect of 16384 against copies of 16384 + 16384), which
  /// the phase's own sums, spread over the rounds a wrong count shifts, do not show. Said only where the allocation
  /// has one expect site (K and V each with their own expect on one ring would not pair).
  struct Rounds {
    /// (copy site, issuing CTA) -> bytes of its latest completion
    std::map<std::pair<int32_t, int64_t>, int64_t> copySites;
    std::set<int32_t> expectSites; ///< the expect-tx sites (one: the copies pair with it)
    int64_t lastExpect = 0;        ///< bytes of the latest expect-tx
  };
  std::map<std::pair<int64_t, int32_t>, Rounds> rounds_; ///< per (CTA, barrier allocation)
  std::set<int32_t> reportedLocs_;
  std::vector<Finding> findings_;
};

} // namespace tlxsim::verifier
