// Shared memory that Proton's intra-kernel profiler adds to a kernel compiled in its instrumentation mode: the
// metadata's `shared` then holds Triton's allocation followed by Proton's circular profile buffer. Proton sizes the
// buffer after Triton's allocation from what is left of the device's shared memory (Triton 3.6.0
// third_party/proton/Dialect/lib/ProtonToProtonGPU/ProtonToProtonGPUPass.cpp getAllocSharedMemSize, with the
// default options buffer_type=shared, buffer_size=0, sampling_strategy=none) and places it at the allocation's
// end (ProtonGPUToLLVM/AllocateProtonSharedMemory.cpp).
#pragma once

#include <cstdint>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tlxsim::sim {

/// Proton's clock record in the buffer, bytes (proton::gpu::getBytesPerClockEntry: a 32-bit tag + a 32-bit clock).
inline constexpr int64_t kProtonBytesPerEntry = 8;

/// Bytes of Proton's shared-memory profile buffer (getAllocSharedMemSize): with `sharedUsed` = Triton's allocation
/// rounded up to an entry (a used size of at least `maxSharedMem` counts `maxSharedMem` + used as the device's
/// memory), each of the `segments` warps gets half the next power of two above its share of what is left,
/// in whole entries; unless one CTA already fills at least half the device's memory, the total is then halved until
/// it is at most 4 % of `maxSharedMem` (maxSharedMemRatio 0.04). `maxSharedMem`: the largest dynamic shared memory
/// a CTA may use (the driver's max_shared_mem, 232448 bytes on H100 / H200 / B200). 0 when `segments` < 1.
int64_t protonBufferBytes(int64_t sharedUsed, int64_t segments, int64_t maxSharedMem);

/// The metadata's `shared` of a Proton-instrumented kernel: Triton's allocation `tritonShared` rounded up to a
/// clock entry, plus protonBufferBytes (AllocateProtonSharedMemory: the buffer's offset is the aligned size).
int64_t protonInstrumentedSharedBytes(int64_t tritonShared, int64_t segments, int64_t maxSharedMem);

/// The profiling segments of `module` if Proton instruments it (it holds `proton.record` ops, which only
/// Proton's instrumentation mode emits), else 0: one per warp of the whole CTA, `ttg.num-warps` plus the padded
/// partition warps of its widest warp_specialize (gpu::getTotalNumWarps: `ttg.total-num-warps`, which the
/// allocate-warp-groups pass writes before Proton runs).
int64_t protonSegments(mlir::ModuleOp module);

} // namespace tlxsim::sim
