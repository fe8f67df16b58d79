// CHECK(x): a CUDA runtime call whose failure prints the error with its place and makes the caller return 1.
// Shared by the benchmarks that include it (int_latency_bench.cu, alu_latency_bench.cu).
#pragma once

#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(x)                                                                                                   \
  do {                                                                                                             \
    cudaError_t e = (x);                                                                                           \
    if (e != cudaSuccess) {                                                                                        \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__);                          \
      return 1;                                                                                                    \
    }                                                                                                              \
  } while (0)
