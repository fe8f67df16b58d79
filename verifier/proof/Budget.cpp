// The driver's budgets: unrolling depths and the resource limits of the Z3 queries (Budget.h).
#include "verifier/proof/Budget.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
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
  p.set("rlimit", queryRlimit(rlimitUnits(options.timeoutSeconds)));
  p.set("timeout", queryMilliseconds(wallClockNet(options.timeoutSeconds)));
}

double wallClockNet(double seconds) { return kWallClockFactor * seconds + kWallClockSlack; }

uint64_t rlimitUnits(double seconds) {
  return static_cast<uint64_t>(std::clamp(seconds * kRlimitPerSecond, 1.0, 4611686018427387904.0));
}

unsigned queryRlimit(uint64_t units) {
  return static_cast<unsigned>(std::clamp<uint64_t>(units, 1, 4294967295u));
}

uint64_t rlimitCount(z3::solver &s) {
  z3::stats st = s.statistics();
  for (unsigned i = 0; i < st.size(); ++i)
    if (st.key(i) == "rlimit count")
      return st.is_uint(i) ? st.uint_value(i) : static_cast<uint64_t>(st.double_value(i));
  return 0;
}

double QueryBudget::secondsLeft(Clock::time_point now) const {
  return wallClockNet(options.budgetSeconds) - std::chrono::duration<double>(now - runStart).count();
}

uint64_t QueryBudget::unitsLeft() const {
  uint64_t budget = rlimitUnits(options.budgetSeconds);
  return used >= budget ? 0 : budget - used;
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

z3::check_result QueryBudget::check(z3::solver &s, double &seconds, uint64_t queryUnits) {
  double wallLeft = secondsLeft();
  if (unitsLeft() == 0 || wallLeft <= 0) {
    budgetExhausted = true;
    lastStop = unitsLeft() == 0 ? "proof-budget" : "wall-clock-budget";
    return z3::unknown;
  }
  bool rest = queryUnits == kRestOfBudget;
  uint64_t perQuery = queryUnits ? queryUnits : rlimitUnits(options.timeoutSeconds);
  bool budgetCapped = rest || unitsLeft() < perQuery;
  double wallQuery = rest ? wallLeft : wallClockNet(options.timeoutSeconds);
  bool wallCapped = rest || wallLeft < wallQuery;
  unsigned given = queryRlimit(std::min(perQuery, unitsLeft()));
  {
    z3::params p(s.ctx());
    p.set("rlimit", given);
    p.set("timeout", queryMilliseconds(std::min(wallQuery, wallLeft)));
    s.set(p);
  }
  dumpQuery(s);
  uint64_t before = rlimitCount(s);
  auto t0 = Clock::now();
  timespec cpu0{}, cpu1{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
  z3::check_result r = s.check();
  double d = std::chrono::duration<double>(Clock::now() - t0).count();
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
  uint64_t after = rlimitCount(s);
  uint64_t spent = after > before ? after - before : 0;
  used += spent;
  if (r == z3::unknown) {
    std::string reason = s.reason_unknown();
    // A tactic solver (the induction step's, Driver::inductionSolver) stopped by its rlimit answers "canceled",
    // as a wall-clock timeout does: the units it spent tell them apart.
    if (reason.find("resource") != std::string::npos || spent >= given) {
      lastStop = budgetCapped ? "proof-budget" : "rlimit";
      budgetExhausted |= budgetCapped;
    } else if (reason.find("timeout") != std::string::npos || reason.find("canceled") != std::string::npos) {
      lastStop = wallCapped ? "wall-clock-budget" : "wall-clock";
      budgetExhausted |= wallCapped;
    } else
      lastStop = "z3: " + reason;
  }
  if (unitsLeft() == 0)
    budgetExhausted = true;
  if (getenv("TLXSIM_PROOF_DEBUG"))
    llvm::errs() << "z3 query: " << (r == z3::sat ? "sat" : r == z3::unsat ? "unsat" : "unknown") << " in " << d
                 << " s (cpu " << (cpu1.tv_sec - cpu0.tv_sec) + 1e-9 * (cpu1.tv_nsec - cpu0.tv_nsec)
                 << " s), rlimit " << spent << (r == z3::unknown ? " (" + lastStop + ")" : std::string()) << "\n";
  seconds += d;
  total += d;
  return r;
}

std::string QueryBudget::stopText() const {
  if (lastStop == "proof-budget" || lastStop == "wall-clock-budget")
    return spentText();
  if (lastStop == "rlimit")
    return "Z3 ran out of its resource limit of " + secondsText(options.timeoutSeconds) + " nominal s (--timeout: " +
           std::to_string(queryRlimit(rlimitUnits(options.timeoutSeconds))) + " Z3 resource units)";
  if (lastStop == "wall-clock")
    return "the query hit the wall-clock safety net of " + secondsText(wallClockNet(options.timeoutSeconds)) +
           " s (" + secondsText(kWallClockFactor) + " x --timeout + " + secondsText(kWallClockSlack) +
           " s) before its resource limit";
  return "Z3 answered unknown (" + lastStop + ")";
}

std::string QueryBudget::spentText() const {
  if (lastStop == "wall-clock-budget")
    return "the wall-clock safety net of the proof budget, " + secondsText(wallClockNet(options.budgetSeconds)) +
           " s (" + secondsText(kWallClockFactor) + " x --proof-budget + " + secondsText(kWallClockSlack) +
           " s), was spent";
  return "the proof budget of " + secondsText(options.budgetSeconds) + " s (--proof-budget) was spent (" +
         std::to_string(rlimitUnits(options.budgetSeconds)) + " Z3 resource units)";
}

} // namespace tlxsim::verifier::proof
