// Occupancy: how many CTAs of a kernel are resident on one SM (CU) at once, and what limits
// it. Follows the CUDA occupancy calculator (cuda_occupancy.h, cudaOccMaxActiveBlocksPerSM):
// registers per sub-partition, shared memory with its allocation unit and per-CTA reserve,
// warps, CTA slots; plus TMEM columns on sm_100 (PTX ISA 9.1 9.7.16.1). On AMD the same
// rules with a CU's 4 SIMDs as sub-partitions, wave64 and the unified VGPR file.
#pragma once

#include "sim/GpuModel.h"
#include "sim/Program.h"

#include "llvm/Support/Error.h"

#include <string>

namespace tlxsim::sim {

/// What a kernel asks of an SM, per CTA.
struct OccupancyInputs {
  int64_t sharedBytes = 0;        ///< dynamic + static shared memory (Triton's metadata `shared`), bytes
  int64_t staticSharedBytes = 0;  ///< of `sharedBytes`, the binary's own static shared memory
  /// Proton's profiling segments when `sharedBytes` is Triton's allocation of a Proton-instrumented module
  /// (Program::protonSegments): computeOccupancy adds Proton's profile buffer, sized from the model's shared memory
  int64_t protonSegments = 0;
  int32_t registersPerThread = -1; ///< from the binary (cubin REG, hsaco VGPRs+AGPRs); -1: unknown, not a limit
  int32_t warps = 4;              ///< warps (waves) per CTA
  int32_t threadsPerWarp = 32;
  int64_t tmemColumns = 0;        ///< TMEM columns the CTA allocates (0: none)
  /// `sharedBytes` is not Triton's metadata but an estimate from the module (the sum of its allocations where
  /// Triton's allocation could not be reproduced, or that allocation with some scratch sizes estimated), so it
  /// never refuses the kernel by itself
  bool sharedEstimated = false;
  /// Where `sharedBytes` comes from: "metadata" (Triton's `shared`), "ir" (Triton's allocation rules applied to the
  /// module, sim/SharedAllocation.h), "ir estimate" (those rules with some scratch sizes estimated) or "ir upper
  /// bound" (the sum of the allocations)
  std::string sharedSource = "metadata";
  /// Where `registersPerThread` comes from: "binary", "ir" (Triton's `.maxnreg` for the kernel,
  /// sim/RegisterPolicy.h: ptxas may use fewer), "ir estimate" (no limit in the module: tlx-sim's estimate of
  /// ptxas's choice) or "unknown"
  std::string registersSource = "binary";
};

/// The inputs the module itself gives: shared memory from Triton's allocation of the module (unless
/// `sharedBytes` >= 0 overrides it), registers from Triton's `.maxnreg` for it (unless `registersPerThread` > 0
/// overrides them), warps over all partitions, TMEM columns of its
/// `ttng.tmem_alloc`s (a 128-lane column holds 4 bytes per lane; the total is rounded up to a
/// power of 2 of at least 32 columns, PTX ISA 9.1 9.7.16.1.2).
/// `staticSharedBytes` (the binary's own static shared memory) adds to the shared memory. A Proton-instrumented
/// module's allocation gets Proton's profile buffer in computeOccupancy (it depends on the device).
OccupancyInputs occupancyInputs(const Program &program, int64_t sharedBytes, int32_t registersPerThread,
                                int64_t staticSharedBytes = 0);

struct Occupancy {
  int32_t ctasPerSm = 0;
  std::string limit; ///< "registers", "shared memory", "warps", "CTA slots" or "tensor memory"
  int32_t byRegisters = 0, bySharedMemory = 0, byWarps = 0, bySlots = 0, byTensorMemory = 0;
  /// Set when the estimated shared memory (OccupancyInputs::sharedEstimated) exceeds the SM's: one CTA per SM is
  /// assumed, and this says so (a kernel that runs on hardware is never refused on an estimate)
  std::string warning;
  int64_t sharedBytes = 0;         ///< OccupancyInputs::sharedBytes, what the occupancy assumed
  int32_t registersPerThread = -1; ///< OccupancyInputs::registersPerThread (-1: unknown)
  std::string sharedSource, registersSource; ///< OccupancyInputs' sources
};

/// CTAs per SM under `model`'s limits. With `protonSegments`, the shared memory first gets Proton's profile buffer
/// for a device whose CTA may use smem_per_sm_bytes - smem_reserved_per_cta_bytes (sim/ProtonBuffer.h). Model
/// parameters: smem_per_sm_bytes,
/// smem_reserved_per_cta_bytes, smem_alloc_unit_bytes, max_warps_per_sm, max_ctas_per_sm,
/// regs_per_sm, reg_alloc_unit (registers per warp), smsp_per_sm, and tmem_columns when the
/// kernel allocates TMEM. Fails if a needed parameter is missing, or (with the numbers) if not
/// even one CTA fits; shared memory that is only estimated limits to one CTA with a warning instead.
llvm::Expected<Occupancy> computeOccupancy(const OccupancyInputs &inputs, const GpuModel &model);

/// The shared memory one CTA of `sharedBytes` takes from an SM under `model` (bytes): its allocation rounded up to
/// smem_alloc_unit_bytes, plus smem_reserved_per_cta_bytes (the driver's reserve beside each CTA; CUDA C++
/// Programming Guide, hw-params.md section 1). computeOccupancy divides smem_per_sm_bytes by it.
double sharedFootprintPerCta(int64_t sharedBytes, const GpuModel &model);

/// Parameters computeOccupancy reads for every kernel.
llvm::ArrayRef<llvm::StringRef> occupancyParams();

} // namespace tlxsim::sim
