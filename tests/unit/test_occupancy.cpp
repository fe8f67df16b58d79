// Occupancy of the captured Hopper kernels on the H200 model equals the CTAs per SM listed in
// tests/occupancy/h200.json (cuOccupancyMaxActiveBlocksPerMultiprocessor on an H200, or values
// derived by hand from the CUDA occupancy rules and marked "derived, to be measured" until
// tests/occupancy/measure_h200.py has run on the device). Plus the rules on their own.
#include "ir/Dialects.h"
#include "ir/Reader.h"
#include "sim/Binary.h"
#include "sim/Lowering.h"
#include "sim/Occupancy.h"
#include "sim/ProtonBuffer.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <doctest/doctest.h>

#ifndef TLXSIM_SOURCE_DIR
#define TLXSIM_SOURCE_DIR "."
#endif

using namespace tlxsim;

TEST_CASE("occupancy of captured kernels equals tests/occupancy/h200.json") {
  auto buffer = llvm::MemoryBuffer::getFile(TLXSIM_SOURCE_DIR "/tests/occupancy/h200.json");
  REQUIRE(buffer);
  auto json = llvm::json::parse((*buffer)->getBuffer());
  REQUIRE(json);
  const llvm::json::Array *configs = json->getAsObject()->getArray("configs");
  REQUIRE(configs);
  CHECK(configs->size() >= 8);
  auto model = sim::GpuModel::load("h200", TLXSIM_SOURCE_DIR "/models");
  REQUIRE(model);
  for (const llvm::json::Value &value : *configs) {
    const llvm::json::Object &config = *value.getAsObject();
    std::string input = config.getString("input")->str(), kernel = config.getString("kernel")->str();
    std::string base = std::string(TLXSIM_SOURCE_DIR) + "/tests/inputs/" + input + "/" + kernel;
    CAPTURE(input);
    auto ctx = ir::makeContext();
    std::string diag;
    llvm::raw_string_ostream os(diag);
    auto module = ir::readTTGIR(base + ".ttgir", *ctx, os);
    REQUIRE_MESSAGE(module, diag);
    auto program = sim::lowerModule(*module);
    REQUIRE(program);
    auto binary = sim::readCubinResources(base + ".cubin", kernel);
    REQUIRE(binary);
    int64_t shared = *config.getInteger("dynamic_shared_bytes");
    auto inputs = sim::occupancyInputs(*program, shared, binary->registersPerThread, binary->staticSharedBytes);
    CHECK(inputs.warps * 32 == *config.getInteger("threads_per_cta"));
    auto occupancy = sim::computeOccupancy(inputs, *model);
    REQUIRE(occupancy);
    CHECK(occupancy->ctasPerSm == *config.getInteger("ctas_per_sm"));
  }
}

TEST_CASE("occupancy rules: registers per sub-partition, shared-memory unit and reserve, warps, TMEM") {
  auto h200 = sim::GpuModel::load("h200", TLXSIM_SOURCE_DIR "/models");
  auto b200 = sim::GpuModel::load("b200", TLXSIM_SOURCE_DIR "/models");
  REQUIRE(h200);
  REQUIRE(b200);
  sim::OccupancyInputs in;
  in.warps = 4;
  in.sharedBytes = 0;
  // 128 registers x 32 threads = 4096 per warp; 16384 per sub-partition -> 4 warps each -> 4 CTAs.
  in.registersPerThread = 128;
  auto o = sim::computeOccupancy(in, *h200);
  REQUIRE(o);
  CHECK(o->ctasPerSm == 4);
  CHECK(o->limit == "registers");
  // 129 registers round up to 4352 per warp: 3 warps per sub-partition -> 12 warps -> 3 CTAs.
  in.registersPerThread = 129;
  o = sim::computeOccupancy(in, *h200);
  REQUIRE(o);
  CHECK(o->ctasPerSm == 3);
  // Shared memory: 100 KB + 1 KB reserve per CTA in 228 KB -> 2; one byte more rounds up to
  // the 128-byte unit and still fits twice; 116 KB does not.
  in.registersPerThread = 32;
  in.sharedBytes = 100 * 1024 + 1;
  o = sim::computeOccupancy(in, *h200);
  REQUIRE(o);
  CHECK(o->ctasPerSm == 2);
  CHECK(o->limit == "shared memory");
  in.sharedBytes = 116 * 1024;
  o = sim::computeOccupancy(in, *h200);
  REQUIRE(o);
  CHECK(o->ctasPerSm == 1);
  // Warps: 64 per SM.
  in.sharedBytes = 0;
  in.registersPerThread = -1;
  in.warps = 24;
  o = sim::computeOccupancy(in, *h200);
  REQUIRE(o);
  CHECK(o->ctasPerSm == 2);
  CHECK(o->limit == "warps");
  // TMEM: 512 columns per SM; 256 columns per CTA -> 2.
  in.warps = 4;
  in.tmemColumns = 256;
  o = sim::computeOccupancy(in, *b200);
  REQUIRE(o);
  CHECK(o->ctasPerSm == 2);
  CHECK(o->limit == "tensor memory");
  // A CTA that does not fit is an error naming the limit.
  in.tmemColumns = 0;
  in.sharedBytes = 300 * 1024;
  o = sim::computeOccupancy(in, *h200);
  REQUIRE_FALSE(o);
  CHECK(llvm::toString(o.takeError()).find("shared memory") != std::string::npos);
  // The same bytes estimated from the module's allocations (no metadata): an upper bound, so one CTA per SM with a
  // warning, never a refusal.
  in.sharedEstimated = true;
  o = sim::computeOccupancy(in, *h200);
  REQUIRE(o);
  CHECK(o->ctasPerSm == 1);
  CHECK(o->limit == "shared memory");
  CHECK(o->warning.find("307200 bytes") != std::string::npos);
  in.sharedBytes = 100 * 1024; // an estimate that fits gives no warning
  o = sim::computeOccupancy(in, *h200);
  REQUIRE(o);
  CHECK(o->ctasPerSm == 2);
  CHECK(o->warning.empty());
}

TEST_CASE("hsaco registers: the kernel descriptor's unified VGPR allocation of gfx942 (arch + acc, granule 8)") {
  auto r = sim::readHsacoResources(TLXSIM_SOURCE_DIR "/tests/inputs/amd-gfx942/gemm/s2/gemm_kernel.hsaco", "gemm_kernel");
  REQUIRE(r);
  // gemm_kernel.kd: COMPUTE_PGM_RSRC1 = 0x00af0119 (bits 5:0 = 25: (25 + 1) x 8 = 208 VGPRs),
  // COMPUTE_PGM_RSRC3 = 0x23 (ACCUM_OFFSET 35: (35 + 1) x 4 = 144 arch VGPRs); the metadata note agrees:
  // .vgpr_count 208 (the total), .agpr_count 64 (llvm-readelf --notes; llvm-objdump -s -j .rodata).
  CHECK(r->registersPerThread == 208);
  CHECK(r->architecturalVgprs == 144);
  CHECK(r->accumulationVgprs == 64);
  // gfx950 attention (TLX amd_fa_pipelined simple): RSRC1 bits 5:0 = 49 -> 400 VGPRs, RSRC3 ACCUM_OFFSET 63 ->
  // 256 arch VGPRs; .vgpr_count 400, .agpr_count 144. One wave of 400 VGPRs per SIMD (512-entry file).
  auto fa = sim::readHsacoResources(
      TLXSIM_SOURCE_DIR "/tests/inputs/tlx/amd-gfx950/amd_fa_pipelined/simple/_attn_fwd_async_simple.hsaco",
      "_attn_fwd_async_simple");
  REQUIRE(fa);
  CHECK(fa->registersPerThread == 400);
  CHECK(fa->architecturalVgprs == 256);
  CHECK(fa->accumulationVgprs == 144);
  auto missing = sim::readHsacoResources(TLXSIM_SOURCE_DIR "/tests/inputs/amd-gfx942/gemm/s2/gemm_kernel.hsaco", "nope");
  CHECK_FALSE(missing);
  llvm::consumeError(missing.takeError());
}

TEST_CASE("Proton's profile buffer: sized from the shared memory Triton's allocation leaves (getAllocSharedMemSize)") {
  // Triton 3.6.0 third_party/proton/Dialect/lib/ProtonToProtonGPU/ProtonToProtonGPUPass.cpp getAllocSharedMemSize
  // and AllocateProtonSharedMemory.cpp; H200: max_shared_mem 232448. The expected sizes are the metadata `shared`
  // and `profile_scratch_size` (buffer + 128) of traces/h200/proton-captures.
  const int64_t h200 = 232448;
  // ws_gemm s2: 98340 used, 8 warps: (232448 - 98344) / 8 -> 32768 / 2 = 16384 per warp, 131072 in all; two CTAs
  // would fit, so halved down to 4 % of 232448 (9297): 8192
  CHECK(sim::protonBufferBytes(98340, 8, h200) == 8192);
  CHECK(sim::protonInstrumentedSharedBytes(98340, 8, h200) == 106536);
  // ws_gemm s4: 163908 used: one CTA per SM, no 4 % cap: (232448 - 163912) / 8 = 8567 -> 16384 / 2 = 8192 per warp
  CHECK(sim::protonBufferBytes(163908, 8, h200) == 65536);
  CHECK(sim::protonInstrumentedSharedBytes(163908, 8, h200) == 229448);
  // tlx_hopper_gemm_ws bn128_s4: 12 warps, 164152 used: 5691 -> 8192 / 2 = 4096 per warp
  CHECK(sim::protonInstrumentedSharedBytes(164152, 12, h200) == 213304);
  // attention_fwd bn64_s2: 65580 rounds up to 65584 (8-byte entries) before the buffer
  CHECK(sim::protonInstrumentedSharedBytes(65580, 8, h200) == 73776);
  // a used size over the device's counts the device as max + used; no segments: no buffer
  CHECK(sim::protonBufferBytes(240000, 4, h200) == 4 * 65536 / 2);
  CHECK(sim::protonBufferBytes(1000, 0, h200) == 0);
}

TEST_CASE("Proton-instrumented capture: predict's IR-only shared memory equals the metadata's") {
  // tlx_hopper_fa_ws g2: fbtriton's allocation 196856 bytes; 4 + 8 partition warps = 12 segments of 2048 bytes
  std::string base = TLXSIM_SOURCE_DIR "/traces/h200/proton-captures/tlx_hopper_fa_ws-Z4_H32_N_CTX4096_D128/g2/";
  auto ctx = ir::makeContext();
  std::string diag;
  llvm::raw_string_ostream os(diag);
  auto module = ir::readTTGIR(base + "_attn_fwd_ws.ttgir", *ctx, os);
  REQUIRE_MESSAGE(module, diag);
  CHECK(sim::protonSegments(*module) == 12);
  auto program = sim::lowerModule(*module);
  REQUIRE(program);
  CHECK(program->allocatedSharedBytes == 196856);
  CHECK(program->protonSegments == 12);
  auto h200 = sim::GpuModel::load("h200", TLXSIM_SOURCE_DIR "/models");
  REQUIRE(h200);
  auto occupancy = sim::computeOccupancy(sim::occupancyInputs(*program, -1, 168), *h200);
  REQUIRE(occupancy);
  CHECK(occupancy->sharedBytes == 221432); // _attn_fwd_ws.json "shared"
  CHECK(occupancy->ctasPerSm == 1);
}
