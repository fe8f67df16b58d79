// A race whose first access is 5000 asynchronous operations old: the race checker drops the vector-clock entries of
// asynchronous operations that no shadow epoch names (verifier/RaceChecker.h collect, every 4096 issues); the TMA
// store's read of `s` is still named by its epoch, so the local_store that rewrites `s` after the loop, without
// the store's wait, is a race-war however many TMA loads ran in between. The loop's loads (each waited on its
// barrier with the parity of its round) keep their own buffer `t` race-free. Fixed: the store's wait before it.
// RUN: %tlx-sim check %s --grid 1 --desc d=128x64 --no-proofs | FileCheck %s --check-prefix=CLEAN
// CLEAN: tlx-sim check: no findings
// RUN: sed -e '/WAIT-ONLY$/d' %s > %t.bug.mlir
// RUN: %tlx-sim check %t.bug.mlir --grid 1 --desc d=128x64 --no-proofs > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
// (the bug file lacks the wait's line: the check below it names [[@LINE]], the op's line there)
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @race_after_many_async(%d: !tt.tensordesc<tensor<128x64xf16, #shared>> loc("d"), %d_0: i32 loc("d"), %d_1: i32 loc("d"), %d_2: i64 loc("d"), %d_3: i64 loc("d")) attributes {noinline = false} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c5000 = arith.constant 5000 : i32
    %true = arith.constant true
    %one = arith.constant dense<1.000000e+00> : tensor<128x64xf16, #blocked>
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("bar")
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %s = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable> loc("s")
    %t = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable> loc("t")
    ttg.local_store %one, %s : tensor<128x64xf16, #blocked> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    ttng.fence_async_shared {bCluster = false}
    // CHECK-DAG: race_after_many_async.mlir.tmp.bug.mlir:[[@LINE+1]]:{{[0-9]+}}: note: the TMA store of partition 'default' accesses it here
    ttng.async_tma_copy_local_to_global %d[%c0, %c0] %s : !tt.tensordesc<tensor<128x64xf16, #shared>>, !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    scf.for %i = %c0 to %c5000 step %c1  : i32 {
      %parity = arith.andi %i, %c1 : i32
      ttng.barrier_expect %bar, 16384, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      ttng.async_tma_copy_global_to_local %d[%c0, %c0] %t, %bar, %true : !tt.tensordesc<tensor<128x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
      ttng.wait_barrier %bar, %parity, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    }
    ttng.async_tma_store_wait {pendings = 0 : i32} // WAIT-ONLY
    // CHECK-DAG: race_after_many_async.mlir.tmp.bug.mlir:[[@LINE]]:{{[0-9]+}}: error: race-war: the local_store of partition 'default' overwrites s while the TMA store of partition 'default' may still be reading it
    ttg.local_store %one, %s : tensor<128x64xf16, #blocked> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    tt.return
  }
}
