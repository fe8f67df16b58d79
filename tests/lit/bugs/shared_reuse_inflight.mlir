// Shared-memory reuse under an async write in flight (the TLX GEMM pipeline with its K loop skipped: the prologue's
// TMA load of A's first stage is never waited). Triton's allocator (lib/Analysis/Allocation.cpp) gives the bytes of
// a buffer to a later one once the first one's last use in program order has passed: `a`'s last use is the TMA load
// that fills it, so the epilogue's staging tile `c` gets the same bytes (both 16 KB at offset 0). The TMA load
// completes asynchronously, on its mbarrier (PTX ISA 9.1 9.7.9.25.5.2): until a wait observes that, it may still
// write the bytes that `c` now holds.
// The correct kernel waits on the load's barrier before the epilogue: clean. BUG: the wait dropped: race-waw at
// the local_store of `c` (the TMA load of `a` named in a note), race-raw at the TMA store that reads `c`. (The
// bug file lacks the wait's line: the checks below it name [[@LINE]], the op's line there.)
// RUN: %tlx-sim check %s --grid 1 --desc a_desc=128x64 --desc c_desc=128x64 --schedules 4 | FileCheck %s --check-prefix=CLEAN
// CLEAN: tlx-sim check: no findings
// RUN: sed -e '/WAIT-ONLY$/d' %s > %t.bug.mlir
// RUN: %tlx-sim check %t.bug.mlir --grid 1 --desc a_desc=128x64 --desc c_desc=128x64 --no-proofs > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @shared_reuse(%a_desc: !tt.tensordesc<tensor<128x64xf16, #shared>> loc("a_desc"), %a_desc_0: i32 loc("a_desc"), %a_desc_1: i32 loc("a_desc"), %a_desc_2: i64 loc("a_desc"), %a_desc_3: i64 loc("a_desc"), %c_desc: !tt.tensordesc<tensor<128x64xf16, #shared>> loc("c_desc"), %c_desc_0: i32 loc("c_desc"), %c_desc_1: i32 loc("c_desc"), %c_desc_2: i64 loc("c_desc"), %c_desc_3: i64 loc("c_desc")) attributes {noinline = false} {
    %c0 = arith.constant 0 : i32
    %true = arith.constant true
    %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf16, #blocked>
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("bar")
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %a = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable> loc("a")
    ttng.barrier_expect %bar, 16384, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    // CHECK-DAG: shared_reuse_inflight.mlir.tmp.bug.mlir:[[@LINE+1]]:{{[0-9]+}}: note: the TMA load of partition 'default' accesses it here
    ttng.async_tma_copy_global_to_local %a_desc[%c0, %c0] %a, %bar, %true : !tt.tensordesc<tensor<128x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    ttng.wait_barrier %bar, %c0, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> // WAIT-ONLY
    %c = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable> loc("c")
    // CHECK-DAG: shared_reuse_inflight.mlir.tmp.bug.mlir:[[@LINE]]:{{[0-9]+}}: error: race-waw: the local_store of partition 'default' overwrites c while the TMA load of partition 'default' may still be writing a, in bytes a shares: Triton's allocator placed both buffers there
    ttg.local_store %zero, %c : tensor<128x64xf16, #blocked> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    ttng.fence_async_shared {bCluster = false}
    // CHECK-DAG: shared_reuse_inflight.mlir.tmp.bug.mlir:[[@LINE]]:{{[0-9]+}}: error: race-raw: the TMA store of partition 'default' reads c while the TMA load of partition 'default' may still be writing a
    ttng.async_tma_copy_local_to_global %c_desc[%c0, %c0] %c : !tt.tensordesc<tensor<128x64xf16, #shared>>, !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    ttng.async_tma_store_wait {pendings = 0 : i32}
    tt.return
  }
}
