// Prover stage 4, the driver's budgets (verifier/proof/Budget.h): unrolling depths from --proof-steps and the
// slot count, the deterministic Z3 resource limits from --timeout and --proof-budget, their wall-clock safety nets.
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

TEST_CASE("proof budgets: nominal seconds convert to Z3 resource units; the wall-clock net lies far above") {
  CHECK(queryMilliseconds(10) == 10000u);
  CHECK(queryMilliseconds(0.0001) == 1u);
  CHECK(queryMilliseconds(0) == 1u);
  CHECK(queryMilliseconds(1e12) == 4294967295u);
  CHECK(secondsText(120) == "120");
  CHECK(secondsText(0.5) == "0.5");
  CHECK(secondsText(0.0001) == "0.0001");
  CHECK(rlimitUnits(30) == 30000000u);             // the default --timeout: 3e7 units
  CHECK(rlimitUnits(120) == 120000000u);           // --proof-budget 120 (the default until 2026-12-03; now 200)
  CHECK(rlimitUnits(0.0001) == 100u);
  CHECK(rlimitUnits(0) == 1u);                     // never 0: that would mean no limit to Z3
  CHECK(rlimitUnits(1e30) == (uint64_t(1) << 62));
  CHECK(queryRlimit(rlimitUnits(4294967.5)) == 4294967295u); // clamped to Z3's 32-bit parameter
  CHECK(queryRlimit(0) == 1u);
  CHECK(wallClockNet(10) == 110);
  CHECK(wallClockNet(0.0001) == doctest::Approx(10.001));
  z3::context c;
  z3::params p(c);
  ProofOptions o;
  o.timeoutSeconds = 2;
  setQueryLimits(p, o);
  std::ostringstream os;
  os << p;
  std::string text = os.str();
  CHECK(text.find("rlimit 2000000") != std::string::npos);
  CHECK(text.find("timeout 30000") != std::string::npos); // 10 x 2 s + 10 s
}

TEST_CASE("proof budgets: a spent budget answers unknown without running the query") {
  z3::context c;
  z3::solver s(c);
  s.add(c.int_const("x") > 0);
  ProofOptions o;
  o.budgetSeconds = 1e-9; // 1 resource unit: spent by the first query
  QueryBudget spent(o);
  spent.start();
  CHECK(spent.unitsLeft() == 1u);
  double seconds = 0;
  spent.check(s, seconds);
  CHECK(spent.exhausted());
  CHECK(spent.unitsLeft() == 0u);
  double before = seconds;
  CHECK(spent.check(s, seconds) == z3::unknown);
  CHECK(seconds == before); // not run
  CHECK(spent.stop() == "proof-budget");
  CHECK(spent.spentText() == "the proof budget of 1e-09 s (--proof-budget) was spent (1 Z3 resource units)");

  ProofOptions ample;
  QueryBudget budget(ample);
  budget.start();
  CHECK(budget.secondsLeft() > 2009);
  CHECK(budget.secondsLeft() <= 2010); // the wall-clock net: 10 x 200 s (the default) + 10 s
  CHECK(budget.check(s, seconds) == z3::sat);
  CHECK_FALSE(budget.exhausted());
  CHECK(budget.totalUnits() > 0);
  CHECK(budget.unitsLeft() == 200000000u - budget.totalUnits());
}

namespace {
/// A query Z3 needs many resource units for: an n-pigeon, (n - 1)-hole assignment as integers (unsat).
void addPigeons(z3::context &c, z3::solver &s, int n = 12) {
  std::vector<z3::expr> p;
  for (int i = 0; i < n; ++i) {
    p.push_back(c.int_const(("p" + std::to_string(i)).c_str()));
    s.add(p.back() >= 0 && p.back() < n - 1);
  }
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      s.add(p[i] != p[j]);
}

/// The pigeon query under `o`'s limits, in a fresh context: `inspect(answer, budget)` sees the budget after it.
template <class Inspect> void runPigeons(const ProofOptions &o, Inspect inspect) {
  z3::context c;
  z3::solver s(c);
  addPigeons(c, s);
  QueryBudget budget(o);
  budget.start();
  double seconds = 0;
  z3::check_result answer = budget.check(s, seconds);
  inspect(answer, budget);
}
} // namespace

TEST_CASE("proof budgets: the resource limit stops a query, deterministically, and says so") {
  ProofOptions o;
  o.timeoutSeconds = 0.0001; // 100 units
  runPigeons(o, [](z3::check_result answer, const QueryBudget &budget) {
    CHECK(answer == z3::unknown);
    CHECK(budget.stop() == "rlimit");
    CHECK_FALSE(budget.exhausted()); // the kernel's budget (120 s) is not spent
    CHECK(budget.stopText() ==
          "Z3 ran out of its resource limit of 0.0001 nominal s (--timeout: 100 Z3 resource units)");
  });
  // The same query in a fresh context spends the same units: the count does not depend on the machine or load.
  uint64_t units[2];
  for (uint64_t &u : units)
    runPigeons(o, [&u](z3::check_result, const QueryBudget &budget) { u = budget.totalUnits(); });
  CHECK(units[0] == units[1]);
  CHECK(units[0] >= 100u);
}

TEST_CASE("proof budgets: a query given the rest of the budget passes --timeout's limit, and stops at the budget") {
  ProofOptions o;
  o.timeoutSeconds = 0.0001; // 100 units
  o.budgetSeconds = 1;       // 1e6 units
  double seconds = 0;
  {
    z3::context c;
    z3::solver s(c);
    addPigeons(c, s, 6);
    QueryBudget budget(o);
    budget.start();
    CHECK(budget.check(s, seconds) == z3::unknown); // --timeout's 100 units are too few
    CHECK(budget.stop() == "rlimit");
    uint64_t first = budget.totalUnits();
    CHECK(budget.check(s, seconds, QueryBudget::kRestOfBudget) == z3::unsat);
    CHECK(budget.totalUnits() - first > 100u); // it spent more than one query's limit
    CHECK_FALSE(budget.exhausted());
  }
  // The rest of a budget too small for the query: the budget is what stopped it.
  o.budgetSeconds = 0.0002; // 200 units
  z3::context c;
  z3::solver s(c);
  addPigeons(c, s);
  QueryBudget budget(o);
  budget.start();
  CHECK(budget.check(s, seconds, QueryBudget::kRestOfBudget) == z3::unknown);
  CHECK(budget.stop() == "proof-budget");
  CHECK(budget.exhausted());
  CHECK(budget.stopText() == "the proof budget of 0.0002 s (--proof-budget) was spent (200 Z3 resource units)");
}
