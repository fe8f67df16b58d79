// The induction phase of the prover (Driver.h): k-induction with Houdini over the properties the bounded check left
// open, its verdicts, and the complete bounded check's proofs.
#include "verifier/proof/Driver.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <optional>

namespace tlxsim::verifier::proof {

// k-induction from an arbitrary state over the clean properties and the lemmas together (after runBmc);
//    whatever the step violates is removed from the set and the rest tried again (Houdini):
//    the remaining set is k-inductive and its base case was checked by runBmc.
//    `quick` (the short pass, ShortInduction.cpp): only `proved` verdicts are written, each query is limited to
//    --timeout's units and to `shortPassEnd`, and the learned lemmas Houdini drops are restored afterwards.
void Driver::runInduction(bool quick) {
  // A structural lemma (loop alignment, ...) that failed in the base case means the lock-step runs may not be the
  // kernel's: the complete check then proves nothing, and the induction runs without the lemma as before.
  if (!quick && endStep >= 0 && endStep <= N && bmcReachedBound && structuralFailed < 0) {
    proveByCompleteBmc();
    return;
  }
  std::map<std::pair<int, int>, size_t> resultOf;
  size_t idx = 0;
  for (auto kg : props)
    resultOf[kg] = idx++;
  std::set<size_t> active;
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i].verdict.empty())
      active.insert(i);
  const std::set<int> droppedBefore = dropped;
  bool structOk = lemmasHold;
  std::string why = "not " + std::to_string(k) + "-inductive";
  double indSecs = 0;
  std::set<size_t> open = active;
  bool unknownSeen = false;
  while (!active.empty() && windowOk) {
    // Hypotheses: the active properties, the lemmas and the properties the short pass proved (invariants of
    // every reachable state, so of every window of the induction's argument); goals: the active properties and
    // the lemmas.
    auto sel = [&](const Violation &v) {
      if (v.kind < LemmaAlign)
        return active.count(resultOf.at({v.kind, v.group})) > 0;
      if (!lemmasHold)
        return false;
      return v.kind == LemmaTable || structOk;
    };
    auto hypSel = [&](const Violation &v) {
      return sel(v) || (v.kind < LemmaAlign && provedShort.count(resultOf.at({v.kind, v.group})) > 0);
    };
    // The goals at step k + 1: all at once, or (TLXSIM_PROOF_SPLIT=1, an experiment) one query per barrier group,
    // every query with all hypotheses: the same logical content (unsat iff every part is).
    // TLXSIM_PROOF_SPLIT=2: each query's hypotheses are its group's and the loop lemmas' (group -1) only (cone of
    // influence: a group's ghost state depends on the loop state and its own events).
    std::vector<std::pair<Selector, Selector>> goals;
    const char *split = getenv("TLXSIM_PROOF_SPLIT");
    if (split) {
      bool cone = std::string(split) == "2";
      std::set<int> gs;
      for (const Violation &v : wviol[k + 1])
        if (sel(v))
          gs.insert(v.group);
      for (int g : gs)
        goals.push_back({[&, g](const Violation &v) { return v.group == g && sel(v); },
                         [&, g, cone](const Violation &v) {
                           return hypSel(v) && (!cone || v.group == g || v.group == -1);
                         }});
    } else
      goals.push_back({sel, hypSel});
    z3::check_result r = z3::unsat;
    std::optional<z3::model> found;
    for (const auto &[goal, hyp] : goals) {
      z3::solver s = inductionSolver();
      // Every violation at step k + 1 needs the kernel running at step k (events, the end check and the lemmas
      // are guarded by it), and `done` only turns true: the window's first state is running too. Asserted, the
      // value propagates (the lemmas `!done -> x == y` become equalities the tactic solves).
      s.add(!*wstates[0].done);
      for (int i = 0; i <= k; ++i)
        s.add(!anyViol(i, i + 1, hyp, wviol));
      s.add(anyViol(k + 1, k + 2, goal, wviol));
      // The induction step is the kernel's last phase: its queries may spend the budget left, which no later
      // query could use (hopper_gemm_ws bn128_s4's last round needs 44 M units, above --timeout's 30 M).
      uint64_t units = QueryBudget::kRestOfBudget;
      if (quick) {
        uint64_t spent = budget.totalUnits();
        units = std::min(rlimitUnits(options.timeoutSeconds), spent < shortPassEnd ? shortPassEnd - spent : 0);
        if (units == 0) {
          r = z3::unknown;
          break;
        }
      }
      r = check(s, indSecs, units);
      if (r == z3::sat)
        found = s.get_model();
      if (r != z3::unsat)
        break;
    }
    if (r == z3::unsat)
      break;
    if (r == z3::unknown) {
      unknownSeen = true;
      break;
    }
    z3::model m = *found;
    bool removed = false; // a property, lemma or the structural lemmas left the set
    for (const Violation &v : wviol[k + 1]) {
      if (!sel(v) || (v.kind == LemmaTable && dropped.count(v.lemma)) || !m.eval(v.cond, true).is_true())
        continue;
      if (getenv("TLXSIM_PROOF_DEBUG")) {
        llvm::errs() << "induction step violates " << kindName(v.kind) << " "
                     << (v.group >= 0 ? groups[v.group].name : "") << " lemma " << v.lemma << "\n";
        if (getenv("TLXSIM_PROOF_DEBUG_WINDOW") && v.group >= 0)
          printWindow(m, v.group);
      }
      if (v.kind < LemmaAlign)
        removed |= active.erase(resultOf.at({v.kind, v.group})) > 0;
      else if (v.kind == LemmaTable)
        removed |= dropped.insert(v.lemma).second;
      else {
        removed |= structOk;
        structOk = false;
      }
    }
    if (!removed) { // nothing removed (the sum of the sets' sizes can stay equal: one out, one dropped): stay sound
      unknownSeen = true;
      break;
    }
  }
  recordInduction(open, active, unknownSeen, indSecs, why, quick);
  if (quick)
    dropped = droppedBefore; // not k-inductive at this k may still be at the full k
}

void Driver::recordInduction(const std::set<size_t> &open, const std::set<size_t> &active, bool unknownSeen,
                             double indSecs, const std::string &why, bool quick) {
  for (size_t i : open) {
    ProofResult &r = results[i];
    r.seconds += indSecs / open.size();
    if (windowOk && !unknownSeen && active.count(i)) {
      r.verdict = "proved";
      r.witness = std::to_string(k) + "-induction over lock-step loop iterations (base case: " +
                  std::to_string(N) + " steps)";
      if (quick)
        provedShort.insert(i);
    } else if (quick) {
      continue; // left to the full check
    } else if (windowOk && unknownSeen && active.count(i)) {
      r.verdict = "timeout";
      r.bound = N;
      r.limit = budget.stop();
      r.witness = "no violation within " + std::to_string(N) + " lock-step steps; the induction step stopped: " +
                  budget.stopText();
    } else {
      r.verdict = "bounded";
      r.bound = N;
      r.witness = "no violation within " + std::to_string(N) + " lock-step steps; " +
                  (peerWindowWhy.empty() ? why
                                         : "no induction: the peers' loop state may differ (" + peerWindowWhy + ")");
      auto kg = std::next(props.begin(), static_cast<long>(i));
      r.witness += boundedReason(kg->first, kg->second);
    }
  }
}

void Driver::proveByCompleteBmc() {
  for (ProofResult &r : results)
    if (r.verdict.empty()) {
      r.verdict = "proved";
      r.witness = "every run ends within " + std::to_string(endStep) +
                  " lock-step steps (constant loop bounds) and none violates it: bounded model checking to " +
                  std::to_string(N) + " steps is complete";
    }
}

} // namespace tlxsim::verifier::proof
