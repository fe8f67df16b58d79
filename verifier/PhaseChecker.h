// Phase discipline of mbarriers (PTX ISA 9.1 §9.7.13.15.4, §9.7.13.15.16). A try_wait.parity P passes once the
// barrier's current phase has the other parity: it tells the phase it waits for only from its neighbours, so a wait
// means phase k only if, when it starts, phase k - 1 has completed and phase k + 1 has not. Which phase a wait
// means: the waiter *knows* phase s - 1 completed (every release into it happens-before the wait, by the race
// checker's vector clocks) and observes s: it means s, whether or not it observed the phases before (a counter
// barrier waited on once, after its last phase, skips them by design). A waiter that observes s without knowing
// that phase s - 1 completed may have meant an earlier phase: on another schedule its parity test matches another
// phase.
//   - arrive-count (lapping): an arrival of phase k + 1 before any wait observed the completion of phase k, reported
//     once a wait shows that some waiter meant phase k (a wait that then observes k, with phase k + 1 already under
//     way, or a wait that had fallen behind and observes a later phase); where no waiter ever means phase k the
//     arrivals are legal (PTX: a phase completes whether or not anyone waits for it). An arrival after a wait
//     observed phase k but before that waiter woke up laps it at once.
//   - parity-aliasing: a waiter that observes a phase two or more after the last one it observed (or, at its first
//     wait, a phase after phase 0) without knowing that the phase before it completed: it was at least two phases
//     behind, so its parity test could as well have matched a later phase. Checked only on barriers with a single
//     waiting agent: where several agents take turns on one barrier (ping-pong consumers), skipping the others'
//     phases is the design.
// Only the CTAs whose clocks the race checker keeps are checked (the others run the same protocol); this checker
// must be attached before the race checker, so that it reads a waiter's clock as the wait starts.
#pragma once

#include "verifier/BarrierTable.h"
#include "verifier/CheckerBase.h"
#include "verifier/Finding.h"
#include "verifier/RaceChecker.h"

#include "llvm/ADT/SmallVector.h"

#include <set>

namespace tlxsim::verifier {

class PhaseChecker : public CheckerBase {
public:
  /// `clocks`: the race checker of the same run (agent clocks, the clocks of completed barrier phases).
  PhaseChecker(const sim::Program &program, const RaceChecker &clocks)
      : CheckerBase(program), states_(program), clocks_(clocks) {}

  void onBarrier(const sim::BarrierEvent &e) override;

  const std::vector<Finding> &findings() const { return findings_; }

private:
  /// An arrival of phase `phase` made before any wait observed phase `phase` - 1 (a possible lap).
  struct Lap {
    int64_t phase;
    sim::BarrierEvent event;
  };
  struct State {
    int64_t observed = -1; ///< highest completed phase some wait has observed (-1: none; a fresh barrier)
    sim::Cycle observedAt = 0; ///< when a waiter woke to observe `observed` (a wake is announced ahead of its cycle)
    llvm::SmallVector<std::pair<int32_t, int64_t>, 2> observedBy; ///< (waiting agent, phase it observed last)
    llvm::SmallVector<Lap, 2> laps; ///< possible laps no wait has judged yet, the first of each phase, in order
    int32_t waiter = -1;         ///< the agent that waited on it first (-1: none yet)
    bool severalWaiters = false; ///< another agent waited on it too
    void addWaiter(int32_t agent) {
      if (waiter < 0)
        waiter = agent;
      else if (agent != waiter)
        severalWaiters = true;
    }
  };
  static constexpr size_t kMaxLaps = 64; ///< possible laps kept per barrier
  void onArrive(const sim::BarrierEvent &e);
  void onWait(const sim::BarrierEvent &e);
  void reportLap(const sim::BarrierEvent &arrival, int64_t phase);
  void report(const char *cls, const sim::BarrierEvent &e, const std::string &message);

  BarrierTable<State> states_;
  const RaceChecker &clocks_;
  std::set<std::pair<std::string, int32_t>> reported_;
  std::vector<Finding> findings_;
};

} // namespace tlxsim::verifier
