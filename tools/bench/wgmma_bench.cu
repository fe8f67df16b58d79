// wgmma (PTX ISA 9.7.15) on one SM and on every SM: the time of one m64nNk16 f16 -> f32 wgmma with A and B in
// shared memory, vs N (64 / 128 / 256), warp groups per CTA (1-3, sharing the SM's tensor cores, as the consumer
// warp groups of a warp-specialized GEMM do), accumulators per warp group (a 128-row tile is two m64 wgmmas with
// their own accumulators and the same B), wgmma instructions per commit group and the wait_group depth, with and
// without one warp streaming 1-D bulk copies (cp.async.bulk, 4 x 16 KB in flight, L2-resident source) into the same
// SM's shared memory, as a TMA producer does.
//   latency mode: one wgmma per group, wait_group 0: issue -> retired, per wgmma (cycles, clock64).
//   throughput mode: CHAIN wgmmas per group, wait_group WAIT: cycles per wgmma per warp group, and the SM's
//   FLOP/clk (peak 4096 for f16, hw-params.md section 2).
// Operands are never initialized: timing does not depend on the values. Shared-memory tiles use the 128B-swizzled
// K-major layout that Triton's NVMMA shared layout gives a K = 64 f16 tile (rows of 128 B, 8-row atoms of 1024 B);
// k-steps advance the descriptor's start address by 32 B inside the atom, as CUTLASS's descriptor iterator does.
// Build: nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o wgmma_bench wgmma_bench.cu && ./wgmma_bench
// (`-arch=sm_90a` alone made nvcc 13.0 target sm_90, where ptxas refuses wgmma)
// The wgmma wrappers below were generated (one inline-asm operand per accumulator register).
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                                      \
  do {                                                                                                             \
    cudaError_t e = (x);                                                                                           \
    if (e != cudaSuccess) {                                                                                        \
      printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__);                                                  \
      exit(1);                                                                                                     \
    }                                                                                                              \
  } while (0)

__device__ __forceinline__ uint32_t sptr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

/// Shared-memory matrix descriptor (PTX ISA 9.7.15.5.1): start address >> 4 in bits 0-13, leading-dimension byte
/// offset >> 4 in bits 16-29, stride-dimension byte offset >> 4 in bits 32-45, swizzle mode 1 (128 B) in bits
/// 62-63. A (K-major, 64 x 64 f16): LBO unused (16 B), SBO 1024 B between 8-row atoms, a k-step is +32 B.
/// B (MN-major as Triton's row-major [K, N] tiles, `.tnspB` in the SASS): K rows of 128 B (64 N-elements) per
/// 8 KB column block, LBO 8192 B between column blocks, SBO 1024 B between 8-row groups, a k-step is +2048 B.
__device__ __forceinline__ uint64_t desc(uint32_t saddr, uint32_t lbo, uint32_t sbo) {
  return (uint64_t)((saddr & 0x3FFFF) >> 4) | ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32) |
         ((uint64_t)1 << 62);
}

/// One wgmma.mma_async.m64n64k16.f32.f16.f16 (PTX ISA 9.7.15.5), A and B from shared memory, D += A*B.
__device__ __forceinline__ void wgmma64(float (&d)[32], uint64_t da, uint64_t db) {
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 1; }"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "l"(da), "l"(db), "r"(1));
}

/// One wgmma.mma_async.m64n128k16.f32.f16.f16 (PTX ISA 9.7.15.5), A and B from shared memory, D += A*B.
__device__ __forceinline__ void wgmma128(float (&d)[64], uint64_t da, uint64_t db) {
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %66, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 1; }"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
               : "l"(da), "l"(db), "r"(1));
}

/// One wgmma.mma_async.m64n256k16.f32.f16.f16 (PTX ISA 9.7.15.5), A and B from shared memory, D += A*B.
__device__ __forceinline__ void wgmma256(float (&d)[128], uint64_t da, uint64_t db) {
  asm volatile("{ .reg .pred p; setp.ne.b32 p, %130, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 1; }"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
               : "l"(da), "l"(db), "r"(1));
}

template <int N> __device__ __forceinline__ void mma(float (&d)[N / 2], uint64_t a, uint64_t b);
template <> __device__ __forceinline__ void mma<64>(float (&d)[32], uint64_t a, uint64_t b) { wgmma64(d, a, b); }
template <> __device__ __forceinline__ void mma<128>(float (&d)[64], uint64_t a, uint64_t b) { wgmma128(d, a, b); }
template <> __device__ __forceinline__ void mma<256>(float (&d)[128], uint64_t a, uint64_t b) { wgmma256(d, a, b); }

constexpr int kWarmup = 16;
constexpr int kSlots = 4, kCopyBytes = 16384;

/// out[(cta * 4 + wg)]: the cycles of warp group wg's timed iterations; out[cta * 4 + 3]: the copier's bytes moved
/// while it ran, out2[cta]: the copier's cycles.
template <int N, int CHAIN, int WAIT, int ACCS> // ACCS: 1 or 2
__global__ void wgmmaKernel(int iters, int wgs, int copier, const unsigned char *src, long long srcBytes,
                            unsigned long long *out, unsigned long long *out2) {
  extern __shared__ __align__(1024) unsigned char smemRaw[];
  __shared__ __align__(8) uint64_t bar[kSlots];
  __shared__ int doneCount;
  unsigned char *base = (unsigned char *)(((uintptr_t)smemRaw + 1023) & ~(uintptr_t)1023);
  int wg = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    doneCount = 0;
    for (int s = 0; s < kSlots; ++s)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sptr(&bar[s])));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  unsigned char *bTile = base + wgs * ACCS * 8192;
  unsigned char *ring = bTile + N * 128;
  if (wg < wgs) {
    // Two named arrays, not float[ACCS][N/2]: with a 2-D array ptxas copied accumulator registers inside the
    // wgmma pipeline and serialized every wgmma (its warning C7514).
    float d0[N / 2], d1[N / 2];
    for (int i = 0; i < N / 2; ++i)
      d0[i] = d1[i] = 0.f;
    uint32_t aBase = sptr(base + wg * ACCS * 8192), bBase = sptr(bTile);
    long long t0 = 0, issue = 0, i0 = 0;
    for (int it = 0; it < iters + kWarmup; ++it) {
      if (it == kWarmup) {
        t0 = clock64();
        issue = 0;
      }
      i0 = clock64();
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll // accumulator-major, as Triton orders a 128-row tile's two m64 halves
      for (int c = 0; c < CHAIN; ++c)
        mma<N>(d0, desc(aBase + (c % 4) * 32, 16, 1024), desc(bBase + (c % 4) * 2048, 8192, 1024));
      if constexpr (ACCS == 2) {
#pragma unroll
        for (int c = 0; c < CHAIN; ++c)
          mma<N>(d1, desc(aBase + 8192 + (c % 4) * 32, 16, 1024), desc(bBase + (c % 4) * 2048, 8192, 1024));
      }
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      issue += clock64() - i0; // the group's issue: longer than its instructions' issue cost when the tensor pipe
                               // holds the warp group at issue (a bounded wgmma queue)
      asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(WAIT) : "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    long long t1 = clock64();
    float s = 0.f;
    for (int i = 0; i < N / 2; ++i)
      s += d0[i] + (ACCS == 2 ? d1[i] : 0.f);
    if (threadIdx.x % 128 == 0) {
      out[blockIdx.x * 4 + wg] = t1 - t0;
      out2[2 * gridDim.x + blockIdx.x * 4 + wg] = issue;
      atomicAdd(&doneCount, 1);
    }
    if (s == 1234.5f) // keeps the accumulators live; never true for uninitialized-but-finite data in practice
      out2[gridDim.x + blockIdx.x] = 1;
  } else if (copier && threadIdx.x == wgs * 128) {
    long long n = srcBytes / kCopyBytes, next = (blockIdx.x * 37) % n, copies = 0;
    uint32_t phase[kSlots] = {0, 0, 0, 0};
    auto issue = [&](int s) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sptr(&bar[s])), "r"(kCopyBytes)
                   : "memory");
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                       sptr(ring + s * kCopyBytes)),
                   "l"(src + next * kCopyBytes), "r"(kCopyBytes), "r"(sptr(&bar[s]))
                   : "memory");
      next = next + 1 == n ? 0 : next + 1;
    };
    auto wait = [&](int s) {
      uint32_t ok = 0;
      while (!ok)
        asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(ok)
                     : "r"(sptr(&bar[s])), "r"(phase[s])
                     : "memory");
      phase[s] ^= 1;
    };
    long long t0 = clock64();
    for (int s = 0; s < kSlots; ++s)
      issue(s);
    for (int s = 0;; s = (s + 1) % kSlots) {
      wait(s);
      ++copies;
      if (*(volatile int *)&doneCount >= wgs) {
        for (int r = 1; r < kSlots; ++r) // drain the copies still in flight
          wait((s + r) % kSlots);
        copies += kSlots - 1;
        break;
      }
      issue(s);
    }
    long long t1 = clock64();
    out[blockIdx.x * 4 + 3] = copies * kCopyBytes;
    out2[blockIdx.x] = t1 - t0;
  }
}

struct Result {
  double cyclesPerWgmma, flopsPerClkSm, copyBytesPerClk, mhz, issuePerGroup;
};

template <int N, int CHAIN, int WAIT, int ACCS>
Result runOne(int grid, int wgs, int copier, int iters, const unsigned char *src, long long srcBytes) {
  auto kernel = wgmmaKernel<N, CHAIN, WAIT, ACCS>;
  int smem = 1024 + wgs * ACCS * 8192 + N * 128 + kSlots * kCopyBytes;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  unsigned long long *out, *out2;
  CK(cudaMalloc(&out, grid * 4 * 8));
  CK(cudaMalloc(&out2, grid * 6 * 8));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  float ms = 0;
  for (int rep = 0; rep < 2; ++rep) { // rep 0 warms the clocks and L2
    CK(cudaMemset(out, 0, grid * 4 * 8));
    CK(cudaMemset(out2, 0, grid * 6 * 8));
    cudaEventRecord(e0);
    kernel<<<grid, wgs * 128 + (copier ? 32 : 0), smem>>>(iters, wgs, copier, src, srcBytes, out, out2);
    cudaEventRecord(e1);
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    cudaEventElapsedTime(&ms, e0, e1);
  }
  std::vector<unsigned long long> h(grid * 4), h2(grid * 6);
  CK(cudaMemcpy(h.data(), out, grid * 4 * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(h2.data(), out2, grid * 6 * 8, cudaMemcpyDeviceToHost));
  double cyc = 0, maxCyc = 0, copyB = 0, copyC = 0, issue = 0;
  for (int c = 0; c < grid; ++c) {
    for (int w = 0; w < wgs; ++w) {
      cyc += (double)h[c * 4 + w];
      issue += (double)h2[2 * grid + c * 4 + w];
      maxCyc = std::max(maxCyc, (double)h[c * 4 + w]);
    }
    copyB += (double)h[c * 4 + 3];
    copyC += (double)h2[c];
  }
  double perWg = cyc / (grid * wgs);
  Result r;
  r.cyclesPerWgmma = perWg / ((double)iters * CHAIN * ACCS);
  r.flopsPerClkSm = wgs * (double)iters * CHAIN * ACCS * 2.0 * 64 * N * 16 / perWg;
  r.copyBytesPerClk = copier && copyC > 0 ? copyB / copyC : 0;
  r.mhz = maxCyc / (ms * 1e3);
  r.issuePerGroup = issue / (grid * wgs) / iters;
  CK(cudaFree(out));
  CK(cudaFree(out2));
  return r;
}

template <int N, int CHAIN, int WAIT, int ACCS>
void row(const char *mode, int grid, int wgs, int copier, int iters, const unsigned char *src, long long srcBytes) {
  Result r = runOne<N, CHAIN, WAIT, ACCS>(grid, wgs, copier, iters, src, srcBytes);
  printf("%-10s N=%-3d chain=%d wait=%d accs=%d wgs=%d copier=%d grid=%-3d  cycles/wgmma %8.1f  ideal %5.1f  "
         "FLOP/clk/SM %6.0f (%5.1f %% of 4096)  copy B/clk %6.1f  ~MHz %5.0f  issue/group %7.1f\n",
         mode, N, CHAIN, WAIT, ACCS, wgs, copier, grid, r.cyclesPerWgmma, N / 2.0 * wgs, r.flopsPerClkSm,
         100.0 * r.flopsPerClkSm / 4096, r.copyBytesPerClk, r.mhz, r.issuePerGroup);
  fflush(stdout);
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  long long srcBytes = 8ll << 20; // L2-resident (60 MiB L2)
  unsigned char *src;
  CK(cudaMalloc(&src, srcBytes));
  CK(cudaMemset(src, 0, srcBytes));
  // `issue` mode (a bounded wgmma queue?): 1-3 warp groups each issue a group of 4 (or 8) m64nNk16 and wait for it
  // (wait_group 0), as the TLX Hopper GEMM consumers do; issue/group is the time from the fence to the commit.
  for (int wgs : {1, 2, 3}) {
    row<128, 4, 0, 1>("issue", 1, wgs, 0, 1000, src, srcBytes);
    row<128, 4, 0, 2>("issue", 1, wgs, 0, 1000, src, srcBytes);
    row<256, 4, 0, 1>("issue", 1, wgs, 0, 1000, src, srcBytes);
    row<64, 4, 0, 1>("issue", 1, wgs, 0, 1000, src, srcBytes);
    row<128, 4, 1, 1>("issue", 1, wgs, 0, 1000, src, srcBytes);
  }
  if (getenv("WGMMA_BENCH_ISSUE_ONLY"))
    return 0;
  for (int grid : {1, sms}) {
    row<64, 1, 0, 1>("latency", grid, 1, 0, 2000, src, srcBytes);
    row<128, 1, 0, 1>("latency", grid, 1, 0, 2000, src, srcBytes);
    row<256, 1, 0, 1>("latency", grid, 1, 0, 2000, src, srcBytes);
    for (int copier : {0, 1})
      for (int wgs : {1, 2, 3}) {
        if (copier && wgs == 3) // 416 threads x ~160 registers: more than the SM's 64 K (launch fails)
          continue;
        row<64, 4, 1, 1>("throughput", grid, wgs, copier, 4000, src, srcBytes);
        row<64, 4, 1, 2>("throughput", grid, wgs, copier, 2000, src, srcBytes);
        row<128, 4, 1, 1>("throughput", grid, wgs, copier, 2000, src, srcBytes);
        row<128, 4, 1, 2>("throughput", grid, wgs, copier, 1000, src, srcBytes);
        row<256, 4, 1, 1>("throughput", grid, wgs, copier, 1000, src, srcBytes);
        row<128, 4, 0, 2>("drain", grid, wgs, copier, 1000, src, srcBytes);
        row<256, 4, 0, 1>("drain", grid, wgs, copier, 1000, src, srcBytes);
      }
  }
  return 0;
}
