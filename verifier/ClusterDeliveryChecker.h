// Deliveries into another CTA of the cluster (class `cluster-barrier`; bug-classes.md B09): a TMA multicast
// (`.multicast::cluster`), a 2-CTA TMA copy signalling the pair's leader, or a DSMEM st.async / bulk copy completes
// its bytes (complete-tx) on a barrier of a CTA other than its issuer's. The bytes count toward that barrier's
// *current* phase (PTX ISA 9.1 9.7.13.15.2), so they land in the phase the destination's consumer waits for only if
// the issue is ordered (happens-before) after the destination entered that phase:
//   - its init of the barrier (phase 0; in practice init, fence.mbarrier_init, cluster barrier),
//   - a wait of the destination that observed the previous phase complete (the consumer's release of the stage), or
//   - the destination's arming of the phase (arrive.expect_tx).
// Without any of them the issuer may run ahead of the destination: the bytes complete the destination's previous
// phase (its consumer reads a stage still being written) or arrive before its barrier exists. Likewise an arrive on
// a barrier of another CTA (a remote arrive through map_to_remote_buffer) must be ordered after that CTA initialized
// the barrier (mbarrier.init, fence.mbarrier_init.release.cluster, cluster barrier). Happens-before comes
// from the race checker's vector clocks (mbarriers, cluster barriers, async operations); this checker must be
// attached before it, so that it reads an agent's clock at an event before the race checker advances it.
#pragma once

#include "verifier/CheckerBase.h"
#include "verifier/Finding.h"
#include "verifier/RaceChecker.h"

#include <set>
#include <unordered_map>

namespace tlxsim::verifier {

class ClusterDeliveryChecker : public CheckerBase {
public:
  /// `clocks`: the race checker of the same run (its agent clocks); `maxCtas`: CTAs it tracks.
  ClusterDeliveryChecker(const sim::Program &program, const RaceChecker &clocks, int64_t maxCtas)
      : CheckerBase(program), clocks_(clocks), maxCtas_(maxCtas) {}

  void onBarrier(const sim::BarrierEvent &e) override;
  void onClusterDelivery(const sim::ClusterDeliveryEvent &e) override;

  const std::vector<Finding> &findings() const { return findings_; }

private:
  /// An event by which a CTA entered the current phase of one of its barriers.
  struct Entry {
    enum Kind { Init, Wait, Arm } kind;
    int32_t agent;
    int64_t clock; ///< the agent's own clock component at the event
    int32_t loc;
  };
  std::unordered_map<sim::BarrierKey, std::vector<Entry>, sim::BarrierKeyHash> entries_; ///< of the current phase
  std::unordered_map<sim::BarrierKey, Entry, sim::BarrierKeyHash> inits_;                ///< the barrier's last init
  void remoteArrive(const sim::BarrierEvent &e);
  const RaceChecker &clocks_;
  int64_t maxCtas_;
  std::set<int32_t> reported_; ///< delivery locations reported
  std::vector<Finding> findings_;
};

} // namespace tlxsim::verifier
