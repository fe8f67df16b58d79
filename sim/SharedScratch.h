// Scratch shared memory an op needs while it runs (Triton's scratch buffers: `defaultAllocationAnalysisScratchSizeFn`
// in lib/Analysis/Allocation.cpp and the NVIDIA backend's `getNvidiaAllocationAnalysisScratchSizeFn`, Triton 3.6.0).
#pragma once

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace mlir {
class Operation;
class Type;
} // namespace mlir

namespace tlxsim::sim {

/// The scratch buffer of one op.
struct ScratchSize {
  int64_t bytes = 0;       ///< 0: none
  int64_t alignment = 128; ///< Allocation.cpp's scratchAlignment (warp_specialize captures: 8; function: 4)
  std::string estimate;    ///< non-empty when `bytes` is an estimate rather than Triton's rule: why
};

/// Scratch of `op` inside kernel function `func` (`op == func`: the function's own scratch, one byte per warp of
/// the widest warp_specialize's partitions once padded to whole warp groups, live for the whole function):
/// - `ttg.warp_specialize`: its captures packed like a struct (integers and floats by their bytes, pointers and
///   tensor descriptors 8, shared-memory descriptors 8 + 4 x rank, others 8), aligned 8 (WarpSpecializeOp
///   getCaptureSize / getCaptureAlign);
/// - `tt.reduce` whose reduced axis spans several warps: the operand shape with that axis cut to the warps along
///   it, times the bytes of all operand element types (ReduceOpHelper::getScratchSizeInBytes);
/// - `ttg.convert_layout` that moves data between warps: Triton's swizzled scratch, the tensor's elements divided by
///   the repetitions of its optimal swizzling, times the element bytes (sim/CvtSwizzle.h; NVIDIA with ldmatrix /
///   stmatrix tiles, AMD with ld/st); an estimate of all the elements where a layout is not one
///   sim/RegisterLayout.h converts;
/// - `ttng.tensormap_create`: 128 bytes; scalar atomics whose result is used: one element.
/// Fails on a layout it cannot read.
llvm::Expected<ScratchSize> scratchSize(mlir::Operation *op, mlir::Operation *func);

/// The warps of the partitions of `func`'s widest `ttg.warp_specialize` (0: none), as Triton counts them after its
/// allocate-warp-groups pass (which runs before the allocation) padded every warp_specialize's partitions to the
/// same whole number of warp groups (AllocateWarpGroups.cpp padToMaxWarpGroups): what the kernel launches beyond
/// its `ttg.num-warps` (`ttg.total-num-warps` = num-warps + this).
int64_t partitionWarpsOf(mlir::Operation *func);

/// Bits of one element of type `type` in shared memory (pointers 64; Triton's getIntOrFloatOrPtrBitWidth).
int64_t scratchElementBits(mlir::Type type);

} // namespace tlxsim::sim
