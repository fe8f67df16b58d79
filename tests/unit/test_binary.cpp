// Register count read from a captured cubin (cross-checked with cuobjdump by a lit test).
#include "sim/Binary.h"

#include <doctest/doctest.h>

#ifndef TLXSIM_SOURCE_DIR
#define TLXSIM_SOURCE_DIR "."
#endif

TEST_CASE("the WS GEMM cubin uses 255 registers per thread") {
  auto r = tlxsim::sim::readCubinResources(TLXSIM_SOURCE_DIR "/tests/inputs/hopper/ws_gemm/s3/ws_gemm_kernel.cubin",
                                           "ws_gemm_kernel");
  REQUIRE_MESSAGE(r, (r ? "" : llvm::toString(r.takeError())));
  CHECK(r->registersPerThread == 255);
  CHECK(r->kernel == "ws_gemm_kernel");
}

TEST_CASE("a non-cubin file is an error, not a crash") {
  auto r = tlxsim::sim::readCubinResources(TLXSIM_SOURCE_DIR "/CMakeLists.txt", "");
  CHECK_FALSE(r);
  llvm::consumeError(r.takeError());
  auto missing = tlxsim::sim::readCubinResources("/nonexistent.cubin", "");
  CHECK_FALSE(missing);
  llvm::consumeError(missing.takeError());
}

TEST_CASE("the stack frame of a cubin that spills registers is read from .nv.info") {
  // cuobjdump -res-usage (fbtriton 3.7.4's): REG:255 STACK:480 (TLX hopper_fa_ws g1); REG:168 STACK:1024 (TLX
  // hopper_gemm_ws bm256_bn256_s2_sub, 1511 us measured at 4096^3 on an H200 against 224 us predicted).
  auto fa = tlxsim::sim::readCubinResources(TLXSIM_SOURCE_DIR "/tests/inputs/tlx/hopper/hopper_fa_ws/g1/_attn_fwd_ws.cubin",
                                            "");
  REQUIRE_MESSAGE(fa, (fa ? "" : llvm::toString(fa.takeError())));
  CHECK(fa->registersPerThread == 255);
  CHECK(fa->stackFrameBytes == 480);
  CHECK(fa->minStackBytes == 480);
  CHECK(fa->spilledBytes == 480);
  auto gemm = tlxsim::sim::readCubinResources(
      TLXSIM_SOURCE_DIR "/traces/h200/tlx/captures/tlx_hopper_gemm_ws/bm256_bn256_s2_sub-0e892cc8/matmul_kernel_tlx_ws.cubin",
      "matmul_kernel_tlx_ws");
  REQUIRE_MESSAGE(gemm, (gemm ? "" : llvm::toString(gemm.takeError())));
  CHECK(gemm->registersPerThread == 168);
  CHECK(gemm->stackFrameBytes == 1024);
}

TEST_CASE("a cubin without spills has no stack frame; a small frame is read as it is") {
  auto ws = tlxsim::sim::readCubinResources(TLXSIM_SOURCE_DIR "/tests/inputs/hopper/ws_gemm/s3/ws_gemm_kernel.cubin",
                                            "ws_gemm_kernel");
  REQUIRE_MESSAGE(ws, (ws ? "" : llvm::toString(ws.takeError())));
  CHECK(ws->stackFrameBytes == 0); // cuobjdump: REG:255 STACK:0
  CHECK(ws->spilledBytes == 0);
  auto attn = tlxsim::sim::readCubinResources(
      TLXSIM_SOURCE_DIR "/tests/inputs/hopper/attention_fwd/bn128_s2/attention_fwd_kernel.cubin", "");
  REQUIRE_MESSAGE(attn, (attn ? "" : llvm::toString(attn.takeError())));
  CHECK(attn->stackFrameBytes == 24); // cuobjdump: REG:255 STACK:24 (below tools' 128 B spill threshold)
}
