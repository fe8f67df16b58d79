// Resource usage of a captured GPU binary (cubin), read with LLVM's ELF reader.
#pragma once

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace tlxsim::sim {

struct BinaryResources {
  int32_t registersPerThread = 0; ///< as `cuobjdump -res-usage` reports REG; on AMD the unified VGPRs (arch + acc)
  int32_t spilledBytes = 0;       ///< AMD: private (scratch) bytes per lane; spills do not change occupancy
  int64_t staticSharedBytes = 0;  ///< cubin: the size of `.nv.shared.<kernel>` (`cuobjdump -res-usage` SHARED),
                                  ///< shared memory the CTA holds on top of Triton's dynamic `shared`
  std::string kernel;             ///< the kernel symbol the count belongs to
};

/// Reads the register count of `kernel` (or of the first kernel) from a cubin: the
/// EIATTR_REGCOUNT (0x2f) entry of the `.nv.info` section, a (symbol index, registers)
/// pair. The format is NVIDIA's undocumented ELF note layout (attribute records of
/// format byte, attribute byte, then a 16-bit value or a 16-bit size and payload); the
/// value is what `cuobjdump -res-usage` prints as REG, which the tests check.
/// Fails on an unreadable file, a non-ELF file or a cubin without that kernel.
llvm::Expected<BinaryResources> readCubinResources(llvm::StringRef path, llvm::StringRef kernel);

/// Reads the register use of `kernel` (or of the first kernel) from an AMDGPU code object
/// (hsaco): the NT_AMDGPU_METADATA note (msgpack, AMDGPU code object v3+, LLVM AMDGPUUsage
/// "Code Object V3 Metadata"): `.vgpr_count` and `.agpr_count`. On gfx90a and later the
/// accumulation VGPRs follow the architectural ones in one file, the latter rounded up to 4
/// (LLVM AMDGPUUsage, "AMDGPU_... accum_offset"), so the count is align(vgpr, 4) + agpr.
/// Fails on an unreadable or non-ELF file or a code object without the kernel.
llvm::Expected<BinaryResources> readHsacoResources(llvm::StringRef path, llvm::StringRef kernel);

} // namespace tlxsim::sim
