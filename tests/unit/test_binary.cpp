// Register count read from a captured cubin (cross-checked with cuobjdump by a lit test).
#include "sim/Binary.h"

#include <array>

#include <doctest/doctest.h>

#include <vector>

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

TEST_CASE("ptxas's serialized wgmma pipeline is read from the SASS") {
  // cuobjdump -sass (CUDA 13): the Proton-instrumented Gluon WS GEMM has `HGMMA ..., gsb0` + `WARPGROUP.DEPBAR.LE
  // gsb0, 0x0` for each of its 8 HGMMAs; the plain capture keeps 7 in flight and waits `DEPBAR.LE gsb0, 0x1`.
  auto proton = tlxsim::sim::readCubinResources(
      TLXSIM_SOURCE_DIR "/traces/h200/proton-captures/ws_gemm-M8192_N8192_K8192/s3/ws_gemm_kernel.cubin", "");
  REQUIRE_MESSAGE(proton, (proton ? "" : llvm::toString(proton.takeError())));
  CHECK(proton->wgmma.instructions == 8);
  CHECK(proton->wgmma.serialized == 8);
  CHECK(proton->wgmma.allSerialized());
  auto plain = tlxsim::sim::readCubinResources(TLXSIM_SOURCE_DIR "/tests/inputs/hopper/ws_gemm/s3/ws_gemm_kernel.cubin",
                                               "ws_gemm_kernel");
  REQUIRE(plain);
  CHECK(plain->wgmma.instructions == 8);
  CHECK(plain->wgmma.serialized == 0);
  CHECK_FALSE(plain->wgmma.allSerialized());
  // TLX hopper_fa_ws g1 (fbtriton 3.7.4, 480 B of spills): all 32 serialized.
  auto fa = tlxsim::sim::readCubinResources(TLXSIM_SOURCE_DIR "/tests/inputs/tlx/hopper/hopper_fa_ws/g1/_attn_fwd_ws.cubin",
                                            "");
  REQUIRE(fa);
  CHECK(fa->wgmma.instructions == 32);
  CHECK(fa->wgmma.serialized == 32);
}

/// Appends one sm_90 instruction (its two 64-bit words as cuobjdump prints them, first word first) to a code section,
/// little-endian.
static void put(std::vector<uint8_t> &text, uint64_t lo, uint64_t hi) {
  for (uint64_t word : {lo, hi})
    for (int b = 0; b < 8; ++b)
      text.push_back(static_cast<uint8_t>(word >> (8 * b)));
}

TEST_CASE("the wgmma scan reads the instruction fields it documents") {
  // Instruction words as cuobjdump prints them (first word, second word), little-endian in the section.
  const uint64_t hgmmaGsb0[2] = {0x41e000000c5879f0, 0x000fe20008000858}; // HGMMA.64x128x16.F32 ..., gsb0
  const uint64_t hgmmaNoSb[2] = {0x41e00000085879f0, 0x000fe20008700858}; // HGMMA.64x128x16.F32 ... (no scoreboard)
  const uint64_t hgmmaRegA[2] = {0x40e0000854987df0, 0x000fe20008000898}; // HGMMA.64x64x16.F32 R152, R84, ..., gsb0
  const uint64_t depbar0[2] = {0x00008000000079c5, 0x000fe40000010000};   // WARPGROUP.DEPBAR.LE gsb0, 0x0
  const uint64_t depbar1[2] = {0x00008000000079c5, 0x000fe40000010100};   // WARPGROUP.DEPBAR.LE gsb0, 0x1
  const uint64_t arrive[2] = {0x00000000000079c5, 0x000fe20000000000};    // WARPGROUP.ARRIVE
  const uint64_t bra[2] = {0x0000001000d08947, 0x000fea0003800000};       // @!P0 BRA
  std::vector<uint8_t> pipelined, serialized;
  for (auto *w : {arrive, hgmmaNoSb, hgmmaNoSb, hgmmaGsb0, depbar1, bra})
    put(pipelined, w[0], w[1]);
  for (auto *w : {arrive, hgmmaGsb0, bra, depbar0, arrive, hgmmaRegA, depbar0})
    put(serialized, w[0], w[1]);
  auto p = tlxsim::sim::cubinWgmmaIssue(pipelined);
  CHECK(p.instructions == 3);
  CHECK(p.serialized == 0);
  auto s = tlxsim::sim::cubinWgmmaIssue(serialized);
  CHECK(s.instructions == 2);
  CHECK(s.serialized == 2);
  CHECK(tlxsim::sim::cubinWgmmaIssue({}).instructions == 0);
}

TEST_CASE("the TMA loop scan counts the copies and instructions of the innermost producer loops") {
  // Words from cuobjdump -sass of traces/h200/tlx/captures/tlx_hopper_gemm_ws/bm128_bn128_s4-*.
  const uint64_t r2ur[2] = {0x00000000020622ca, 0x000fe200000e0000};    // @P2 R2UR UR6, R2
  const uint64_t utmaldg[2] = {0x0000000c060015b4, 0x0003e20008008000}; // @UP1 UTMALDG.2D [UR12], [UR6]
  const uint64_t nop[2] = {0x0000000000007918, 0x000fc00000000000};     // NOP
  // @P0 BRA back to the instruction `to` from the one at `at` (offset from the next instruction: bits 32-63 x 256
  // plus bits 16-23 x 4); the first is the word cuobjdump prints for `/*14f0*/ @P0 BRA 0xfe0` (offset -0x520).
  CHECK((0xfffffff800b80947ull >> 16 & 0xff) * 4 + int64_t(int32_t(0xfffffff800b80947ull >> 32)) * 256 == -0x520);
  auto bra = [](size_t at, size_t to) {
    int64_t offset = (int64_t(to) - int64_t(at) - 1) * 16;
    int64_t high = (offset >= 0 ? offset / 1024 : -((-offset + 1023) / 1024)) * 4;
    uint64_t low = uint64_t((offset - high * 256) / 4);
    return std::array<uint64_t, 2>{0x0000000000000947 | low << 16 | uint64_t(uint32_t(int32_t(high))) << 32,
                                   0x000fea0003800000};
  };
  std::vector<uint8_t> text;
  // 0: R2UR outside every loop; 1-6 outer loop: 1 UTMALDG, 2-5 inner loop: R2UR R2UR UTMALDG BRA(2);
  // 6 BRA(1); 7-8 a spin loop without copies: NOP BRA(7).
  put(text, r2ur[0], r2ur[1]);
  put(text, utmaldg[0], utmaldg[1]);
  put(text, r2ur[0], r2ur[1]);
  put(text, r2ur[0], r2ur[1]);
  put(text, utmaldg[0], utmaldg[1]);
  auto inner = bra(5, 2), outer = bra(6, 1), spin = bra(8, 7);
  put(text, inner[0], inner[1]);
  put(text, outer[0], outer[1]);
  put(text, nop[0], nop[1]);
  put(text, spin[0], spin[1]);
  auto t = tlxsim::sim::cubinTmaIssue(text);
  CHECK(t.copies == 1);           // the inner loop's; the outer one holds it, so its own copy is not counted
  CHECK(t.loopInstructions == 4); // instructions 2-5
  CHECK(t.instructionsPerCopy() == 4.0);
  // A loop that also runs the MMAs (a pipelined kernel without warp specialization) is not a producer's.
  const uint64_t hgmma[2] = {0x41e000000c5879f0, 0x000fe20008000858}; // HGMMA.64x128x16.F32 ..., gsb0
  std::vector<uint8_t> pipelined;
  put(pipelined, utmaldg[0], utmaldg[1]);
  put(pipelined, hgmma[0], hgmma[1]);
  auto back = bra(2, 0);
  put(pipelined, back[0], back[1]);
  CHECK(tlxsim::sim::cubinTmaIssue(pipelined).copies == 0);
  pipelined.resize(0);
  put(pipelined, utmaldg[0], utmaldg[1]);
  back = bra(1, 0);
  put(pipelined, back[0], back[1]);
  CHECK(tlxsim::sim::cubinTmaIssue(pipelined).copies == 1);
  CHECK(tlxsim::sim::cubinTmaIssue({}).copies == 0);
  CHECK(tlxsim::sim::cubinTmaIssue({}).instructionsPerCopy() == 0.0);
  // Bytes that are not code (a damaged section, another architecture): any branch target, any opcode, a tail
  // shorter than an instruction. The scan must stay in bounds and count only what it can place in a loop.
  std::vector<uint8_t> noise(16 * 4096 + 7);
  uint64_t state = 12345;
  for (uint8_t &byte : noise) {
    state = state * 6364136223846793005ull + 1442695040888963407ull; // Knuth's MMIX LCG
    byte = static_cast<uint8_t>(state >> 56);
  }
  auto n = tlxsim::sim::cubinTmaIssue(noise);
  CHECK(n.loopInstructions <= 4096);
  CHECK(n.copies <= n.loopInstructions);
}
