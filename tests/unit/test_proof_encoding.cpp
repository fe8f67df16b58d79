// Prover stage 2, the transition encoding (verifier/proof/Encoder.h): symbolic arith semantics, what the dry run
// learns of a tiny kernel's barriers, and one arrive / wait on the ghost state checked by Z3 queries.
#include "ProofTestModule.h"

#include "verifier/proof/Encoder.h"

#include <doctest/doctest.h>

using namespace tlxsim;
using namespace tlxsim::verifier::proof;

namespace {

/// Whether `cond` can hold.
bool satisfiable(z3::context &c, const z3::expr &cond) {
  z3::solver s(c);
  s.add(cond);
  return s.check() == z3::sat;
}

int64_t value(const z3::expr &e) { return e.simplify().get_numeral_int64(); }

/// The encoder of the tiny kernel after the dry run (which learns the barriers' waiters and arrivers).
struct Encoded {
  prooftest::Kernel k;
  Encoder enc{extractProtocol(*k.module)};
  Encoded() {
    enc.collecting = true;
    std::vector<Violation> none;
    State s0 = enc.initial(none);
    enc.shape = s0;
    enc.step(s0, none);
    enc.collecting = false;
  }
};

} // namespace

TEST_CASE("proof encoding: arith.divsi / remsi truncate toward zero; nonlinear terms are abstracted once") {
  Symbols s;
  z3::expr m7 = s.c.int_val(-7), two = s.c.int_val(2);
  CHECK(value(s.divS(m7, two)) == -3);
  CHECK(value(s.remS(m7, two)) == -1);
  CHECK(value(s.divS(s.c.int_val(7), s.c.int_val(-2))) == -3);
  CHECK(value(s.remS(s.c.int_val(7), s.c.int_val(-2))) == 1);
  z3::expr M = *s.param("M").e, N = *s.param("N").e;
  CHECK(s.params.size() == 2);
  z3::expr a = s.nonlinear('*', M, N, [&] { return M * N; });
  z3::expr b = s.nonlinear('*', M, N, [&] { return M * N; });
  CHECK(z3::eq(a, b));
  CHECK(s.abstracted.size() == 1);
  CHECK(a.to_string() == "nl!0");
  Symbols t;
  CHECK(t.fresh("x").to_string() == "x!0");
  CHECK(t.fresh("x").to_string() == "x!1");
  CHECK(t.fresh("p", true).is_bool());
}

TEST_CASE("proof encoding: arith keeps products exact over terms of finitely many constants") {
  Symbols s;
  z3::expr N = *s.param("N").e, pid = *s.param("program_id_x").e, K = *s.param("K").e;
  z3::expr next = s.c.bool_const("next"), last = s.c.bool_const("last");
  // A tile rank in the bounded check: ite(next, r + 2, r) over ite(last, 2, 0): the product with N is distributed.
  z3::expr r = z3::ite(last, s.c.int_val(2), s.c.int_val(0));
  z3::expr rank = z3::ite(next, r + 2, r);
  z3::expr p = s.arith('*', rank, N);
  CHECK(s.abstracted.empty());
  z3::solver slv(s.c);
  slv.add(N == 5 && next && last && p != 20); // (2 + 2) * 5
  CHECK(slv.check() == z3::unsat);
  slv.reset();
  slv.add(N == 3 && !next && !last && p != 0);
  CHECK(slv.check() == z3::unsat);
  CHECK(value(s.arith('*', N, s.c.int_val(4) - 4)) == 0); // a difference of constants: distributed, exact
  CHECK(s.abstracted.empty());
  // A constant multiple with the constant second (as `muli %r, %c4` builds it) and a negation: distributed too.
  z3::expr q = s.arith('*', -(z3::ite(next, s.c.int_val(3), s.c.int_val(1)) * 4), N);
  CHECK(s.abstracted.empty());
  slv.reset();
  slv.add(N == 2 && next && q != -24);
  CHECK(slv.check() == z3::unsat);
  CHECK(value(s.arith('/', s.c.int_val(-7), s.c.int_val(2))) == -3);
  // Two symbolic factors stay abstracted, as does a product with a term over a symbol.
  s.arith('*', z3::ite(next, pid, s.c.int_val(1)), N);
  CHECK(s.abstracted.size() == 1);
  s.arith('/', pid, K);
  CHECK(s.abstracted.size() == 2);
}

TEST_CASE("proof encoding: a peer CTA's program ids shift by its x-major coordinates in the cluster box") {
  Symbols s;
  std::array<int64_t, 3> dims{4, 2, 1};
  z3::expr rank = *s.param("cluster_rank").e, px = *s.param("program_id_x").e, py = *s.param("program_id_y").e;
  CHECK(value(Symbols::clusterCoord(s.c.int_val(5), 0, dims)) == 1);
  CHECK(value(Symbols::clusterCoord(s.c.int_val(5), 1, dims)) == 1);
  CHECK(value(Symbols::clusterCoord(s.c.int_val(6), 0, dims)) == 2);
  // This CTA: rank 5 at program id (9, 3); its peer of rank 2 (x 2, y 0) is at (10, 2).
  z3::expr at = rank == 5 && px == 9 && py == 3;
  CHECK_FALSE(satisfiable(s.c, at && s.forPeer(px, 2, dims) != 10));
  CHECK_FALSE(satisfiable(s.c, at && s.forPeer(py, 2, dims) != 2));
  CHECK_FALSE(satisfiable(s.c, at && s.forPeer(rank * 3, 2, dims) != 6));
}

TEST_CASE("proof encoding: the dry run learns init counts, waiters and arrivers; a step waits on slot k % 3") {
  Encoded e;
  const Group &bars = e.enc.groups[0];
  CHECK(bars.count == std::vector<int64_t>{2, 1, 1}); // ttng.init_barrier %b0, 2
  CHECK(bars.waiters == std::set<int>{0});
  CHECK(bars.arrivers == std::set<int>{0});
  CHECK(bars.users == std::set<int>{0});
  CHECK_FALSE(bars.asyncSignals); // plain arrivals only
  // One step from the initial state: the wait's slot is the iteration index mod 3, so a second wait at parity 0
  // on slot 0 (k = 3) is a wait-parity violation the unrolled steps expose.
  std::vector<std::vector<Violation>> viol(1);
  std::vector<State> states = {e.enc.initial(viol[0])};
  for (int i = 0; i < 4; ++i) {
    viol.emplace_back();
    states.push_back(e.enc.step(states.back(), viol.back()));
  }
  z3::expr_vector parity(e.enc.c);
  for (size_t st = 1; st < viol.size(); ++st)
    for (const Violation &v : viol[st])
      if (v.kind == WaitParity)
        parity.push_back(v.cond);
  REQUIRE(parity.size() > 0);
  z3::expr n = e.enc.params.at("n");
  CHECK(satisfiable(e.enc.c, z3::mk_or(parity) && n == 4));
  CHECK_FALSE(satisfiable(e.enc.c, z3::mk_or(parity) && n <= 3));
}

TEST_CASE("proof encoding: one arrive and one wait on a ghost slot balance; a repeated parity is a violation") {
  Encoded e;
  z3::context &c = e.enc.c;
  mlir::Operation *arrive = e.k.find("ttng.arrive_barrier"), *wait = e.k.find("ttng.wait_barrier");
  REQUIRE(arrive);
  REQUIRE(wait);
  Ghost g = e.enc.initGhost();
  auto key = std::make_pair(0, 0); // (bars, default partition)
  REQUIRE(g.B.count(key));
  z3::expr T = c.bool_val(true);
  // Slot 1 (count 1): one arrival completes the phase, the wait for parity 0 consumes it.
  std::vector<Event> events = {{Event::Arrive, 0, c.int_val(1), T, c.int_val(0), 1, arrive, 0},
                               {Event::Wait, 0, c.int_val(1), T, c.int_val(0), 0, wait, 0}};
  std::vector<Violation> viol;
  e.enc.apply(g, events, viol);
  CHECK(value(g.B.at(key)[1]) == 0);
  CHECK(g.has.at(key)[1].simplify().is_true());
  CHECK(value(g.last.at(key)[1]) == 0);
  CHECK(g.has.at(key)[0].simplify().is_false()); // other slots untouched
  for (const Violation &v : viol)
    CHECK_FALSE(satisfiable(c, v.cond)); // slot range, parity: all hold
  // A second wait on slot 1 for the same parity 0: wait-parity fails; parity 1 would be the next phase.
  Ghost g2 = g;
  std::vector<Violation> again;
  e.enc.apply(g2, {{Event::Wait, 0, c.int_val(1), T, c.int_val(0), 0, wait, 0}}, again);
  bool parityViolated = false;
  for (const Violation &v : again)
    if (v.kind == WaitParity)
      parityViolated |= satisfiable(c, v.cond);
  CHECK(parityViolated);
  std::vector<Violation> next;
  e.enc.apply(g, {{Event::Wait, 0, c.int_val(1), T, c.int_val(1), 0, wait, 0}}, next);
  for (const Violation &v : next)
    if (v.kind == WaitParity)
      CHECK_FALSE(satisfiable(c, v.cond));
  CHECK(value(g.B.at(key)[1]) == -1); // the second phase was consumed without its arrival
  // A wait on a symbolic slot x: slot-range fails exactly outside [0, 3).
  z3::expr x = c.int_const("x");
  Ghost g3 = e.enc.initGhost();
  std::vector<Violation> range;
  e.enc.apply(g3, {{Event::Wait, 0, x, T, c.int_val(0), 0, wait, 0}}, range);
  z3::expr_vector bad(c);
  for (const Violation &v : range)
    if (v.kind == SlotRange)
      bad.push_back(v.cond);
  REQUIRE(bad.size() == 1);
  CHECK(satisfiable(c, bad[0] && x == 3));
  CHECK_FALSE(satisfiable(c, bad[0] && x >= 0 && x < 3));
  // The kernel's end: slot 1 balanced after arrive + wait, no phase-balance violation there.
  std::vector<Violation> end;
  e.enc.checkEnd(g, T, end);
  CHECK(end.size() == 3 + 3); // phase-balance per slot of (bars, default), tx-balance per slot of bars
}
