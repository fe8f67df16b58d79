// The kernel parameter table a cubin records for the driver: the EIATTR_KPARAM_INFO entries of
// its `.nv.info.<kernel>` section (ordinal, offset, size of every parameter) and
// EIATTR_PARAM_CBANK (where the parameter space starts in constant bank 0). The driver copies
// each `kernelParams[i]` to that offset; the runner checks its own layout against this table.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace tlxsim::runner {

struct CubinParam {
  uint32_t ordinal = 0;
  uint32_t offset = 0; ///< bytes from the start of the parameter space
  uint32_t size = 0;   ///< bytes
};

struct CubinParams {
  uint32_t cbankOffset = 0;        ///< EIATTR_PARAM_CBANK offset: parameter space start in c[0x0]
  uint32_t cbankSize = 0;          ///< EIATTR_PARAM_CBANK size: bytes of the parameter space
  std::vector<CubinParam> params;  ///< sorted by ordinal
};

/// Reads the table from cubin bytes. The layout is NVIDIA's undocumented `.nv.info` attribute
/// stream (as `cuobjdump -elf` prints it; the same record format sim/Binary.cpp reads):
/// records of {format u8, attribute u8, u16 value or size}; EIATTR_KPARAM_INFO (0x17) carries
/// {u32 index, u16 ordinal, u16 offset, u32 flags with the size in bits 18..31};
/// EIATTR_PARAM_CBANK (0x0a) {u32 symbol, u16 offset, u16 size}. Values checked against
/// cuobjdump 13.0 on the captured sm_90/sm_100 cubins (tests/unit/test_runner.cpp).
llvm::Expected<CubinParams> readCubinParams(llvm::StringRef bytes, llvm::StringRef kernel);

} // namespace tlxsim::runner
