// Triton's shared-memory allocator reproduced from TTGIR (sim/SharedAllocation.h): offsets and sizes on small
// hand-written cases. The expected offsets of the TTGIR cases are what Triton 3.6.0's own
// allocate_shared_memory_nv pass writes (`allocation.offset`, `ttg.shared`) for the same text.
#include "ir/Dialects.h"
#include "ir/Reader.h"
#include "sim/SharedAllocation.h"
#include "sim/WarpOwners.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#ifndef TLXSIM_SOURCE_DIR
#define TLXSIM_SOURCE_DIR "."
#endif

using namespace tlxsim;

namespace {

sim::SharedBuffer buffer(int64_t size, int64_t alignment, uint64_t start, uint64_t end) {
  sim::SharedBuffer b;
  b.size = size;
  b.alignment = alignment;
  b.start = start;
  b.end = end;
  return b;
}

/// The allocation of a module given as text; fails the test if it does not parse or allocate.
sim::SharedAllocation allocate(llvm::StringRef text) {
  auto ctx = ir::makeContext();
  std::string diag;
  llvm::raw_string_ostream os(diag);
  auto module = ir::readTTGIRText(text, "test.ttgir", *ctx, os);
  REQUIRE_MESSAGE(module, diag);
  auto allocation = sim::allocateSharedMemory(*module);
  REQUIRE(allocation);
  return *allocation;
}

const sim::SharedBuffer *find(const sim::SharedAllocation &a, llvm::StringRef what) {
  for (const sim::SharedBuffer &b : a.buffers)
    if (llvm::StringRef(b.what).contains(what))
      return &b;
  FAIL("no buffer " << what.str());
  return nullptr;
}

} // namespace

TEST_CASE("shared allocation: buffers never live at once share bytes; live ones do not") {
  std::vector<sim::SharedBuffer> disjoint{buffer(1024, 16, 0, 5), buffer(1024, 16, 5, 9)};
  CHECK(sim::assignSharedOffsets(disjoint) == 1024);
  CHECK(disjoint[0].offset == 0);
  CHECK(disjoint[1].offset == 0);
  std::vector<sim::SharedBuffer> overlapping{buffer(1024, 16, 0, 6), buffer(1024, 16, 5, 9)};
  CHECK(sim::assignSharedOffsets(overlapping) == 2048);
  CHECK(overlapping[0].offset == 0);
  CHECK(overlapping[1].offset == 1024);
}

TEST_CASE("shared allocation: largest first, each start aligned to its buffer's alignment") {
  // 2000 bytes (align 16) first at 0; the 1024-aligned buffer starts at alignTo(2000, 1024) = 2048
  std::vector<sim::SharedBuffer> buffers{buffer(1024, 1024, 0, 9), buffer(2000, 16, 0, 9)};
  CHECK(sim::assignSharedOffsets(buffers) == 3072);
  CHECK(buffers[1].offset == 0);
  CHECK(buffers[0].offset == 2048);
  // a 24-byte barrier array after a 100-byte one: 100 rounded up to 16
  std::vector<sim::SharedBuffer> small{buffer(100, 8, 0, 9), buffer(24, 16, 0, 9)};
  CHECK(sim::assignSharedOffsets(small) == 136);
  CHECK(small[1].offset == 112);
}

TEST_CASE("shared allocation: buffers of concurrent warp_specialize regions never share bytes") {
  std::vector<sim::SharedBuffer> buffers{buffer(4096, 16, 0, 3), buffer(4096, 16, 4, 7)};
  buffers[0].asyncOp = buffers[1].asyncOp = 10;
  buffers[0].asyncRegion = 1;
  buffers[1].asyncRegion = 2;
  CHECK(sim::assignSharedOffsets(buffers) == 8192);
  buffers[1].asyncRegion = 1; // the same region: live ranges decide again
  buffers[0].offset = buffers[1].offset = 0;
  CHECK(sim::assignSharedOffsets(buffers) == 4096);
}

TEST_CASE("shared allocation from TTGIR: a dead buffer's bytes are reused, a cross-warp reduction gets scratch") {
  // Triton 3.6.0 (allocate_shared_memory_nv, sm_90) gives %a 0, %b 8704, %c 0, the reduce 8192; ttg.shared 8712
  auto a = allocate(R"(
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<128x32xf32, #blocked>, %ptr: tensor<32x!tt.ptr<f32>, #ttg.slice<{dim = 0, parent = #blocked}>>) {
    %a = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %b = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #bar, #smem, mutable>
    ttg.local_dealloc %a : !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %c = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %r = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%p: f32, %q: f32):
      %s = arith.addf %p, %q : f32
      tt.reduce.return %s : f32
    }) : (tensor<128x32xf32, #blocked>) -> tensor<32xf32, #ttg.slice<{dim = 0, parent = #blocked}>>
    tt.store %ptr, %r : tensor<32x!tt.ptr<f32>, #ttg.slice<{dim = 0, parent = #blocked}>>
    ttg.local_dealloc %c : !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    ttg.local_dealloc %b : !ttg.memdesc<1xi64, #bar, #smem, mutable>
    tt.return
  }
}
)");
  CHECK(a.sizeBytes == 8712);
  CHECK(a.estimates.empty());
  REQUIRE(a.buffers.size() == 4);
  CHECK(a.buffers[0].offset == 0);    // %a, 64x64xf16 = 8192 bytes, nvmma 128B swizzle: aligned 1024
  CHECK(a.buffers[0].alignment == 1024);
  CHECK(a.buffers[1].offset == 8704); // %b, live throughout: past %c and the reduction's scratch
  CHECK(a.buffers[2].offset == 0);    // %c reuses %a's bytes
  const sim::SharedBuffer *reduce = find(a, "tt.reduce");
  CHECK(reduce->size == 512); // the 4 warps along axis 0 exchange a 4 x 32 f32 tile
  CHECK(reduce->offset == 8192);
}

TEST_CASE("shared allocation of a captured Gluon WS GEMM equals Triton's offsets and `shared`") {
  auto ctx = ir::makeContext();
  std::string diag;
  llvm::raw_string_ostream os(diag);
  auto module = ir::readTTGIR(TLXSIM_SOURCE_DIR "/tests/inputs/hopper/ws_gemm/s3/ws_gemm_kernel.ttgir", *ctx, os);
  REQUIRE_MESSAGE(module, diag);
  auto a = sim::allocateSharedMemory(*module);
  REQUIRE(a);
  CHECK(a->sizeBytes == 131132); // ws_gemm_kernel.json "shared"
  // Triton's allocation.offset: a_bufs 0, b_bufs 49152, c_smem (default region) 98304 shared with the capture
  // scratch (100 bytes, live only at the warp_specialize), ready 131072, empty 131104, the warp indices 131128
  std::vector<int64_t> offsets;
  for (const sim::SharedBuffer &b : a->buffers)
    offsets.push_back(b.offset);
  CHECK(offsets == std::vector<int64_t>{0, 49152, 131072, 131104, 98304, 131128, 98304});
  const sim::SharedBuffer *captures = find(*a, "ttg.warp_specialize");
  CHECK(captures->size == 100); // 2 descriptors x 8 + 2 rank-3 memdescs x 20 + 2 rank-2 x 16 + 3 i32 x 4
  const sim::SharedBuffer *warps = find(*a, "tt.func");
  CHECK(warps->size == 4); // one byte per partition warp, the 1-warp partition padded to a warp group
}

/// The allocation of a capture under tests/inputs; fails the test if it does not parse or allocate.
sim::SharedAllocation allocateCapture(const std::string &relative) {
  auto ctx = ir::makeContext();
  std::string diag;
  llvm::raw_string_ostream os(diag);
  auto module = ir::readTTGIR(TLXSIM_SOURCE_DIR "/" + relative, *ctx, os);
  REQUIRE_MESSAGE(module, diag);
  auto a = sim::allocateSharedMemory(*module);
  REQUIRE(a);
  return *a;
}

TEST_CASE("shared allocation, fbtriton: warp_specialize captures live for the whole function") {
  // fbtriton 3.7.4 lib/Analysis/Allocation.cpp resolveScratchBufferLiveness: a WarpSpecializeOp's capture scratch
  // is live over [0, number of ops), not only at the op; getValueLivenessRange starts a value live at a
  // warp_specialize at id 0. fbtriton's allocate_shared_memory_nv on this TLX capture writes: k_tiles 0, v_tiles
  // 65536, q_tiles 131072, the partition's local_alloc and convert_layout 163840, the captures 196608, barriers
  // 196768..196832, the function's warp indices 196840; ttg.shared 196844 (_attn_fwd_ws.json "shared").
  sim::SharedAllocation a = allocateCapture("tests/inputs/tlx/hopper/hopper_fa_ws/g1/_attn_fwd_ws.ttgir");
  CHECK(a.sizeBytes == 196844);
  const sim::SharedBuffer *captures = find(a, "ttg.warp_specialize");
  CHECK(captures->size == 148);
  CHECK(captures->offset == 196608);
  CHECK(captures->start == 0);
  const sim::SharedBuffer *warps = find(a, "tt.func");
  CHECK(warps->offset == 196840); // with the captures live only at the op, it fitted in their tail at 196756
  std::vector<int64_t> offsets;
  for (const sim::SharedBuffer &b : a.buffers)
    offsets.push_back(b.offset);
  CHECK(offsets == std::vector<int64_t>{131072, 0, 65536, 196832, 196768, 196784, 196800, 196816, 163840, 196840,
                                        196608, 163840});
}

TEST_CASE("shared allocation, fbtriton: the TMEM allocation's tcgen5_global_alloc scratch") {
  // fbtriton 3.7.4 lib/Dialect/TritonNvidiaGPU/Transforms/TensorMemoryAllocation.cpp inserts a
  // ttng.tcgen5_global_alloc (4 bytes of scratch for tcgen05.alloc's address, aligned 128 like any op scratch)
  // at the kernel start, or right before the first tmem_alloc with tlx.enable_paired_cta_mma. fbtriton's
  // allocate_shared_memory_nv gives it 229760 here (ttg.shared 229764), after the warp indices at 229744.
  sim::SharedAllocation ws =
      allocateCapture("tests/inputs/tlx/blackwell/blackwell_gemm_ws/bm256_bn128_s4_t2_sub2/"
                      "matmul_kernel_tma_ws_blackwell.ttgir");
  CHECK(ws.sizeBytes == 229764);
  const sim::SharedBuffer *tmem = find(ws, "ttng.tcgen5_global_alloc");
  CHECK(tmem->size == 4);
  CHECK(tmem->alignment == 128);
  CHECK(tmem->offset == 229760);
  CHECK(tmem->start == 0); // the first op of the kernel
  CHECK(find(ws, "tt.func")->offset == 229744);
  // paired CTA MMAs: before the first tmem_alloc, after the barriers it follows (fbtriton: 49280; shared 49284)
  sim::SharedAllocation paired =
      allocateCapture("tests/inputs/tlx/blackwell/blackwell_gemm_2cta/default/tcgen5_dot_kernel2cta_tma.ttgir");
  CHECK(paired.sizeBytes == 49284);
  const sim::SharedBuffer *pairedTmem = find(paired, "ttng.tcgen5_global_alloc");
  CHECK(llvm::StringRef(pairedTmem->what).contains("before ttng.tmem_alloc"));
  CHECK(pairedTmem->offset == 49280);
}

TEST_CASE("shared allocation: padded_shared pads after every interval but the last (getPaddedSize)") {
  // Triton 3.6.0 lib/Dialect/TritonGPU/IR/Dialect.cpp PaddedSharedEncodingAttr::getPaddedSize: `padding` elements
  // per `interval`, minus the one after the last element when the size is a multiple of the interval. The two
  // buffers of TLX's amd_fa_pipelined (gfx950): 8192 f16 with [512:+8] -> 8192 + 16 x 8 - 8 = 8312 elements, with
  // [512:+32] -> 8192 + 16 x 32 - 32 = 8672; AMD's allocate_shared_memory gives them 17344 and 0 (ttg.shared 33968)
  auto a = allocate(R"(
#k = #ttg.padded_shared<[512:+8] {offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [16, 0], [32, 0], [1, 0], [2, 0], [4, 0], [8, 0]], block = []}>
#v = #ttg.padded_shared<[512:+32] {offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [16, 0], [32, 0], [1, 0], [2, 0], [4, 0], [8, 0]], block = []}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx950", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k() {
    %k = ttg.local_alloc : () -> !ttg.memdesc<1x64x128xf16, #k, #smem, mutable>
    %v = ttg.local_alloc : () -> !ttg.memdesc<1x64x128xf16, #v, #smem, mutable>
    ttg.local_dealloc %k : !ttg.memdesc<1x64x128xf16, #k, #smem, mutable>
    ttg.local_dealloc %v : !ttg.memdesc<1x64x128xf16, #v, #smem, mutable>
    tt.return
  }
}
)");
  REQUIRE(a.buffers.size() == 2);
  CHECK(a.buffers[0].size == 16624);
  CHECK(a.buffers[1].size == 17344);
  CHECK(a.buffers[1].offset == 0);
  CHECK(a.buffers[0].offset == 17344);
  CHECK(a.sizeBytes == 33968);
}

TEST_CASE("warp owners: which warps hold a layout's elements") {
  auto ctx = ir::makeContext();
  std::string diag;
  llvm::raw_string_ostream os(diag);
  auto module = ir::readTTGIRText(R"(
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @k(%x: tensor<32x32xf32, #blocked>) {
    tt.return
  }
}
)",
                                  "test.ttgir", *ctx, os);
  REQUIRE_MESSAGE(module, diag);
  auto func = &module->getBody()->front();
  auto type = mlir::cast<mlir::RankedTensorType>(func->getRegion(0).front().getArgument(0).getType());
  auto owners = sim::warpOwners(type.getEncoding(), type.getShape());
  REQUIRE(owners);
  // rows 0-7 / 8-15 / 16-23 / 24-31 alternate warps 0-1 / 2-3; columns 0-15 -> warp 0 or 2, 16-31 -> warp 1 or 3
  CHECK((*owners)[0] == 1u << 0);
  CHECK((*owners)[16] == 1u << 1);
  CHECK((*owners)[8 * 32] == 1u << 2);
  CHECK((*owners)[16 * 32] == 1u << 0); // the layout repeats every 16 rows
  CHECK(sim::warpsAlongAxis(type.getEncoding(), type.getShape(), 0) == 2);
  CHECK(sim::warpsAlongAxis(type.getEncoding(), type.getShape(), 1) == 2);
}

TEST_CASE("warp owners: a linear layout larger than the tensor broadcasts (ensureLayoutNotLargerThan)") {
  auto ctx = ir::makeContext();
  std::string diag;
  llvm::raw_string_ostream os(diag);
  // TLX Blackwell FA: 128x1 tensors whose layout has register bases along a dim of size 1 (Triton drops them), so
  // converting between the two needs no shared memory (fbtriton gives these convert_layouts no scratch)
  auto module = ir::readTTGIRText(R"(
#linear = #ttg.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
#linear1 = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @k(%x: tensor<128x1xf32, #linear>, %y: tensor<128x1xf32, #linear1>) {
    tt.return
  }
}
)",
                                  "test.ttgir", *ctx, os);
  REQUIRE_MESSAGE(module, diag);
  auto &entry = module->getBody()->front().getRegion(0).front();
  auto x = mlir::cast<mlir::RankedTensorType>(entry.getArgument(0).getType());
  auto y = mlir::cast<mlir::RankedTensorType>(entry.getArgument(1).getType());
  auto from = sim::warpOwners(x.getEncoding(), x.getShape());
  auto to = sim::warpOwners(y.getEncoding(), y.getShape());
  REQUIRE(from);
  REQUIRE(to);
  CHECK(*from == *to);
  CHECK((*to)[32] == 1u << 1);
  CHECK((*to)[127] == 1u << 3);
}
