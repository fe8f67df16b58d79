// mbarrier_bench: what a wait on an mbarrier whose phase has already completed costs a warp (a "passing" wait),
// alone and wrapped in a Proton-style scope (a clock read + one shared-memory store before and after), on an H200.
//
// Why: Proton timelines of the WS GEMMs (traces/h200/proton-native) show wait scopes of 60-120 cycles when the data
// is already there (ws_gemm S = 4: wait_ready median 112-122 clk), where the model charged `mbarrier_op_cycles` (8)
// plus its record costs. A try_wait is a shared-memory operation whose predicate the branch of the wait loop needs
// (PTX ISA 9.1 9.7.13.15.16: mbarrier.try_wait; Triton lowers a wait to the loop below, ttng.wait_barrier ->
// NVGPUToLLVM), so its round trip is exposed to the waiting warp.
//
// Each test runs `iters` iterations in one CTA and reports cycles per iteration (clock64, SM cycles):
//   0 try_wait       : the wait loop on a completed phase, back to back (dependent: each loop's branch).
//   1 scope          : record (clock + st.shared.v2) / wait loop / record, as Proton's instrumentation emits it; the
//                      mean of (end clock - start clock) is what Proton reports for the scope.
//   2 arrive+wait    : arrive (count 1) then wait on the phase it completes: the round trip (hw-params.md section 7).
//   3 record         : the record alone (clock + st.shared.v2), back to back.
//   4 bar.sync       : `bar.sync 1+wg, 128` among the 4 warps of each warp group (Triton's partition barrier,
//                      PTX ISA 9.7.13.1), back to back (1 warp: count 32).
// Warps: 1, 4 (a warp group) and 8 (two warp groups) run the same loop at once on their own barriers and buffers.
//
// Build and run on an sm_90 host: nvcc -O3 -arch=sm_90a -o mbarrier_bench mbarrier_bench.cu && ./mbarrier_bench
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

#include "mbarrier_ptx.cuh"

__global__ void bench(int mode, int iters, long long *cycles, long long *scope) {
  __shared__ __align__(8) uint64_t bars[8];
  __shared__ __align__(8) uint32_t segs[8][128];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t bar = static_cast<uint32_t>(__cvta_generic_to_shared(&bars[warp]));
  const uint32_t seg = static_cast<uint32_t>(__cvta_generic_to_shared(&segs[warp][0]));
  if (lane == 0) {
    mbarInit(bar, 1);
    if (mode != 2)
      mbarArrive(bar); // phase 0 completes: a wait for parity 0 passes from now on
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncthreads();
  uint32_t idx = 0;
  long long scopeSum = 0;
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
    if (mode == 0) {
      mbarWait(bar, 0);
    } else if (mode == 1) {
      uint32_t a = record(seg, idx, 1, lane == 0);
      mbarWait(bar, 0);
      uint32_t b = record(seg, idx, 0x80000001u, lane == 0);
      scopeSum += b - a;
    } else if (mode == 2) {
      if (lane == 0)
        mbarArrive(bar);
      __syncwarp();
      mbarWait(bar, i & 1);
    } else if (mode == 3) {
      record(seg, idx, 1, lane == 0);
    } else {
      const uint32_t count = blockDim.x >= 128 ? 128 : 32;
      asm volatile("bar.sync %0, %1;" ::"r"(1 + warp / 4), "r"(count) : "memory");
    }
  }
  long long t1 = clock64();
  if (lane == 0) {
    cycles[warp] = t1 - t0;
    scope[warp] = scopeSum;
  }
}

int main() {
  const char *names[] = {"try_wait (passing)", "scope around a passing wait", "arrive + wait round trip",
                         "record alone", "bar.sync (warp group)"};
  const int iters = 4096;
  long long *dc, *ds;
  cudaMalloc(&dc, 8 * sizeof(long long));
  cudaMalloc(&ds, 8 * sizeof(long long));
  int clk = 0;
  cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  printf("# mbarrier_bench: cycles per iteration (clock64), %d iterations, 1 CTA; device max clock %d MHz\n", iters,
         clk / 1000);
  printf("%-30s %6s %12s %12s %14s\n", "test", "warps", "cyc/iter", "max warp", "scope cyc");
  for (int mode = 0; mode < 5; ++mode) {
    for (int warps : {1, 4, 8}) {
      for (int rep = 0; rep < 2; ++rep) { // the first launch warms up; print the second
        bench<<<1, 32 * warps>>>(mode, iters, dc, ds);
        cudaError_t err = cudaDeviceSynchronize();
        if (err != cudaSuccess) {
          printf("error: %s\n", cudaGetErrorString(err));
          return 1;
        }
        if (rep == 0)
          continue;
        long long c[8], s[8];
        cudaMemcpy(c, dc, sizeof(long long) * warps, cudaMemcpyDeviceToHost);
        cudaMemcpy(s, ds, sizeof(long long) * warps, cudaMemcpyDeviceToHost);
        double mean = 0, mx = 0, sc = 0;
        for (int w = 0; w < warps; ++w) {
          mean += double(c[w]) / iters / warps;
          mx = mx > double(c[w]) / iters ? mx : double(c[w]) / iters;
          sc += double(s[w]) / iters / warps;
        }
        printf("%-30s %6d %12.1f %12.1f %14.1f\n", names[mode], warps, mean, mx, mode == 1 ? sc : 0.0);
      }
    }
  }
  return 0;
}
