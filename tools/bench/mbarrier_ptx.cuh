// mbarrier_ptx.cuh: the mbarrier operations and Proton-style record of Triton's lowering, as inline PTX, shared by
// mbarrier_bench.cu and consumer_loop_bench.cu. Addresses are 32-bit shared-memory addresses (__cvta_generic_to_shared).
#pragma once

#include <cstdint>

__device__ __forceinline__ void mbarInit(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void mbarArrive(uint32_t bar) {
  asm volatile("{ .reg .b64 st; mbarrier.arrive.shared::cta.b64 st, [%0]; }" ::"r"(bar) : "memory");
}

// Triton's wait: a try_wait.parity spin loop (ttng.wait_barrier lowering; PTX ISA 9.1 9.7.13.15.16).
__device__ __forceinline__ void mbarWait(uint32_t bar, uint32_t parity) {
  asm volatile("{\n"
               ".reg .pred P1;\n"
               "WAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
               "@!P1 bra.uni WAIT_%=;\n"
               "}" ::"r"(bar),
               "r"(parity)
               : "memory");
}

// Proton's record: read the clock, store {tag, clock} to the warp's shared segment (lane 0 stores); returns the clock.
__device__ __forceinline__ uint32_t record(uint32_t seg, uint32_t &idx, uint32_t tag, bool lane0) {
  uint32_t clk;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(clk)::"memory");
  if (lane0)
    asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(seg + (idx & 63) * 8), "r"(tag), "r"(clk) : "memory");
  ++idx;
  return clk;
}
