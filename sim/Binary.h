// Resource usage of a captured GPU binary (cubin), read with LLVM's ELF reader.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace tlxsim::sim {

/// How ptxas issued the wgmma.mma_async instructions of a kernel, read from its SASS (cubinWgmmaIssue).
struct WgmmaIssue {
  int32_t instructions = 0; ///< HGMMA instructions in the code
  int32_t serialized = 0;   ///< HGMMAs with their own scoreboard (gsb0) that the next warp-group instruction,
                            ///< WARPGROUP.DEPBAR.LE gsb0 0x0, waits to complete: no wgmma overlaps them
  /// ptxas serialized the kernel's wgmma pipeline: every HGMMA is waited on before the next issues.
  bool allSerialized() const { return instructions > 0 && serialized == instructions; }
};

/// The SASS loops that issue a kernel's TMA loads (cubinTmaIssue): its innermost loops that contain a UTMALDG and
/// no HGMMA (a producer's loop; a loop that also runs the MMAs is not counted), and their instructions. A copy's
/// issue path is the loop's instructions per copy: 11-16 in Triton 3.6's 1-warp Gluon producers (uniform
/// descriptor and coordinates), 26-28 in fbtriton 3.7.4's 4-warp TLX producers (ELECT, VOTEU, R2UR moves of the
/// descriptor and coordinates into uniform registers, bar.syncs), 50 with Proton's records in them (SASS of the
/// committed H200 captures).
struct TmaIssue {
  int32_t copies = 0;           ///< UTMALDG instructions in those loops
  int32_t loopInstructions = 0; ///< all instructions in those loops (their try-wait retry blocks included)
  /// The loops' instructions per copy; 0 without any copy in a producer loop.
  double instructionsPerCopy() const { return copies > 0 ? static_cast<double>(loopInstructions) / copies : 0.0; }
};

struct BinaryResources {
  int32_t registersPerThread = 0; ///< as `cuobjdump -res-usage` reports REG; on AMD the allocated unified VGPRs (arch + acc, granule 8)
  int32_t architecturalVgprs = 0; ///< AMD: arch VGPRs (the kernel descriptor's accum_offset), <= 256
  int32_t accumulationVgprs = 0;  ///< AMD: AGPRs after accum_offset in the unified file, <= 256
  int32_t spilledBytes = 0;       ///< local (stack / scratch) bytes per thread: the cubin's stack frame
                                  ///< (stackFrameBytes), AMD's private segment per lane; spills do not change occupancy
  int32_t stackFrameBytes = 0;    ///< cubin: EIATTR_FRAME_SIZE (0x11), the per-thread stack frame ptxas lays out for
                                  ///< spilled registers (and local arrays, which Triton kernels do not have); what
                                  ///< `cuobjdump -res-usage` prints as STACK
  int32_t minStackBytes = 0;      ///< cubin: EIATTR_MIN_STACK_SIZE (0x12), the frame plus callees' (no calls: = frame)
  int32_t maxStackBytes = 0;      ///< cubin: EIATTR_MAX_STACK_SIZE (0x23) when present (recursive calls), else 0
  int64_t staticSharedBytes = 0;  ///< cubin: static shared memory as the driver counts it (CU_FUNC_ATTRIBUTE_
                                  ///< SHARED_SIZE_BYTES): `.nv.shared.<kernel>` less ptxas's system reserve at its
                                  ///< start (the 1 KB `cuobjdump -res-usage` SHARED shows for every TLX cubin), held
                                  ///< on top of Triton's dynamic `shared`
  WgmmaIssue wgmma;               ///< cubin (sm_90a): its HGMMA instructions, and those ptxas serialized
  TmaIssue tma;                   ///< cubin (sm_90a): its producer loops of TMA loads
  std::string kernel;             ///< the kernel symbol the count belongs to
};

/// Scans the SASS of `.text.<kernel>` (128-bit sm_90 instructions) for HGMMA and WARPGROUP.DEPBAR. ptxas keeps a
/// dot's wgmma.mma_async instructions in flight together (only the last carries the gsb0 scoreboard that
/// wgmma.wait_group waits on); when it cannot (too few registers for the pipeline, non-wgmma code defining
/// accumulator registers inside it: ptxas's "Potential Performance Loss: wgmma.mma_async instructions are
/// serialized" warning, which Triton does not show), every HGMMA gets gsb0 and is followed by DEPBAR.LE gsb0, 0x0.
/// The encoding fields are those `cuobjdump -sass` (CUDA 13) prints for the cubins of this project (opcode in bits
/// 0-11 of the first 64-bit word: HGMMA 0x9f0 with A in shared memory, 0xdf0 with A in registers; WARPGROUP 0x9c5,
/// bit 47 set for DEPBAR, its count in bits 8-13 of the second word; an HGMMA's scoreboard in bits 20-22 of the
/// second word, 7 = none); tests/python/test_sass_wgmma.py checks the counts against cuobjdump on every committed
/// sm_90a cubin. Returns zeros when the section is missing (no code for the kernel, or not Hopper code).
WgmmaIssue cubinWgmmaIssue(llvm::ArrayRef<uint8_t> text);

/// Scans the SASS of `.text.<kernel>` (128-bit sm_90 instructions) for the loops that issue TMA loads: it splits
/// the code into basic blocks (BRA, EXIT, RET, BRX, JMX end one; a predicated one also falls through), finds the
/// natural loops (a back edge u -> h where h dominates u; the out-of-line mbarrier try-wait retry blocks ptxas
/// places after the kernel's code belong to the loop they return to), and counts UTMALDG and all instructions in
/// the innermost loops that contain a UTMALDG and no HGMMA. Encoding fields as `cuobjdump -sass` (CUDA 13)
/// prints them for this project's cubins: opcode in bits 0-11 of the first 64-bit word (UTMALDG 0x5b4, its
/// .MULTICAST form 0x3b4, HGMMA 0x9f0 / 0xdf0, BRA 0x947, BRX 0x949, EXIT 0x94d), predicate
/// in bits 12-15 (7: PT, unconditional), a BRA's byte offset from the next instruction in bits 16-23 x 4 plus
/// signed bits 32-63 x 256; tests/python/test_sass_wgmma.py checks the counts against the disassembly on every
/// committed sm_90a cubin. Returns zeros without a TMA load in a producer loop, or past 16384 basic blocks.
/// Both SASS scans are in sim/Sass.cpp.
TmaIssue cubinTmaIssue(llvm::ArrayRef<uint8_t> text);

/// Reads the register count of `kernel` (or of the first kernel) from a cubin: the
/// EIATTR_REGCOUNT (0x2f) entry of the `.nv.info` section, a (symbol index, registers)
/// pair. The format is NVIDIA's undocumented ELF note layout (attribute records of
/// format byte, attribute byte, then a 16-bit value or a 16-bit size and payload); the
/// value is what `cuobjdump -res-usage` prints as REG, which the tests check. The kernel's stack attributes
/// (EIATTR_FRAME_SIZE 0x11, EIATTR_MIN_STACK_SIZE 0x12, EIATTR_MAX_STACK_SIZE 0x23: the same (symbol index, u32)
/// records; absent when the frame is empty) give its spill frame (STACK of `cuobjdump -res-usage`).
/// Fails on an unreadable file, a non-ELF file or a cubin without that kernel.
llvm::Expected<BinaryResources> readCubinResources(llvm::StringRef path, llvm::StringRef kernel);

/// Reads the register use of `kernel` (or of the first kernel) from an AMDGPU code object
/// (hsaco) as the wave launch allocates it: the kernel descriptor `<kernel>.kd` (LLVM AMDGPUUsage
/// "Kernel Descriptor"): COMPUTE_PGM_RSRC1.GRANULATED_WORKITEM_VGPR_COUNT = total / 8 - 1 on
/// gfx90a / gfx942 / gfx950, whose unified 512-entry VGPR file per SIMD lane holds the arch VGPRs and,
/// from COMPUTE_PGM_RSRC3.ACCUM_OFFSET ((accum_offset / 4) - 1), the AGPRs (AMD CDNA3 ISA section 3.6.4:
/// each <= 256, <= 512 per wave). Without a descriptor: the NT_AMDGPU_METADATA note's `.vgpr_count`
/// (already arch + acc, LLVM's getTotalNumVGPRs) rounded to the granule of 8. Fails on an unreadable or
/// non-ELF file, a code object without the kernel, or more VGPRs than a wave can hold.
llvm::Expected<BinaryResources> readHsacoResources(llvm::StringRef path, llvm::StringRef kernel);

} // namespace tlxsim::sim
