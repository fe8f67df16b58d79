// Cluster launch control (Blackwell CLC, TLX clc_producer / clc_consumer): a non-persistent grid whose CTAs steal
// the tiles of not-yet-launched CTAs. clusterlaunchcontrol.try_cancel (PTX ISA 9.7.13.x) asynchronously writes its
// 16-byte response to shared memory and completes 16 tx bytes on `full`; the response may be read only once that
// phase of `full` completed.
// BUG: the response is queried before the wait on `full`: race-raw at the query.
// Fixed variant: wait, then query (and fence the generic read before the next async write of the response).
// RUN: %tlx-sim check %s --grid 64 --no-proofs > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
// RUN: sed -e "/BUG-ONLY/d" -e 's|// FIXED: ||' %s > %t.fixed.mlir
// RUN: %tlx-sim check %t.fixed.mlir --grid 64 --schedules 4 | FileCheck %s --check-prefix=CLEAN
// CLEAN: tlx-sim check: no findings
// Every tile exactly once: 2 SMs of 1 CTA each start 2 CTAs; the 62 others are canceled by try_cancel in launch
// order and never start; each of the 2 CTAs' last request fails (64 requests).
// RUN: %tlx-sim predict %t.fixed.mlir --grid 64 --set num_sms=2 --set max_ctas_per_sm=1 | FileCheck %s --check-prefix=DISPATCH
// DISPATCH: CTAs: 2, 1 per SM
// DISPATCH: CLC: 64 try_cancel requests, 62 clusters canceled (responses decided by the simulator's CTA dispatcher
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @clc_loop() attributes {noinline = false} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %cm1 = arith.constant -1 : i32
    %true = arith.constant true
    %full = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("full")
    %response = ttg.local_alloc : () -> !ttg.memdesc<1xui128, #shared1, #smem, mutable> loc("response")
    ttng.init_barrier %full, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %pid = tt.get_program_id x : i32
    %r:2 = scf.while (%tile = %pid, %phase = %c0) : (i32, i32) -> (i32, i32) {
      %go = arith.cmpi ne, %tile, %cm1 : i32
      scf.condition(%go) %tile, %phase : i32, i32
    } do {
    ^bb0(%tile: i32, %phase: i32):
      ttng.barrier_expect %full, 16, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      // CHECK: clc_response_race.mlir:[[@LINE+3]]:{{[0-9]+}}: error: race-raw: {{.*}}response
      // CHECK: clc_response_race.mlir:[[@LINE+1]]:{{[0-9]+}}: note: {{.*}}CLC try_cancel response
      ttng.async_clc_try_cancel %full, %response : !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xui128, #shared1, #smem, mutable>
      %next:3 = ttng.clc_query_cancel %response : (!ttg.memdesc<1xui128, #shared1, #smem, mutable>) -> (i32, i32, i32) // BUG-ONLY
      ttng.wait_barrier %full, %phase, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      // FIXED: %next:3 = ttng.clc_query_cancel %response : (!ttg.memdesc<1xui128, #shared1, #smem, mutable>) -> (i32, i32, i32)
      // FIXED: ttng.fence_async_shared {bCluster = false}
      %p2 = arith.xori %phase, %c1 : i32
      scf.yield %next#0, %p2 : i32, i32
    }
    tt.return
  }
}
