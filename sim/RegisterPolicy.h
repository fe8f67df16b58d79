// Registers per thread of a kernel without its binary, as Triton's compiler fixes them: the `.maxnreg` ptxas is
// told. For a warp-specialized kernel Triton's allocate-warp-groups pass (lib/Conversion/TritonGPUToLLVM/
// AllocateWarpGroups.cpp, Triton 3.6.0; the same in fbtriton 3.7.4) gives one CTA the whole register file:
// maxnreg = 64K / (all warps, partitions padded to whole warp groups) / 32, rounded down to 8, written as the
// module's `ttg.maxnreg` and passed to ptxas as `.maxnreg` (each partition then moves registers with setmaxnreg
// within that budget). A user's `maxnreg` (the module's `ttg.maxnreg`) is passed the same way.
#pragma once

#include <cstdint>
#include <string>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tlxsim::sim {

/// What the module says about its registers.
struct RegisterPolicy {
  int32_t maxnreg = -1; ///< registers per thread ptxas is limited to (at most 255); -1: ptxas chooses freely
  std::string source;   ///< how it was decided ("ttg.maxnreg", "warp-specialized: 64K / 12 warps"), for reports
  /// `maxnreg` is tlx-sim's estimate of what ptxas chooses, not a limit Triton sets: 1.25 x the registers per
  /// thread of the largest loop-carried or dot-result register tensor + 24, rounded up to 8, at most the whole
  /// register file for one CTA (a rule of thumb checked on the cubins of tests/inputs and traces/; occupancy from
  /// it can be off either way, tests/python/test_ir_occupancy.py lists where)
  bool estimated = false;
};

/// The register limit of the kernel in `module`. A `ttg.warp_specialize` with `requestedRegisters` gets
/// maxnreg = floor8(65536 / (num-warps + 4 x ceil(max partition warps / 4)) / threads-per-warp), provided the
/// register budget leaves the default warp group at least 24 registers (the pass's conditions); a module
/// `ttg.maxnreg` wins. NVIDIA kernels without either get the estimate (`estimated`); AMD targets (no .maxnreg; the
/// VGPR count is the compiler's) get -1.
RegisterPolicy tritonRegisterPolicy(mlir::ModuleOp module);

} // namespace tlxsim::sim
