// ptxas's issue order as the lowering reproduces it (sim/lowering/AsyncIssue.cpp): an async wgmma is issued ahead of
// the register math before it that it does not depend on; a synchronous one and everything that is not register
// math keep their TTGIR order.
#include "ir/Dialects.h"
#include "LowerText.h"

#include <doctest/doctest.h>

#include <regex>

using namespace tlxsim;

namespace {

/// One warp group: P = exp2(x) in the wgmma accumulator layout, its row sum (independent of the dot), P packed to
/// fp16 in the A-operand layout, and P @ V with V in shared memory. ASYNC is the dot's attribute list, BETWEEN an op
/// put between the row sum and the packing.
const char *kPv = R"(#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @pv(%x: f32) {
    %true = arith.constant true
    %acc = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %v = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %a = tt.splat %x : f32 -> tensor<64x64xf32, #mma>
    %p = math.exp2 %a : tensor<64x64xf32, #mma>
    %l = "tt.reduce"(%p) <{axis = 1 : i32}> ({
    ^bb0(%u: f32, %w: f32):
      %s = arith.addf %u, %w : f32
      tt.reduce.return %s : f32
    }) : (tensor<64x64xf32, #mma>) -> tensor<64xf32, #ttg.slice<{dim = 1, parent = #mma}>>
    BETWEEN
    %h = arith.truncf %p : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %d = ttg.convert_layout %h : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
    %o = ttng.warp_group_dot %d, %v, %acc, %true ASYNC : tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf32, #mma>
    %r = ttng.warp_group_dot_wait %o {pendings = 0 : i32} : tensor<64x64xf32, #mma>
    tt.return
  }
}
)";

/// The kernel's instructions in issue order, one letter each: R the row sum (a reduction: its chain in imm2), E the
/// exp2, T other register math, W the wgmma, B a barrier-class op (a CTA barrier), - anything else.
std::string issueOrder(const std::string &async, const std::string &between = "") {
  std::string text = std::regex_replace(std::regex_replace(kPv, std::regex("ASYNC"), async), std::regex("BETWEEN"),
                                        between);
  std::unique_ptr<mlir::MLIRContext> ctx = ir::makeContext();
  sim::Program program = testing::lowerText(*ctx, text);
  std::string order;
  for (const sim::Block &block : program.blocks)
    for (const sim::Instr &in : block.instrs) {
      if (in.op == sim::Op::TensorOp && in.imm > 0)
        order += in.imm2 > 0 ? 'R' : in.sub == 1 ? 'E' : 'T';
      else if (in.op == sim::Op::WgmmaIssue)
        order += 'W';
      else if (in.op == sim::Op::CtaBarrier)
        order += 'B';
    }
  return order;
}

} // namespace

TEST_CASE("an async wgmma issues ahead of the register math before it that it does not depend on") {
  // exp2, then the packing and the in-register conversion (the dot's A operand), the dot, then the row sum
  CHECK(issueOrder("{inputPrecision = 0 : i32, isAsync = true}") == "ETTWR");
}

TEST_CASE("a synchronous wgmma keeps its TTGIR place") {
  CHECK(issueOrder("{inputPrecision = 0 : i32}") == "ERTTW");
}

TEST_CASE("an op that is not register math bounds the run the dot may pass") {
  // the CTA barrier between the row sum and the packing: the dot passes nothing before it
  CHECK(issueOrder("{inputPrecision = 0 : i32, isAsync = true}", "ttg.barrier local") == "ERBTTW");
}
