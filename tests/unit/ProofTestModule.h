// A tiny kernel for the prover's stage tests (tests/unit/test_proof_*.cpp): one K loop over a 3-slot barrier
// array `bars` (slot 0 initialized with count 2, the others 1) and a staged buffer `bufs`; each iteration arrives
// on and waits (parity 0) on slot k % 3, so consecutive waits on a slot repeat a parity once k reaches 3.
#pragma once

#include "ir/Dialects.h"
#include "ir/Reader.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace tlxsim::prooftest {

/// The module's text with `loops` copies of the K loop (2: two sequential loops, which the prover rejects).
inline std::string kernelText(int loops = 1) {
  std::string loop = R"(    scf.for %i = %c0 to %n step %c1  : i32 {
      %s = arith.remsi %i, %c3 : i32 loc(#loc)
      %b = ttg.memdesc_index %bars[%s] : !ttg.memdesc<3x1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc(#loc)
      ttng.arrive_barrier %b, 1, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc(#loc)
      ttng.wait_barrier %b, %c0, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc(#loc5)
    } loc(#loc)
)";
  std::string text = R"(#loc = loc(unknown)
#loc1 = loc("kernels/k.py":10:0)
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func public @k(%n: i32 loc("n"(#loc1))) attributes {noinline = false} {
    %true = arith.constant true loc(#loc)
    %c0 = arith.constant 0 : i32 loc(#loc)
    %c1 = arith.constant 1 : i32 loc(#loc)
    %c3 = arith.constant 3 : i32 loc(#loc)
    %bufs = ttg.local_alloc : () -> !ttg.memdesc<3x128x64xf16, #shared, #smem, mutable> loc(#loc3)
    %bars = ttg.local_alloc : () -> !ttg.memdesc<3x1xi64, #shared1, #smem, mutable> loc(#loc4)
    %b0 = ttg.memdesc_index %bars[%c0] : !ttg.memdesc<3x1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc(#loc)
    ttng.init_barrier %b0, 2 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc(#loc)
)";
  for (int i = 0; i < loops; ++i)
    text += loop;
  text += R"(    tt.return loc(#loc)
  } loc(#loc1)
} loc(#loc)
#loc2 = loc("kernels/k.py":12:8)
#loc3 = loc("bufs"(#loc2))
#loc4 = loc("bars"(#loc2))
#loc5 = loc("kernels/k.py":20:6)
)";
  return text;
}

/// The module's text with the K loop's bounds (`%c0 to %n step %c1`) replaced by `bounds`, and `constant` (an
/// `arith.constant` line's op, e.g. `%ub = arith.constant 6 : i32`) defined after %c3 when not empty.
inline std::string kernelWithBounds(const std::string &bounds, const std::string &constant = "") {
  std::string text = kernelText();
  const std::string loop = "%c0 to %n step %c1", c3 = "%c3 = arith.constant 3 : i32 loc(#loc)";
  text.replace(text.find(loop), loop.size(), bounds);
  if (!constant.empty())
    text.replace(text.find(c3), c3.size(), c3 + "\n    " + constant + " loc(#loc)");
  return text;
}

/// The parsed module and its context.
struct Kernel {
  std::unique_ptr<mlir::MLIRContext> ctx = ir::makeContext();
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string diagnostics;
  explicit Kernel(const std::string &text = kernelText()) {
    llvm::raw_string_ostream os(diagnostics);
    module = ir::readTTGIRText(text, "k.ttgir", *ctx, os);
  }
  /// The first op named `name`, null when none.
  mlir::Operation *find(llvm::StringRef name) {
    mlir::Operation *found = nullptr;
    module->walk([&](mlir::Operation *op) {
      if (!found && op->getName().getStringRef() == name)
        found = op;
    });
    return found;
  }
};

} // namespace tlxsim::prooftest
