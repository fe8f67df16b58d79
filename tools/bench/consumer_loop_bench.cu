// consumer_loop_bench: the K loop of a warp-specialized Hopper GEMM's consumer warp group, taken apart on an H200.
//
// Why: the TLX hopper_gemm_ws consumers (fbtriton 3.7.4 SASS, traces/h200/tlx captures) run per K iteration
//   BAR.SYNC; 2 x (try_wait loop); WARPGROUP.ARRIVE; 4 x HGMMA.64xNx16; WARPGROUP.DEPBAR.LE 0;
//   2 x (BAR.SYNC; BAR.SYNC; elected SYNCS.ARRIVE)
// and Gluon's ws_gemm (Triton 3.6) one BAR.SYNC per arrive. At 8192^3 and the measured 1410 MHz the H200 runs
// bm128_bn128_s4 at 74 % of the tensor peak: ~670 clk per iteration for 512 clk of tensor work. Which of these
// instructions take that time is what the model needs (models/h200.json), and back-to-back microbenchmarks
// (mbarrier_bench: bar.sync 125 clk, passing try_wait 172) overstate what they cost between other work.
//
// Each warp group runs `iters` iterations of the loop with the parts chosen by `flags` (the data is always ready:
// the try_waits pass, the arrives go to a barrier nobody waits on), alone or next to a second / third warp group
// running the same loop, one CTA on one SM. Reported: cycles per iteration per warp group (clock64), the SM's
// FLOP/clk (peak 4096), and the issue time of the wgmma group (fence to commit).
//   flags: 1 top bar.sync, 2 two passing try_waits, 4 two arrives, 8 one bar.sync before each arrive,
//          16 a second bar.sync before each arrive (fbtriton), 32 Proton-style scopes (clock + st.shared.v2 by lane 0)
//          around each try_wait and the wgmma wait (6 records per iteration).
// Build on an sm_90 host: nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o consumer_loop_bench
//   consumer_loop_bench.cu && ./consumer_loop_bench
#include "mbarrier_ptx.cuh"
#include "wgmma_wrappers.cuh"

#include <vector>

constexpr int kWarmup = 16;
enum : int { kTop = 1, kWaits = 2, kArrives = 4, kSync1 = 8, kSync2 = 16, kRecords = 32 };

__device__ __forceinline__ void barSync(int wg) {
  asm volatile("bar.sync %0, 128;" ::"r"(1 + wg) : "memory");
}


/// out[wg]: cycles of warp group wg's timed iterations; out[4 + wg]: its summed wgmma issue cycles.
template <int N>
__global__ void loopKernel(int iters, int flags, unsigned long long *out) {
  extern __shared__ __align__(1024) unsigned char smemRaw[];
  __shared__ __align__(8) uint64_t ready[4][2], released[4][2];
  __shared__ __align__(8) uint32_t segs[12][128];
  unsigned char *base = (unsigned char *)(((uintptr_t)smemRaw + 1023) & ~(uintptr_t)1023);
  const int wg = threadIdx.x / 128, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x % 128 == 0) {
    for (int b = 0; b < 2; ++b) {
      mbarInit(sptr(&ready[wg][b]), 1);
      mbarInit(sptr(&released[wg][b]), (1 << 20) - 1);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    for (int b = 0; b < 2; ++b) // phase 0 of `ready` completes: every wait for parity 0 passes from now on
      mbarArrive(sptr(&ready[wg][b]));
  }
  __syncthreads();
  float d[N / 2];
  for (int i = 0; i < N / 2; ++i)
    d[i] = 0.f;
  const uint32_t aBase = sptr(base + wg * 8192), bBase = sptr(base + 4 * 8192);
  const uint32_t seg = sptr(&segs[warp][0]);
  const bool records = flags & kRecords;
  uint32_t idx = 0;
  long long t0 = 0, issue = 0;
  for (int it = 0; it < iters + kWarmup; ++it) {
    if (it == kWarmup) {
      t0 = clock64();
      issue = 0;
    }
    if (flags & kTop)
      barSync(wg);
    if (flags & kWaits) {
      for (int b = 0; b < 2; ++b) {
        if (records)
          record(seg, idx, 1 + b, lane == 0);
        mbarWait(sptr(&ready[wg][b]), 0);
        if (records)
          record(seg, idx, 0x80000001u + b, lane == 0);
      }
    }
    long long i0 = clock64();
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int c = 0; c < 4; ++c)
      mma<N>(d, desc(aBase + c * 32, 16, 1024), desc(bBase + c * 2048, 8192, 1024));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    issue += clock64() - i0;
    if (records)
      record(seg, idx, 3, lane == 0);
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    if (records)
      record(seg, idx, 0x80000003u, lane == 0);
    if (flags & kArrives) {
      for (int b = 0; b < 2; ++b) {
        if (flags & kSync1)
          barSync(wg);
        if (flags & kSync2)
          barSync(wg);
        if (threadIdx.x % 128 == 0)
          mbarArrive(sptr(&released[wg][b]));
      }
    }
  }
  long long t1 = clock64();
  float s = 0.f;
  for (int i = 0; i < N / 2; ++i)
    s += d[i];
  if (threadIdx.x % 128 == 0) {
    out[wg] = t1 - t0;
    out[4 + wg] = issue;
  }
  if (s == 1234.5f) // keeps the accumulator live
    out[8] = 1;
}

template <int N> void row(int wgs, int flags, int iters) {
  auto kernel = loopKernel<N>;
  int smem = 1024 + 4 * 8192 + N * 128;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  unsigned long long *out;
  CK(cudaMalloc(&out, 16 * 8));
  for (int rep = 0; rep < 2; ++rep) { // rep 0 warms up
    CK(cudaMemset(out, 0, 16 * 8));
    kernel<<<1, wgs * 128, smem>>>(iters, flags, out);
    CK(cudaDeviceSynchronize());
  }
  unsigned long long h[16];
  CK(cudaMemcpy(h, out, 16 * 8, cudaMemcpyDeviceToHost));
  double cyc = 0, iss = 0;
  for (int w = 0; w < wgs; ++w) {
    cyc += (double)h[w] / wgs;
    iss += (double)h[4 + w] / wgs;
  }
  double perIter = cyc / iters;
  double flops = wgs * 4.0 * 2.0 * 64 * N * 16 / perIter;
  printf("loop N=%-3d wgs=%d flags=%-3d top=%d waits=%d arrives=%d syncs/arrive=%d records=%d  cyc/iter %7.1f  "
         "tensor %5.1f %%  issue/group %6.1f\n",
         N, wgs, flags, !!(flags & kTop), (flags & kWaits) ? 2 : 0, (flags & kArrives) ? 2 : 0,
         ((flags & kSync1) ? 1 : 0) + ((flags & kSync2) ? 1 : 0), !!(flags & kRecords), perIter,
         100.0 * flops / 4096, iss / iters);
  fflush(stdout);
  CK(cudaFree(out));
}

int main() {
  // The parts added one at a time, then the two compilers' loops whole: Triton 3.6 (top + waits + 1 sync per
  // arrive) and fbtriton 3.7.4 (top + waits + 2 syncs per arrive), and the latter with Proton's records.
  const int variants[] = {0,
                          kWaits,
                          kTop,
                          kArrives,
                          kArrives | kSync1,
                          kArrives | kSync1 | kSync2,
                          kTop | kWaits | kArrives | kSync1,
                          kTop | kWaits | kArrives | kSync1 | kSync2,
                          kTop | kWaits | kArrives | kSync1 | kSync2 | kRecords,
                          kWaits | kRecords};
  for (int wgs : {1, 2, 3})
    for (int flags : variants) {
      row<128>(wgs, flags, 2000);
      row<256>(wgs, flags, 1000);
      if (wgs == 2)
        row<64>(wgs, flags, 2000);
    }
  return 0;
}
