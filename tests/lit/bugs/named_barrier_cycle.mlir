// Bug class B05 (bug-classes.md): a circular wait through a named barrier. The producer (partition0) waits
// empty[Q] (initialized not free: it needs one consumer release) before it fills Q and arrives full[Q].
// Consumer warp group A (default) meets warp group B (partition1) at bar.sync 3, 256 and only then releases
// empty[Q]; B first waits full[Q]. Cycle: A -> bar 3 -> B -> full[Q] -> producer -> empty[Q] -> A. The fixed
// variant releases empty[Q] before the named barrier.
// RUN: %tlx-sim check %s --grid 1 > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
// RUN: sed -e "/LATE-ARRIVE/d" -e 's|// FIXED-ARRIVE: ||' %s > %t.fixed.mlir
// RUN: %tlx-sim check %t.fixed.mlir --grid 1 | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @named_barrier_cycle() attributes {noinline = false} {
    %true = arith.constant true
    %c0_i32 = arith.constant 0 : i32
    %c3_i32 = arith.constant 3 : i32
    %c256_i32 = arith.constant 256 : i32
    %full = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable> loc("full")
    %empty = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable> loc("empty")
    ttng.init_barrier %full, 1 : !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>
    ttng.init_barrier %empty, 1 : !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>
    ttg.warp_specialize(%full, %empty) attributes {requestedRegisters = array<i32: 24, 232>}
    default {
      // FIXED-ARRIVE: ttng.arrive_barrier %empty, 1, %true : !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>
      // CHECK: named_barrier_cycle.mlir:[[@LINE+1]]:{{[0-9]+}}: error: deadlock: partition 'default' of CTA 0 waits forever in bar.sync on named barrier 3: 128 of 256 threads arrived; no partition can progress
      ttng.wait_barrier_named %c3_i32, %c256_i32 : i32, i32
      ttng.arrive_barrier %empty, 1, %true : !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable> // LATE-ARRIVE
      ttg.warp_yield
    }
    partition0(%f0: !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>, %e0: !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>) num_warps(1) {
      %p0 = arith.constant 0 : i32
      %t0 = arith.constant true
      // CHECK-DAG: named_barrier_cycle.mlir:[[@LINE+1]]:{{[0-9]+}}: note: partition 'partition0' of CTA 0 waits forever on empty for parity 0
      ttng.wait_barrier %e0, %p0, %t0 : !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>
      ttng.arrive_barrier %f0, 1, %t0 : !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>
      ttg.warp_return
    }
    partition1(%f1: !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>, %e1: !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>) num_warps(4) {
      %p1 = arith.constant 0 : i32
      %t1 = arith.constant true
      %id = arith.constant 3 : i32
      %n = arith.constant 256 : i32
      // CHECK-DAG: named_barrier_cycle.mlir:[[@LINE+1]]:{{[0-9]+}}: note: partition 'partition1' of CTA 0 waits forever on full for parity 0
      ttng.wait_barrier %f1, %p1, %t1 : !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>
      ttng.wait_barrier_named %id, %n : i32, i32
      ttg.warp_return
    } : (!ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>, !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>) -> ()
    tt.return
  }
}
