// The driver's budgets: unrolling depths and wall-time limits of the Z3 queries (Budget.h).
#include "verifier/proof/Budget.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

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

namespace {
/// TLXSIM_PROOF_DUMP=DIR: writes the assertions of `s` as SMT-LIB 2 to DIR/NNNN.smt2 (NNNN counts the queries of
/// the process from 0), headed by a comment with the assertions' Z3 AST ids. The let-names carry AST ids too: Z3
/// orders terms by id, so two builds answer alike only when their dumps are identical, ids included (the
/// regression check of the prover split against the single-file prover).
void dumpQuery(z3::solver &s) {
  const char *dumpDir = getenv("TLXSIM_PROOF_DUMP");
  if (!dumpDir)
    return;
  static int dumpCount = 0;
  char name[32];
  snprintf(name, sizeof name, "/%04d.smt2", dumpCount++);
  std::ofstream out(std::string(dumpDir) + name);
  z3::expr_vector as = s.assertions();
  out << "; assertion ids:";
  for (unsigned i = 0; i < as.size(); ++i)
    out << ' ' << Z3_get_ast_id(s.ctx(), as[i]);
  out << "\n" << s.to_smt2();
}
} // namespace

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
  dumpQuery(s);
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
