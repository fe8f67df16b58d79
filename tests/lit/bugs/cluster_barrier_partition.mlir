// Bug class B22 (bug-classes.md): a cluster barrier emitted inside one warp-specialized partition.
// Cluster of 2 CTAs; each CTA runs the default partition (4 warps) and partition0 (1 warp). Only the default
// partition executes cluster_arrive / cluster_wait, then releases `go`, on which partition0 waits: the cluster
// barrier needs every non-exited thread of both CTAs, so the default partition waits forever. The fixed
// variant (FIXED) runs the cluster barrier before warp_specialize, where all warps of the CTA execute it.
// RUN: %tlx-sim check %s --grid 1 > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
// RUN: sed -e "/IN-PARTITION/d" -e 's|// FIXED-SYNC: ||' %s > %t.fixed.mlir
// RUN: %tlx-sim check %t.fixed.mlir --grid 1 | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @cluster_barrier_partition() attributes {noinline = false} {
    %true = arith.constant true
    %go = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable> loc("go")
    ttng.init_barrier %go, 1 : !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>
    // FIXED-SYNC: ttng.cluster_arrive {relaxed = false}
    // FIXED-SYNC: ttng.cluster_wait
    ttg.warp_specialize(%go) attributes {requestedRegisters = array<i32: 24>}
    default {
      ttng.cluster_arrive {relaxed = false} // IN-PARTITION
      // CHECK: cluster_barrier_partition.mlir:[[@LINE+1]]:{{[0-9]+}}: error: cluster-barrier: partition 'default' of CTA 0 waits on the cluster barrier forever: every non-exited thread of every CTA of the cluster must arrive (barrier.cluster has no participant count), but partition 'partition0' of CTA 0, partition 'partition0' of CTA 1 never arrive
      ttng.cluster_wait // IN-PARTITION
      ttng.arrive_barrier %go, 1, %true : !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>
      ttg.warp_yield
    }
    partition0(%g: !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>) num_warps(1) {
      %p = arith.constant 0 : i32
      %t = arith.constant true
      ttng.wait_barrier %g, %p, %t : !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>
      ttg.warp_return
    } : (!ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>) -> ()
    ttng.inval_barrier %go : !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>
    tt.return
  }
}
// CHECK: error: deadlock: partition 'default' of CTA 0 waits forever on the cluster barrier
