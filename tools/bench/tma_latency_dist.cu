// The distribution of a TMA copy's latency under load (issue 17: the loaded-latency queue, models/h200.json
// tma_latency_cycles / tma_queue_wait_cycles). One CTA per SM on `nsm` SMs; in each CTA, S warps each own one
// shared-memory slot and its mbarrier, and loop: lane 0 issues one cp.async.bulk.tensor.2d copy (64-column bf16 box,
// 128B swizzle as Triton's NVMMA layout) into its slot, spins on try_wait.parity until the copy's bytes land, and
// records issue -> landed in clock64 cycles. So each SM keeps S copies in flight, as a GEMM producer with S stages
// whose consumers never hold a stage, and the device keeps nsm x S. The source is L2-resident (8 MiB) or streams
// from HBM (4 GiB). After `warm` copies per warp, `keep` latencies per warp go to global memory; the host prints per
// point: min, p10, p50, mean, p90, p99, max, the standard deviation, and (mean - min) / std (1 for a shifted
// exponential, the M/M/1 waiting time the model assumes), then a 16-bin histogram of (latency - min).
// Build: nvcc -O3 -arch=sm_90a -o tma_latency_dist tma_latency_dist.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#include "tma_box_map.cuh"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)

__device__ __forceinline__ uint32_t sptr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__global__ void __launch_bounds__(32 * 16) dist(const __grid_constant__ CUtensorMap tm, int tiles, int boxRows,
                                                int bytes, int warm, int keep, int stream, unsigned *out) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ __align__(8) uint64_t bar[16];
  int warp = threadIdx.x / 32, S = blockDim.x / 32;
  unsigned char *base = (unsigned char *)(((uintptr_t)smem + 1023) & ~(uintptr_t)1023);
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sptr(&bar[s])));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x % 32 != 0) return;
  asm volatile("prefetch.tensormap [%0];" ::"l"(&tm) : "memory");
  int n = warm + keep;
  int step = stream ? 1 : 13;
  long long start = stream ? ((long long)(blockIdx.x * S + warp) * n) : (long long)(blockIdx.x * 7 + warp * 3);
  int tile = (int)(start % tiles);
  unsigned *mine = out + ((size_t)blockIdx.x * S + warp) * keep;
  for (int i = 0; i < n; ++i) {
    int row = tile * boxRows;
    tile += step; if (tile >= tiles) tile -= tiles;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sptr(&bar[warp])), "r"(bytes) : "memory");
    long long t0 = clock64();
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(sptr(base + (size_t)warp * bytes)), "l"(&tm), "r"(0), "r"(row), "r"(sptr(&bar[warp])) : "memory");
    uint32_t done = 0;
    while (!done)
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                   : "=r"(done) : "r"(sptr(&bar[warp])), "r"((uint32_t)(i & 1)) : "memory");
    long long t1 = clock64();
    if (i >= warm) mine[i - warm] = (unsigned)(t1 - t0);
  }
}

int main() {
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", (void **)&encode, cudaEnableDefault, &q));
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int cols = 64;
  const size_t bigBytes = (size_t)4 << 30, l2Bytes = (size_t)8 << 20;
  void *big; CK(cudaMalloc(&big, bigBytes)); CK(cudaMemset(big, 1, bigBytes));
  const int warm = 64, keep = 512;
  unsigned *out; CK(cudaMalloc(&out, (size_t)sms * 16 * keep * sizeof(unsigned)));
  CK(cudaFuncSetAttribute(dist, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024));
  printf("source nsm box_bytes S samples min p10 p50 mean p90 p99 max std (mean-min)/std | histogram of latency-min, 16 bins of width\n");
  for (int stream : {0, 1})
    for (int boxRows : {128, 256})
      for (int nsm : {1, sms})
        for (int S : {1, 2, 3, 4, 6}) {
          int bytes = boxRows * cols * 2;
          if ((size_t)S * bytes > 200 * 1024) continue;
          size_t src = stream ? bigBytes : l2Bytes;
          uint64_t rows = src / (cols * 2);
          CUtensorMap tm = encodeBoxMap(encode, big, src, cols, boxRows);
          int tiles = (int)(rows / boxRows);
          size_t shm = (size_t)S * bytes + 1024;
          for (int rep = 0; rep < 2; ++rep) {  // rep 0 warms L2 and the clocks
            dist<<<nsm, 32 * S, shm>>>(tm, tiles, boxRows, bytes, warm, keep, stream, out);
            CK(cudaDeviceSynchronize());
          }
          size_t count = (size_t)nsm * S * keep;
          std::vector<unsigned> h(count);
          CK(cudaMemcpy(h.data(), out, count * sizeof(unsigned), cudaMemcpyDeviceToHost));
          std::sort(h.begin(), h.end());
          double mean = 0, var = 0;
          for (unsigned v : h) mean += v;
          mean /= count;
          for (unsigned v : h) var += (v - mean) * (v - mean);
          double sd = std::sqrt(var / count);
          auto pct = [&](double p) { return h[std::min(count - 1, (size_t)(p * count))]; };
          printf("%s %d %d %d %zu %u %u %u %.0f %u %u %u %.0f %.2f |", stream ? "hbm" : "l2", nsm, bytes, S, count, h[0],
                 pct(0.1), pct(0.5), mean, pct(0.9), pct(0.99), h[count - 1], sd, sd > 0 ? (mean - h[0]) / sd : 0.0);
          double width = std::max(1.0, (pct(0.99) - h[0]) / 16.0);
          int bins[16] = {};
          for (unsigned v : h) bins[std::min(15, (int)((v - h[0]) / width))]++;
          for (int b = 0; b < 16; ++b) printf(" %d", bins[b]);
          printf(" (width %.0f)\n", width);
        }
  return 0;
}
