// AMD wave groups and LDS reads in flight (sim/lowering/WarpDivergence.cpp splitWaveGroups, sim/ops/Amd.cpp): which
// main functions the lowering splits at a phase-shifting `amdg.cond_barrier`, the groups' barriers as rendezvous of
// the CTA's waves, and a local_load's read kept open until lgkmcnt retires it (a fenced barrier, s_waitcnt lgkmcnt),
// not at a bare s_barrier.
#include "ir/Dialects.h"
#include "sim/Engine.h"
#include "verifier/Verifier.h"
#include "LowerText.h"

#include <doctest/doctest.h>

#include <regex>

#ifndef TLXSIM_SOURCE_DIR
#define TLXSIM_SOURCE_DIR "."
#endif

using namespace tlxsim;

namespace {

/// 8 waves; HIGH is the condition the first cond_barrier holds waves back with (BlockPingpong's `tid / 256 != 0`), LOW
/// the last one's (`tid / 256 == 0`: it re-aligns the groups).
/// Waves 0-3 read `buf` before their 2nd barrier, waves 4-7 after theirs (the cond_barrier is their 2nd); BARRIER is
/// then the 3rd barrier of waves 4-7, which waves 0-3's store follows (after their own 3rd, a gpu.barrier).
const char *kKernel = R"(#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k() {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("buf")
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf16, #blocked>
    %c0 = arith.constant 0 : i32
    %c256 = arith.constant 256 : i32
    %c32 = arith.constant 32 : i32
    ttg.local_store %zero, %buf : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    gpu.barrier
    %tid = rocdl.workitem.id.x : i32
    %w = arith.divsi %tid, %c256 : i32
    %low = LOW
    %high = HIGH
    amdg.cond_barrier %high
    %v = ttg.local_load %buf : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
    BARRIER
    gpu.barrier
    ttg.local_store %zero, %buf : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    amdg.cond_barrier %low
    tt.return
  }
}
)";

const char *kPingpong = "arith.cmpi ne, %w, %c0 : i32", *kPingpongLow = "arith.cmpi eq, %w, %c0 : i32";

struct Case : testing::CheckedRun { // findings, agents, stalled: of the last run()
  std::unique_ptr<mlir::MLIRContext> ctx = ir::makeContext();
  std::optional<sim::Program> program;

  Case(const std::string &barrier, const std::string &high = kPingpong, const std::string &low = kPingpongLow) {
    std::string text = std::regex_replace(kKernel, std::regex("BARRIER"), barrier);
    text = std::regex_replace(text, std::regex("HIGH"), high);
    text = std::regex_replace(text, std::regex("LOW"), low);
    program = testing::lowerText(*ctx, text);
  }
  /// Simulates one CTA with the checkers; the agents' partition names in start order.
  void run() {
    static_cast<testing::CheckedRun &>(*this) = testing::checkedRun(*program, "mi300x", TLXSIM_SOURCE_DIR "/models");
  }
  bool split() const {
    return program->waveGroups.size() == 2 && program->waveGroups[0].firstWarp == 0 &&
           program->waveGroups[0].numWarps == 4 && program->waveGroups[1].firstWarp == 4 &&
           program->waveGroups[1].numWarps == 4;
  }
};

} // namespace

TEST_CASE("wave groups: a cond_barrier on tid / 256 splits the main function into waves 0-3 and 4-7") {
  Case c("gpu.barrier");
  CHECK(c.split());
  c.run();
  CHECK(c.agents == std::vector<std::string>{"default waves 0-3", "default waves 4-7"});
  CHECK_FALSE(c.stalled); // the k-th barrier of one group met the k-th of the other: 4 each
  CHECK(c.findings.empty());
}

TEST_CASE("wave groups: a bare s_barrier leaves the other group's LDS read in flight: race-war") {
  Case c("rocdl.s.barrier");
  REQUIRE(c.split());
  c.run();
  CHECK_FALSE(c.stalled);
  REQUIRE(c.findings.size() == 1);
  CHECK(c.findings[0].cls == "race-war");
  CHECK(c.findings[0].message.find("'default waves 0-3'") != std::string::npos);
  CHECK(c.findings[0].message.find("local_load of partition 'default waves 4-7'") != std::string::npos);
}

TEST_CASE("wave groups: s_waitcnt lgkmcnt(0) before the bare s_barrier retires the read") {
  Case ds0("amdg.memory_counter_wait ds(0)\n    rocdl.s.barrier");
  ds0.run();
  CHECK(ds0.findings.empty());
  Case waitcnt("rocdl.s.waitcnt 49279\n    rocdl.s.barrier"); // 0xC07F: LGKM_CNT (bits 11:8) = 0
  waitcnt.run();
  CHECK(waitcnt.findings.empty());
  Case ds1("amdg.memory_counter_wait ds(1)\n    rocdl.s.barrier"); // one ds_read per thread: still in flight
  ds1.run();
  REQUIRE(ds1.findings.size() == 1);
  CHECK(ds1.findings[0].cls == "race-war");
}

TEST_CASE("wave groups: a use of the loaded value retires the read (the compiler's s_waitcnt before it)") {
  Case c("%u = arith.addf %v, %v : tensor<64x64xf16, #blocked>\n    rocdl.s.barrier");
  c.run();
  CHECK(c.findings.empty());
}

TEST_CASE("wave groups: no split where no cond_barrier holds whole waves back") {
  std::string all = "arith.cmpi sge, %w, %c0 : i32", half = "arith.cmpi slt, %tid, %c32 : i32";
  Case uniform("gpu.barrier", all, all); // every wave: no phase shift
  CHECK(uniform.program->waveGroups.empty());
  Case lanes("gpu.barrier", half, half); // half of wave 0: not whole waves
  CHECK(lanes.program->waveGroups.empty());
  uniform.run(); // one agent: the cond_barriers are barriers of thread 0's path
  CHECK(uniform.agents == std::vector<std::string>{"default"});
  CHECK(uniform.findings.empty());
}
