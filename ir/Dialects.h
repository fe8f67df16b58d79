// The MLIR context tlx-sim reads TTGIR into: upstream dialects (arith, scf, cf, math, ub,
// gpu, llvm, rocdl) plus shim dialects for Triton's own (tt, ttg, ttng, amdg, nvws, tlx,
// proton, nvgpu). Shim dialects parse Triton's pretty syntax via the op table
// (OpSyntax.h) and keep ops as unregistered operations of their dialect.
#pragma once

#include "mlir/IR/MLIRContext.h"

#include <memory>

namespace tlxsim::ir {

/// Adds every dialect tlx-sim reads to `registry`.
void registerDialects(mlir::DialectRegistry &registry);

/// A context with all those dialects loaded, multithreading off (deterministic output),
/// and ops of unknown dialects accepted in generic form.
std::unique_ptr<mlir::MLIRContext> makeContext();

} // namespace tlxsim::ir
