// Phase discipline of mbarriers (PTX ISA 9.1 §9.7.13.15.4, §9.7.13.15.16):
//   - arrive-count: an arrival of phase k + 1 before any wait observed the completion of
//     phase k (the producer lapped its waiters; try_wait can only tell the current phase
//     from the one before it);
//   - parity-aliasing: a waiter that observes a phase two or more after the last one it
//     observed (or, at its first wait, a phase after phase 0): it was at least two phases
//     behind, so its parity test could as well have matched a later phase. Checked only on
//     barriers with a single waiting agent: where several agents take turns on one barrier
//     (ping-pong consumers), skipping the others' phases is the design.
// Counter barriers: a barrier that no agent has waited on yet may complete any number of phases (PTX: a phase
// completes whether or not anyone waits for it); e.g. an MMA commit arrives every iteration and the epilogue waits
// once, after the last phase. The laps before the first wait are judged by that wait: it means the phase s it
// observes when the waiter knows (happens-before, the race checker's vector clocks as the wait starts) that phase
// s - 1 completed, so its parity names one phase on every schedule: the laps are legal. A first wait that does not
// know it reports them as above. Once a wait has passed on the barrier, laps are reported at once as before: a barrier with a regular waiter that falls two phases behind is lapped (an over-arrive). Limitation: a
// counter barrier waited once per outer-loop iteration (a persistent tile loop) is judged as a regular one.
// A lap after the first wait is reported when a later wait on the barrier could misread it, or at a deadlock
// (State::pendingLap): a ring whose releases run ahead only after the waiter's last wait laps nobody (Gluon attention
// releasing kv_empty[(s + 1) % S], a new-user trial of 2026-12-05, read as arrive-count).
// In CTAs whose clocks the race checker does not keep, a first wait is taken to mean what it observes.
#pragma once

#include "verifier/BarrierTable.h"
#include "verifier/CheckerBase.h"
#include "verifier/Finding.h"
#include "verifier/RaceChecker.h"

#include "llvm/ADT/SmallVector.h"

#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace tlxsim::verifier {

class PhaseChecker : public CheckerBase {
public:
  /// `clocks`: the race checker of the same run, attached after this checker (it reads a waiter's clock as the
  /// wait starts, before the race checker acquires the phase).
  PhaseChecker(const sim::Program &program, const RaceChecker &clocks)
      : CheckerBase(program), states_(program), clocks_(clocks) {}

  void onBarrier(const sim::BarrierEvent &e) override;
  /// A stall (deadlock) reports the laps still pending: a waiter of the lapped barrier may be among the blocked.
  void onStall(sim::Cycle t, const std::vector<sim::BlockedAgent> &blocked) override;

  const std::vector<Finding> &findings() const { return findings_; }

private:
  struct State {
    int64_t observed = -1; ///< highest completed phase some wait has observed (-1: none; a fresh barrier)
    sim::Cycle observedAt = 0; ///< when a waiter woke to observe `observed` (a wake is announced ahead of its cycle)
    llvm::SmallVector<std::pair<int32_t, int64_t>, 2> observedBy; ///< (waiting agent, phase it observed last)
    int32_t waiter = -1;         ///< the agent that waited on it first (-1: none yet)
    bool severalWaiters = false; ///< another agent waited on it too
    bool judged = false;         ///< a wait has passed on it since its init (the deferred laps are judged)
    std::optional<sim::BarrierEvent> lap; ///< the first arrival that lapped before any wait (judged by the first)
    /// A lap after the first wait, reported when a wait on the barrier follows it (then that wait's parity may name
    /// either phase) or the run stalls: phases nobody waits for again (a release ring's trailing phases after the
    /// producer's last wait) are harmless, PTX ISA 9.7.13.15: a phase completes whether or not anyone waits.
    std::optional<sim::BarrierEvent> pendingLap;
    /// The arrivals of the newest three phases (their phase, from arrivalPhase), oldest first: a lap's notes name
    /// those that completed the phase it laps over (an arrive counting twice, a release made too early). At most
    /// kKeptArrivals (the newest) are kept: on a barrier of more arrivals per phase the notes are the newest ones.
    std::vector<sim::BarrierEvent> arrivals;
    /// The first wait that passed at once on the barrier's initial state (parity 1 names "phase -1", PTX ISA
    /// mbarrier.try_wait.parity): it observed no phase. A lap over it is often that wait's parity being one phase
    /// off (a consumer waiting `phase ^ 1` on a full barrier), so the lap's finding names it first.
    std::optional<sim::BarrierEvent> freshPass;
    std::optional<sim::BarrierEvent> init; ///< the barrier's init (its arrival count), for a lap's first note
    void addWaiter(int32_t agent) {
      if (waiter < 0)
        waiter = agent;
      else if (agent != waiter)
        severalWaiters = true;
    }
  };
  static constexpr size_t kKeptArrivals = 16;
  /// Adds the finding; returns it (null when one of the class was already reported at that location).
  Finding *report(const char *cls, const sim::BarrierEvent &e, const std::string &message);
  void reportLap(const sim::BarrierEvent &arrival, int64_t phase, const State &state);
  /// Reports `state`'s pending lap, if any, and clears it.
  void reportPendingLap(State &state);
  /// A lap's root-cause note when more agents arrive at the lapping arrive's site than the init's arrival count
  /// (replicated consumers each releasing a stage counted for one): names the init, the count and the arrivers.
  void noteArrivalCount(Finding &f, const sim::BarrierEvent &arrival, int64_t phase, const State &state);
  void onArrive(const sim::BarrierEvent &e);
  void onWait(const sim::BarrierEvent &e);

  BarrierTable<State> states_;
  std::vector<sim::BarrierKey> pendingLaps_; ///< barriers that got a State::pendingLap (reported at a stall)
  /// Per agent: its plain arrivals at each op location since its last wait on any barrier (one round of its code);
  /// and the most such arrivals seen, per (agent, location): an unrolled loop's arrives on one barrier (per subtile)
  /// count several times per round (noteArrivalCount).
  std::unordered_map<int32_t, std::map<int32_t, int64_t>> burst_;
  std::map<std::pair<int32_t, int32_t>, int64_t> maxBurst_;
  const RaceChecker &clocks_;
  std::set<std::pair<std::string, int32_t>> reported_;
  std::vector<Finding> findings_;
};

} // namespace tlxsim::verifier
