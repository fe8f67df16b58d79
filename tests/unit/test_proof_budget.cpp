// Prover stage 4, the driver's budgets (verifier/proof/Budget.h): unrolling depths from --proof-steps and the
// slot count, Z3 timeouts from --timeout, and the kernel's --proof-budget.
#include "verifier/proof/Budget.h"

#include <doctest/doctest.h>

#include <sstream>

using namespace tlxsim::verifier::proof;

TEST_CASE("proof depths: k = 2 S + 1, the bound at least k, the unrolling at least 4 S + 4") {
  ProofDepths d = proofDepths(2, 0, nullptr);
  CHECK(d.k == 5);
  CHECK(d.bound == 5);
  CHECK(d.unroll == 12);
  d = proofDepths(3, 20, nullptr); // --proof-steps 20 > k = 7
  CHECK(d.k == 7);
  CHECK(d.bound == 20);
  CHECK(d.unroll == 20);
  d = proofDepths(3, 4, nullptr); // --proof-steps below k: the base case still covers the induction depth
  CHECK(d.bound == 7);
  CHECK(d.unroll == 16);
  d = proofDepths(1, 0, "2"); // TLXSIM_PROOF_K
  CHECK(d.k == 2);
  CHECK(d.bound == 2);
  CHECK(d.unroll == 8);
  CHECK(proofDepths(1, 0, "-3").k == 1);
}

TEST_CASE("proof budgets: query milliseconds are clamped to [1, UINT_MAX]; seconds print as written") {
  CHECK(queryMilliseconds(10) == 10000u);
  CHECK(queryMilliseconds(0.0001) == 1u);
  CHECK(queryMilliseconds(0) == 1u);
  CHECK(queryMilliseconds(1e12) == 4294967295u);
  CHECK(secondsText(120) == "120");
  CHECK(secondsText(0.5) == "0.5");
  CHECK(secondsText(0.0001) == "0.0001");
  z3::context c;
  z3::params p(c);
  ProofOptions o;
  o.timeoutSeconds = 2;
  setQueryLimits(p, o);
  std::ostringstream os;
  os << p;
  std::string text = os.str();
  CHECK(text.find("timeout 2000") != std::string::npos);
  CHECK(text.find("rlimit 40000000") != std::string::npos);
}

TEST_CASE("proof budgets: a spent budget answers unknown without running the query") {
  z3::context c;
  z3::solver s(c);
  s.add(c.int_const("x") > 0);
  ProofOptions o;
  o.budgetSeconds = 1e-9;
  QueryBudget spent(o);
  spent.start();
  CHECK(spent.secondsLeft() < 0);
  double seconds = 0;
  CHECK(spent.check(s, seconds) == z3::unknown);
  CHECK(spent.exhausted());
  CHECK(seconds == 0);
  CHECK(spent.totalSeconds() == 0);
  CHECK(spent.spentText() == "the proof budget of 1e-09 s (--proof-budget) was spent");

  ProofOptions ample;
  QueryBudget budget(ample);
  budget.start();
  CHECK(budget.secondsLeft() > 119);
  CHECK(budget.secondsLeft() <= 120);
  CHECK(budget.check(s, seconds) == z3::sat);
  CHECK_FALSE(budget.exhausted());
  CHECK(budget.totalSeconds() == seconds);
}
