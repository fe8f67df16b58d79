// TMEM chunks of one accumulator handed between two warp groups through a named-barrier rendezvous (issue 16): the
// shape of tmem_column_chunk.mlir, where partition0's chunk (columns 32-95) overlaps the default partition's
// (columns 64-127), but here the default partition (warps 0-3) `bar.arrive 1, 256`s after its tcgen05.st and
// tcgen05.ld, and partition0 (warps 4-7) `bar.sync 1, 256`s before its tcgen05.st. PTX ISA 9.1 9.7.13.1: the
// accesses requested before bar.arrive are performed relative to the bar.sync participants; tcgen05.ld / st are
// synchronous for the issuing warp once tcgen05.wait::ld / st returns (9.7.16.8.3, Triton waits right after each).
// FIXED (this file): clean under 16 schedules (the race checker gave named barriers no happens-before edge and
// reported race-waw and race-war here).
// RUN: %tlx-sim check %s --grid 1 --schedules 16 | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
// BUG: the default partition arrives before its tcgen05.ld: its store is ordered before partition0's, its load is
// not (race-war at partition0's store, naming the columns; no race-waw).
// RUN: sed -e 's|^ *// ttng.arrive_barrier_named \(.*\) // ARRIVE-EARLY$|      ttng.arrive_barrier_named \1|' -e '/ARRIVE-AFTER$/d' %s > %t.early.mlir
// RUN: grep -c '^ *ttng.arrive_barrier_named' %t.early.mlir | grep -qx 1
// RUN: %tlx-sim check %t.early.mlir --grid 1 > %t.out; test $? -eq 1
// RUN: FileCheck %s --check-prefix=EARLY -DLINE=$(grep -n '^ *ttng.tmem_store %ones' %t.early.mlir | cut -d: -f1) < %t.out
// EARLY-NOT: race-waw
// EARLY: tmem_chunk_rendezvous.mlir.tmp.early.mlir:[[LINE]]:{{[0-9]+}}: error: race-war: the tmem_store of partition 'partition0' overwrites acc columns {{[0-9]+-[0-9]+}} while the tmem_load of partition 'default' may still be reading it (CTA 0)
// EARLY-NOT: race-waw
// EARLY: tlx-sim check: 1 finding
#reg = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#tmem1 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tmem_chunk_rendezvous() attributes {noinline = false} {
    %acc = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> loc("acc")
    ttg.warp_specialize(%acc) attributes {requestedRegisters = array<i32: 232>}
    default {
      %true = arith.constant true
      %c1_i32 = arith.constant 1 : i32
      %c256_i32 = arith.constant 256 : i32
      %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #reg>
      %hi = ttng.tmem_subslice %acc {N = 64 : i32} : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      ttng.tmem_store %zero, %hi, %true : tensor<128x64xf32, #reg> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      // ttng.arrive_barrier_named %c1_i32, %c256_i32 : i32, i32 // ARRIVE-EARLY
      %v = ttng.tmem_load %hi : !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128> -> tensor<128x64xf32, #reg>
      ttng.arrive_barrier_named %c1_i32, %c256_i32 : i32, i32 // ARRIVE-AFTER
      ttg.warp_yield
    }
    partition0(%t: !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>) num_warps(4) {
      %true = arith.constant true
      %ones = arith.constant dense<1.000000e+00> : tensor<128x64xf32, #reg>
      %lo = ttng.tmem_subslice %t {N = 32 : i32} : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      %id = arith.constant 1 : i32
      %n = arith.constant 256 : i32
      ttng.wait_barrier_named %id, %n : i32, i32
      ttng.tmem_store %ones, %lo, %true : tensor<128x64xf32, #reg> -> !ttg.memdesc<128x64xf32, #tmem1, #ttng.tensor_memory, mutable, 128x128>
      ttg.warp_return
    } : (!ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>) -> ()
    tt.return
  }
}
