// Shared memory a kernel needs per CTA, computed from its TTGIR the way Triton's compiler computes the metadata's
// `shared` (the module attribute `ttg.shared` that `allocate_shared_memory_nv` / AMD's `allocate_shared_memory`
// write, lib/Analysis/Allocation.cpp, Triton 3.6.0 and fbtriton 3.7.4 alike): every buffer (explicit
// `ttg.local_alloc`s in shared memory, scratch of ops that exchange data through shared memory) gets a live range,
// buffers that are never live at once share bytes, and offsets come from Triton's first-fit placement
// (calculateStarts) followed by its interference-graph coloring until no two interfering buffers overlap.
#pragma once

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
class Operation;
} // namespace mlir

namespace tlxsim::sim {

/// One buffer of Triton's allocator (Allocation.h BufferT).
struct SharedBuffer {
  enum Kind { Explicit, Scratch } kind = Explicit;
  std::string what;      ///< the owning op and its location, for reports ("ttg.local_alloc at k.py:12")
  int64_t size = 0;      ///< bytes
  int64_t alignment = 4; ///< bytes; BufferT's default is 4
  /// Live range in Triton's post-order operation ids, half open [start, end).
  uint64_t start = 0, end = 0;
  /// Buffers owned by ops in different regions of the same `ttg.warp_specialize` run concurrently: they interfere
  /// whenever their bytes overlap, whatever their live ranges (Allocation.cpp buildInterferenceGraph, AsyncRegions).
  /// -1: not inside a warp_specialize; else an id of the warp_specialize op and one of the region.
  int64_t asyncOp = -1, asyncRegion = -1;
  int64_t offset = 0; ///< the assigned offset, bytes (output)
  /// The `ttg.local_alloc` of an explicit buffer (null for scratch); valid while the module lives.
  const mlir::Operation *op = nullptr;
};

/// The allocation of one kernel.
struct SharedAllocation {
  int64_t sizeBytes = 0;              ///< what Triton writes as `ttg.shared` (the metadata's `shared`)
  std::vector<SharedBuffer> buffers;  ///< with their offsets
  /// Ops whose scratch size is estimated rather than Triton's exact rule (a `ttg.convert_layout` between layouts
  /// whose linear-layout swizzling tlx-sim does not reproduce): "op at location: why"; empty when exact.
  std::vector<std::string> estimates;
};

/// Assigns offsets to `buffers` exactly as Triton's AllocationAnalysis::computeOffsets does (buffers sorted by size,
/// largest first, stable; first-fit starts; then first-fit coloring of the interference graph, bumping each
/// buffer past its interfering neighbours, repeated until nothing interferes). Returns the allocation's size in
/// bytes (the highest end of a buffer). Buffer order in the vector is Triton's buffer id order and breaks ties.
int64_t assignSharedOffsets(std::vector<SharedBuffer> &buffers);

/// The shared-memory allocation of the kernel function in `module`: explicit buffers (`ttg.local_alloc` in
/// `#ttg.shared_memory`, bytes = elements x element bits / 8, alignment from the encoding: nvmma_shared 128 x
/// swizzle/16, others 16, or the op's `alignment`), their live ranges extended over every alias (memdesc views,
/// loop-carried values, warp_specialize captures), and scratch buffers (warp_specialize captures packed like a
/// struct, aligned 8; one byte per partition warp for the whole function; `tt.reduce` across warps;
/// `ttg.convert_layout` across warps; `ttng.tensormap_create` 128 bytes; scratch aligned 128).
/// Fails, naming the op, on a shape it cannot size.
llvm::Expected<SharedAllocation> allocateSharedMemory(mlir::ModuleOp module);

} // namespace tlxsim::sim
