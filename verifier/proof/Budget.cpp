// The driver's budgets: unrolling depths and wall-time limits of the Z3 queries (Budget.h).
#include "verifier/proof/Budget.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>

namespace tlxsim::verifier::proof {

unsigned queryMilliseconds(double seconds) {
  return static_cast<unsigned>(std::clamp(seconds * 1000, 1.0, 4294967295.0));
}

std::string secondsText(double seconds) {
  std::string out;
  llvm::raw_string_ostream(out) << llvm::format("%g", seconds);
  return out;
}

ProofDepths proofDepths(int maxSlots, int bmcSteps, const char *envK) {
  ProofDepths d;
  // Induction depth: the learned lemmas pin the ghost state to the loop counters, so a short window
  // usually suffices; the base case (bounded model checking from the start) covers the same depth.
  d.k = 2 * maxSlots + 1;
  if (envK)
    d.k = std::max(1, atoi(envK));
  d.bound = bmcSteps > 0 ? std::max(bmcSteps, d.k) : d.k;
  // The unrolling also feeds the samples the lemmas are learned from: longer than the proof needs.
  d.unroll = std::max(d.bound, 4 * maxSlots + 4);
  return d;
}

void setQueryLimits(z3::params &p, const ProofOptions &options) {
  unsigned ms = queryMilliseconds(options.timeoutSeconds);
  p.set("timeout", ms);
  p.set("rlimit", static_cast<unsigned>(std::min<double>(4e9, ms * 20000.0)));
}

double QueryBudget::secondsLeft(Clock::time_point now) const {
  return options.budgetSeconds - std::chrono::duration<double>(now - runStart).count();
}

z3::check_result QueryBudget::check(z3::solver &s, double &seconds) {
  double left = secondsLeft();
  if (left <= 0) {
    budgetExhausted = true;
    return z3::unknown;
  }
  if (left < options.timeoutSeconds) {
    z3::params p(s.ctx());
    p.set("timeout", queryMilliseconds(left));
    s.set(p);
  }
  auto t0 = Clock::now();
  z3::check_result r = s.check();
  double d = std::chrono::duration<double>(Clock::now() - t0).count();
  if (getenv("TLXSIM_PROOF_DEBUG"))
    llvm::errs() << "z3 query: " << (r == z3::sat ? "sat" : r == z3::unsat ? "unsat" : "unknown") << " in " << d
                 << " s\n";
  seconds += d;
  total += d;
  return r;
}

std::string QueryBudget::spentText() const {
  return "the proof budget of " + secondsText(options.budgetSeconds) + " s (--proof-budget) was spent";
}

} // namespace tlxsim::verifier::proof
