// Where a tensor-memory view lies in its allocation (TmemGeometry.cpp): 32-bit TMEM columns from Triton's TMEM
// layouts. MLIR-aware: included by the lowering files only.
#pragma once

#include "ir/Types.h"

#include <cstdint>

namespace tlxsim::sim::lowering {

/// The 32-bit TMEM columns one buffer of `type` (its last two dims) spans, as Triton's getTmemAllocSizes gives
/// them; 0 for a view that is not in tensor memory.
int64_t tmemBufferColumns(ir::MemDescType type);
/// The TMEM lanes one buffer of `type` uses: 128, or 64 for a single 64-row block (blockM = 64).
int64_t tmemBufferRows(ir::MemDescType type);
/// The TMEM columns of the whole view (every buffer of a buffer array).
int64_t tmemColumns(ir::MemDescType type);
/// The column offset of `ttng.tmem_subslice {N = n}` of `source` (Triton's getTMemSubSliceOffset).
int64_t tmemSubsliceColumn(ir::MemDescType source, int64_t n);
/// The extent of an access to a view of `type`: TMEM columns in tensor memory, elements in shared memory (one
/// CTA's part of a view a CGA layout splits).
int64_t viewExtent(mlir::Type type);

} // namespace tlxsim::sim::lowering
