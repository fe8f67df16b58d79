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
