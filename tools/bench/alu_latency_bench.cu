// Dependent-issue latency of the FP32 ALU ops and warp shuffles a softmax row reduction chains (Triton's tt.reduce:
// a linear chain of max / add over a thread's elements of the row, then one shfl.sync.bfly + op per lane bit), and
// the SM's throughput of MUFU.EX2 and FFMA with 1-16 warps of one CTA (warps w and w + 4 share an SMSP).
//
// Build and run on an sm_90 host: nvcc -O3 -arch=sm_90a -o alu_latency_bench alu_latency_bench.cu && ./alu_latency_bench
// Output: one line per measurement, clk (clock64) per op of one warp (latency) or ops per clk per SM (throughput).
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
  return 0;
}
