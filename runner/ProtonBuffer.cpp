#include "runner/ProtonBuffer.h"

#include "llvm/Support/FormatVariadic.h"

#include <array>
#include <cstring>
#include <optional>

namespace tlxsim::runner::proton {

namespace {

uint32_t readU32(const uint8_t *p) {
  uint32_t v;
  std::memcpy(&v, p, 4); // little-endian host (x86-64, aarch64), as the device writes it
  return v;
}

uint64_t readU64(const uint8_t *p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

/// One 8-byte entry (EntryDecoder.cpp decodeFn<CycleEntry>).
struct Entry {
  bool isStart;
  unsigned scopeId;
  uint64_t cycle;
};

Entry decodeEntry(const uint8_t *p) {
  uint32_t tagClkUpper = readU32(p);
  uint32_t clkLower = readU32(p + 4);
  return {(tagClkUpper & 0x80000000u) == 0, (tagClkUpper & 0x7F800000u) >> 23,
          uint64_t(tagClkUpper & 0x7FFu) << 32 | clkLower};
}

/// Decodes one warp's segment: the entries it holds in write order (from the oldest survivor when
/// the circular segment wrapped), paired per scope.
void decodeSegment(const uint8_t *segment, size_t segmentBytes, WarpTrace &trace, DecodeProblems &problems) {
  const uint64_t segmentEntries = segmentBytes / kEntryBytes;
  const uint64_t written = uint64_t(trace.wordCount) * 4 / kEntryBytes;
  uint64_t first = 0, count = written;
  if (written > segmentEntries) { // circular: entry i went to slot i % segmentEntries
    trace.droppedEntries = written - segmentEntries;
    problems.wrappedWarps++;
    problems.droppedEntries += trace.droppedEntries;
    first = written % segmentEntries;
    count = segmentEntries;
  }
  std::array<std::optional<uint64_t>, kMaxScopes> open{};
  for (uint64_t i = 0; i < count; ++i) {
    Entry e = decodeEntry(segment + ((first + i) % segmentEntries) * kEntryBytes);
    if (e.isStart) {
      if (open[e.scopeId])
        problems.startAfterStart++;
      else
        open[e.scopeId] = e.cycle;
      continue;
    }
    if (!open[e.scopeId]) {
      problems.endWithoutStart++;
      continue;
    }
    uint64_t start = *open[e.scopeId];
    open[e.scopeId].reset();
    if (e.cycle < start) {
      problems.clockOverflow++;
      continue;
    }
    trace.events.push_back({e.scopeId, start, e.cycle});
  }
  for (const auto &o : open)
    problems.unclosedStarts += o.has_value();
}

/// Proton's time shift (CircularLayoutParser.cpp timeShift): each record's cost is taken off every
/// record at or after it in the warp; an event shorter than the cost keeps half of it.
void applyTimeShift(WarpTrace &trace, uint64_t cost) {
  auto shiftFrom = [&](uint64_t base) {
    for (ScopeEvent &e : trace.events) {
      if (e.startCycle >= base)
        e.startCycle -= cost;
      if (e.endCycle >= base)
        e.endCycle -= cost;
    }
  };
  for (size_t i = 0; i < trace.events.size(); ++i) {
    shiftFrom(trace.events[i].startCycle);
    shiftFrom(trace.events[i].endCycle);
    if (trace.events[i].endCycle < trace.events[i].startCycle)
      trace.events[i].endCycle = trace.events[i].startCycle + cost / 2;
  }
}

} // namespace

std::vector<std::string> DecodedProfile::warnings() const {
  std::vector<std::string> out;
  const DecodeProblems &p = problems;
  if (p.badPreamble)
    out.push_back(llvm::formatv("{0} CTA(s) skipped: no 0xdeadbeef preamble (the CTA never wrote its header)",
                                p.badPreamble));
  if (p.badHeader)
    out.push_back(llvm::formatv("{0} CTA(s) skipped: header buffer size does not fit the profile scratch", p.badHeader));
  if (p.wrappedWarps)
    out.push_back(llvm::formatv("{0} warp segment(s) overflowed: the first {1} entries were dropped (circular "
                                "buffer; Proton's buffer_size option makes it larger)",
                                p.wrappedWarps, p.droppedEntries));
  if (p.endWithoutStart)
    out.push_back(llvm::formatv("{0} end record(s) without a start dropped", p.endWithoutStart));
  if (p.startAfterStart)
    out.push_back(llvm::formatv("{0} start record(s) of an already open scope dropped", p.startAfterStart));
  if (p.unclosedStarts)
    out.push_back(llvm::formatv("{0} start record(s) never closed dropped", p.unclosedStarts));
  if (p.clockOverflow)
    out.push_back(llvm::formatv("{0} event(s) ending before they start dropped (clock overflow)", p.clockOverflow));
  return out;
}

llvm::Expected<DecodedProfile> decodeProfileBuffer(llvm::ArrayRef<uint8_t> buffer, const ProfileLayout &layout) {
  if (layout.numWarps == 0 || layout.numCtas == 0)
    return llvm::createStringError("profile buffer: no warps or no CTAs to decode");
  const uint64_t countsEnd = kHeaderBytes + 4ull * layout.numWarps;
  if (layout.scratchBytes < countsEnd + kEntryBytes * layout.numWarps)
    return llvm::createStringError("profile buffer: profile_scratch_size %llu cannot hold the %llu-byte header of "
                                   "%u warps and one entry per warp",
                                   (unsigned long long)layout.scratchBytes, (unsigned long long)countsEnd,
                                   layout.numWarps);
  if (layout.numCtas > buffer.size() / layout.scratchBytes)
    return llvm::createStringError("profile buffer truncated: %zu bytes, but %llu CTAs of %llu bytes need %llu",
                                   buffer.size(), (unsigned long long)layout.numCtas,
                                   (unsigned long long)layout.scratchBytes,
                                   (unsigned long long)(layout.numCtas * layout.scratchBytes));
  DecodedProfile out;
  for (uint64_t cta = 0; cta < layout.numCtas; ++cta) {
    const uint8_t *base = buffer.data() + cta * layout.scratchBytes;
    if (readU32(base) != kPreamble) {
      out.problems.badPreamble++;
      continue;
    }
    CtaTrace trace;
    trace.index = cta;
    trace.blockId = readU32(base + 4);
    trace.smId = readU32(base + 8);
    trace.bufferBytes = readU32(base + 12);
    trace.initTimeNs = readU64(base + 16);
    trace.preFinalTimeNs = readU64(base + 24);
    trace.postFinalTimeNs = readU64(base + 32);
    const uint64_t segmentBytes = trace.bufferBytes / layout.numWarps;
    if (countsEnd + uint64_t(trace.bufferBytes) > layout.scratchBytes || segmentBytes < kEntryBytes) {
      out.problems.badHeader++;
      continue;
    }
    for (unsigned w = 0; w < layout.numWarps; ++w) {
      WarpTrace &warp = trace.warps.emplace_back();
      warp.warp = w;
      warp.wordCount = readU32(base + kHeaderBytes + 4 * w);
      decodeSegment(base + countsEnd + w * segmentBytes, segmentBytes, warp, out.problems);
      if (layout.timeShiftCycles)
        applyTimeShift(warp, layout.timeShiftCycles);
    }
    out.ctas.push_back(std::move(trace));
  }
  if (out.ctas.empty())
    return llvm::createStringError("profile buffer: none of the %llu CTAs has a valid header (%llu without the "
                                   "0xdeadbeef preamble, %llu with a buffer size beyond the scratch): the kernel "
                                   "is not instrumented by Proton or did not run",
                                   (unsigned long long)layout.numCtas, (unsigned long long)out.problems.badPreamble,
                                   (unsigned long long)out.problems.badHeader);
  return out;
}

} // namespace tlxsim::runner::proton
