// Lowering of a TTGIR module (read by ir/) to the simulator's Program.
#pragma once

#include "sim/Program.h"

#include "llvm/Support/Error.h"

namespace mlir {
class ModuleOp;
}

namespace tlxsim::sim {

/// Lowers the public `tt.func` of `module`. Op semantics (which operand is the barrier,
/// what a TMA box costs in bytes, FLOPs of a wgmma) are decided here, once, from the op
/// table of ir/OpSyntax.h. Ops without semantics become Op::Unknown (reported when
/// executed). Fails on a module without a kernel or with a malformed kernel signature.
llvm::Expected<Program> lowerModule(mlir::ModuleOp module);

} // namespace tlxsim::sim
