// Resource usage of a captured GPU binary (cubin), read with LLVM's ELF reader.
#pragma once

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace tlxsim::sim {

struct BinaryResources {
  int32_t registersPerThread = 0; ///< as `cuobjdump -res-usage` reports REG
  std::string kernel;             ///< the kernel symbol the count belongs to
};

/// Reads the register count of `kernel` (or of the first kernel) from a cubin: the
/// EIATTR_REGCOUNT (0x2f) entry of the `.nv.info` section, a (symbol index, registers)
/// pair. The format is NVIDIA's undocumented ELF note layout (attribute records of
/// format byte, attribute byte, then a 16-bit value or a 16-bit size and payload); the
/// value is what `cuobjdump -res-usage` prints as REG, which the tests check.
/// Fails on an unreadable file, a non-ELF file or a cubin without that kernel.
llvm::Expected<BinaryResources> readCubinResources(llvm::StringRef path, llvm::StringRef kernel);

} // namespace tlxsim::sim
