// Learned lemmas of the k-induction (internal to verifier/proof/): the ghost state (phase balance B, first-wait
// flag D, visited flag `has`) of every (barrier slot, waiter) as a table over a key of loop features, learned from
// sampled bounded runs, refined by base-case counterexamples and dropped when refuted (Houdini).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace tlxsim::verifier::proof {

/// A key candidate: a loop-carried integer of partition `part` (`var` -1: none, 0: the innermost loop's index,
/// 1..: the innermost loop's carried values (1-based), 100..: the tile loop's) taken modulo `mod`.
struct Cand {
  int part, var, mod;
};

/// A table key: (residue of the candidate, first iteration of the K loop, visited flag, iterations left capped
/// at R); features not in the table's mask are 0.
using TableKey = std::array<int64_t, 4>;
/// A table row's value: B, D, has (-1: the visited flag is part of the key).
using TableRow = std::array<int64_t, 3>;

/// A learned table lemma on the ghost state of (barrier group, waiter) `key`, slot `slot`.
struct Table {
  std::pair<int, int> key;
  int slot;
  Cand cd;
  int mask; ///< features of TableKey in the key: bit 0 residue, 1 first, 2 has, 3 iterations left
  std::map<TableKey, TableRow> rows;
  int refined = 0; ///< rows learned from base-case counterexamples
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
std::optional<TableChoice> chooseTableKey(const std::vector<std::vector<Obs>> &obsPerCand,
                                          const std::vector<Cand> &cands);

} // namespace tlxsim::verifier::proof
