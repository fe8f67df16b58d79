// Learned lemmas of the k-induction (internal to verifier/proof/): the ghost state (phase balance B, first-wait
// flag D, visited flag `has`) of every (barrier slot, waiter) as a table over a key of loop features, learned from
// sampled bounded runs, refined by base-case counterexamples and dropped when refuted (Houdini).
#pragma once

#include <z3++.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tlxsim::verifier::proof {

/// A key candidate: a loop-carried integer of partition `part` (`var` -1: none, 0: the innermost loop's index,
/// 1..: the innermost loop's carried values (1-based), kTile: the tile loop's index, 100..: the tile loop's
/// carried values) taken modulo `mod`.
struct Cand {
  int part, var, mod;
  static constexpr int kTile = 99;
  /// The reference's tile index less its start, where tile loops are in ratio (Part::tileRatio): which replica's
  /// tile the lock-step tile is, whatever the program id the loops start from.
  static constexpr int kTileFromStart = 98;
  static bool isTile(int var) { return var == kTile || var == kTileFromStart; }
};

/// A table key: (residue of the candidate, first iteration of the K loop, visited flag, iterations left capped
/// at R, the anchor inside its tile loop, the CTA's rank in its cluster); features not in the table's mask are 0.
using TableKey = std::array<int64_t, 6>;
/// A table row's value: B, D, has (-1: the visited flag is part of the key), last (the parity of the latest
/// wait; -1: not part of the table).
using TableRow = std::array<int64_t, 4>;
/// The key features of the tables learned before per-tile waits were (residue, first, visited, iterations left).
constexpr int kLoopFeatures = 15;
/// Every key feature: those and the anchor inside its tile loop (bit 4).
constexpr int kAllFeatures = 31;
/// The CTA's rank in its cluster (bit 5), a key feature of cluster kernels only: the CTAs of a cluster run the
/// same code on barriers of their own, and which of them a remote arrive reaches or a predicated wait serves
/// depends on the rank (TLX blackwell_gemm_2cta: every CTA arrives on the leader's bar_cta, only the leader waits;
/// the other CTA's bar_cta stays in phase 0).
constexpr int kRankFeature = 32;

/// A learned table lemma on the ghost state of (barrier group, waiter) `key`, slot `slot`.
struct Table {
  std::pair<int, int> key;
  int slot;
  Cand cd;
  int mask; ///< features of TableKey in the key: bit 0 residue, 1 first, 2 has, 3 iterations left, 4 in tile,
            ///< 5 cluster rank
  std::map<TableKey, TableRow> rows;
  int refined = 0; ///< rows learned from base-case counterexamples
  /// The row values include `last`, the parity of the waiter's latest wait on the slot (per-tile waits: the
  /// waiter's previous wait may lie more steps back than the induction window reaches).
  bool last = false;
  /// `iterations left` (bit 3) counts iterations of a symbolic loop of constant step > 1 (Driver::remStepSymbolic),
  /// not index units: a second table beside the one in index units.
  bool remIter = false;
};

/// The value of `e` in `m` as an integer (booleans 0 / 1, model completion), INT64_MIN when it has none.
int64_t modelValue(const z3::model &m, const z3::expr &e);

/// The values of terms in one sample (model) of the lemma learning, each term evaluated once: the unrolled
/// states share most terms between slots, candidates and steps (a slot's ghost state that a step does not touch
/// is the same term after it), and each Z3_model_eval walks the term's whole DAG again. Keyed by Z3 AST id, so
/// only terms that outlive the memo may be looked up (Z3 recycles the id of a freed term): the states' own
/// terms, not temporaries. `memoize` false: every lookup evaluates (the plain path).
class SampleValues {
public:
  SampleValues(const z3::model &m, bool memoize) : sample(m), memoize(memoize) {}
  const z3::model &model() const { return sample; }
  /// modelValue(model, e), evaluated on the first lookup of `e` only.
  int64_t operator()(const z3::expr &e);
  /// Z3 evaluations done so far (for tests: repeated lookups do not evaluate again).
  size_t evaluations() const { return evals; }

private:
  const z3::model &sample;
  bool memoize;
  std::unordered_map<unsigned, int64_t> memo;
  size_t evals = 0;
};

/// The rows a table may learn from base-case counterexamples.
constexpr int kMaxRefinements = 16;

/// One sampled state of a (barrier slot, waiter): the full key and value (B, D, has).
struct Obs {
  TableKey key;
  TableRow val;
};

/// The key chosen for a table: the candidate's index, the feature mask and the rows it yields.
struct TableChoice {
  size_t cand = 0;
  int mask = 0;
  std::map<TableKey, TableRow> rows;
};

/// The smallest key that determines the value of every observation (`obsPerCand[i]`: the observations under
/// candidate `cands[i]`): the visited flag in the value before in the key, then the fewest features, then the
/// candidate order, then the lowest mask; a candidate without a variable has no residue feature and one with a
/// variable always has it. nullopt when no key is consistent (or no candidate has observations).
/// `visitedInKey`: 0 or 1 forces the visited flag into the value (0) or the key (1); -1 tries both in that order.
/// `features`: the key features allowed (a mask of TableKey positions); `required`: those the key must use.
std::optional<TableChoice> chooseTableKey(const std::vector<std::vector<Obs>> &obsPerCand,
                                          const std::vector<Cand> &cands, int visitedInKey = -1,
                                          int features = kLoopFeatures, int required = 0);

} // namespace tlxsim::verifier::proof
