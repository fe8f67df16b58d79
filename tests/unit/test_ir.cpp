// The TTGIR reader: types, encodings, op syntax table, locations, errors.
#include "ir/Cga.h"
#include "ir/Dialects.h"
#include "ir/Location.h"
#include "ir/OpSyntax.h"
#include "ir/Reader.h"
#include "ir/Types.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#include <fstream>

using namespace tlxsim;

namespace {

/// Writes `text` to a temporary .ttgir file and reads it.
struct Read {
  std::unique_ptr<mlir::MLIRContext> ctx = ir::makeContext();
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string diagnostics;
  explicit Read(const std::string &text) {
    llvm::SmallString<128> path;
    llvm::sys::fs::createTemporaryFile("tlxsim-test", "ttgir", path);
    std::ofstream(path.c_str()) << text;
    llvm::raw_string_ostream os(diagnostics);
    module = ir::readTTGIR(path, *ctx, os);
    llvm::sys::fs::remove(path);
  }
  mlir::Operation *find(llvm::StringRef name) {
    mlir::Operation *found = nullptr;
    module->walk([&](mlir::Operation *op) {
      if (!found && op->getName().getStringRef() == name)
        found = op;
    });
    return found;
  }
};

const char *kModule = R"(#loc = loc(unknown)
#loc1 = loc("kernels/k.py":10:0)
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func public @k(%d: !tt.tensordesc<tensor<128x64xf16, #shared>> loc("d"(#loc1)), %n: i32 loc("n"(#loc1))) attributes {noinline = false} {
    %true = arith.constant true loc(#loc)
    %c0 = arith.constant 0 : i32 loc(#loc)
    %bufs = ttg.local_alloc : () -> !ttg.memdesc<3x128x64xf16, #shared, #smem, mutable> loc(#loc3)
    %bars = ttg.local_alloc : () -> !ttg.memdesc<3x1xi64, #shared1, #smem, mutable> loc(#loc4)
    %b = ttg.memdesc_index %bars[%c0] : !ttg.memdesc<3x1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc(#loc)
    ttng.init_barrier %b, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc(#loc)
    ttng.wait_barrier %b, %c0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc(#loc6)
    ttng.wait_barrier %b, %c0, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc(#loc)
    tt.return loc(#loc)
  } loc(#loc1)
} loc(#loc)
#loc2 = loc("kernels/k.py":12:8)
#loc3 = loc("bufs"(#loc2))
#loc4 = loc("bars"(#loc2))
#loc5 = loc("triton/language/standard.py":43:17)
#loc6 = loc(callsite(#loc5 at #loc2))
)";

} // namespace

TEST_CASE("Triton types and encodings get structured accessors") {
  Read r(kModule);
  REQUIRE_MESSAGE(r.module, r.diagnostics);
  mlir::Operation *alloc = r.find("ttg.local_alloc");
  REQUIRE(alloc);
  auto memdesc = mlir::cast<ir::MemDescType>(alloc->getResult(0).getType());
  CHECK(memdesc.getShape() == llvm::ArrayRef<int64_t>{3, 128, 64});
  CHECK(memdesc.getElementType().isF16());
  CHECK(memdesc.isSharedMemory());
  CHECK_FALSE(memdesc.isTensorMemory());
  CHECK(memdesc.isMutable());
  CHECK(memdesc.getSizeInBytes() == 3 * 128 * 64 * 2);
  auto encoding = mlir::cast<ir::EncodingAttr>(memdesc.getEncoding());
  CHECK(encoding.getMnemonic() == "nvmma_shared");
  CHECK(encoding.getInt("swizzlingByteWidth") == 128);
  CHECK(encoding.getInt("elementBitWidth") == 16);

  auto func = r.find("tt.func");
  auto desc = mlir::cast<ir::TensorDescType>(func->getRegion(0).front().getArgument(0).getType());
  CHECK(desc.getBlockBytes() == 128 * 64 * 2);
}

TEST_CASE("operand groups follow the op table: optional predicate present or absent") {
  Read r(kModule);
  REQUIRE_MESSAGE(r.module, r.diagnostics);
  std::vector<mlir::Operation *> waits;
  r.module->walk([&](mlir::Operation *op) {
    if (op->getName().getStringRef() == "ttng.wait_barrier")
      waits.push_back(op);
  });
  REQUIRE(waits.size() == 2);
  CHECK(ir::getOperandGroup(waits[0], "pred")->size() == 0);
  CHECK(ir::getOperandGroup(waits[1], "pred")->size() == 1);
  CHECK(ir::getOperandGroup(waits[1], "phase")->size() == 1);
  CHECK(ir::getOperandGroup(waits[1], "deps")->size() == 0);
  CHECK_FALSE(ir::getOperandGroup(waits[1], "nonexistent").has_value());
  mlir::Operation *init = r.find("ttng.init_barrier");
  CHECK(init->getAttrOfType<mlir::IntegerAttr>("count").getInt() == 1);
}

TEST_CASE("TMA copy operand groups: TLX's multicast mask, and Triton 3.6's generic form without segment sizes") {
  const char *text = R"(#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func public @k(%d: !tt.tensordesc<tensor<128x64xf16, #shared>>) {
    %true = arith.constant true
    %c0 = arith.constant 0 : i32
    %c3 = arith.constant 3 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    %b = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.async_tma_copy_global_to_local %d[%c0, %c0] %buf, %b, %true, %c3 : !tt.tensordesc<tensor<128x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    ttng.async_tma_copy_global_to_local %d[%c0, %c0] %buf, %b, %true : !tt.tensordesc<tensor<128x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    "ttng.async_tma_copy_global_to_local"(%d, %c0, %c0, %b, %buf, %true) : (!tt.tensordesc<tensor<128x64xf16, #shared>>, i32, i32, !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, i1) -> ()
    tt.return
  }
})";
  Read r(text);
  REQUIRE_MESSAGE(r.module, r.diagnostics);
  std::vector<mlir::Operation *> copies;
  r.module->walk([&](mlir::Operation *op) {
    if (op->getName().getStringRef() == "ttng.async_tma_copy_global_to_local")
      copies.push_back(op);
  });
  REQUIRE(copies.size() == 3);
  for (size_t i = 0; i < copies.size(); ++i) {
    CAPTURE(i);
    CHECK(ir::getOperandGroup(copies[i], "coord")->size() == 2);
    CHECK(ir::getOperandGroup(copies[i], "multicastTargets")->size() == (i == 0 ? 1u : 0u));
    CHECK(ir::getOperandGroup(copies[i], "pred")->size() == 1);
    CHECK(ir::getOperandGroup(copies[i], "pred")->front().getType().isInteger(1));
    CHECK(mlir::isa<ir::MemDescType>(ir::getOperandGroup(copies[i], "result")->front().getType()));
  }
  auto mask = ir::getOperandGroup(copies[0], "multicastTargets")->front().getDefiningOp();
  CHECK(mlir::cast<mlir::IntegerAttr>(mask->getAttr("value")).getInt() == 3);
}

TEST_CASE("locations: variable names and the first frame outside Triton's library") {
  Read r(kModule);
  REQUIRE_MESSAGE(r.module, r.diagnostics);
  mlir::Operation *alloc = r.find("ttg.local_alloc");
  CHECK(ir::variableName(alloc->getLoc()) == "bufs");
  ir::SourceLoc loc = ir::pythonLocation(alloc->getLoc());
  CHECK(loc.str() == "kernels/k.py:12:8");
  mlir::Operation *wait = r.find("ttng.wait_barrier");
  CHECK(ir::pythonLocation(wait->getLoc()).str() == "kernels/k.py:12:8"); // skips triton/language/standard.py
}

TEST_CASE("malformed input: file:line:col errors, no module") {
  SUBCASE("truncated") {
    Read r(std::string(kModule).substr(0, 900));
    CHECK_FALSE(r.module);
    CHECK(r.diagnostics.find(":") != std::string::npos);
    CHECK(r.diagnostics.find("error:") != std::string::npos);
  }
  SUBCASE("unknown op in custom syntax names the op and the Triton version") {
    Read r("module {\n  ttng.frobnicate %x : i32\n}\n");
    CHECK_FALSE(r.module);
    CHECK(r.diagnostics.find(":2:3: error: custom op 'ttng.frobnicate' is not supported in custom syntax") !=
          std::string::npos);
    CHECK(r.diagnostics.find("Triton 3.6") != std::string::npos);
  }
  SUBCASE("unknown Triton type") {
    Read r("module {\n  tt.func @f(%a: !ttg.weird<1>) {\n    tt.return\n  }\n}\n");
    CHECK_FALSE(r.module);
    CHECK(r.diagnostics.find("unsupported Triton type '!ttg.weird'") != std::string::npos);
  }
  SUBCASE("missing operand type information is an error, not a crash") {
    Read r("module {\n  %0 = ttg.memdesc_index %a[%b] : i32\n}\n");
    CHECK_FALSE(r.module);
    CHECK(r.diagnostics.find("error:") != std::string::npos);
  }
}

TEST_CASE("every op-table entry has a well-formed format") {
  // Parsing an op of every entry would need operands of the right types; instead check
  // that each table entry's format compiles, through a parse that fails only on operands.
  for (const ir::OpSpec &spec : ir::allOpSpecs()) {
    CHECK(ir::lookupOpSpec(spec.name) == &spec);
  }
  CHECK(ir::lookupOpSpec("ttng.not_an_op") == nullptr);
}

TEST_CASE("CGA layouts: per-CTA parts of split boxes and buffers (Triton's getShapePerCTA)") {
  Read r(R"(#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CGALayout = [[1, 0]]}>
#bcast = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CGALayout = [[1, 0], [0, 0]]}>
#four = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CGALayout = [[0, 1], [1, 0]]}>
#legacy = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
  tt.func public @k(%d: !tt.tensordesc<tensor<128x128xf16, #shared>>, %e: !tt.tensordesc<tensor<128x128xf16, #bcast>>, %f: !tt.tensordesc<tensor<128x128xf16, #four>>) {
    %a = ttg.local_alloc : () -> !ttg.memdesc<3x128x128xf16, #shared, #smem, mutable>
    %z = arith.constant dense<0.0> : tensor<128x64xf16, #legacy>
    tt.return
  }
}
)");
  REQUIRE(r.module);
  auto fn = r.find("tt.func");
  REQUIRE(fn);
  auto &body = fn->getRegion(0).front();
  auto split = cast<ir::TensorDescType>(body.getArgument(0).getType());
  auto bcast = cast<ir::TensorDescType>(body.getArgument(1).getType());
  auto four = cast<ir::TensorDescType>(body.getArgument(2).getType());
  // [[1, 0]]: rows in 2 parts, 64 x 128 fp16 per CTA (host box 64x64, two 128B-wide messages)
  CHECK(ir::ctaSplitNum(split.getBlockType().getEncoding(), 2) == llvm::SmallVector<int64_t>{2, 1});
  CHECK(ir::boxBytesPerCta(split) == 16384);
  CHECK(ir::boxElementsPerCta(split) == 8192);
  CHECK(ir::ctaSplitBits(split.getBlockType().getEncoding()) == 1u);
  // a zero basis broadcasts: 4 CTAs, 2 parts, CTA-id bit 1 does not pick the part
  CHECK(ir::boxBytesPerCta(bcast) == 16384);
  CHECK(ir::ctaSplitBits(bcast.getBlockType().getEncoding()) == 1u);
  // both dimensions split: 64 x 64 per CTA
  CHECK(ir::ctaSplitNum(four.getBlockType().getEncoding(), 2) == llvm::SmallVector<int64_t>{2, 2});
  CHECK(ir::boxBytesPerCta(four) == 8192);
  CHECK(ir::ctaSplitBits(four.getBlockType().getEncoding()) == 3u);
  // a pipelined buffer: the leading buffer index is not split, 3 x 64 x 128 per CTA
  auto alloc = cast<ir::MemDescType>(r.find("ttg.local_alloc")->getResult(0).getType());
  CHECK(ir::elementsPerCta(alloc) == 3 * 64 * 128);
  CHECK(ir::bytesPerCta(alloc) == 3 * 64 * 128 * 2);
  CHECK(alloc.getSizeInBytes() == 3 * 128 * 128 * 2); // the logical (cluster-wide) view is unchanged
  // the pre-3.6 CTASplitNum key; register tensors too
  auto tensor = r.find("arith.constant")->getResult(0).getType();
  CHECK(ir::elementsPerCta(tensor) == 64 * 64);
  // no CGA layout: the whole box
  CHECK(ir::ctaSplitNum(mlir::Attribute(), 2) == llvm::SmallVector<int64_t>{1, 1});
}
