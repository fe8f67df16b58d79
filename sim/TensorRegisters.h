// Registers per thread that a module's distributed tensors occupy: one tensor's share of a thread, and the peak
// over the program of the tensors live at once (SSA liveness over the nested regions). The inputs of the register
// estimate without a binary (sim/RegisterPolicy.h).
#pragma once

#include <cstdint>

namespace mlir {
class ModuleOp;
class Operation;
class Type;
} // namespace mlir

namespace tlxsim::sim {

/// Threads that run `op`: those of its `ttg.warp_specialize` partition (partitionNumWarps), else `baseWarps`, times
/// `threadsPerWarp`.
int64_t threadsRunning(mlir::Operation *op, int32_t baseWarps, int32_t threadsPerWarp);

/// 32-bit registers per thread of one CTA's part of a tensor of `type` over `threads` threads: elements x element
/// bits (at least 8) / 32, rounded up (packed 16- and 8-bit elements; a CGA layout's split over the cluster taken
/// out, ir/Cga.h). 0 for a non-tensor or a tensor of pointers.
int64_t tensorRegisters(mlir::Type type, int64_t threads);

/// The most registers per thread that the tensors live at one point of `module` hold together: each tensor value
/// (op result or block argument) is live from its definition to its last use, a use inside a nested region (a loop
/// body) keeping it live to the end of that region's op. Tensors that are splats, constants, broadcasts, dims
/// expansions or ranges count one register (the compiler keeps the scalar and recomputes the rest).
int64_t peakLiveTensorRegisters(mlir::ModuleOp module, int32_t baseWarps, int32_t threadsPerWarp);

} // namespace tlxsim::sim
