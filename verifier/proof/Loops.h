// Counted loops (internal to verifier/proof/): the view of an `scf.for`, or of an `scf.while` that counts, that the
// lock-step encoding iterates (Transition.cpp): its bounds, its body block, its induction variable and the values it
// carries. A persistent kernel's tile loop is often `while tile_id < num_tiles: ...; tile_id += NUM_SMS`, which
// Triton lowers to an `scf.while`; its trip count is that of `for tile_id in range(start, num_tiles, NUM_SMS)`.
#pragma once

#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"

#include <optional>
#include <vector>

namespace tlxsim::verifier::proof {

/// A loop that runs its body for iv = lb, lb + step, ... while iv < ub (signed), carrying `inits` into the body's
/// `carried` arguments; its results are the carried values when it stops.
/// - `scf.for %iv = lb to ub step s iter_args(...)`: iv is the body's argument 0, `carried` its other arguments
///   (MLIR SCF dialect, scf.for semantics).
/// - `scf.while (%a_0 = x_0, ...)` whose before region is pure integer arithmetic ending in
///   `scf.condition(arith.cmpi slt, %a_j, ub) %a_i, ...` (arguments forwarded, each once) and whose after region
///   yields `%a_j + step` at position j, `ub` and `step` defined outside the loop: iv is the after block's argument
///   j (also in `carried`, which holds every after-block argument), lb = x_j. The results of an scf.while are the
///   values the last scf.condition forwards: the carried values, unchanged (MLIR SCF dialect, scf.while semantics).
/// - a CLC tile loop (`clc`): `scf.while` as above whose condition is `arith.cmpi ne, %a_j, stop` (`stop` defined
///   outside the loop, TLX's -1) and whose yielded `a_j` depends on a `ttng.clc_query_cancel` (the cancelled
///   CTA's id, or -1: PTX ISA clusterlaunchcontrol.query_cancel); iv is argument j, lb = x_j, `ub` = `stop`, no
///   step: the next tile is the yielded value, and the loop runs while iv != stop.
struct LoopView {
  mlir::Operation *op = nullptr;
  mlir::Value lb, ub, step;
  bool clc = false;       ///< a CLC tile loop: continues while iv != ub; the next iv is the yielded one
  unsigned ivIndex = 0;   ///< the position of iv among `carried` (scf.while) / yields
  mlir::Block *body = nullptr;
  mlir::Value iv;                     ///< a block argument of `body`
  std::vector<mlir::Value> inits;     ///< the carried values' initial values (operands of the loop)
  /// The body's arguments that receive them (same order); null for a value an scf.while's condition does not
  /// forward to its body (TLX's tile id in a partition that does not read it).
  std::vector<mlir::Value> carried;
  /// Per result of the loop, the carried value it is (scf.for: the same order; scf.while: the forwarded ones).
  std::vector<unsigned> results;
  bool ivCarried = false; ///< iv is one of the carried values (scf.while: position ivIndex), `iv` null if unused
  /// The body's yielded values (same order as `carried`).
  std::vector<mlir::Value> yields() const;
};

/// Whether `op` is a loop (scf.for or scf.while), counted or not.
bool isLoop(mlir::Operation *op);

/// The counted view of `op`; nullopt for an scf.while that is not counted as LoopView says, or an op that is no
/// loop. `why` (when given) receives the reason for an scf.while.
std::optional<LoopView> loopView(mlir::Operation *op, std::string *why = nullptr);

} // namespace tlxsim::verifier::proof
