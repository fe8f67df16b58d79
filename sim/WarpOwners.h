// Which warps of a CTA hold each element of a distributed tensor (a register layout): what decides whether a
// layout conversion or a reduction exchanges data between warps, and so needs shared memory (Triton 3.6
// `cvtNeedsSharedMemory`, `ReduceOpHelper::isWarpSynchronous`). Evaluated point by point from the layout's
// definition (Triton's LinearLayoutConversions.cpp: blocked, slice, nvidia_mma v2/v3, dot_op of an mma, linear,
// amd_mfma), not through linear algebra.
#pragma once

#include "mlir/IR/Attributes.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tlxsim::sim {

/// For each element of a tensor of `shape` (row-major index) in layout `encoding`, the set of warps (bit w = warp
/// w, warps 0-63) that hold it; several bits where the layout broadcasts the element. nullopt for a layout it does
/// not know, a tensor of more than 2^20 elements, or more than 64 warps.
std::optional<std::vector<uint64_t>> warpOwners(mlir::Attribute encoding, llvm::ArrayRef<int64_t> shape);

/// The number of distinct warp groups along `axis` (Triton's warpsPerCTA with unique data along the axis): 1 when
/// every line along the axis lies in one warp (set). nullopt if the layout is unknown.
std::optional<int64_t> warpsAlongAxis(mlir::Attribute encoding, llvm::ArrayRef<int64_t> shape, int64_t axis);

} // namespace tlxsim::sim
