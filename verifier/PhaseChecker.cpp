#include "verifier/PhaseChecker.h"

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

void PhaseChecker::onBarrier(const BarrierEvent &e) {
  if (e.status != BarrierStatus::Ok)
    return; // lifecycle and count errors are the protocol checker's
  switch (e.action) {
  case BarrierAction::Init:
    states_[e.barrier] = State{};
    break;
  case BarrierAction::Arrive:
  case BarrierAction::ExpectArrive: {
    // The event carries the state after the arrival; the arrival belonged to phase
    // e.phase, or to e.phase - 1 if it completed that phase.
    State &state = states_[e.barrier];
    int64_t phase = e.pending == e.expected && e.tx == 0 ? e.phase - 1 : e.phase;
    // a waiter woken by the flip of phase - 1 observes it only at its wake-up cycle: an arrival before that
    // laps it too
    if (phase >= 1 && (state.observed < phase - 1 || (state.observed == phase - 1 && state.observedAt > e.cycle)))
      report("arrive-count", e,
             "arrival for phase " + std::to_string(phase) + " of " + program_.barrierName(e.barrier.alloc, e.barrier.index) +
                 " before any wait observed phase " + std::to_string(phase - 1) +
                 " completing: the arriving side laps its waiters (PTX ISA 9.1 9.7.13.15.4)");
    break;
  }
  case BarrierAction::WaitPass:
  case BarrierAction::WaitResume: {
    // The wait observed the most recent completed phase with the waited parity.
    int64_t completed = e.phase - 1;
    int64_t seen = (completed & 1) == (e.amount & 1) ? completed : completed - 1;
    if (seen < 0) { // a fresh barrier passes the parity of "phase -1"
      states_[e.barrier].addWaiter(e.agent);
      break;
    }
    State &state = states_[e.barrier];
    state.addWaiter(e.agent);
    auto it = std::find_if(state.observedBy.begin(), state.observedBy.end(),
                           [&](const auto &entry) { return entry.first == e.agent; });
    if (it == state.observedBy.end())
      it = &state.observedBy.emplace_back(e.agent, -1);
    if (seen > it->second + 1 && !state.severalWaiters)
      report("parity-aliasing", e,
             "this wait observed phase " + std::to_string(seen) + " of " +
                 program_.barrierName(e.barrier.alloc, e.barrier.index) + " after its previous wait observed phase " +
                 std::to_string(it->second) + ": the waiter fell two or more phases behind, so parity " +
                 std::to_string(e.amount & 1) + " no longer names the phase it meant");
    it->second = std::max(it->second, seen);
    if (seen > state.observed || (seen == state.observed && e.cycle < state.observedAt))
      state.observedAt = e.cycle;
    state.observed = std::max(state.observed, seen);
    break;
  }
  default:
    break;
  }
}

} // namespace tlxsim::verifier
