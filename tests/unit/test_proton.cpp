// runner/ProtonBuffer and runner/ProtonTrace: Proton profile buffers built by hand (header, per-warp
// counts, circular segments of 8-byte entries) decoded, paired, mapped to partitions and summarised
// as tlx_sim/record.py proton_summary does.
#include "runner/ProtonBuffer.h"
#include "runner/ProtonTrace.h"
#include "sim/ProtonSegment.h"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <tuple>
#include <vector>

using namespace tlxsim::runner::proton;

namespace {

/// A hand-built profile buffer: `ctas` CTAs of `warps` warps, `segmentEntries` entries per warp.
struct BufferBuilder {
  unsigned warps, segmentEntries;
  size_t scratch;
  std::vector<uint8_t> bytes;
  std::vector<std::vector<uint32_t>> counts; // per CTA, per warp: entries written

  BufferBuilder(unsigned ctas, unsigned warps, unsigned segmentEntries)
      : warps(warps), segmentEntries(segmentEntries),
        scratch((kHeaderBytes + 4 * warps + size_t(warps) * segmentEntries * kEntryBytes + 127) / 128 * 128),
        bytes(ctas * scratch, 0), counts(ctas, std::vector<uint32_t>(warps, 0)) {
    for (unsigned c = 0; c < ctas; ++c) {
      put32(c * scratch, kPreamble);
      put32(c * scratch + 4, c);          // program id
      put32(c * scratch + 8, 100 + c);    // SM id
      put32(c * scratch + 12, warps * segmentEntries * kEntryBytes);
      put64(c * scratch + 16, 1000);      // init globaltimer
      put64(c * scratch + 24, 3000);      // pre-final
    }
  }
  void put32(size_t at, uint32_t v) { std::memcpy(&bytes[at], &v, 4); }
  void put64(size_t at, uint64_t v) { std::memcpy(&bytes[at], &v, 8); }
  /// Appends one record to warp `w` of CTA `c`, circularly, and updates its count (in words).
  void record(unsigned c, unsigned w, bool start, unsigned scope, uint64_t cycle) {
    uint32_t n = counts[c][w]++;
    size_t at = c * scratch + kHeaderBytes + 4 * warps + (size_t(w) * segmentEntries + n % segmentEntries) * kEntryBytes;
    put32(at, (start ? 0u : 0x80000000u) | (scope << 23) | uint32_t((cycle >> 32) & 0x7FF));
    put32(at + 4, uint32_t(cycle));
    put32(c * scratch + kHeaderBytes + 4 * w, counts[c][w] * 2);
  }
  void scope(unsigned c, unsigned w, unsigned id, uint64_t start, uint64_t end) {
    record(c, w, true, id, start);
    record(c, w, false, id, end);
  }
  ProfileLayout layout() const { return {scratch, counts.size(), warps, 0}; }
};

ScopeTable table() {
  auto t = parseScopeTable(R"({"mode": "default", "scopes": [{"id": 0, "name": "wait_ready", "parent": -1},
    {"id": 1, "name": "wgmma_wait", "parent": -1}, {"id": 2, "name": "wait_empty", "parent": -1},
    {"id": 3, "name": "mma", "parent": -1}]})",
                           "test");
  REQUIRE(static_cast<bool>(t));
  return *t;
}

} // namespace

TEST_CASE("proton: decode header, entries and 43-bit clocks of several CTAs and warps") {
  BufferBuilder b(2, 3, 8);
  b.scope(0, 0, 1, 100, 150);
  b.scope(0, 2, 2, (uint64_t(5) << 32) + 7, (uint64_t(5) << 32) + 20); // clock bits above 32
  b.scope(1, 1, 0, 10, 40);
  auto p = decodeProfileBuffer(b.bytes, b.layout());
  REQUIRE(static_cast<bool>(p));
  REQUIRE(p->ctas.size() == 2);
  CHECK(p->ctas[1].blockId == 1);
  CHECK(p->ctas[1].smId == 101);
  CHECK(p->ctas[0].bufferBytes == 3 * 8 * 8);
  CHECK(p->ctas[0].preFinalTimeNs == 3000);
  REQUIRE(p->ctas[0].warps.size() == 3);
  REQUIRE(p->ctas[0].warps[0].events.size() == 1);
  CHECK(p->ctas[0].warps[0].events[0].scopeId == 1);
  CHECK(p->ctas[0].warps[0].events[0].startCycle == 100);
  CHECK(p->ctas[0].warps[0].events[0].endCycle == 150);
  CHECK(p->ctas[0].warps[1].events.empty());
  REQUIRE(p->ctas[0].warps[2].events.size() == 1);
  CHECK(p->ctas[0].warps[2].events[0].startCycle == (uint64_t(5) << 32) + 7);
  CHECK(p->ctas[0].warps[2].events[0].scopeId == 2);
  CHECK(p->ctas[1].warps[1].events[0].endCycle == 40);
  CHECK(p->warnings().empty());
}

TEST_CASE("proton: a wrapped circular segment is read from its oldest entry; the orphan end is dropped") {
  BufferBuilder b(1, 1, 4); // 4 entries per segment
  b.scope(0, 0, 0, 10, 20);  // entries 0,1: overwritten
  b.scope(0, 0, 1, 30, 40);  // entries 2,3: start 2 overwritten below, end 3 survives
  b.scope(0, 0, 2, 50, 60);  // entries 4,5 -> slots 0,1
  b.record(0, 0, true, 3, 70); // entry 6 -> slot 2
  auto p = decodeProfileBuffer(b.bytes, b.layout());
  REQUIRE(static_cast<bool>(p));
  const WarpTrace &w = p->ctas[0].warps[0];
  CHECK(w.wordCount == 14);
  CHECK(w.droppedEntries == 3);
  // surviving entries in order: end(1)@40, start(2)@50, end(2)@60, start(3)@70
  REQUIRE(w.events.size() == 1);
  CHECK(w.events[0].scopeId == 2);
  CHECK(w.events[0].startCycle == 50);
  CHECK(p->problems.wrappedWarps == 1);
  CHECK(p->problems.droppedEntries == 3);
  CHECK(p->problems.endWithoutStart == 1);
  CHECK(p->problems.unclosedStarts == 1);
  CHECK(p->warnings().size() == 3);
}

TEST_CASE("proton: the simulator's segment keeps and decodes the entries the hardware's circular segment does") {
  // The records of the wrapped-segment case above, into a 4-entry segment on both sides: the decoder keeps one
  // scope (2: 50..60) from end(1)@40, start(2)@50, end(2)@60, start(3)@70, and so does sim::ProtonSegment, whose
  // window (first kept start to last end) is 10 cycles; with room for every record it would not have overflowed.
  BufferBuilder b(1, 1, 4);
  tlxsim::sim::ProtonSegment seg, roomy;
  seg.setCapacity(4);
  roomy.setCapacity(8);
  auto both = [&](bool start, unsigned id, uint64_t t) {
    b.record(0, 0, start, id, t);
    seg.record(static_cast<int32_t>(id), start, t);
    roomy.record(static_cast<int32_t>(id), start, t);
  };
  for (auto [id, t0, t1] : {std::tuple<unsigned, uint64_t, uint64_t>{0, 10, 20}, {1, 30, 40}, {2, 50, 60}}) {
    both(true, id, t0);
    both(false, id, t1);
  }
  both(true, 3, 70);
  auto p = decodeProfileBuffer(b.bytes, b.layout());
  REQUIRE(static_cast<bool>(p));
  REQUIRE(p->ctas[0].warps[0].events.size() == 1);
  CHECK(seg.overflowed());
  CHECK_FALSE(roomy.overflowed());
  std::vector<tlxsim::sim::Cycle> scopes;
  tlxsim::sim::Cycle window = 0;
  seg.decode(scopes, window);
  REQUIRE(scopes.size() == 3);
  CHECK(scopes[0] == 0);
  CHECK(scopes[1] == 0);
  CHECK(scopes[2] == 60 - 50);
  CHECK(window == p->ctas[0].warps[0].events[0].endCycle - p->ctas[0].warps[0].events[0].startCycle);
}

TEST_CASE("proton: start after start, end without start and end before start are dropped with counts") {
  BufferBuilder b(1, 1, 16);
  b.record(0, 0, false, 0, 5);  // end without start
  b.record(0, 0, true, 0, 10);
  b.record(0, 0, true, 0, 12);  // start after start: ignored, first start kept
  b.record(0, 0, false, 0, 30);
  b.scope(0, 0, 1, 50, 45);     // end before start
  auto p = decodeProfileBuffer(b.bytes, b.layout());
  REQUIRE(static_cast<bool>(p));
  REQUIRE(p->ctas[0].warps[0].events.size() == 1);
  CHECK(p->ctas[0].warps[0].events[0].startCycle == 10);
  CHECK(p->ctas[0].warps[0].events[0].endCycle == 30);
  CHECK(p->problems.endWithoutStart == 1);
  CHECK(p->problems.startAfterStart == 1);
  CHECK(p->problems.clockOverflow == 1);
}

TEST_CASE("proton: nested scopes of different ids pair independently") {
  BufferBuilder b(1, 1, 16);
  b.record(0, 0, true, 3, 100);
  b.scope(0, 0, 1, 110, 130);
  b.record(0, 0, false, 3, 200);
  auto p = decodeProfileBuffer(b.bytes, b.layout());
  REQUIRE(static_cast<bool>(p));
  const auto &ev = p->ctas[0].warps[0].events;
  REQUIRE(ev.size() == 2);
  CHECK(ev[0].scopeId == 1);
  CHECK(ev[1].scopeId == 3);
  CHECK(ev[1].endCycle - ev[1].startCycle == 100);
}

TEST_CASE("proton: bad buffers give errors or skipped CTAs, never a crash") {
  BufferBuilder b(3, 2, 4);
  b.scope(0, 0, 0, 1, 2);
  SUBCASE("truncated") {
    auto p = decodeProfileBuffer(llvm::ArrayRef<uint8_t>(b.bytes).drop_back(1), b.layout());
    REQUIRE(!p);
    CHECK(llvm::toString(p.takeError()).find("truncated") != std::string::npos);
  }
  SUBCASE("one CTA without preamble is skipped") {
    b.put32(b.scratch, 0);
    auto p = decodeProfileBuffer(b.bytes, b.layout());
    REQUIRE(static_cast<bool>(p));
    CHECK(p->ctas.size() == 2);
    CHECK(p->problems.badPreamble == 1);
    CHECK(p->warnings()[0].find("preamble") != std::string::npos);
  }
  SUBCASE("no CTA with a preamble is an error") {
    std::vector<uint8_t> zero(b.bytes.size(), 0);
    auto p = decodeProfileBuffer(zero, b.layout());
    REQUIRE(!p);
    CHECK(llvm::toString(p.takeError()).find("none of the 3 CTAs") != std::string::npos);
  }
  SUBCASE("a header buffer size beyond the scratch skips the CTA") {
    b.put32(12, 1u << 30);
    auto p = decodeProfileBuffer(b.bytes, b.layout());
    REQUIRE(static_cast<bool>(p));
    CHECK(p->problems.badHeader == 1);
    CHECK(p->ctas.size() == 2);
  }
  SUBCASE("a scratch too small for the header") {
    ProfileLayout l = b.layout();
    l.scratchBytes = 16;
    CHECK(!static_cast<bool>(decodeProfileBuffer(b.bytes, l)));
    llvm::consumeError(decodeProfileBuffer(b.bytes, l).takeError());
  }
  SUBCASE("a count beyond the segment on a corrupt header reads only the segment") {
    b.put32(kHeaderBytes, 0xFFFFFFFEu);
    auto p = decodeProfileBuffer(b.bytes, b.layout());
    REQUIRE(static_cast<bool>(p));
    CHECK(p->ctas[0].warps[0].droppedEntries > 0);
  }
}

TEST_CASE("proton: scope table errors and Proton's fallback name") {
  CHECK(!static_cast<bool>(parseScopeTable("[]", "t.json")));
  auto dup = parseScopeTable(R"({"scopes": [{"id": 0, "name": "a"}, {"id": 0, "name": "b"}]})", "t.json");
  REQUIRE(!dup);
  CHECK(llvm::toString(dup.takeError()).find("t.json: scopes[1]") != std::string::npos);
  auto sameName = parseScopeTable(R"({"scopes": [{"id": 0, "name": "a"}, {"id": 1, "name": "a"}]})", "t.json");
  REQUIRE(static_cast<bool>(sameName));
  CHECK(sameName->name(1) == "a");
  auto big = parseScopeTable(R"({"scopes": [{"id": 256, "name": "a"}]})", "t.json");
  REQUIRE(!big);
  llvm::consumeError(big.takeError());
  ScopeTable t = table();
  CHECK(t.name(1) == "wgmma_wait");
  CHECK(t.name(9) == "scope_9");
  CHECK(t.timeShiftCycles() == 0);
}

TEST_CASE("proton: partitions from TTGIR") {
  const char *ttgir = R"(module attributes {"ttg.num-warps" = 4 : i32} {
    ttg.warp_specialize(%a) attributes {requestedRegisters = array<i32: 24, 24>}
    default {
    }
    partition0(%arg18: !tt.tensordesc<tensor<128x64xf16>> loc(unknown)) num_warps(1) {
    }
    partition1(%arg19: i32 loc(unknown)) num_warps(4) {
    } : (i32) -> ()
    ttg.warp_specialize(%b)
    partition0(%x: i32) num_warps(2) {
    }
  })";
  auto m = partitionsFromTtgir(ttgir);
  REQUIRE(static_cast<bool>(m));
  CHECK(m->defaultWarps == 4);
  CHECK(m->workerWarps == std::vector<unsigned>{1, 4});
  auto none = partitionsFromTtgir("module {}");
  REQUIRE(!none);
  llvm::consumeError(none.takeError());
}

TEST_CASE("proton: partition summary, each warp over its own life") {
  // 2 CTAs, 8 warps: warps 0-3 default, warp 4 the one-warp worker partition (ws_gemm), 5-7 idle. A warp's shares
  // are over the CTA's first start to its own last end (record.py's proton_summary divides by the CTA lifetime).
  BufferBuilder b(2, 8, 16);
  for (unsigned c = 0; c < 2; ++c) {
    const uint64_t base = 1000 * c;
    for (unsigned w = 0; w < 4; ++w) {
      b.scope(c, w, 0, base + 0, base + 100);   // wait_ready 100
      b.scope(c, w, 1, base + 300, base + 400); // wgmma_wait 100
    }
    b.scope(c, 4, 2, base + 50, base + 250); // wait_empty 200
  }
  b.scope(1, 0, 3, 1500, 2000); // CTA 1 lifetime 1000 (0..1000 -> 1000..2000)
  auto p = decodeProfileBuffer(b.bytes, b.layout());
  REQUIRE(static_cast<bool>(p));
  auto s = partitionSummary(*p, table(), PartitionMap{4, {1}});
  const llvm::json::Object &o = *s.getAsObject();
  CHECK(*o.getInteger("ctas") == 2);
  // lifetimes: CTA0 400 cycles, CTA1 1000 cycles -> mean 700 cycles = 0.7 "us"
  CHECK(*o.getNumber("lifetime_us_mean") == doctest::Approx(0.7));
  const llvm::json::Object &def = *o.getObject("partitions")->getObject("default");
  CHECK(*def.getInteger("warps_per_cta") == 4);
  // wait_ready: per warp 100/400 (CTA0, and CTA1's warps 1-3, which end at 400 of its 1000) and 100/1000 (CTA1
  // warp 0) -> mean over 8 warps = (7*0.25 + 0.1)/8
  CHECK(*def.getObject("scopes")->getNumber("wait_ready") == doctest::Approx(1.85 / 8));
  CHECK(*def.getObject("scopes")->getNumber("mma") == doctest::Approx(0.5 / 8));
  CHECK(*def.getNumber("wait_frac") == doctest::Approx(3.7 / 8));
  const llvm::json::Object &w = *o.getObject("partitions")->getObject("partition0");
  CHECK(*w.getInteger("warps_per_cta") == 1);
  // the worker waits 200 of its 250 cycles in both CTAs (it exits while the default warps go on)
  CHECK(*w.getObject("scopes")->getNumber("wait_empty") == doctest::Approx(0.8));
  CHECK(*w.getNumber("wait_frac") == doctest::Approx(0.8));
  CHECK(*w.getNumber("observed_frac") == doctest::Approx((0.625 + 0.25) / 2));
}

TEST_CASE("proton: a warp whose segment overflowed is measured over the window its kept entries cover") {
  // One CTA, 5 warps, 4 entries (2 scopes) per segment. The producer (warp 4) waits the first 50 of every 100
  // cycles from 0 to 400 and keeps (200, 250), (300, 350); a consumer warp (warp 0) waits the last 30 of every 50
  // and keeps (320, 350), (370, 400). The kept entries span the CTA from 200 to 400: over that lifetime warp 0
  // would wait 60 / 200 = 0.3 (Proton's own summary); over its window 320..400 it waits 60 / 80 = 0.75. The
  // producer's window ends at its own last end: 200..350, where it waits 100 / 150.
  BufferBuilder b(1, 5, 4);
  for (uint64_t t = 0; t < 400; t += 100)
    b.scope(0, 4, 2, t, t + 50);
  for (uint64_t t = 0; t < 400; t += 50)
    b.scope(0, 0, 0, t + 20, t + 50);
  auto p = decodeProfileBuffer(b.bytes, b.layout());
  REQUIRE(static_cast<bool>(p));
  CHECK(p->problems.wrappedWarps == 2);
  auto s = partitionSummary(*p, table(), PartitionMap{4, {1}});
  const llvm::json::Object &o = *s.getAsObject();
  CHECK(*o.getNumber("lifetime_us_mean") == doctest::Approx(0.2));
  const llvm::json::Object &def = *o.getObject("partitions")->getObject("default");
  CHECK(*def.getNumber("wait_frac") == doctest::Approx(0.75));
  CHECK(*def.getNumber("observed_frac") == doctest::Approx(0.4));
  const llvm::json::Object &w = *o.getObject("partitions")->getObject("partition0");
  CHECK(*w.getNumber("wait_frac") == doctest::Approx(100.0 / 150));
  CHECK(*w.getNumber("observed_frac") == doctest::Approx(0.75));
  // No CTA kept every entry: the clock estimate has nothing to go on.
  CHECK(*globalTimerSummary(*p).getAsObject()->getInteger("ctas") == 0);
}

TEST_CASE("proton: Chrome trace in Proton's format, overlapping scopes on separate lines, CTA limit") {
  BufferBuilder b(3, 2, 16);
  b.record(0, 1, true, 3, 100);
  b.scope(0, 1, 1, 110, 130);
  b.record(0, 1, false, 3, 200);
  b.scope(1, 0, 0, 5, 9);
  b.scope(2, 0, 0, 5, 9);
  auto p = decodeProfileBuffer(b.bytes, b.layout());
  REQUIRE(static_cast<bool>(p));
  auto trace = chromeTrace(*p, table(), "k", 2);
  const llvm::json::Array &ev = *trace.getAsObject()->getArray("traceEvents");
  REQUIRE(ev.size() == 3); // CTA 2 left out
  const llvm::json::Object &mma = *ev[0].getAsObject();
  CHECK(*mma.getString("name") == "wgmma_wait");
  CHECK(*mma.getString("pid") == "k Core100 CTA0");
  CHECK(*mma.getNumber("ts") == doctest::Approx(0.010));
  CHECK(*mma.getNumber("dur") == doctest::Approx(0.020));
  const llvm::json::Object &outer = *ev[1].getAsObject();
  CHECK(*outer.getString("name") == "mma");
  CHECK(*outer.getString("tid") == "warp 1 (line 0)");
  CHECK(*mma.getString("tid") == "warp 1 (line 1)");
  CHECK(*outer.getNumber("ts") == 0.0);
  CHECK(*ev[2].getAsObject()->getString("pid") == "k Core101 CTA1");
  CHECK(chromeTrace(*p, table(), "k", 0).getAsObject()->getArray("traceEvents")->size() == 4);
}

TEST_CASE("proton: Proton's time shift when the mode asks for it") {
  BufferBuilder b(1, 1, 16);
  b.scope(0, 0, 0, 100, 200);
  b.scope(0, 0, 1, 300, 302);
  ProfileLayout l = b.layout();
  l.timeShiftCycles = 7;
  auto p = decodeProfileBuffer(b.bytes, l);
  REQUIRE(static_cast<bool>(p));
  const auto &ev = p->ctas[0].warps[0].events;
  // CircularLayoutParser.cpp timeShift: every record at or after each record's cycle loses 7
  CHECK(ev[0].startCycle == 93);
  CHECK(ev[0].endCycle == 186);
  CHECK(ev[1].endCycle >= ev[1].startCycle);
}
