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
  /// `maxnreg` is tlx-sim's estimate of what the compiler chooses, not a limit Triton sets (fitted rules, checked on
  /// the binaries of tests/inputs and traces/ only through the CTAs/SM they give, tests/python/test_ir_occupancy.py):
  /// NVIDIA: the larger of 1.25 x the registers per thread of the largest loop-carried or dot-result tensor + 24 and
  /// the largest tensor read from memory into registers + 8, rounded up to 8, at most the whole register file for
  /// one CTA; AMD: 3/4 of the peak registers of the tensors live at once (sim/TensorRegisters.h), rounded up to the
  /// VGPR granule of 8, at most one CTA's share of 512 VGPRs x 4 SIMDs
  bool estimated = false;
};

/// The register limit of the kernel in `module`. A `ttg.warp_specialize` with `requestedRegisters` gets
/// maxnreg = floor8(65536 / (num-warps + 4 x ceil(max partition warps / 4)) / threads-per-warp), provided the
/// register budget leaves the default warp group at least 24 registers (the pass's conditions); a module
/// `ttg.maxnreg` wins. Kernels without either, and AMD targets (no .maxnreg; the VGPR count is the compiler's), get the
/// estimate (`estimated`).
RegisterPolicy tritonRegisterPolicy(mlir::ModuleOp module);

} // namespace tlxsim::sim
