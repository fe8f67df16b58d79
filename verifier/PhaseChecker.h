// Phase discipline of mbarriers (PTX ISA 9.1 §9.7.13.15.4, §9.7.13.15.16):
//   - arrive-count: an arrival of phase k + 1 before any wait observed the completion of
//     phase k (the producer lapped its waiters; try_wait can only tell the current phase
//     from the one before it);
//   - parity-aliasing: a waiter that observes a phase two or more after the last one it
//     observed (or, at its first wait, a phase after phase 0): it was at least two phases
//     behind, so its parity test could as well have matched a later phase. Checked only on
//     barriers with a single waiting agent: where several agents take turns on one barrier
//     (ping-pong consumers), skipping the others' phases is the design.
#pragma once

#include "verifier/CheckerBase.h"
#include "verifier/Finding.h"

#include <map>
#include <set>
#include <unordered_map>

namespace tlxsim::verifier {

class PhaseChecker : public CheckerBase {
public:
  explicit PhaseChecker(const sim::Program &program) : CheckerBase(program) {}

  void onBarrier(const sim::BarrierEvent &e) override;

  const std::vector<Finding> &findings() const { return findings_; }

private:
  struct State {
    int64_t observed = -1; ///< highest completed phase some wait has observed (-1: none; a fresh barrier)
    sim::Cycle observedAt = 0; ///< when a waiter woke to observe `observed` (a wake is announced ahead of its cycle)
    std::unordered_map<int32_t, int64_t> observedBy; ///< per waiting agent
    std::set<int32_t> waiters;                        ///< every agent that ever waited on it
  };
  void report(const char *cls, const sim::BarrierEvent &e, const std::string &message);

  std::unordered_map<sim::BarrierKey, State, sim::BarrierKeyHash> states_;
  std::set<std::pair<std::string, int32_t>> reported_;
  std::vector<Finding> findings_;
};

} // namespace tlxsim::verifier
