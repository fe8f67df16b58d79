// Bug class B19 (bug-classes.md): one hardware named-barrier id used by two unrelated rendezvous.
// Two cohorts, partition0 and partition1 (4 warps = 128 threads each), each synchronize their own warps with
// bar.sync on id 7 with 128 threads, at unrelated points. Arrivals of the two cohorts can be counted
// together (64 threads of each fill one generation): one cohort is released early, the other hangs. The
// fixed variant (FIXED) gives partition1 its own id.
// RUN: %tlx-sim check %s --grid 1 > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
// RUN: sed 's/%c7_i32_1 = arith.constant 7/%c7_i32_1 = arith.constant 8/' %s > %t.fixed.mlir
// RUN: %tlx-sim check %t.fixed.mlir --grid 1 | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @named_barrier_collision() attributes {noinline = false} {
    ttg.warp_specialize() attributes {requestedRegisters = array<i32: 24, 24>}
    default {
      ttg.warp_yield
    }
    partition0() num_warps(4) {
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c2_i32 = arith.constant 2 : i32
      %c7_i32 = arith.constant 7 : i32
      %c128_i32 = arith.constant 128 : i32
      scf.for %i = %c0_i32 to %c2_i32 step %c1_i32 : i32 {
        ttng.wait_barrier_named %c7_i32, %c128_i32 : i32, i32
      }
      ttg.warp_return
    }
    partition1() num_warps(4) {
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32_0 = arith.constant 1 : i32
      %c2_i32_0 = arith.constant 2 : i32
      %c7_i32_1 = arith.constant 7 : i32
      %c128_i32_0 = arith.constant 128 : i32
      scf.for %i = %c0_i32_0 to %c2_i32_0 step %c1_i32_0 : i32 {
        // CHECK: named_barrier_collision.mlir:[[@LINE+2]]:{{[0-9]+}}: error: named-barrier: one id used by two rendezvous: named barrier 7 synchronizes partitions 'partition1' here and partitions 'partition0' elsewhere
        // CHECK-NEXT: named_barrier_collision.mlir:{{[0-9]+}}:{{[0-9]+}}: note: partition 'partition0' bar.sync (128 threads of 128)
        ttng.wait_barrier_named %c7_i32_1, %c128_i32_0 : i32, i32
      }
      ttg.warp_return
    } : () -> ()
    // CHECK: tlx-sim check: 1 finding
    tt.return
  }
}
