// P stored over S in tensor memory (Triton's attention, fused_attention_ws_device_tma_dp): S = qk 128x128xf32
// (128 columns); P = its first 64 columns (ttng.tmem_subslice N = 0) reinterpreted as 128x128xf16 with colStride 1:
// fp16 packed two per 32-bit column (PTX ISA 9.1 9.7.16.2.1, Triton's getTmemAllocSizes), so P spans columns 0-63;
// alpha = column 64 (tmem_subslice N = 64, 128x1xf32). The softmax (default) stores P, arrives on p_full, then stores
// alpha; the MMA partition waits p_full and issues tcgen05.mma with A = P read from tensor memory ([a-tmem],
// PTX ISA 9.1 9.7.16.10.1). The alpha store is not ordered with the MMA, but the MMA reads columns 0-63 only.
// FIXED (packed P): clean (the A operand counted as elements, 128 x 128 / 128 lanes = 128 "columns", made this a
// race). BUG: P reinterpreted unpacked (colStride 2: one fp16 per column) spans columns 0-127: the MMA reads column
// 64 as part of P, but the alpha store there is not ordered before it (race-raw; race-war when the MMA runs first).
// RUN: %tlx-sim check %s --grid 1 --schedules 16 | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
// RUN: sed -e 's|^#tmemP = .*|#tmemP = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 2>|' %s > %t.bug.mlir
// RUN: grep -q 'colStride = 2' %t.bug.mlir
// RUN: %tlx-sim check %t.bug.mlir --grid 1 > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
#col = #ttg.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
#r128 = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#tmem1 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
#tmem2 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 1, colStride = 1>
#tmemP = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tmem_packed_p() attributes {noinline = false} {
    %qk = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> loc("qk")
    %acc = ttng.tmem_alloc : () -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable> loc("acc")
    %v = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable> loc("v")
    %p_full = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("p_full")
    %done = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("done")
    ttng.init_barrier %p_full, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %done, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttg.warp_specialize(%qk, %acc, %v, %p_full, %done) attributes {requestedRegisters = array<i32: 232>}
    default {
      %true = arith.constant true
      %pv = arith.constant dense<1.000000e+00> : tensor<128x128xf16, #r128>
      %av = arith.constant dense<1.000000e+00> : tensor<128x1xf32, #col>
      %s = ttng.tmem_subslice %qk {N = 0 : i32} : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      %p = ttg.memdesc_reinterpret %s : !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128> -> !ttg.memdesc<128x128xf16, #tmemP, #ttng.tensor_memory, mutable>
      ttng.tmem_store %pv, %p, %true : tensor<128x128xf16, #r128> -> !ttg.memdesc<128x128xf16, #tmemP, #ttng.tensor_memory, mutable>
      ttng.arrive_barrier %p_full, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      %a = ttng.tmem_subslice %qk {N = 64 : i32} : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x1xf32, #tmem2, #ttng.tensor_memory, mutable, 128x128>
      // CHECK-DAG: tmem_packed_p.mlir.tmp.bug.mlir:[[@LINE+1]]:{{[0-9]+}}: note: the tmem_store of partition 'default' accesses it here
      ttng.tmem_store %av, %a, %true : tensor<128x1xf32, #col> -> !ttg.memdesc<128x1xf32, #tmem2, #ttng.tensor_memory, mutable, 128x128>
      ttg.warp_yield
    }
    partition0(%qk_: !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>, %acc_: !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable>, %v_: !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, %p_full_: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %done_: !ttg.memdesc<1xi64, #shared1, #smem, mutable>) num_warps(1) {
      %true = arith.constant true
      %false = arith.constant false
      %c0 = arith.constant 0 : i32
      %s = ttng.tmem_subslice %qk_ {N = 0 : i32} : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      %p = ttg.memdesc_reinterpret %s : !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128> -> !ttg.memdesc<128x128xf16, #tmemP, #ttng.tensor_memory, mutable>
      ttng.wait_barrier %p_full_, %c0, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      // CHECK-DAG: tmem_packed_p.mlir.tmp.bug.mlir:[[@LINE+1]]:{{[0-9]+}}: error: race-raw: the tcgen05 MMA of partition 'partition0' reads qk columns 64-64 before the tmem_store of partition 'default' that fills it is known to be complete (CTA 0)
      ttng.tc_gen5_mma %p, %v_, %acc_, %false, %true, %done_[%true] {is_async} : !ttg.memdesc<128x128xf16, #tmemP, #ttng.tensor_memory, mutable>, !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      ttng.wait_barrier %done_, %c0, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      ttg.warp_return
    } : (!ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>, !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable>, !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>) -> ()
    tt.return
  }
}
// CHECK: tlx-sim check: 1 finding{{$}}
