// The short induction pass: k-induction at a small depth before the full check (Driver.h shortInductionFirst).
//
// The full check's depth is 2 x slots + 1 (Budget.cpp proofDepths): the bounded check must reach it before the
// induction runs, and its queries grow with the depth (TLX's hopper-persistent-gemm-ws-pingpong, a 6-slot ring:
// the depth-13 query alone exceeds the 30 M-unit query limit, the depths before it cost 131 M of the 200 M-unit
// budget, and every property read `timeout`). With the learned lemmas most properties are already inductive at a
// small depth: that kernel proves 22 of its 26 at k = 3 (about 90 M units). So the pass runs first:
//   1. the bounded check to kShortInduction (the same incremental check, lemmas refined or dropped as usual; its
//      queries have --timeout's limit each and no cap of their own: depths 0-3 cost little next to the full
//      check's). A violated property or an unknown ends the pass with nothing reported: the full check then runs
//      as it would without the pass, and searches the counterexample with the budget the pass did not take (a bug
//      that shows within 3 steps is never left to what an induction spent);
//   2. k-induction with Houdini at kShortInduction, each query within --timeout's units and all of them within
//      3/5 of the budget left when the pass starts (Houdini proves nothing before its fixpoint: the cap must leave
//      room for the last round; at 1/2 the ping-pong GEMM named_bar's pass stopped one round short).
// Its table rows count toward a table's refinement limit (Lemmas.h kMaxRefinements) like the full check's.
// What it proves is final: k-induction at depth k' needs the base case to k' (step 1) and the step at k'. The rest
// go to the full check, where the pass's proved properties are hypotheses (invariants of every reachable state),
// and every lemma the pass's Houdini dropped is a candidate again (not inductive at k' may be at the full k; the
// base case's drops and refinements stand: they come from reachable states).
#include "verifier/proof/Driver.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace tlxsim::verifier::proof {

void Driver::shortInductionFirst() {
  // Not when the depth is already small, when TLXSIM_PROOF_K fixes it, when the complete bounded check may apply
  // (runs of bounded length: its proof needs no induction), or without a window.
  if (k <= kShortInduction || getenv("TLXSIM_PROOF_K") || getenv("TLXSIM_PROOF_NO_SHORT") || endStep >= 0 ||
      !windowOk)
    return;
  const int fullK = k, fullN = N;
  k = N = kShortInduction;
  shortPassEnd = budget.totalUnits() + budget.unitsLeft() / 5 * 3;
  bool clean = runBmc(/*quick=*/true);
  if (clean)
    runInduction(/*quick=*/true);
  if (getenv("TLXSIM_PROOF_DEBUG"))
    llvm::errs() << "short pass at k " << k << ": " << (clean ? "base case clean, " : "base case violated or stopped, ")
                 << provedShort.size() << " of " << results.size() << " proved\n";
  k = fullK;
  N = fullN;
}

} // namespace tlxsim::verifier::proof
