// Dependent-issue latency of the integer ops a kernel's scalar code chains: a warp-specialized producer's stage
// index and phase (`cnt % S`, `(cnt // S) & 1 ^ 1`: arith.remsi / divsi / andi / xori in TTGIR), its coordinates
// (arith.muli / addi). Each chain step is one PTX op followed by the add or xor that keeps the chain from folding;
// each chain runs once with per-thread operands (the vector datapath) and once with warp-uniform ones (a kernel
// parameter: ptxas may keep them in uniform registers, as it does a producer's loop counter).
//
// Build and run on an sm_90 host: nvcc -O3 -arch=sm_90a -o int_latency_bench int_latency_bench.cu && ./int_latency_bench
// Output: one line per chain, clk (clock64) per step of one warp. The SASS of each step: cuobjdump -sass.
#include "cuda_check.cuh"

constexpr int kChain = 4096; // dependent steps per measurement (after a warm-up pass)

enum Kind { kXorAdd = 0, kImad, kDiv3, kRem3, kDiv64, kDivReg, kRemReg, kNum };
const char *kNames[] = {"xor.b32 + add.s32 (2 ops)", "mad.lo.s32 x*x+y", "div.s32 by 3 + add", "rem.s32 by 3 + add",
                        "div.s32 by 64 + add", "div.s32 by register + add", "rem.s32 by register + add"};

template <int K> __device__ __forceinline__ int step(int x, int y, int d) {
  int r;
  if constexpr (K == kXorAdd)
    asm volatile("xor.b32 %0, %1, %2;\n\tadd.s32 %0, %0, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(d));
  else if constexpr (K == kImad)
    asm volatile("mad.lo.s32 %0, %1, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
  else if constexpr (K == kDiv3)
    asm volatile("div.s32 %0, %1, 3;\n\tadd.s32 %0, %0, %2;" : "=r"(r) : "r"(x), "r"(y));
  else if constexpr (K == kRem3)
    asm volatile("rem.s32 %0, %1, 3;\n\tadd.s32 %0, %0, %2;" : "=r"(r) : "r"(x), "r"(y));
  else if constexpr (K == kDiv64)
    asm volatile("div.s32 %0, %1, 64;\n\tadd.s32 %0, %0, %2;" : "=r"(r) : "r"(x), "r"(y));
  else if constexpr (K == kDivReg)
    asm volatile("div.s32 %0, %1, %3;\n\tadd.s32 %0, %0, %2;" : "=r"(r) : "r"(x), "r"(y), "r"(d));
  else
    asm volatile("rem.s32 %0, %1, %3;\n\tadd.s32 %0, %0, %2;" : "=r"(r) : "r"(x), "r"(y), "r"(d));
  return r;
}

// Uniform: every operand is a kernel parameter; else the chain starts from threadIdx.
template <int K, bool Uniform> __global__ void latency(int seed, int y, int d, int *out, long long *clk) {
  int x = Uniform ? seed : seed + static_cast<int>(threadIdx.x);
  long long t0 = 0;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1)
      t0 = clock64();
#pragma unroll 64
    for (int i = 0; i < kChain; ++i)
      x = step<K>(x, y, d);
  }
  long long t1 = clock64();
  out[threadIdx.x] = x;
  if (threadIdx.x == 0)
    clk[0] = t1 - t0;
}

template <int K, bool Uniform> int run(int *out, long long *clk) {
  latency<K, Uniform><<<1, 32>>>(1000003, 1000003, 7, out, clk);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  long long c = 0;
  CHECK(cudaMemcpy(&c, clk, sizeof c, cudaMemcpyDeviceToHost));
  std::printf("latency  %-28s %-8s %7.2f clk per step (one warp, %d steps)\n", kNames[K],
              Uniform ? "uniform" : "vector", double(c) / kChain, kChain);
  return 0;
}

template <int K> int runBoth(int *out, long long *clk) { return run<K, false>(out, clk) || run<K, true>(out, clk); }

int main() {
  int *out;
  long long *clk;
  CHECK(cudaMalloc(&out, 1 << 16));
  CHECK(cudaMalloc(&clk, 64 * sizeof(long long)));
  if (runBoth<kXorAdd>(out, clk) || runBoth<kImad>(out, clk) || runBoth<kDiv3>(out, clk) ||
      runBoth<kRem3>(out, clk) || runBoth<kDiv64>(out, clk) || runBoth<kDivReg>(out, clk) ||
      runBoth<kRemReg>(out, clk))
    return 1;
  return 0;
}
