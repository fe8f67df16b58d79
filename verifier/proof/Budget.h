// The k-induction / BMC driver's budgets (internal to verifier/proof/): the depths of the unrolling from
// --proof-steps and the stage count, and the per-query (--timeout) and per-kernel (--proof-budget) wall-time limits.
#pragma once

#include "verifier/proof/Prover.h"

#include <z3++.h>

#include <chrono>
#include <string>

namespace tlxsim::verifier::proof {

using Clock = std::chrono::steady_clock;

/// A Z3 `timeout` parameter (milliseconds, unsigned) for `seconds`: at least 1 ms, at most
/// UINT_MAX ms (49.7 days; a larger value would wrap around to a tiny limit).
unsigned queryMilliseconds(double seconds);

/// A duration in seconds as the user wrote it (`%g`: 120, 0.5, 0.0001).
std::string secondsText(double seconds);

/// The lock-step depths of one kernel's proofs.
struct ProofDepths {
  int k = 1;      ///< induction depth: 2 x the most barrier / buffer slots + 1 (TLXSIM_PROOF_K overrides it)
  int bound = 1;  ///< bounded model checking steps (`N`): --proof-steps when it is larger than k, else k
  int unroll = 1; ///< steps unrolled from the initial state: the bound, at least 4 x slots + 4 (lemma samples)
};

/// The depths for a kernel whose largest barrier or buffer array has `maxSlots` slots; `bmcSteps` is
/// ProofOptions::bmcSteps (0: default), `envK` the value of TLXSIM_PROOF_K or null.
ProofDepths proofDepths(int maxSlots, int bmcSteps, const char *envK);

/// The per-query limits of `options` on a solver: `timeout` (--timeout, ms) and an rlimit of 20000 per ms,
/// capped at 4e9.
void setQueryLimits(z3::params &p, const ProofOptions &options);

/// Runs Z3 queries under the per-query limit and the kernel's wall-time budget (ProofOptions::budgetSeconds,
/// counted from start()): once the budget is spent every query answers `unknown` without running, so no sequence
/// of queries (Houdini retries, counterexample searches) can outlast it.
class QueryBudget {
public:
  explicit QueryBudget(const ProofOptions &options) : options(options) {}
  /// Starts the budget's clock (the encoding counts: call it before extraction).
  void start() { runStart = Clock::now(); }
  /// Seconds of the budget left at `now` (negative once spent).
  double secondsLeft(Clock::time_point now = Clock::now()) const;
  /// One query: `unknown` without running once the budget is spent (exhausted() then holds); `seconds` and
  /// totalSeconds() accumulate the wall time of the query.
  z3::check_result check(z3::solver &s, double &seconds);
  bool exhausted() const { return budgetExhausted; }
  double totalSeconds() const { return total; }
  /// "the proof budget of B s (--proof-budget) was spent", for witnesses and the note.
  std::string spentText() const;

private:
  const ProofOptions &options;
  Clock::time_point runStart = Clock::now();
  bool budgetExhausted = false;
  double total = 0;
};

} // namespace tlxsim::verifier::proof
