// Triton's linear layouts of register encodings (sim/RegisterLayout.h) and the scratch of a swizzled layout
// conversion (sim/CvtSwizzle.h). Expected bases are what Triton 3.6.0's toLinearLayout gives (gluon
// `to_linear_layout`); expected scratch sizes are the `ttg.shared` its allocate-shared-memory pass writes for the
// same module (tests/occupancy/triton_allocation.py).
#include "ir/Dialects.h"
#include "ir/Reader.h"
#include "sim/CvtSwizzle.h"
#include "sim/RegisterLayout.h"
#include "sim/SharedAllocation.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

using namespace tlxsim;

namespace {

using Bases = std::vector<std::vector<int64_t>>;

/// The layouts of the arguments of the module's first function (given as text).
struct Args {
  std::unique_ptr<mlir::MLIRContext> ctx = ir::makeContext();
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::optional<sim::RegisterLayout> layout(unsigned i) {
    auto type = mlir::cast<mlir::RankedTensorType>(
        module->getBody()->front().getRegion(0).front().getArgument(i).getType());
    return sim::toRegisterLayout(type.getEncoding(), type.getShape());
  }
};

std::unique_ptr<Args> parse(llvm::StringRef text) {
  auto args = std::make_unique<Args>();
  std::string diag;
  llvm::raw_string_ostream os(diag);
  args->module = ir::readTTGIRText(text, "test.ttgir", *args->ctx, os);
  REQUIRE_MESSAGE(args->module, diag);
  return args;
}

/// Triton's `ttg.shared` for a module of one convert_layout, as tlx-sim allocates it.
int64_t sharedOf(llvm::StringRef text) {
  auto args = parse(text);
  auto allocation = sim::allocateSharedMemory(*args->module);
  REQUIRE(allocation);
  CHECK(allocation->estimates.empty());
  return allocation->sizeBytes;
}

} // namespace

TEST_CASE("register layout: Triton's toLinearLayout of mfma, its dot operands, nvidia_mma, slice and blocked") {
  auto args = parse(R"(
#mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = false}>
#mma16 = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 16], isTransposed = true}>
#nv = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 64, 16]}>
#nv2 = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [0, 1]}>
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @k(%a: tensor<128x128xf32, #mma>, %b: tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>,
                    %c: tensor<64x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma16, kWidth = 8}>>,
                    %d: tensor<128x256xf32, #nv>, %e: tensor<128xf32, #ttg.slice<{dim = 1, parent = #nv}>>,
                    %f: tensor<16x256xf32, #blocked>, %g: tensor<64x64xf32, #nv2>) {
    tt.return
  }
}
)");
  auto mfma = args->layout(0);
  REQUIRE(mfma);
  CHECK(mfma->reg == Bases{{1, 0}, {2, 0}, {8, 0}, {16, 0}, {0, 64}, {64, 0}});
  CHECK(mfma->lane == Bases{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {4, 0}});
  CHECK(mfma->warp == Bases{{0, 32}, {32, 0}});
  auto dotA = args->layout(1);
  REQUIRE(dotA);
  CHECK(dotA->reg == Bases{{0, 1}, {0, 2}, {0, 8}, {0, 16}, {0, 32}, {64, 0}});
  CHECK(dotA->lane == Bases{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 4}});
  CHECK(dotA->warp == Bases{{0, 0}, {32, 0}});
  auto dotB = args->layout(2);
  REQUIRE(dotB);
  CHECK(dotB->reg == Bases{{1, 0}, {2, 0}, {4, 0}, {32, 0}, {0, 32}});
  CHECK(dotB->lane == Bases{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {8, 0}, {16, 0}});
  CHECK(dotB->warp == Bases{{0, 16}, {0, 0}});
  auto hopper = args->layout(3);
  REQUIRE(hopper);
  CHECK(hopper->reg == Bases{{0, 1}, {8, 0}, {0, 8}, {0, 16}, {0, 32}, {0, 128}, {64, 0}});
  CHECK(hopper->lane == Bases{{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}});
  CHECK(hopper->warp == Bases{{16, 0}, {32, 0}, {0, 64}});
  auto slice = args->layout(4);
  REQUIRE(slice);
  CHECK(slice->reg == Bases{{8}, {64}});
  CHECK(slice->lane == Bases{{0}, {0}, {1}, {2}, {4}});
  CHECK(slice->warp == Bases{{16}, {32}, {0}});
  auto blocked = args->layout(5);
  REQUIRE(blocked);
  CHECK(blocked->reg == Bases{{0, 1}, {0, 2}, {0, 32}, {0, 64}, {0, 128}});
  CHECK(blocked->lane == Bases{{1, 0}, {2, 0}, {4, 0}, {0, 4}, {0, 8}});
  CHECK(blocked->warp == Bases{{8, 0}, {0, 16}});
  auto ampere = args->layout(6);
  REQUIRE(ampere);
  CHECK(ampere->reg == Bases{{0, 1}, {8, 0}, {0, 16}, {0, 32}, {32, 0}});
  CHECK(ampere->warp == Bases{{0, 8}, {16, 0}});
}

TEST_CASE("swizzled convert_layout scratch: elements / reps, as Triton 3.6 allocates it") {
  // AMD (ld/st only): blocked -> mfma dot operand, 256x128 f16: one rep, half the tensor (Triton: 32768)
  CHECK(sharedOf(R"(
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.amd_mfma<{version = 4, warpsPerCTA = [4, 1], instrShape = [32, 32, 16], isTransposed = true}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx950", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%x: tensor<256x128xf16, #blocked>) -> tensor<256x128xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>> {
    %y = ttg.convert_layout %x : tensor<256x128xf16, #blocked> -> tensor<256x128xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>>
    tt.return %y : tensor<256x128xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>>
  }
}
)") == 32768);
  // NVIDIA sm_90: the TMEM-load layout -> blocked, 128x128 f16: ld.shared with ldmatrix gives 4 reps (Triton: 8192)
  CHECK(sharedOf(R"(
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#linear = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<128x128xf16, #linear>) -> tensor<128x128xf16, #blocked> {
    %y = ttg.convert_layout %x : tensor<128x128xf16, #linear> -> tensor<128x128xf16, #blocked>
    tt.return %y : tensor<128x128xf16, #blocked>
  }
}
)") == 8192);
  // wgmma accumulator -> blocked, 128x256 f32 over 8 warps: 4 reps (Triton: 32768 of 131072 bytes)
  CHECK(sharedOf(R"(
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 128, 16]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<128x256xf32, #mma>) -> tensor<128x256xf32, #blocked> {
    %y = ttg.convert_layout %x : tensor<128x256xf32, #mma> -> tensor<128x256xf32, #blocked>
    tt.return %y : tensor<128x256xf32, #blocked>
  }
}
)") == 32768);
  // a transpose (row-major -> column-major blocked), 64x64 bf16: no register basis common to both, no reps: the
  // whole tensor (Triton: 8192)
  CHECK(sharedOf(R"(
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<64x64xbf16, #blocked>) -> tensor<64x64xbf16, #blocked1> {
    %y = ttg.convert_layout %x : tensor<64x64xbf16, #blocked> -> tensor<64x64xbf16, #blocked1>
    tt.return %y : tensor<64x64xbf16, #blocked1>
  }
}
)") == 8192);
}
