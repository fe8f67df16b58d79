#include "verifier/PhaseChecker.h"

#include <algorithm>

namespace tlxsim::verifier {

using namespace tlxsim::sim;

Finding *PhaseChecker::report(const char *cls, const BarrierEvent &e, const std::string &message) {
  if (!reported_.insert({cls, e.loc}).second)
    return nullptr;
  Finding f;
  f.cls = cls;
  f.location = loc(e.loc);
  f.message = message + " (partition '" + partition(e.agent) + "', CTA " + std::to_string(e.barrier.cta) + ")";
  f.barrier = BarrierState{program_.barrierName(e.barrier.alloc, e.barrier.index), e.phase, e.pending, e.expected,
                           e.tx};
  findings_.push_back(std::move(f));
  return &findings_.back();
}

/// The phase an arrival belonged to: the event carries the state after it, so e.phase, or e.phase - 1 if it
/// completed that phase.
static int64_t arrivalPhase(const BarrierEvent &e) {
  return e.pending == e.expected && e.tx == 0 ? e.phase - 1 : e.phase;
}

void PhaseChecker::reportLap(const BarrierEvent &arrival, int64_t phase, const State &state) {
  std::string name = program_.barrierName(arrival.barrier.alloc, arrival.barrier.index);
  Finding *f = report("arrive-count", arrival,
                      "arrival for phase " + std::to_string(phase) + " of " + name + " before any wait observed phase " +
                          std::to_string(phase - 1) +
                          " completing: the arriving side laps its waiters (PTX ISA 9.1 9.7.13.15.4)");
  if (!f)
    return;
  noteArrivalCount(*f, arrival, phase, state);
  // A fresh pass on a barrier whose phases TMA bytes complete (an expect among its arrivals) let its waiter read
  // a stage before any fill: the likely bug. (A producer's fresh pass on an empty barrier is the protocol's start.)
  bool txFilled = std::any_of(state.arrivals.begin(), state.arrivals.end(),
                              [](const BarrierEvent &a) { return a.action == BarrierAction::ExpectArrive; });
  if (state.freshPass && txFilled && phase <= 1) // the lap over phase 0, the one that wait did not observe
    f->notes.emplace_back(loc(state.freshPass->loc), freshPassNote(*state.freshPass, name));
  // The arrivals that made the two phases before it: where an arrive counts more than once (it completes a
  // phase alone, early) or a release comes before its wait, this is the line to read (the lapping arrival itself
  // may be correct)
  for (const BarrierEvent &a : state.arrivals) {
    int64_t p = arrivalPhase(a);
    if (p < phase - 2 || p >= phase)
      continue;
    bool completed = arrivalPhase(a) < a.phase; // it completed the phase it belonged to
    f->notes.emplace_back(
        loc(a.loc), "phase " + std::to_string(p) + " of " + name + ": " +
                        (a.action == BarrierAction::ExpectArrive
                             ? "expect " + std::to_string(a.amount) + " tx bytes + arrive"
                             : "arrive (" + std::to_string(a.amount) + ")") +
                        " by partition '" + partition(a.agent) + "' at cycle " +
                        std::to_string(a.cycle) +
                        (completed ? ", completing the phase (" + std::to_string(a.expected) +
                                         (a.expected == 1 ? " arrival)" : " arrivals)")
                                   : ", " + std::to_string(a.expected - a.pending) + " of " +
                                         std::to_string(a.expected) + " arrivals made"));
  }
}

void PhaseChecker::noteArrivalCount(Finding &f, const BarrierEvent &arrival, int64_t phase, const State &state) {
  if (!state.init || arrival.action != BarrierAction::Arrive)
    return;
  std::vector<int32_t> arrivers = {arrival.agent}; // distinct agents arriving at this site in the phases before
  for (const BarrierEvent &a : state.arrivals)
    if (a.loc == arrival.loc && a.action == BarrierAction::Arrive && arrivalPhase(a) >= phase - 2 &&
        std::find(arrivers.begin(), arrivers.end(), a.agent) == arrivers.end())
      arrivers.push_back(a.agent);
  std::sort(arrivers.begin(), arrivers.end());
  int64_t count = state.init->expected, perRound = 0;
  std::string names;
  for (int32_t agent : arrivers) {
    auto it = maxBurst_.find({agent, arrival.loc});
    int64_t n = std::max<int64_t>(arrival.amount, it == maxBurst_.end() ? 0 : it->second);
    perRound += n;
    names += std::string(names.empty() ? "" : ", ") + "'" + partition(agent) + "'" +
             (n > arrival.amount ? " " + std::to_string(n / arrival.amount) + " times between its waits" : "");
  }
  if (perRound <= count)
    return;
  std::string name = program_.barrierName(arrival.barrier.alloc, arrival.barrier.index);
  f.notes.insert(f.notes.begin(),
                 {loc(state.init->loc),
                  name + " is initialized here with arrival count " + std::to_string(count) + ", but " +
                      std::to_string(perRound) + " arrivals come at the lapping arrive's line per round (" + names +
                      "), so a phase completes before all of them arrived; if each phase should wait for all of "
                      "them, its arrival count is " + std::to_string(perRound)});
}

void PhaseChecker::onBarrier(const BarrierEvent &e) {
  if (e.status != BarrierStatus::Ok)
    return; // lifecycle and count errors are the protocol checker's
  switch (e.action) {
  case BarrierAction::Init:
    states_[e.barrier] = State{};
    states_[e.barrier].init = e;
    break;
  case BarrierAction::Arrive:
  case BarrierAction::ExpectArrive:
    if (e.action == BarrierAction::Arrive && e.asyncOp < 0) {
      int64_t &n = burst_[e.agent][e.loc];
      n += e.amount;
      int64_t &most = maxBurst_[{e.agent, e.loc}];
      most = std::max(most, n);
    }
    onArrive(e);
    break;
  case BarrierAction::WaitPass:
  case BarrierAction::WaitResume:
  case BarrierAction::WaitBlock:
    if (State *state = states_.find(e.barrier)) // a wait after a lap: it may misread it
      reportPendingLap(*state);
    if (e.action == BarrierAction::WaitBlock)
      break;
    burst_[e.agent].clear();
    onWait(e);
    break;
  default:
    break;
  }
}

void PhaseChecker::onArrive(const BarrierEvent &e) {
  State &state = states_[e.barrier];
  int64_t phase = arrivalPhase(e);
  // a lap's notes read the two phases before the lapping one, the newest: older arrivals are dropped, except while
  // a lap waits for the first wait's judgement (its notes read the phases before it, older than the newest)
  if (!state.lap && !state.pendingLap) {
    auto stale = std::find_if(state.arrivals.begin(), state.arrivals.end(),
                              [&](const BarrierEvent &a) { return arrivalPhase(a) >= phase - 2; });
    state.arrivals.erase(state.arrivals.begin(), stale);
  }
  if (state.arrivals.size() == kKeptArrivals)
    state.arrivals.erase(state.arrivals.begin());
  state.arrivals.push_back(e);
  // a waiter woken by the flip of phase - 1 observes it only at its wake-up cycle: an arrival before that
  // laps it too
  if (phase < 1 || !(state.observed < phase - 1 || (state.observed == phase - 1 && state.observedAt > e.cycle)))
    return;
  if (state.judged) {
    // A waiter woken by phase - 1 that has not yet looked (its wake is announced ahead of its cycle) sees this
    // phase's parity instead: it misreads now (a hang on hardware if both flips land before its try_wait).
    if (state.observed == phase - 1)
      return reportLap(e, phase, state);
    if (!state.pendingLap) {
      state.pendingLap = e;
      pendingLaps_.push_back(e.barrier);
    }
    return;
  }
  if (!state.lap) // no one waits yet: a counter barrier, or a lap the first wait shows
    state.lap = e;
}

void PhaseChecker::onStall(Cycle, const std::vector<BlockedAgent> &) {
  for (const BarrierKey &key : pendingLaps_)
    if (State *state = states_.find(key))
      reportPendingLap(*state);
  pendingLaps_.clear();
}

void PhaseChecker::reportPendingLap(State &state) {
  if (!state.pendingLap)
    return;
  BarrierEvent lap = *state.pendingLap;
  state.pendingLap.reset();
  reportLap(lap, arrivalPhase(lap), state);
}

void PhaseChecker::onWait(const BarrierEvent &e) {
  // The wait observed the most recent completed phase with the waited parity.
  int64_t completed = e.phase - 1;
  int64_t seen = observedPhase(e);
  State &state = states_[e.barrier];
  state.addWaiter(e.agent);
  // The first wait since init judges the laps before it: it means `seen` if it knows phase seen - 1 completed.
  bool firstMeans = false;
  if (!state.judged) {
    state.judged = true;
    firstMeans = seen <= 0 || !clocks_.tracks(e.barrier.cta) ||
                 (seen == completed && clocks_.knowsPhase(e.agent, e.barrier, (seen - 1) & 1));
    if (state.lap && !firstMeans)
      reportLap(*state.lap, arrivalPhase(*state.lap), state);
    state.lap.reset();
  }
  if (seen < 0) { // a fresh barrier passes the parity of "phase -1"
    if (!state.freshPass)
      state.freshPass = e;
    return;
  }
  auto it = std::find_if(state.observedBy.begin(), state.observedBy.end(),
                         [&](const auto &entry) { return entry.first == e.agent; });
  if (it == state.observedBy.end())
    it = &state.observedBy.emplace_back(e.agent, -1);
  if (seen > it->second + 1 && !state.severalWaiters && !firstMeans)
    report("parity-aliasing", e,
           "this wait observed phase " + std::to_string(seen) + " of " +
               program_.barrierName(e.barrier.alloc, e.barrier.index) + " after its previous wait observed phase " +
               std::to_string(it->second) + ": the waiter fell two or more phases behind, so parity " +
               std::to_string(e.amount & 1) + " no longer names the phase it meant");
  it->second = std::max(it->second, seen);
  if (seen > state.observed || (seen == state.observed && e.cycle < state.observedAt))
    state.observedAt = e.cycle;
  state.observed = std::max(state.observed, seen);
}

} // namespace tlxsim::verifier
