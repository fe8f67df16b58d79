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

#include "verifier/BarrierTable.h"
#include "verifier/CheckerBase.h"
#include "verifier/Finding.h"

#include "llvm/ADT/SmallVector.h"

#include <set>

namespace tlxsim::verifier {

class PhaseChecker : public CheckerBase {
public:
  explicit PhaseChecker(const sim::Program &program) : CheckerBase(program), states_(program) {}

  void onBarrier(const sim::BarrierEvent &e) override;

  const std::vector<Finding> &findings() const { return findings_; }

private:
  struct State {
    int64_t observed = -1; ///< highest completed phase some wait has observed (-1: none; a fresh barrier)
    sim::Cycle observedAt = 0; ///< when a waiter woke to observe `observed` (a wake is announced ahead of its cycle)
    llvm::SmallVector<std::pair<int32_t, int64_t>, 2> observedBy; ///< (waiting agent, phase it observed last)
    int32_t waiter = -1;         ///< the agent that waited on it first (-1: none yet)
    bool severalWaiters = false; ///< another agent waited on it too
    void addWaiter(int32_t agent) {
      if (waiter < 0)
        waiter = agent;
      else if (agent != waiter)
        severalWaiters = true;
    }
  };
  void report(const char *cls, const sim::BarrierEvent &e, const std::string &message);

  BarrierTable<State> states_;
  std::set<std::pair<std::string, int32_t>> reported_;
  std::vector<Finding> findings_;
};

} // namespace tlxsim::verifier
