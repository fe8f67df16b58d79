// Hardware named-barrier checks (class `named-barrier`) on the simulator's named-barrier events
// (PTX ISA 9.1 9.7.13.1 bar.sync / bar.arrive: ids 0-15, the thread count a multiple of the warp size,
// arrivals counted per warp):
//   - id out of range, or a thread count that is not a positive multiple of the warp size;
//   - thread-count mismatch: arrivals of one rendezvous name different counts, or more threads arrive than it
//     counts (warps of a later rendezvous are absorbed into this one);
//   - arrive vs sync mismatch: a rendezvous completed by bar.arrive alone, nobody synchronizes on it;
//   - one id used by two rendezvous: successive rendezvous of one id with different participant partitions
//     (arrivals of distinct cohorts can be counted together: one is released early, the other waits).
// A bar.sync that never completes is a deadlock (DeadlockChecker); this checker adds the barrier's state.
#pragma once

#include "verifier/CheckerBase.h"
#include "verifier/Finding.h"

#include <map>
#include <set>

namespace tlxsim::verifier {

class NamedBarrierChecker : public CheckerBase {
public:
  explicit NamedBarrierChecker(const sim::Program &program) : CheckerBase(program) {}

  void onNamedBarrier(const sim::NamedBarrierEvent &e) override;

  const std::vector<Finding> &findings() const { return findings_; }

private:
  struct Rendezvous {
    std::set<std::string> partitions;
    std::vector<std::pair<int32_t, std::string>> arrivals; ///< (loc, description)
    bool anySync = false;
    int32_t firstLoc = -1;
  };
  void report(const sim::NamedBarrierEvent &e, const std::string &kind, std::string message,
              const Rendezvous *with = nullptr, int64_t key = -2);

  std::map<std::pair<int64_t, int64_t>, Rendezvous> open_;     ///< (cta, id) -> rendezvous in progress
  std::map<std::pair<int64_t, int64_t>, Rendezvous> previous_; ///< (cta, id) -> last completed rendezvous
  std::set<std::pair<std::string, int64_t>> reported_; ///< (kind, op location or barrier id)
  std::vector<Finding> findings_;
};

} // namespace tlxsim::verifier
