// The k-induction / BMC driver's budgets (internal to verifier/proof/): the depths of the unrolling from
// --proof-steps and the stage count, and the limits of the Z3 queries. The limits are deterministic: Z3 resource
// units (`rlimit`, counted by Z3 itself, the same on every machine and at every load), per query (--timeout) and
// per kernel (--proof-budget), both given in nominal seconds and converted at kRlimitPerSecond. A wall-clock
// safety net kWallClockFactor times above them only stops a pathological query; it is reported as its own limit.
#pragma once

#include "verifier/proof/Prover.h"

#include <z3++.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace tlxsim::verifier::proof {

using Clock = std::chrono::steady_clock;

/// Z3 resource units (`rlimit`, Z3's "rlimit count" statistic) per nominal second of --timeout / --proof-budget.
/// A fixed conversion, not measured at run time: Z3 4.8.12 on the development host spends 0.6-0.8 M units per CPU
/// second in the BMC and induction queries (the default solver's QF_LIA preprocessing counts up to 5 M per second),
/// so a query stops after at most about its nominal seconds of CPU time (verifier/proof/README.md, calibration).
constexpr double kRlimitPerSecond = 1e6;
/// The wall-clock safety net: a query stops after this many times its nominal seconds of wall time, a kernel's
/// proofs after this many times --proof-budget. Far above the resource limits, so that load never decides a
/// verdict; only a query that spends its time outside Z3's resource counting can reach it.
constexpr double kWallClockFactor = 10;
/// Seconds added to each wall-clock safety net (wallClockNet), so that a tiny nominal limit stays a resource limit.
constexpr double kWallClockSlack = 10;

/// The wall-clock safety net of a limit of `seconds` nominal seconds: kWallClockFactor x seconds + kWallClockSlack.
double wallClockNet(double seconds);

/// A Z3 `timeout` parameter (milliseconds, unsigned) for `seconds`: at least 1 ms, at most
/// UINT_MAX ms (49.7 days; a larger value would wrap around to a tiny limit).
unsigned queryMilliseconds(double seconds);

/// The Z3 resource units of `seconds` nominal seconds (seconds x kRlimitPerSecond): at least 1 (0 would mean no
/// limit to Z3), at most 2^62.
uint64_t rlimitUnits(double seconds);

/// A Z3 `rlimit` parameter (unsigned) for `units`: at least 1, at most UINT_MAX (4.29e9 units: 214 nominal s).
unsigned queryRlimit(uint64_t units);

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

/// The per-query limits of `options` on a solver: `rlimit` = --timeout x kRlimitPerSecond (queryRlimit) and the
/// wall-clock safety net `timeout` = wallClockNet(--timeout) (ms).
void setQueryLimits(z3::params &p, const ProofOptions &options);

/// Z3's resource count of the context of `s` so far ("rlimit count" of its statistics; cumulative per context).
uint64_t rlimitCount(z3::solver &s);

/// Runs Z3 queries under the per-query limits and the kernel's budget (ProofOptions::budgetSeconds as resource
/// units, counted over all queries; its wall-clock safety net counted from start()): once the budget is spent
/// every query answers `unknown` without running, so no sequence of queries (Houdini retries, counterexample
/// searches) can outlast it. Records which limit stopped the last `unknown` query (stop()).
class QueryBudget {
public:
  explicit QueryBudget(const ProofOptions &options) : options(options) {}
  /// Starts the wall-clock safety net's clock (the encoding counts: call it before extraction).
  void start() { runStart = Clock::now(); }
  /// Seconds of the wall-clock safety net (wallClockNet(--proof-budget)) left at `now` (negative once spent).
  double secondsLeft(Clock::time_point now = Clock::now()) const;
  /// Resource units of the budget left (0 once spent).
  uint64_t unitsLeft() const;
  /// `queryUnits` of a query that may spend all the budget left (its wall-clock net: the budget's), for the
  /// last phase of a kernel's proofs (the induction step, Driver::runInduction): the units no later query can use.
  static constexpr uint64_t kRestOfBudget = ~uint64_t(0);
  /// One query: `unknown` without running once the budget is spent (exhausted() then holds). Its rlimit is
  /// `queryUnits` (0: --timeout's; kRestOfBudget: all that is left) capped to the budget left; `seconds` and
  /// totalSeconds() accumulate its wall time, totalUnits() its resource units.
  z3::check_result check(z3::solver &s, double &seconds, uint64_t queryUnits = 0);
  bool exhausted() const { return budgetExhausted; }
  double totalSeconds() const { return total; }
  uint64_t totalUnits() const { return used; }
  /// The limit that stopped the last query that answered `unknown`: "rlimit" (the per-query resource limit,
  /// --timeout), "proof-budget" (the kernel's resource budget), "wall-clock" (the per-query safety net),
  /// "wall-clock-budget" (the kernel's safety net), or "z3: REASON" (Z3 gave up for another reason).
  const std::string &stop() const { return lastStop; }
  /// Why the last `unknown` query stopped, for witnesses: "Z3 ran out of its resource limit of ... (--timeout
  /// 10 s = 2e+08 units)", the spent budget, or the wall-clock safety net.
  std::string stopText() const;
  /// "the proof budget of B s (--proof-budget) was spent (U Z3 resource units)", for witnesses and the note.
  std::string spentText() const;

private:
  const ProofOptions &options;
  Clock::time_point runStart = Clock::now();
  bool budgetExhausted = false;
  double total = 0;
  uint64_t used = 0;
  std::string lastStop;
};

} // namespace tlxsim::verifier::proof
