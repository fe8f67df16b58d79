// TMA (cp.async.bulk.tensor.2d) copy latency and throughput on one SM and on every SM, vs box bytes and copies
// in flight per SM, L2-resident source vs HBM-streaming source. One CTA per SM, one issuing thread, a ring of S
// shared-memory slots each with its mbarrier (arrive.expect_tx + complete_tx); the thread waits for slot i%S
// before re-issuing into it. Prints one line per point: per-copy latency (issue -> wait observed, cycles),
// per-SM bytes/clk, device GB/s (cudaEvent), SM MHz (clock64 / event time).
// Build: nvcc -O3 -arch=sm_90a -o tma_bench tma_bench.cu
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#include "tma_box_map.cuh"
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)

__device__ __forceinline__ uint32_t sptr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__global__ void __launch_bounds__(32) bench(const __grid_constant__ CUtensorMap tm, int tiles, int boxRows, int bytes,
                                            int S, int iters, int stream, unsigned long long *out) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ __align__(8) uint64_t bar[64];
  if (threadIdx.x != 0) return;
  unsigned char *base = (unsigned char *)(((uintptr_t)smem + 1023) & ~(uintptr_t)1023);
  asm volatile("prefetch.tensormap [%0];" ::"l"(&tm) : "memory");
  for (int s = 0; s < S; ++s)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sptr(&bar[s])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  long long issue[64];
  long long latsum = 0;
  int step = stream ? 1 : 13;
  int tile = stream ? (int)(((long long)blockIdx.x * iters) % tiles) : (int)((blockIdx.x * 7) % tiles);
  long long t0 = clock64();
  for (int i = 0; i < iters + S; ++i) {
    int slot = i % S;
    if (i >= S) {
      uint32_t parity = ((i / S) - 1) & 1;
      uint32_t done = 0;
      while (!done)
        asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(sptr(&bar[slot])), "r"(parity) : "memory");
      latsum += clock64() - issue[slot];
    }
    if (i < iters) {
      int row = tile * boxRows;
      tile += step; if (tile >= tiles) tile -= tiles;   // no division in the issue loop
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sptr(&bar[slot])), "r"(bytes) : "memory");
      issue[slot] = clock64();
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                   ::"r"(sptr(base + (size_t)slot * bytes)), "l"(&tm), "r"(0), "r"(row), "r"(sptr(&bar[slot])) : "memory");
    }
  }
  long long t1 = clock64();
  out[blockIdx.x * 2] = t1 - t0;
  out[blockIdx.x * 2 + 1] = latsum;
}

__global__ void __launch_bounds__(32) batch(const __grid_constant__ CUtensorMap tm, int tiles, int boxRows, int bytes,
                                            int S, int iters, int stream, unsigned long long *out) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ __align__(8) uint64_t bar[64];
  if (threadIdx.x != 0) return;
  unsigned char *base = (unsigned char *)(((uintptr_t)smem + 1023) & ~(uintptr_t)1023);
  asm volatile("prefetch.tensormap [%0];" ::"l"(&tm) : "memory");
  for (int s = 0; s < S; ++s)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sptr(&bar[s])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  int step = stream ? 1 : 13;
  int tile = stream ? (int)(((long long)blockIdx.x * iters * S) % tiles) : (int)((blockIdx.x * 7) % tiles);
  long long t0 = clock64();
  int n = 0;
  for (int it = 0; it < iters; ++it) {
    for (int s = 0; s < S; ++s, ++n) {
      int row = tile * boxRows;
      tile += step; if (tile >= tiles) tile -= tiles;
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sptr(&bar[s])), "r"(bytes) : "memory");
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                   ::"r"(sptr(base + (size_t)s * bytes)), "l"(&tm), "r"(0), "r"(row), "r"(sptr(&bar[s])) : "memory");
    }
    for (int s = 0; s < S; ++s) {
      uint32_t done = 0;
      while (!done)
        asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(sptr(&bar[s])), "r"((uint32_t)(it & 1)) : "memory");
    }
  }
  long long t1 = clock64();
  out[blockIdx.x * 2] = t1 - t0;
  out[blockIdx.x * 2 + 1] = (t1 - t0) / iters;   // one batch: S concurrent copies
}

int main(int argc, char **argv) {
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", (void **)&encode, cudaEnableDefault, &q));
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int cols = 64;                       // bf16: 128 B rows, SWIZZLE_128B as Triton's NVMMA layout
  const size_t bigBytes = (size_t)4 << 30;   // HBM streaming source: 4 GiB
  const size_t l2Bytes = (size_t)8 << 20;    // L2-resident source: 8 MiB (L2 is 60 MiB)
  void *big; CK(cudaMalloc(&big, bigBytes)); CK(cudaMemset(big, 1, bigBytes));
  unsigned long long *out; CK(cudaMalloc(&out, sms * 2 * sizeof(unsigned long long)));
  CK(cudaFuncSetAttribute(bench, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024));
  CK(cudaFuncSetAttribute(batch, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  printf("mode nsm box_bytes inflight lat_clk sm_B_per_clk dev_GBps mhz\n");
  for (int mode = argc > 1 ? atoi(argv[1]) : 0; mode < 4; ++mode) { int stream = mode & 1; bool isBatch = mode >= 2;
    for (int nsm : {1, sms})
      for (int boxRows : {32, 64, 128, 256}) {
        int bytes = boxRows * cols * 2;
        for (int S : {1, 2, 4, 6, 8, 12, 16, 24}) {
          if ((size_t)S * bytes > 200 * 1024) continue;
          size_t src = stream ? bigBytes : l2Bytes;
          uint64_t rows = src / (cols * 2);
          CUtensorMap tm = encodeBoxMap(encode, big, src, cols, boxRows);
          int tiles = (int)(rows / boxRows);
          int iters = stream ? (int)std::min<uint64_t>(2048, (uint64_t)tiles / nsm) : 2048;
          size_t shm = (size_t)S * bytes + 1024;
          for (int rep = 0; rep < 2; ++rep) {   // rep 0 warms L2 (and the clocks)
            cudaEventRecord(e0);
            if (isBatch) batch<<<nsm, 32, shm>>>(tm, tiles, boxRows, bytes, S, iters / S, stream, out);
            else bench<<<nsm, 32, shm>>>(tm, tiles, boxRows, bytes, S, iters, stream, out);
            cudaEventRecord(e1);
            CK(cudaEventSynchronize(e1));
          }
          CK(cudaGetLastError());
          float ms; cudaEventElapsedTime(&ms, e0, e1);
          std::vector<unsigned long long> h(nsm * 2);
          CK(cudaMemcpy(h.data(), out, nsm * 2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
          double cyc = 0, lat = 0;
          for (int b = 0; b < nsm; ++b) { cyc += h[b * 2]; lat += h[b * 2 + 1]; }
          int done = isBatch ? (iters / S) * S : iters;
          cyc /= nsm; lat /= isBatch ? (double)nsm : (double)nsm * iters;
          double perSm = (double)bytes * done / cyc;
          double gbps = (double)bytes * done * nsm / (ms * 1e-3) / 1e9;
          printf("%s%s %d %d %d %.0f %.1f %.0f %.0f\n", isBatch ? "batch-" : "ring-", stream ? "hbm" : "l2", nsm, bytes, S, lat, perSm, gbps,
                 cyc / (ms * 1e3));
        }
      }
  }
  return 0;
}
