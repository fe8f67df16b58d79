// Per-warp agents (sim/lowering/WarpDivergence.cpp, sim/ops/WarpAgents.cpp): which partitions the lowering splits,
// each warp's share of a thread-id condition, and the engine's warp agents (elected-thread ops once, the partition
// barrier as a rendezvous of the warps).
#include "ir/Dialects.h"
#include "ir/Reader.h"
#include "sim/Engine.h"
#include "sim/Lowering.h"
#include "verifier/Verifier.h"
#include "LowerText.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <fstream>
#include <regex>

#ifndef TLXSIM_SOURCE_DIR
#define TLXSIM_SOURCE_DIR "."
#endif

using namespace tlxsim;

namespace {

/// A 4-warp worker that waits on `ready` (arrived once by the default partition), then runs BODY; COND is the
/// thread-id condition `%c` BODY may test.
const char *kKernel = R"(#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k() {
    %ready = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("ready")
    %done = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("done")
    ttng.init_barrier %ready, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %done, DONE_COUNT : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttg.warp_specialize(%ready, %done)
    default {
      ttng.arrive_barrier %ready, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      ttg.warp_yield
    }
    partition0(%r: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %d: !ttg.memdesc<1xi64, #shared1, #smem, mutable>) num_warps(4) {
      %z = arith.constant 0 : i32
      %k32 = arith.constant 32 : i32
      %k64 = arith.constant 64 : i32
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      %c = COND
      ttng.wait_barrier %r, %z : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      BODY
      ttg.warp_return
    } : (!ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>) -> ()
    tt.return
  }
}
)";

const char *kArriveIf = "scf.if %c { ttng.arrive_barrier %d, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> }";

struct Case : testing::CheckedRun { // findings, agents, stalled: of the last run()
  std::unique_ptr<mlir::MLIRContext> ctx = ir::makeContext();
  std::optional<sim::Program> program;

  Case(const std::string &cond, const std::string &body, int doneCount = 1) {
    std::string text = std::regex_replace(kKernel, std::regex("COND"), cond);
    text = std::regex_replace(text, std::regex("BODY"), body);
    text = std::regex_replace(text, std::regex("DONE_COUNT"), std::to_string(doneCount));
    program = testing::lowerText(*ctx, text);
  }
  bool perWarp() const { return program->warpSpecializes.at(0).workers.at(0).perWarp; }
  /// Simulates one CTA with the checkers; the agents' partition names in start order.
  void run() {
    static_cast<testing::CheckedRun &>(*this) = testing::checkedRun(*program, "h200", TLXSIM_SOURCE_DIR "/models");
  }
};

} // namespace

TEST_CASE("warp agents: a thread-id condition some warps take around an arrive splits the partition") {
  Case c("arith.cmpi eq, %t, %z : i32", kArriveIf);
  CHECK(c.perWarp());
  REQUIRE(c.program->threadIfWarps.size() == 1);
  CHECK(c.program->threadIfWarps[0] == std::vector<int32_t>{1, 0, 0, 0});
  c.run();
  CHECK(c.agents == std::vector<std::string>{"default", "partition0 warp 0", "partition0 warp 1",
                                             "partition0 warp 2", "partition0 warp 3"});
  CHECK_FALSE(c.stalled);
  CHECK(c.findings.empty());
}

TEST_CASE("warp agents: the same condition in every warp keeps one agent (fast path)") {
  // `tid % 32 == 0`: lane 0 of each warp, 1 thread per warp: uniform; the arrive counts 4 (once per taking thread)
  Case c("arith.remsi %t, %k32 : i32\n      %c0 = arith.cmpi eq, %c, %z : i32",
         "scf.if %c0 { ttng.arrive_barrier %d, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> }", 4);
  CHECK_FALSE(c.perWarp());
  CHECK(c.program->threadIfWarps.at(0) == std::vector<int32_t>{1, 1, 1, 1});
  c.run();
  CHECK(c.agents == std::vector<std::string>{"default", "partition0"});
  CHECK(c.findings.empty());
}

TEST_CASE("warp agents: a non-uniform condition around register work only keeps one agent") {
  Case c("arith.cmpi slt, %t, %k64 : i32", "scf.if %c { %x = arith.addi %t, %z : i32 }");
  CHECK(c.program->threadIfWarps.at(0) == std::vector<int32_t>{32, 32, 0, 0});
  CHECK_FALSE(c.perWarp());
}

TEST_CASE("warp agents: elected-thread ops run once, in warp 0's agent") {
  // a plain arrive outside any thread-id if is thread 0's: one arrival on a count-1 barrier, not four
  Case c("arith.cmpi eq, %t, %z : i32",
         std::string(kArriveIf) + "\n      ttng.arrive_barrier %r, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>");
  CHECK(c.perWarp());
  c.run();
  CHECK_FALSE(c.stalled);
  CHECK(c.findings.empty());
}

TEST_CASE("warp agents: the partition's gpu.barrier is a rendezvous of its warps") {
  Case c("arith.cmpi eq, %t, %z : i32", std::string("gpu.barrier\n      ") + kArriveIf);
  CHECK(c.perWarp());
  c.run();
  CHECK_FALSE(c.stalled);
  CHECK(c.findings.empty());
}
