// TMEM regions are (stage, columns) x lanes: a column chunk written by the warps of one partition while another
// partition's warps still use an overlapping chunk is a race; disjoint chunks of one accumulator are not.
// The default partition (warps 0-3) owns columns 64-127 of acc (`ttng.tmem_subslice {N = 64}`): it writes and then
// reads them. partition0 (warps 4-7) writes its own chunk at the same time with no barrier in between. BUG: its
// chunk starts at column 32 (columns 32-95), overlapping the default partition's columns 64-95: race-waw between
// the two tcgen05.st and race-war with the default partition's tcgen05.ld, reported with the columns. The fixed variant (FIXED) writes columns 0-63: clean.
// RUN: %tlx-sim check %s --grid 1 > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
// RUN: sed -e 's|{N = 32 : i32}|{N = 0 : i32}|' %s > %t.fixed.mlir
// RUN: %tlx-sim check %t.fixed.mlir --grid 1 --schedules 16 | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
#reg = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#tmem1 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tmem_column_chunk() attributes {noinline = false} {
    %acc = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> loc("acc")
    ttg.warp_specialize(%acc) attributes {requestedRegisters = array<i32: 232>}
    default {
      %true = arith.constant true
      %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #reg>
      %hi = ttng.tmem_subslice %acc {N = 64 : i32} : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      // CHECK-DAG: tmem_column_chunk.mlir:[[@LINE+1]]:{{[0-9]+}}: note: the tmem_store of partition 'default' accesses it here
      ttng.tmem_store %zero, %hi, %true : tensor<128x64xf32, #reg> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      // CHECK-DAG: tmem_column_chunk.mlir:[[@LINE+1]]:{{[0-9]+}}: note: the tmem_load of partition 'default' accesses it here
      %v = ttng.tmem_load %hi : !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128> -> tensor<128x64xf32, #reg>
      ttg.warp_yield
    }
    partition0(%t: !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>) num_warps(4) {
      %true = arith.constant true
      %ones = arith.constant dense<1.000000e+00> : tensor<128x64xf32, #reg>
      %lo = ttng.tmem_subslice %t {N = 32 : i32} : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      // CHECK-DAG: tmem_column_chunk.mlir:[[@LINE+2]]:{{[0-9]+}}: error: race-waw: the tmem_store of partition 'partition0' overwrites acc columns 64-127 while the tmem_store of partition 'default' may still be writing it (CTA 0)
      // CHECK-DAG: tmem_column_chunk.mlir:[[@LINE+1]]:{{[0-9]+}}: error: race-war: the tmem_store of partition 'partition0' overwrites acc columns 64-127 while the tmem_load of partition 'default' may still be reading it (CTA 0)
      ttng.tmem_store %ones, %lo, %true : tensor<128x64xf32, #reg> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      ttg.warp_return
    } : (!ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>) -> ()
    tt.return
  }
}
// CHECK: tlx-sim check: 2 findings
