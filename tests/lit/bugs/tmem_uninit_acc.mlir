// An attention accumulator read before its first MMA (blackwell_fa_clc / blackwell_fa_ws_* correction step): the
// correction partition (default) rescales acc[0] and acc[1] half by half (ttng.tmem_subslice N = 0, 64: tmem_load,
// tmem_store) before any MMA wrote them, then arrives on `ready`; the MMA partition waits `ready` and writes both
// buffers with tcgen05.mma enable-input-d false (use_acc = False), which overwrites whatever the columns held
// (PTX ISA 9.1 9.7.16.10.1: D = A x B). The first rescale reads undefined TMEM contents (nothing initializes the
// columns tcgen05.alloc returns) and its result is overwritten: no race, and not a read of the "wrong" buffer
// although acc[0] columns 0-63 were stored when columns 64-127 and acc[1] are read.
// The fixed kernel is clean. BUG: the MMA partition waits `ready` with parity 1, which a fresh barrier passes at once
// (mbarrier.try_wait.parity: the phase before the current one counts as complete): the MMAs overwrite acc while the
// correction may still read and write it: race-waw with the rescale's stores, one per MMA and column half.
// RUN: %tlx-sim check %s --grid 1 --schedules 16 | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
// RUN: sed -e 's|ttng.wait_barrier %ready_, %c0,|ttng.wait_barrier %ready_, %c1,|' %s > %t.bug.mlir
// RUN: grep -q 'wait_barrier %ready_, %c1,' %t.bug.mlir
// RUN: %tlx-sim check %t.bug.mlir --grid 1 > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
#r64 = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#tmem1 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tmem_uninit_acc() attributes {noinline = false} {
    %acc = ttng.tmem_alloc : () -> !ttg.memdesc<2x128x128xf32, #tmem, #ttng.tensor_memory, mutable> loc("acc")
    %p = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable> loc("p")
    %v = ttg.local_alloc : () -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable> loc("v")
    %ready = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("ready")
    %done = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("done")
    ttng.init_barrier %ready, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %done, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttg.warp_specialize(%acc, %p, %v, %ready, %done) attributes {requestedRegisters = array<i32: 232>}
    default {
      %true = arith.constant true
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %acc0 = ttg.memdesc_index %acc[%c0] : !ttg.memdesc<2x128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>
      %acc1 = ttg.memdesc_index %acc[%c1] : !ttg.memdesc<2x128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>
      %lo0 = ttng.tmem_subslice %acc0 {N = 0 : i32} : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      %hi0 = ttng.tmem_subslice %acc0 {N = 64 : i32} : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      %lo1 = ttng.tmem_subslice %acc1 {N = 0 : i32} : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      %hi1 = ttng.tmem_subslice %acc1 {N = 64 : i32} : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      %a = ttng.tmem_load %lo0 : !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128> -> tensor<128x64xf32, #r64>
      // CHECK-DAG: tmem_uninit_acc.mlir.tmp.bug.mlir:[[@LINE+1]]:{{[0-9]+}}: note: the tmem_store of partition 'default' accesses it here
      ttng.tmem_store %a, %lo0, %true : tensor<128x64xf32, #r64> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      %b = ttng.tmem_load %hi0 : !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128> -> tensor<128x64xf32, #r64>
      ttng.tmem_store %b, %hi0, %true : tensor<128x64xf32, #r64> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      %c = ttng.tmem_load %lo1 : !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128> -> tensor<128x64xf32, #r64>
      ttng.tmem_store %c, %lo1, %true : tensor<128x64xf32, #r64> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      %d = ttng.tmem_load %hi1 : !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128> -> tensor<128x64xf32, #r64>
      ttng.tmem_store %d, %hi1, %true : tensor<128x64xf32, #r64> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      ttng.arrive_barrier %ready, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      ttng.wait_barrier %done, %c0, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      %e = ttng.tmem_load %lo0 : !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128> -> tensor<128x64xf32, #r64>
      %f = ttng.tmem_load %hi1 : !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128> -> tensor<128x64xf32, #r64>
      ttg.warp_yield
    }
    partition0(%acc_: !ttg.memdesc<2x128x128xf32, #tmem, #ttng.tensor_memory, mutable>, %p_: !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, %v_: !ttg.memdesc<64x128xf16, #shared, #smem, mutable>, %ready_: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %done_: !ttg.memdesc<1xi64, #shared1, #smem, mutable>) num_warps(1) {
      %true = arith.constant true
      %false = arith.constant false
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %acc0 = ttg.memdesc_index %acc_[%c0] : !ttg.memdesc<2x128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>
      %acc1 = ttg.memdesc_index %acc_[%c1] : !ttg.memdesc<2x128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>
      ttng.wait_barrier %ready_, %c0, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      // CHECK-DAG: tmem_uninit_acc.mlir.tmp.bug.mlir:[[@LINE+3]]:{{[0-9]+}}: error: race-waw: the tcgen05 MMA of partition 'partition0' overwrites acc[0] columns 0-63 while the tmem_store of partition 'default' may still be writing it (CTA 0)
      // CHECK-DAG: tmem_uninit_acc.mlir.tmp.bug.mlir:[[@LINE+2]]:{{[0-9]+}}: error: race-waw: the tcgen05 MMA of partition 'partition0' overwrites acc[0] columns 64-127 while the tmem_store of partition 'default' may still be writing it (CTA 0)
      // CHECK-DAG: tmem_uninit_acc.mlir.tmp.bug.mlir:[[@LINE+3]]:{{[0-9]+}}: error: race-waw: the tcgen05 MMA of partition 'partition0' overwrites acc[1] columns 0-63 while the tmem_store of partition 'default' may still be writing it (CTA 0)
      ttng.tc_gen5_mma %p_, %v_, %acc0, %false, %true {is_async} : !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, !ttg.memdesc<64x128xf16, #shared, #smem, mutable>, !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>
      // CHECK-DAG: tmem_uninit_acc.mlir.tmp.bug.mlir:[[@LINE+1]]:{{[0-9]+}}: error: race-waw: the tcgen05 MMA of partition 'partition0' overwrites acc[1] columns 64-127 while the tmem_store of partition 'default' may still be writing it (CTA 0)
      ttng.tc_gen5_mma %p_, %v_, %acc1, %false, %true, %done_[%true] {is_async} : !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, !ttg.memdesc<64x128xf16, #shared, #smem, mutable>, !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      ttg.warp_return
    } : (!ttg.memdesc<2x128x128xf32, #tmem, #ttng.tensor_memory, mutable>, !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, !ttg.memdesc<64x128xf16, #shared, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>) -> ()
    tt.return
  }
}
// CHECK: tlx-sim check: 4 findings
