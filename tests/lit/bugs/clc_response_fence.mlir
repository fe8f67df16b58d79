// Cluster launch control (TLX clc_consumer, CUTLASS's PersistentTileSchedulerSm100): the response that
// clusterlaunchcontrol.try_cancel writes through the async proxy is read with ld.shared (generic proxy) by
// query_cancel, and the next try_cancel overwrites it through the async proxy. Accesses of one location through
// different proxies need a cross-proxy fence (PTX ISA 9.1 8.6 "Proxies"): the reader fences (fence.proxy.async)
// after its read, before the next request may overwrite the response.
// The correct loop (wait, query, fence) is clean. BUG: the fence after the query dropped: missing-fence at the
// try_cancel of the next round, the query named in a note. 2 SMs of 1 CTA each: every CTA's first request
// succeeds, so the response is overwritten (with 64 CTAs resident at once every first request fails).
// RUN: %tlx-sim check %s --grid 64 --set num_sms=2 --set max_ctas_per_sm=1 --schedules 4 | FileCheck %s --check-prefix=CLEAN
// CLEAN: tlx-sim check: no findings
// RUN: sed -e '/FENCE-ONLY$/d' %s > %t.bug.mlir
// RUN: %tlx-sim check %t.bug.mlir --grid 64 --set num_sms=2 --set max_ctas_per_sm=1 --no-proofs > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @clc_fence() attributes {noinline = false} {
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
      // CHECK: clc_response_fence.mlir.tmp.bug.mlir:[[@LINE+1]]:{{[0-9]+}}: error: missing-fence: the CLC try_cancel response of partition 'default' overwrites response through the async proxy, but the CLC response read of partition 'default' read it through the generic proxy with no fence_async_shared (fence.proxy.async) after it
      ttng.async_clc_try_cancel %full, %response : !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xui128, #shared1, #smem, mutable>
      ttng.wait_barrier %full, %phase, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      // CHECK: clc_response_fence.mlir.tmp.bug.mlir:[[@LINE+1]]:{{[0-9]+}}: note: the CLC response read of partition 'default' accesses it here
      %next:3 = ttng.clc_query_cancel %response : (!ttg.memdesc<1xui128, #shared1, #smem, mutable>) -> (i32, i32, i32)
      ttng.fence_async_shared {bCluster = false} // FENCE-ONLY
      %p2 = arith.xori %phase, %c1 : i32
      scf.yield %next#0, %p2 : i32, i32
    }
    tt.return
  }
}
