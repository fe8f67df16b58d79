// Proton's profile buffer (the `profile_scratch` kernel argument of a kernel compiled under Proton's
// instrumentation mode), decoded on the host: per CTA a header and one circular segment of 8-byte
// entries per warp. Layout of triton 3.6.0 / fbtriton 3.7.4, read from the LLVM IR their
// ProtonGPU lowering emits (third_party/proton/Dialect/lib/ProtonGPUToLLVM, `proton_gpu.initialize`,
// `finalize`) and from Proton's own decoder (third_party/proton/common/lib/TraceDataIO/
// CircularLayoutParser.cpp, EntryDecoder.cpp; /work/shared/docs/proton-buffer.md):
//
//   per CTA, at byte CTA * profile_scratch_size (the CTA's linear id):
//     word 0 preamble 0xdeadbeef; 1 linear program id; 2 SM id (%smid); 3 buffer bytes (all segments);
//     bytes 16-23 init %globaltimer, 24-31 pre-finalize, 32-39 post-finalize (ns, u64);
//     bytes 40 .. 40+4*warps: per warp, the number of 4-byte words it wrote (2 per entry; may exceed
//     its segment: the segment is circular and the oldest entries were overwritten);
//     then the buffer, one segment of buffer/warps bytes per warp in warp order.
//   entry (two little-endian u32): word 0 bit 31 end (1) / start (0), bits 30..23 scope id,
//     bits 10..0 clock bits 42..32; word 1 clock bits 31..0 (%clock64, SM cycles).
//
// It uses the standard library and LLVM Support only (runner/README.md).
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tlxsim::runner::proton {

constexpr uint32_t kPreamble = 0xdeadbeef;   ///< CircularLayoutParser.h kPreamble
constexpr size_t kHeaderBytes = 40;          ///< fixed part of the CTA header (10 words), before the counts
constexpr size_t kEntryBytes = 8;            ///< one record: two 32-bit words
constexpr unsigned kMaxScopes = 256;         ///< 8-bit scope id
constexpr uint64_t kClockMask = (uint64_t(1) << 43) - 1; ///< 43 clock bits survive in an entry

/// What the host knows about the buffer: Triton's metadata and the launch grid.
struct ProfileLayout {
  uint64_t scratchBytes = 0; ///< metadata profile_scratch_size: the stride between CTAs, bytes
  uint64_t numCtas = 0;      ///< CTAs launched (grid x * y * z * num_ctas)
  unsigned numWarps = 0;     ///< metadata num_warps: total warps of a CTA, all profiled (warp granularity)
  /// Cycles subtracted per record, Proton's time shift (CircularLayoutParser.cpp getTimeShiftCost: 7 on
  /// CUDA, 36 on HIP); applied only when the mode has the time_shift optimization (0 otherwise).
  uint64_t timeShiftCycles = 0;
};

/// One decoded record (a scope's start and its end) of a warp.
struct ScopeEvent {
  unsigned scopeId = 0;
  uint64_t startCycle = 0, endCycle = 0; ///< SM clock cycles (%clock64, 43 bits)
};

/// One warp's records in a CTA.
struct WarpTrace {
  unsigned warp = 0;
  uint32_t wordCount = 0;          ///< the header's count: words written (2 per entry)
  uint64_t droppedEntries = 0;     ///< entries overwritten in the circular segment (oldest first)
  std::vector<ScopeEvent> events;  ///< in record order
};

/// One CTA's header and warps.
struct CtaTrace {
  uint64_t index = 0;              ///< position in the buffer (CTA * scratchBytes)
  uint32_t blockId = 0, smId = 0, bufferBytes = 0;
  uint64_t initTimeNs = 0, preFinalTimeNs = 0, postFinalTimeNs = 0; ///< %globaltimer
  std::vector<WarpTrace> warps;    ///< warps 0 .. numWarps-1
};

/// Counts of what did not decode cleanly (each a warning, as Proton's parser reports them).
struct DecodeProblems {
  uint64_t badPreamble = 0;        ///< CTAs skipped: preamble is not 0xdeadbeef (never ran, or not Proton's)
  uint64_t badHeader = 0;          ///< CTAs skipped: the header's buffer size does not fit the scratch
  uint64_t wrappedWarps = 0;       ///< warps whose segment overflowed (oldest entries dropped)
  uint64_t droppedEntries = 0;     ///< entries lost to overflow
  uint64_t endWithoutStart = 0;    ///< end records with no open start of their scope (dropped)
  uint64_t startAfterStart = 0;    ///< start records of a scope already open (the later start is dropped)
  uint64_t unclosedStarts = 0;     ///< starts still open at the end of a segment (dropped)
  uint64_t clockOverflow = 0;      ///< events whose end is before their start (dropped)
};

struct DecodedProfile {
  std::vector<CtaTrace> ctas;      ///< the CTAs with a valid header, in buffer order
  DecodeProblems problems;
  /// One line per kind of problem with its count (empty when none), for the user.
  std::vector<std::string> warnings() const;
};

/// Decodes a whole profile buffer (`layout.numCtas` CTAs of `layout.scratchBytes` bytes each).
/// Pairs start and end records per scope within each warp as CircularLayoutParser::parseSegment does,
/// but reads a wrapped segment from its oldest surviving entry (Proton reads it from the segment
/// start). Errors: the buffer is shorter than numCtas * scratchBytes, the scratch size cannot hold the
/// header, or no CTA has a valid header.
llvm::Expected<DecodedProfile> decodeProfileBuffer(llvm::ArrayRef<uint8_t> buffer, const ProfileLayout &layout);

} // namespace tlxsim::runner::proton
