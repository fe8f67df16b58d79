// Phase-bit lemmas of the k-induction (Driver.h learnParityLemmas). A partition that toggles a phase once per
// iteration (`phase ^= 1`, TLX's `clc_phase_consumer`) and counts the same iterations (`tile_count += 1`) keeps the
// parity of their difference. The learned tables key a slot's ghost state (its balance and the parity of the
// waiter's latest wait) on one loop-carried value, the counter; the wait reads the phase. Without a lemma tying
// the two, the induction window's arbitrary state pairs a tile count with either phase and the next wait's parity
// contradicts the table (TLX's CLC kernels: wait-parity and phase-balance of `clc_context` stayed `bounded`).
// mbarrier.try_wait.parity waits on a phase's parity (PTX ISA, mbarrier.test_wait / try_wait), so the phase bit is
// what the property reads. Like every learned lemma these are candidates: the bounded check from the launch and the
// induction step check them, and Houdini drops any that fails.
#include "verifier/proof/Driver.h"

#include "llvm/Support/raw_ostream.h"

#include <climits>
#include <cstdlib>
#include <set>
#include <tuple>

namespace tlxsim::verifier::proof {

namespace {
/// What the samples show of one loop-carried integer: whether it is known in every live state, its values 0 / 1
/// only (a phase bit), and whether it takes more than one value.
struct BitStats {
  bool known = true, bit = true, varies = false;
  int64_t first = INT64_MIN;
};
} // namespace

int Driver::learnParityLemmas(std::vector<SampleValues> &samples, int lemmaId) {
  if (samples.empty())
    return lemmaId;
  auto add = [&](int part, const std::function<z3::expr(const State &)> &bad, const std::string &what) {
    addLemma(lemmaId, -1, part, [&](const State &st) { return !*st.done && bad(st); });
    if (getenv("TLXSIM_PROOF_DEBUG"))
      llvm::errs() << "lemma " << lemmaId << ": partition " << part << " " << what << "\n";
    ++lemmaId;
  };
  for (size_t q = 0; q < parts.size(); ++q) {
    if (parts[q].depth == 0)
      continue;
    std::vector<Cand> vars;
    appendIntCarried(q, vars);
    // Each value per (sample, live state), and its statistics.
    std::vector<std::vector<int64_t>> vals(vars.size());
    std::vector<BitStats> stats(vars.size());
    for (size_t i = 0; i < vars.size(); ++i)
      for (SampleValues &m : samples)
        for (const State &st : states) {
          if (m(*st.done))
            break;
          std::optional<z3::expr> v = varExpr(st, vars[i]);
          int64_t x = v ? m(*v) : INT64_MIN;
          BitStats &b = stats[i];
          b.known = b.known && x != INT64_MIN;
          b.bit = b.bit && (x == 0 || x == 1);
          b.varies = b.varies || (b.first != INT64_MIN && x != b.first);
          if (b.first == INT64_MIN)
            b.first = x;
          vals[i].push_back(x);
        }
    // Each phase bit's parity partners: the other varying values of the partition whose difference to it has the
    // same parity in every sample state (two bits: one pair).
    std::vector<std::tuple<size_t, size_t, int64_t>> pairs;
    std::set<size_t> paired;
    for (size_t i = 0; i < vars.size(); ++i) {
      if (!stats[i].known || !stats[i].bit || !stats[i].varies)
        continue;
      for (size_t j = 0; j < vars.size(); ++j) {
        if (j == i || !stats[j].known || !stats[j].varies || (stats[j].bit && j < i))
          continue;
        std::optional<int64_t> parity;
        bool agree = true;
        for (size_t s = 0; s < vals[i].size() && agree; ++s) {
          int64_t d = (vals[i][s] & 1) ^ (vals[j][s] & 1); // the parity of the difference, without overflow
          agree = !parity || *parity == d;
          parity = d;
        }
        if (agree && parity) {
          pairs.emplace_back(i, j, *parity);
          paired.insert(i);
          if (stats[j].bit)
            paired.insert(j);
        }
      }
    }
    // A bit without a partner gets no lemma: alone, its range ties it to nothing the tables read, and every lemma
    // costs the induction's queries (TLX blackwell_gemm_clc bn128: ten unpaired bits, 243 M units instead of 150 M).
    for (size_t i : paired) {
      const Cand bit = vars[i];
      add(static_cast<int>(q), [this, bit](const State &st) {
        z3::expr v = *varExpr(st, bit);
        return v < 0 || v > 1;
      }, "var " + std::to_string(bit.var) + " in [0, 1]");
    }
    for (auto [i, j, d] : pairs) {
      const Cand bit = vars[i], other = vars[j];
      add(static_cast<int>(q), [this, bit, other, d = d](const State &st) {
        return z3::mod(*varExpr(st, bit) - *varExpr(st, other), 2) != c.int_val(d);
      }, "var " + std::to_string(bit.var) + " - var " + std::to_string(other.var) + " == " + std::to_string(d) +
             " mod 2");
    }
  }
  return lemmaId;
}

} // namespace tlxsim::verifier::proof
