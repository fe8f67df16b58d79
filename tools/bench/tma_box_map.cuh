// The tensor map of the TMA benchmarks (tma_bench.cu, tma_latency_dist.cu): a bf16 source of `srcBytes` bytes seen
// as rows of `cols` elements (128 B rows for 64 columns), boxes of `boxRows` x `cols`, 128B swizzle as Triton's NVMMA
// shared layout, L2 promotion 256 B. Exits with a message if the driver refuses it.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cstdio>
#include <cstdlib>

inline CUtensorMap encodeBoxMap(PFN_cuTensorMapEncodeTiled_v12000 encode, void *src, size_t srcBytes, int cols,
                                int boxRows) {
  CUtensorMap tm;
  cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)(srcBytes / (cols * 2))};
  cuuint64_t strides[1] = {(cuuint64_t)cols * 2};
  cuuint32_t box[2] = {(cuuint32_t)cols, (cuuint32_t)boxRows};
  cuuint32_t es[2] = {1, 1};
  CUresult r = encode(&tm, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, src, dims, strides, box, es,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    printf("encode failed %d\n", (int)r);
    exit(1);
  }
  return tm;
}
