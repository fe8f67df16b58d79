#include "verifier/PhaseChecker.h"

#include "llvm/ADT/STLExtras.h"

namespace tlxsim::verifier {

using namespace tlxsim::sim;

void PhaseChecker::report(const char *cls, const BarrierEvent &e, const std::string &message) {
  if (!reported_.insert({cls, e.loc}).second)
    return;
  Finding f;
  f.cls = cls;
  f.location = loc(e.loc);
  f.message = message + " (partition '" + partition(e.agent) + "', CTA " + std::to_string(e.barrier.cta) + ")";
  f.barrier = BarrierState{program_.barrierName(e.barrier.alloc, e.barrier.index), e.phase, e.pending, e.expected,
                           e.tx};
  findings_.push_back(std::move(f));
}

void PhaseChecker::reportLap(const BarrierEvent &arrival, int64_t phase) {
  report("arrive-count", arrival,
         "arrival for phase " + std::to_string(phase) + " of " +
             program_.barrierName(arrival.barrier.alloc, arrival.barrier.index) + " before any wait observed phase " +
             std::to_string(phase - 1) + " completing: the arriving side laps its waiters (PTX ISA 9.1 9.7.13.15.4)");
}

void PhaseChecker::onBarrier(const BarrierEvent &e) {
  if (e.status != BarrierStatus::Ok || !clocks_.tracks(e.barrier.cta))
    return; // lifecycle and count errors are the protocol checker's
  switch (e.action) {
  case BarrierAction::Init:
    states_[e.barrier] = State{};
    break;
  case BarrierAction::Arrive:
  case BarrierAction::ExpectArrive:
    onArrive(e);
    break;
  case BarrierAction::WaitPass:
  case BarrierAction::WaitResume:
    onWait(e);
    break;
  default:
    break;
  }
}

void PhaseChecker::onArrive(const BarrierEvent &e) {
  // The event carries the state after the arrival; the arrival belonged to phase e.phase, or to e.phase - 1 if it
  // completed that phase.
  State &state = states_[e.barrier];
  int64_t phase = e.pending == e.expected && e.tx == 0 ? e.phase - 1 : e.phase;
  if (phase < 1)
    return;
  // a waiter woken by the flip of phase - 1 observes it only at its wake-up cycle: an arrival before that laps it
  if (state.observed == phase - 1 && state.observedAt > e.cycle)
    return reportLap(e, phase);
  if (state.observed < phase - 1 && (state.laps.empty() || state.laps.back().phase < phase)) {
    if (state.laps.size() >= kMaxLaps) // a barrier no one waits on: keep the oldest and the newest possible laps
      state.laps.erase(state.laps.begin() + kMaxLaps / 2);
    state.laps.push_back(Lap{phase, e}); // judged by the wait that shows whether anyone meant phase - 1
  }
}

void PhaseChecker::onWait(const BarrierEvent &e) {
  // The wait observed the most recent completed phase with the waited parity.
  int64_t completed = e.phase - 1;
  int64_t seen = (completed & 1) == (e.amount & 1) ? completed : completed - 1;
  State &state = states_[e.barrier];
  state.addWaiter(e.agent);
  if (seen < 0) // a fresh barrier passes the parity of "phase -1"
    return;
  auto it = std::find_if(state.observedBy.begin(), state.observedBy.end(),
                         [&](const auto &entry) { return entry.first == e.agent; });
  if (it == state.observedBy.end())
    it = &state.observedBy.emplace_back(e.agent, -1);
  // The waiter means `seen` if it knows that phase seen - 1 completed (its clock as the wait starts: this checker
  // runs before the race checker acquires the phase), the last completed phase of the other parity.
  bool means = seen == 0 || (seen == completed && clocks_.knowsPhase(e.agent, e.barrier, (seen - 1) & 1));
  if (!means && seen > it->second + 1 && !state.severalWaiters)
    report("parity-aliasing", e,
           "this wait observed phase " + std::to_string(seen) + " of " +
               program_.barrierName(e.barrier.alloc, e.barrier.index) + " after its previous wait observed phase " +
               std::to_string(it->second) + ": the waiter fell two or more phases behind, so parity " +
               std::to_string(e.amount & 1) + " no longer names the phase it meant");
  // Possible laps this wait judges: an arrival of phase seen + 1 came before it observed `seen` (another schedule
  // completes seen + 1 first); a waiter that did not mean `seen` fell behind: the first arrival of a phase up to
  // `seen` lapped it. Laps of phases up to `seen` that a waiter meaning `seen` skipped harm no one.
  for (const Lap &lap : state.laps)
    if (lap.phase == seen + 1 || (!means && lap.phase <= seen && lap.phase > it->second + 1)) {
      reportLap(lap.event, lap.phase);
      if (lap.phase <= seen)
        break;
    }
  llvm::erase_if(state.laps, [&](const Lap &lap) { return lap.phase <= seen + 1; });
  it->second = std::max(it->second, seen);
  if (seen > state.observed || (seen == state.observed && e.cycle < state.observedAt))
    state.observedAt = e.cycle;
  state.observed = std::max(state.observed, seen);
}

} // namespace tlxsim::verifier
