// Dependent-issue latency of the FP32 ALU ops and warp shuffles a softmax row reduction chains (Triton's tt.reduce:
// a linear chain of max / add over a thread's elements of the row, then one shfl.sync.bfly + op per lane bit), and
// the SM's throughput of MUFU.EX2 and FFMA with 1-16 warps of one CTA (warps w and w + 4 share an SMSP), and one
// attention softmax step (row max, exp2, row sum, f16 conversion of a 64 x 128 tile) on 1-3 warp groups at once.
//
// Build and run on an sm_90 host: nvcc -O3 -arch=sm_90a -o alu_latency_bench alu_latency_bench.cu && ./alu_latency_bench
// Output: one line per measurement, clk (clock64) per op of one warp (latency) or ops per clk per SM (throughput).
#include "cuda_check.cuh"

constexpr int kChain = 4096; // dependent ops per measurement (after a warm-up pass)

enum Kind { kMax = 0, kAdd, kFma, kShflMax, kEx2, kNumLatency };
const char *kNames[] = {"max.f32", "add.f32", "fma.rn.f32", "shfl.sync.bfly + max.f32", "ex2.approx.ftz.f32"};

template <int K> __device__ __forceinline__ float step(float x, float y) {
  float r;
  if constexpr (K == kMax)
    asm volatile("max.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
  else if constexpr (K == kAdd)
    asm volatile("add.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
  else if constexpr (K == kFma)
    asm volatile("fma.rn.f32 %0, %1, %2, %2;" : "=f"(r) : "f"(x), "f"(y));
  else if constexpr (K == kShflMax) {
    float o;
    asm volatile("shfl.sync.bfly.b32 %0, %1, 1, 0x1f, 0xffffffff;" : "=f"(o) : "f"(x));
    asm volatile("max.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(o));
  } else
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

template <int K> __global__ void latency(float seed, float *out, long long *clk) {
  float x = seed + threadIdx.x * 1e-7f, y = 0.5f;
  long long t0 = 0;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1)
      t0 = clock64();
#pragma unroll 64
    for (int i = 0; i < kChain; ++i)
      x = step<K>(x, y);
  }
  long long t1 = clock64();
  out[threadIdx.x] = x;
  if (threadIdx.x == 0)
    clk[0] = t1 - t0;
}

// Independent work: each thread keeps 8 chains; `ex2` selects MUFU.EX2, else FFMA.
template <bool Ex2> __global__ void throughput(float seed, float *out, long long *clk) {
  float x[8];
#pragma unroll
  for (int j = 0; j < 8; ++j)
    x[j] = seed + j * 1e-3f + threadIdx.x * 1e-7f;
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < kChain / 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if constexpr (Ex2)
        asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x[j]));
      else
        asm volatile("fma.rn.f32 %0, %0, %0, %0;" : "+f"(x[j]));
    }
  __syncthreads();
  long long t1 = clock64();
  float s = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j)
    s += x[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0)
    clk[blockIdx.x] = t1 - t0;
}

// One softmax step of attention as Triton compiles it for a 64 x 128 wgmma accumulator (4 warps per warp group:
// each thread 2 rows x 32 elements): per row a max chain over 32 elements and 2 shuffle rounds, then 32 FFMA +
// MUFU.EX2, a sum chain and 2 shuffle rounds; then 32 conversions to f16x2 of the tile. Two orders of the same work:
// row by row (rowByRowStep: one row's chains, then the next row's), and Triton's (tritonOrderStep: tt.reduce over both
// rows, then exp2 of all 64 elements, then the second tt.reduce, so the two rows' chains interleave).

// Row by row; the row sums into `rowSum`.
__device__ __forceinline__ void rowByRowStep(float (&x)[64], float scale, float carry, float (&rowSum)[2]) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float m = x[32 * r];
#pragma unroll
    for (int j = 1; j < 32; ++j)
      m = fmaxf(m, x[32 * r + j]);
    m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, 1));
    m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, 2));
    float s = 0;
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      float y = fmaf(x[32 * r + j], scale, -m), e;
      asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(y));
      x[32 * r + j] = e + carry;
      s += e;
    }
    s += __shfl_xor_sync(0xffffffff, s, 1);
    s += __shfl_xor_sync(0xffffffff, s, 2);
    rowSum[r] = s;
  }
}

// Triton's order; the row sums into `rowSum`.
__device__ __forceinline__ void tritonOrderStep(float (&x)[64], float scale, float carry, float (&rowSum)[2]) {
  float m[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    m[r] = x[32 * r];
#pragma unroll
    for (int j = 1; j < 32; ++j)
      m[r] = fmaxf(m[r], x[32 * r + j]);
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    m[r] = fmaxf(m[r], __shfl_xor_sync(0xffffffff, m[r], 1));
    m[r] = fmaxf(m[r], __shfl_xor_sync(0xffffffff, m[r], 2));
  }
#pragma unroll
  for (int j = 0; j < 64; ++j) {
    float y = fmaf(x[j], scale, -m[j / 32]), e;
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(y));
    x[j] = e + carry;
  }
  float s[2] = {0, 0};
#pragma unroll
  for (int r = 0; r < 2; ++r)
#pragma unroll
    for (int j = 0; j < 32; ++j)
      s[r] += x[32 * r + j];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    s[r] += __shfl_xor_sync(0xffffffff, s[r], 1);
    s[r] += __shfl_xor_sync(0xffffffff, s[r], 2);
    rowSum[r] = s[r];
  }
}

// `iters` softmax steps back to back, timed per warp group (warps 0-3, 4-7, ...) so that 1, 2 or 3 warp groups run
// them at once.
template <bool TritonOrder> __global__ void softmaxSteps(float seed, int iters, float *out, long long *clk) {
  float x[64];
#pragma unroll
  for (int j = 0; j < 64; ++j)
    x[j] = seed + j * 1e-3f + threadIdx.x * 1e-6f;
  float scale = 0.5f, carry = 0;
  unsigned packed = 0;
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    float rowSum[2];
    if constexpr (TritonOrder)
      tritonOrderStep(x, scale, carry, rowSum);
    else
      rowByRowStep(x, scale, carry, rowSum);
#pragma unroll
    for (int j = 0; j < 64; j += 2) {
      unsigned h;
      asm volatile("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(h) : "f"(x[j + 1]), "f"(x[j]));
      packed ^= h;
    }
    carry = (rowSum[0] + rowSum[1]) * 1e-30f;
  }
  long long t1 = clock64();
  float s = carry + packed;
#pragma unroll
  for (int j = 0; j < 64; ++j)
    s += x[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x % 128 == 0)
    clk[threadIdx.x / 128] = t1 - t0;
}

int runSoftmax(int groups, bool tritonOrder, float *out, long long *clk) {
  const int iters = 256;
  if (tritonOrder)
    softmaxSteps<true><<<1, 128 * groups>>>(1.0f, iters, out, clk);
  else
    softmaxSteps<false><<<1, 128 * groups>>>(1.0f, iters, out, clk);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  long long c[4] = {0, 0, 0, 0};
  CHECK(cudaMemcpy(c, clk, sizeof(long long) * groups, cudaMemcpyDeviceToHost));
  std::printf("softmax-like step (64 x 128 tile per warp group, 8192 exp2, %s): %d warp group(s) at once:",
              tritonOrder ? "Triton's order" : "row by row", groups);
  for (int g = 0; g < groups; ++g)
    std::printf(" %.1f", double(c[g]) / iters);
  std::printf(" clk per step\n");
  return 0;
}

template <int K> int runLatency(float *out, long long *clk) {
  latency<K><<<1, 32>>>(0.25f, out, clk);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  long long c = 0;
  CHECK(cudaMemcpy(&c, clk, sizeof c, cudaMemcpyDeviceToHost));
  std::printf("latency  %-26s %7.2f clk per dependent op (one warp, %d ops)\n", kNames[K], double(c) / kChain, kChain);
  return 0;
}

template <bool Ex2> int runThroughput(int warps, float *out, long long *clk) {
  throughput<Ex2><<<1, 32 * warps>>>(1.0f, out, clk);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  long long c = 0;
  CHECK(cudaMemcpy(&c, clk, sizeof c, cudaMemcpyDeviceToHost));
  double ops = 32.0 * warps * kChain;
  std::printf("throughput %-9s warps %2d: %8.2f ops per clk per SM (%lld clk for %d ops per thread)\n",
              Ex2 ? "ex2" : "fma", warps, ops / double(c), c, kChain);
  return 0;
}

int main() {
  float *out;
  long long *clk;
  CHECK(cudaMalloc(&out, 1 << 20));
  CHECK(cudaMalloc(&clk, 1024 * sizeof(long long)));
  if (runLatency<kMax>(out, clk) || runLatency<kAdd>(out, clk) || runLatency<kFma>(out, clk) ||
      runLatency<kShflMax>(out, clk) || runLatency<kEx2>(out, clk))
    return 1;
  for (int warps : {1, 2, 4, 8, 12, 16})
    if (runThroughput<true>(warps, out, clk) || runThroughput<false>(warps, out, clk))
      return 1;
  for (bool tritonOrder : {false, true})
    for (int groups : {1, 2, 3})
      if (runSoftmax(groups, tritonOrder, out, clk))
        return 1;
  return 0;
}
