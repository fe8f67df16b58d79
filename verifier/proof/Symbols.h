// Symbolic values of the encoding (internal to verifier/proof/): the Z3 context, the launch quantities (kernel
// arguments, program ids, grid sizes, the cluster rank) as free integers, fresh variables, and the linear
// abstraction of nonlinear terms.
#pragma once

#include "verifier/proof/ProofTypes.h"

#include <z3++.h>

#include <array>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace tlxsim::verifier::proof {

/// The names of the uninterpreted constants `root` reads (launch parameters, abstracted terms, fresh symbols).
std::set<std::string> symbolNames(const z3::expr &root);
/// The same over several roots (one walk: a subterm they share is visited once).
std::set<std::string> symbolNames(std::vector<z3::expr> roots);

/// The symbols of one kernel's encoding. Launch quantities are named as the user names them in `--assume` and
/// the counterexamples (a scalar argument's Python name, `num_programs_x`, `program_id_x`, `cluster_rank`).
class Symbols {
public:
  z3::context c;
  std::map<std::string, z3::expr> params; ///< launch quantities by name
  /// Constraints every query assumes (launch ranges, ghost variable ranges) and those of a small launch.
  std::vector<z3::expr> paramConstraints, smallConstraints;
  /// Nonlinear terms (product or quotient of two symbolic values, e.g. a tile count
  /// cdiv(M, BM) * cdiv(N, BN)) are abstracted by a fresh integer, one per term, so that every
  /// query stays in linear arithmetic; proofs stay sound (the abstraction over-approximates),
  /// counterexamples are concretized with the exact terms (`exact`).
  struct Abstracted {
    z3::expr var, exact;
    /// A peer CTA's version (forPeer) of abstracted[peerOf]: `nl!I@CTA`, its exact term with the rank and program
    /// ids substituted; -1 for the encoding's own terms.
    int peerOf = -1;
  };
  std::vector<Abstracted> abstracted;

  /// A fresh integer (or boolean) named `base!N`.
  z3::expr fresh(const std::string &base, bool isBool = false);
  /// The launch quantity `name` (created on first use).
  Val param(const std::string &name);
  /// The abstraction variable `nl!N` of `x op y` (one per distinct term); `exact` builds the exact term.
  z3::expr nonlinear(char op, const z3::expr &x, const z3::expr &y, const std::function<z3::expr()> &exact);
  /// `x op y` for op '*' (arith.muli), '/' (arith.divsi) or '%' (arith.remsi): exact where it stays linear, else
  /// the abstraction `nonlinear`. A product with a term of finitely many constant values (an `ite` / sum /
  /// constant multiple of constants, at most kFiniteChoiceTerms (Symbols.cpp) distinct subterms: a tile rank
  /// `ite(next tile, r + 2, r)` in the bounded check, where the step of a tile transition is symbolic) is
  /// distributed over that term: each constant times the other operand is linear, so the product stays exact
  /// instead of a fresh symbol per step.
  z3::expr arith(char op, const z3::expr &x, const z3::expr &y);
  /// arith.divsi semantics (truncation toward zero) on Z3's Euclidean division; division by zero is a fresh value.
  z3::expr divS(const z3::expr &a, const z3::expr &b);
  /// arith.remsi: a - b * divS(a, b).
  z3::expr remS(const z3::expr &a, const z3::expr &b);
  /// `x` as the CTA of rank `cta` of this CTA's cluster computes it: the rank substituted, and each program id
  /// shifted by the difference of the two CTAs' coordinates in the cluster of `dims` CTAs along x, y, z (the rank
  /// is x-major: %cluster_ctarank = x + dx * (y + dy * z), PTX ISA 10.13 %cluster_ctarank / %cluster_ctaid).
  /// An abstracted term whose exact term reads the rank, a program id or such a term (a tile's split index
  /// `tile_id // num_mn_tiles` with tile_id = pid) becomes the peer's own abstraction of its substituted term, one
  /// per term and CTA (the same symbol at every use).
  z3::expr forPeer(const z3::expr &x, int64_t cta, const std::array<int64_t, 3> &dims);
  /// Whether the launch quantity `name` differs between the CTAs of a cluster: the rank and the program ids, the
  /// quantities forPeer substitutes (every other launch quantity is the same in all CTAs of the launch).
  static bool perCtaParam(const std::string &name) {
    return name == "cluster_rank" || name.starts_with("program_id_");
  }
  /// The coordinate along `axis` (0 x, 1 y, 2 z) of the CTA of rank `rank` in a cluster of `dims`.
  static z3::expr clusterCoord(const z3::expr &rank, int axis, const std::array<int64_t, 3> &dims);

private:
  std::map<std::tuple<char, unsigned, unsigned>, size_t> abstractedIndex;
  /// forPeer: (own term index, CTA) -> index of its peer version in `abstracted`, or npos (the term reads no
  /// per-CTA symbol: the peer's is the same).
  std::map<std::pair<size_t, int64_t>, size_t> peerTerms;
  int freshCounter = 0;
};

} // namespace tlxsim::verifier::proof
