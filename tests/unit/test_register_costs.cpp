// Register work on one warp group: MUFU work runs on the SM's SFUs while the warps go on issuing the elementwise
// math that consumes it (Value::streamed), and a layout conversion that moves no element between warps is
// register work, not a shared-memory round trip (sim/lowering/Register.cpp, sim/ops/Register.cpp).
#include "ir/Dialects.h"
#include "sim/Engine.h"
#include "sim/GpuModel.h"
#include "sim/Launch.h"
#include "LowerText.h"

#include <doctest/doctest.h>

#include <regex>

#ifndef TLXSIM_SOURCE_DIR
#define TLXSIM_SOURCE_DIR "."
#endif

using namespace tlxsim;

namespace {

/// exp2 over a 128 x 64 fp32 accumulator-layout tile, three multiplies and a truncation that consume it, the
/// conversion of the fp16 result to the wgmma A-operand layout, and a shared-memory store that needs every element.
const char *kSoftmaxLike = R"(#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @softmax_like(%x: f32) {
    %a = tt.splat %x : f32 -> tensor<128x64xf32, #mma>
    %e = math.exp2 %a : tensor<128x64xf32, #mma>
    %m1 = arith.mulf %e, %a : tensor<128x64xf32, #mma>
    %m2 = arith.mulf %m1, %a : tensor<128x64xf32, #mma>
    %m3 = arith.mulf %m2, %a : tensor<128x64xf32, #mma>
    %h = arith.truncf %m3 : tensor<128x64xf32, #mma> to tensor<128x64xf16, #mma>
    %d = ttg.convert_layout %h : tensor<128x64xf16, #mma> -> tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
    %s = ttg.local_alloc %h : (tensor<128x64xf16, #mma>) -> !ttg.memdesc<128x64xf16, #shared, #smem>
    tt.return
  }
}
)";

/// The head of a one-warp-group Hopper module with the wgmma accumulator layout `#mma` (the kernels below).
const char *kMmaModuleHead = R"(#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
)";

/// Four multiplies over a 128 x 64 fp32 tile: elementwise ALU work only (4 x 64 cycles on one warp group).
const std::string kAluOnly = std::string(kMmaModuleHead) + R"(  tt.func public @alu_only(%x: f32) {
    %a = tt.splat %x : f32 -> tensor<128x64xf32, #mma>
    %m1 = arith.mulf %a, %a : tensor<128x64xf32, #mma>
    %m2 = arith.mulf %m1, %a : tensor<128x64xf32, #mma>
    %m3 = arith.mulf %m2, %a : tensor<128x64xf32, #mma>
    %m4 = arith.mulf %m3, %a : tensor<128x64xf32, #mma>
    tt.return
  }
}
)";

/// %m: the row maximum of a splat 64 x 128 wgmma accumulator %a (4 warps: each thread holds 32 elements of 2 rows,
/// 4 lanes share a row): the body of the kernels below.
const char *kRowMaxOfSplat = R"(    %a = tt.splat %x : f32 -> tensor<64x128xf32, #mma>
    %m = "tt.reduce"(%a) <{axis = 1 : i32}> ({
    ^bb0(%p: f32, %q: f32):
      %r = arith.maxnumf %p, %q : f32
      tt.reduce.return %r : f32
    }) : (tensor<64x128xf32, #mma>) -> tensor<64xf32, #ttg.slice<{dim = 1, parent = #mma}>>
)";

/// A row maximum and the multiply that consumes it.
const std::string kRowMax = std::string(kMmaModuleHead) + "  tt.func public @row_max(%x: f32) {\n" +
                            kRowMaxOfSplat + R"(    %y = arith.mulf %m, %m : tensor<64xf32, #ttg.slice<{dim = 1, parent = #mma}>>
    tt.return
  }
}
)";

/// Per-op busy cycles and operand stalls of each of the run's agents, in the order they ended.
struct WorkOf : sim::Listener {
  std::vector<sim::AgentWork> all;
  void onAgentWork(int32_t, const sim::AgentWork &w) override { all.push_back(w); }
  /// The last agent's work (a one-agent run's only one).
  const sim::AgentWork &last() const {
    REQUIRE_FALSE(all.empty());
    return all.back();
  }
};

/// The run of `text` on model h200 with the knob settings `sets` ("name=value") and `grid` CTAs.
WorkOf runOn(const std::string &text, const std::vector<std::string> &sets, const std::string &grid = "1") {
  std::unique_ptr<mlir::MLIRContext> ctx = ir::makeContext();
  sim::Program program = testing::lowerText(*ctx, text);
  auto gpu = sim::GpuModel::load("h200", TLXSIM_SOURCE_DIR "/models");
  REQUIRE(gpu);
  for (const std::string &set : sets)
    REQUIRE_FALSE(llvm::errorToBool(gpu->set(set)));
  sim::Launch launch;
  REQUIRE_FALSE(llvm::errorToBool(launch.setGrid(grid)));
  REQUIRE_FALSE(llvm::errorToBool(launch.setArg("arg0=1.5")));
  auto engine = sim::Engine::create(program, *gpu, launch, {});
  REQUIRE_MESSAGE(engine, llvm::toString(engine.takeError()));
  WorkOf listener;
  (*engine)->addListener(&listener);
  auto r = (*engine)->run();
  REQUIRE_MESSAGE(r, llvm::toString(r.takeError()));
  return listener;
}

/// The run's one agent's work on model h200 with the knob settings `sets`.
sim::AgentWork workOn(const std::vector<std::string> &sets) { return runOn(kSoftmaxLike, sets).last(); }

} // namespace

TEST_CASE("MUFU work overlaps the elementwise issue that consumes it; an in-warp layout conversion is ALU work") {
  sim::AgentWork w = workOn({});
  // h200: 128 ALU lanes and 16 SFU results per clock per SM; one warp group has all 4 SMSPs. 8192 elements:
  // 64 cycles of issue per elementwise op (exp2, 3 x mulf, truncf, the conversion in registers) = 384, while the
  // SFUs take 8192 / 16 = 512 cycles. The shared-memory store is not interleaved with the MUFU instructions: it
  // issues after the last of them (ops/Register.cpp awaitMufuIssue), the warps issuing until then: 512 cycles of
  // register work in all, charged to the ops, and no operand stall.
  size_t tensorOp = static_cast<size_t>(sim::Op::TensorOp);
  CHECK(w.cycles[tensorOp] == 512);
  CHECK(w.mufuHeld == 512 - 6 * 64); // the store held behind the MUFU instructions, nothing else to issue
  CHECK(w.operandWait[tensorOp] == 0); // elementwise consumers of a streamed value do not stall
  sim::Cycle stalled = 0;
  for (sim::Cycle c : w.operandWait)
    stalled += c;
  CHECK(stalled == 0);
}

/// One warp group: exp2 over a 128 x 64 tile (64 cycles of issue, 512 on the SFUs) and a row sum of it (a consumer:
/// 64 cycles of issue among the MUFUs; it also keeps the exp2 in its place, lowering/Sink.cpp), then `body`, then a
/// shared-memory store of `stored` (a memory op: it issues after the MUFU instructions).
std::string mufuThen(const std::string &body, const std::string &stored) {
  std::string head = kMmaModuleHead; // the #shared / #smem aliases go before the module
  head.insert(head.find("module"), "#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, "
                                   "elementBitWidth = 16}>\n#smem = #ttg.shared_memory\n");
  return head + R"(  tt.func public @mufu_then(%x: f32) {
    %a = tt.splat %x : f32 -> tensor<128x64xf32, #mma>
    %e = math.exp2 %a : tensor<128x64xf32, #mma>
    %r = "tt.reduce"(%e) <{axis = 1 : i32}> ({
    ^bb0(%p: f32, %q: f32):
      %rs = arith.addf %p, %q : f32
      tt.reduce.return %rs : f32
    }) : (tensor<128x64xf32, #mma>) -> tensor<128xf32, #ttg.slice<{dim = 1, parent = #mma}>>
)" + body + "    %h = arith.truncf " + stored + R"( : tensor<128x64xf32, #mma> to tensor<128x64xf16, #mma>
    %s = ttg.local_alloc %h : (tensor<128x64xf16, #mma>) -> !ttg.memdesc<128x64xf16, #shared, #smem>
    tt.return
  }
}
)";
}

/// `n` multiplies that do not read the exp2 result, one after another (%i1 ... %in).
std::string independentChain(int n) {
  std::string body;
  for (int i = 1; i <= n; ++i)
    body += "    %i" + std::to_string(i) + " = arith.mulf " + (i == 1 ? std::string("%a") : "%i" + std::to_string(i - 1)) +
            ", %a : tensor<128x64xf32, #mma>\n";
  return body;
}

TEST_CASE("a memory op after MUFU work issues when both the MUFUs and the register math before it have issued") {
  // exp2 + row sum (SFUs until 512, issue until 128), n independent 64-cycle multiplies, then the store of the exp2
  // result (its truncf, 64 more): the store issues at max(512, 64 (n + 3)).
  for (int n : {2, 10}) {
    CAPTURE(n);
    sim::AgentWork w = runOn(mufuThen(independentChain(n), "%e"), {}).last();
    size_t tensorOp = static_cast<size_t>(sim::Op::TensorOp);
    sim::Cycle issue = 64 * (n + 3);
    CHECK(w.cycles[tensorOp] == std::max<sim::Cycle>(512, issue));
    CHECK(w.mufuHeld == std::max<sim::Cycle>(512, issue) - issue);
  }
}

TEST_CASE("an exp2-class op after the previous one's MUFU work starts a new stream, and the store waits for it") {
  // exp2 #1 + row sum (SFUs 0 .. 512), 7 independent multiplies (issued by 576), exp2 #2 of their result (SFUs
  // 576 .. 1088, issued 576 .. 640), its truncf (640 .. 704): the store issues at 1088.
  std::string body = independentChain(7) + "    %e2 = math.exp2 %i7 : tensor<128x64xf32, #mma>\n";
  sim::AgentWork w = runOn(mufuThen(body, "%e2"), {}).last();
  size_t tensorOp = static_cast<size_t>(sim::Op::TensorOp);
  CHECK(w.cycles[tensorOp] == 1088);
  CHECK(w.mufuHeld == 1088 - 704);
}

TEST_CASE("without a separate SFU pipe (CDNA: transcendentals on the VALU) MUFU work is the warps' own time") {
  sim::AgentWork w = workOn({"sfu_separate_pipe=0"});
  size_t tensorOp = static_cast<size_t>(sim::Op::TensorOp);
  CHECK(w.cycles[tensorOp] == 512 + 5 * 64); // exp2 at 16 per clock, then five 64-cycle ops
  sim::Cycle stalled = 0;
  for (sim::Cycle c : w.operandWait)
    stalled += c;
  CHECK(stalled == 0);
}

TEST_CASE("two warp groups on one SM share its ALU lanes (their warps share the 4 SMSPs)") {
  size_t tensorOp = static_cast<size_t>(sim::Op::TensorOp);
  // One CTA per SM: each warp group has the SM's 128 lanes, 4 x 64 cycles.
  WorkOf apart = runOn(kAluOnly, {"num_sms=2"}, "2");
  REQUIRE(apart.all.size() == 2);
  for (const sim::AgentWork &w : apart.all)
    CHECK(w.cycles[tensorOp] == 4 * 64);
  // Both CTAs on one SM: the 512 cycles of lane work are served one op after another, so the two warp groups
  // together are busy for more than 512 + 256 cycles (each op of one waits for the other's), and the later one
  // finishes its fourth multiply no earlier than cycle 512.
  WorkOf shared = runOn(kAluOnly, {"num_sms=1"}, "2");
  REQUIRE(shared.all.size() == 2);
  sim::Cycle sum = shared.all[0].cycles[tensorOp] + shared.all[1].cycles[tensorOp];
  CHECK(sum >= 2 * 4 * 64 + 3 * 64);
  CHECK(std::max(shared.all[0].cycles[tensorOp], shared.all[1].cycles[tensorOp]) >= 2 * 4 * 64 - 64);
}

TEST_CASE("a reduction's result waits for its dependent chain: one thread's elements, then the shuffle rounds") {
  size_t tensorOp = static_cast<size_t>(sim::Op::TensorOp);
  // h200: 31 dependent max steps over a thread's 32 elements x 4.12 clk, then 2 shuffle rounds (4 lanes per row) x
  // (25 + 4.12): 185.96 -> 186 clk from the reduction's start, of which its issue (8192 elements / 128 lanes) is 64;
  // the multiply waits the other 122.
  sim::AgentWork w = runOn(kRowMax, {}).last();
  CHECK(w.cycles[tensorOp] == 64 + 1); // the reduction, then the multiply of 64 elements (1 clk)
  CHECK(w.operandWait[tensorOp] == 186 - 64);
  sim::AgentWork none = runOn(kRowMax, {"alu_dependent_latency_cycles=0", "shuffle_latency_cycles=0"}).last();
  CHECK(none.operandWait[tensorOp] == 0);
}

namespace {
/// A row maximum over a 64 x 128 wgmma accumulator, broadcast back over its rows (expand_dims, broadcast: no work)
/// and multiplied into the tile.
const std::string kRowMaxScale = std::string(kMmaModuleHead) + "  tt.func public @row_max_scale(%x: f32) {\n" +
                                 kRowMaxOfSplat + R"(    %me = tt.expand_dims %m {axis = 1 : i32} : tensor<64xf32, #ttg.slice<{dim = 1, parent = #mma}>> -> tensor<64x1xf32, #mma>
    %mb = tt.broadcast %me : tensor<64x1xf32, #mma> -> tensor<64x128xf32, #mma>
    %y = arith.mulf %a, %mb : tensor<64x128xf32, #mma>
    tt.return
  }
}
)";
} // namespace

TEST_CASE("an op without lane work (expand_dims, broadcast) does not hold the SM's ALU lanes") {
  size_t tensorOp = static_cast<size_t>(sim::Op::TensorOp);
  // Two CTAs on one SM. The first runs its row max on [0, 64), the second on [64, 128); the first's broadcast waits
  // for its chain (186) and its multiply takes [186, 250); the second's chain ends at 64 + 186 = 250 and its
  // multiply takes [250, 314). A broadcast that reserved the lanes at 186 (out of time order: it reserves nothing)
  // would start the second's row max at 186 instead of 64.
  WorkOf both = runOn(kRowMaxScale, {"num_sms=1"}, "2");
  REQUIRE(both.all.size() == 2);
  sim::Cycle first = std::min(both.all[0].cycles[tensorOp], both.all[1].cycles[tensorOp]);
  sim::Cycle second = std::max(both.all[0].cycles[tensorOp], both.all[1].cycles[tensorOp]);
  CHECK(first == 64 + 64);
  CHECK(second == 128 + 64);
}
