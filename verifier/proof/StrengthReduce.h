// Strength reduction of loop-carried products for the prover (internal to verifier/proof/ and tools/ProofReport).
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace tlxsim::verifier::proof {

/// A clone of `module` in which every `arith.muli %r, %m` directly in the body of an `scf.for` whose iter_arg `%r`
/// is yielded as `%r + c` (c an integer constant) and whose other factor `%m` is defined outside the loop is a new
/// iter_arg `%g` instead (init `%r0 * %m` before the loop, yielded `%g + c * %m`): an exact identity (modulo 2^w as
/// the product itself), which hands the prover the carried form of a ring position that TLX's ping-pong GEMM
/// computes as `tile_rank * k_tiles` (a product of two symbols, otherwise abstracted by a fresh value in the
/// induction window). Null when the module has no such product (the prover then reads `module` itself).
/// Builds IR: call it where nothing else uses the MLIR context (the context is single-threaded), i.e. before the
/// prover's thread and the simulation start.
mlir::OwningOpRef<mlir::ModuleOp> strengthReduced(mlir::ModuleOp module);

} // namespace tlxsim::verifier::proof
