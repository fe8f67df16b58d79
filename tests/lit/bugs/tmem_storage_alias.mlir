// TLX TMEM storage aliasing (tlx.storage_alias_spec / local_alloc(reuse=...), the blackwell_fa_* tutorials): one
// tmem_alloc of 128x256xi32 (256 columns) viewed through ttg.memdesc_reinterpret as qk 2x128x128xf32, p
// 8x128x64xf16 and alpha 256x128x1xf32. TMEM views are placed by 32-bit columns, from each view's own type (Triton's
// getTmemAllocSizes / getTMemViewOffset): a qk buffer spans 128 columns, a p buffer 32 (fp16 packed two per column,
// colStride 1), an alpha buffer 1; so qk[1] = columns 128-255, p[4] = 128-159, p[3] = 96-127, alpha[192] = column
// 192. Two softmax partitions work on the two halves without synchronizing: default loads qk[0] and stores p[0] and
// alpha[64] (columns 0-31, 64: inside qk[0]); partition0 loads qk[1] and stores p[P] and alpha[192].
// FIXED (P = 4, columns 128-159): the halves are disjoint: clean (element offsets, 4 x 128 x 64 = 32768 "columns",
// made this a race). BUG (P = 3, columns 96-127, inside qk[0]): partition0's store races with default's tcgen05.ld
// of qk[0], reported with the columns.
// RUN: %tlx-sim check %s --grid 1 --schedules 16 | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
// RUN: sed -e 's|p_\[%c4\]|p_[%c3]|' %s > %t.bug.mlir
// RUN: grep -q 'p_\[%c3\]' %t.bug.mlir
// RUN: %tlx-sim check %t.bug.mlir --grid 1 > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
#col = #ttg.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
#r64 = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
#r128 = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 256, colStride = 1>
#tmem1 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#tmem2 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
#tmem3 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 1, colStride = 1>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tmem_storage_alias() attributes {noinline = false} {
    %storage = ttng.tmem_alloc : () -> !ttg.memdesc<128x256xi32, #tmem, #ttng.tensor_memory, mutable> loc("storage")
    %qk = ttg.memdesc_reinterpret %storage : !ttg.memdesc<128x256xi32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<2x128x128xf32, #tmem1, #ttng.tensor_memory, mutable>
    %p = ttg.memdesc_reinterpret %storage : !ttg.memdesc<128x256xi32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<8x128x64xf16, #tmem2, #ttng.tensor_memory, mutable>
    %alpha = ttg.memdesc_reinterpret %storage : !ttg.memdesc<128x256xi32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<256x128x1xf32, #tmem3, #ttng.tensor_memory, mutable>
    ttg.warp_specialize(%qk, %p, %alpha) attributes {requestedRegisters = array<i32: 232>}
    default {
      %true = arith.constant true
      %c0 = arith.constant 0 : i32
      %c64 = arith.constant 64 : i32
      %pv = arith.constant dense<1.000000e+00> : tensor<128x64xf16, #r64>
      %av = arith.constant dense<1.000000e+00> : tensor<128x1xf32, #col>
      %qk0 = ttg.memdesc_index %qk[%c0] : !ttg.memdesc<2x128x128xf32, #tmem1, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x128xf32, #tmem1, #ttng.tensor_memory, mutable>
      // CHECK-DAG: tmem_storage_alias.mlir.tmp.bug.mlir:[[@LINE+1]]:{{[0-9]+}}: note: the tmem_load of partition 'default' accesses it here
      %s = ttng.tmem_load %qk0 : !ttg.memdesc<128x128xf32, #tmem1, #ttng.tensor_memory, mutable> -> tensor<128x128xf32, #r128>
      %p0 = ttg.memdesc_index %p[%c0] : !ttg.memdesc<8x128x64xf16, #tmem2, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf16, #tmem2, #ttng.tensor_memory, mutable>
      ttng.tmem_store %pv, %p0, %true : tensor<128x64xf16, #r64> -> !ttg.memdesc<128x64xf16, #tmem2, #ttng.tensor_memory, mutable>
      %a0 = ttg.memdesc_index %alpha[%c64] : !ttg.memdesc<256x128x1xf32, #tmem3, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x1xf32, #tmem3, #ttng.tensor_memory, mutable>
      ttng.tmem_store %av, %a0, %true : tensor<128x1xf32, #col> -> !ttg.memdesc<128x1xf32, #tmem3, #ttng.tensor_memory, mutable>
      ttg.warp_yield
    }
    partition0(%qk_: !ttg.memdesc<2x128x128xf32, #tmem1, #ttng.tensor_memory, mutable>, %p_: !ttg.memdesc<8x128x64xf16, #tmem2, #ttng.tensor_memory, mutable>, %alpha_: !ttg.memdesc<256x128x1xf32, #tmem3, #ttng.tensor_memory, mutable>) num_warps(4) {
      %true = arith.constant true
      %c1 = arith.constant 1 : i32
      %c3 = arith.constant 3 : i32
      %c4 = arith.constant 4 : i32
      %c192 = arith.constant 192 : i32
      %pv = arith.constant dense<2.000000e+00> : tensor<128x64xf16, #r64>
      %av = arith.constant dense<2.000000e+00> : tensor<128x1xf32, #col>
      %qk1 = ttg.memdesc_index %qk_[%c1] : !ttg.memdesc<2x128x128xf32, #tmem1, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x128xf32, #tmem1, #ttng.tensor_memory, mutable>
      %s = ttng.tmem_load %qk1 : !ttg.memdesc<128x128xf32, #tmem1, #ttng.tensor_memory, mutable> -> tensor<128x128xf32, #r128>
      %p4 = ttg.memdesc_index %p_[%c4] : !ttg.memdesc<8x128x64xf16, #tmem2, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf16, #tmem2, #ttng.tensor_memory, mutable>
      // CHECK-DAG: tmem_storage_alias.mlir.tmp.bug.mlir:[[@LINE+1]]:{{[0-9]+}}: error: race-war: the tmem_store of partition 'partition0' overwrites storage columns 0-127 while the tmem_load of partition 'default' may still be reading it (CTA 0)
      ttng.tmem_store %pv, %p4, %true : tensor<128x64xf16, #r64> -> !ttg.memdesc<128x64xf16, #tmem2, #ttng.tensor_memory, mutable>
      %a1 = ttg.memdesc_index %alpha_[%c192] : !ttg.memdesc<256x128x1xf32, #tmem3, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x1xf32, #tmem3, #ttng.tensor_memory, mutable>
      ttng.tmem_store %av, %a1, %true : tensor<128x1xf32, #col> -> !ttg.memdesc<128x1xf32, #tmem3, #ttng.tensor_memory, mutable>
      ttg.warp_return
    } : (!ttg.memdesc<2x128x128xf32, #tmem1, #ttng.tensor_memory, mutable>, !ttg.memdesc<8x128x64xf16, #tmem2, #ttng.tensor_memory, mutable>, !ttg.memdesc<256x128x1xf32, #tmem3, #ttng.tensor_memory, mutable>) -> ()
    tt.return
  }
}
// CHECK: tlx-sim check: 1 finding{{$}}
