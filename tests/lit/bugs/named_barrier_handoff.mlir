// Named barriers as synchronization (issue 16), FlashMLA's decode hand-off: the producer warp group
// (partition0, 4 warps) writes a shared tile with generic stores, then `bar.arrive 2, 256`; the consumer warp
// group (default, 4 warps) `bar.sync 2, 256`s and reads the tile. PTX ISA 9.1 9.7.13.1 (barrier): "The
// barrier{.cta}.sync or barrier{.cta}.red or barrier{.cta}.arrive instruction guarantees that when the barrier
// completes, prior memory accesses requested by this thread are performed relative to all threads participating
// in the barrier"; the memory model: a bar.arrive synchronizes with a bar.sync on the same barrier. So the arrive
// releases, the sync that completes the rendezvous acquires. The tile is handed over once per iteration, and
// the consumer gives the buffer back through a second id (`bar.arrive 3, 256` / the producer's `bar.sync 3,
// 256` before its next store), so ids 2 and 3 are reused in every iteration (one rendezvous per phase).
// FIXED (this file): clean under 16 schedules.
// RUN: %tlx-sim check %s --grid 1 --schedules 16 | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
// BUG 1: the consumer reads before its bar.sync: the read is ordered with no store. It runs before the
// producer's store in the simulation, so the store is the second access of the unordered pair (race-war at the
// store, the early read named in the note).
// RUN: sed -e 's|^ *// READ-EARLY: ||' -e '/READ-LATE$/d' %s > %t.early.mlir
// RUN: grep -c '^ *%v0 = ttg.local_load' %t.early.mlir | grep -qx 1
// RUN: %tlx-sim check %t.early.mlir --grid 1 > %t.early; test $? -eq 1
// RUN: FileCheck %s --check-prefix=EARLY -DREAD=$(grep -n '^ *%v0 = ttg.local_load' %t.early.mlir | cut -d: -f1) -DSTORE=$(grep -n '^ *ttg.local_store' %t.early.mlir | cut -d: -f1) < %t.early
// EARLY: named_barrier_handoff.mlir.tmp.early.mlir:[[STORE]]:{{[0-9]+}}: error: race-war: the local_store of partition 'partition0' (iteration 0) overwrites tile while the local_load of partition 'default' (iteration 0) may still be reading it (CTA 0)
// EARLY-NEXT: named_barrier_handoff.mlir.tmp.early.mlir:[[READ]]:{{[0-9]+}}: note: the local_load of partition 'default' (iteration 0) accesses it here
// EARLY: tlx-sim check: 1 finding
// BUG 2: no buffer give-back (the producer does not bar.sync 3 before rewriting): its next iteration's store is
// ordered with no read, so it can land before the consumer reads the previous tile (race-raw at the read, naming
// the store of iteration 1), and the consumer's bar.arrive 3 of two iterations complete id 3's rendezvous with
// no bar.sync in it (named-barrier at that arrive).
// RUN: sed -e '/GIVE-BACK$/d' %s > %t.noback.mlir
// RUN: %tlx-sim check %t.noback.mlir --grid 1 > %t.noback; test $? -eq 1
// RUN: FileCheck %s --check-prefix=NOBACK -DREAD=$(grep -n '^ *%v = ttg.local_load' %t.noback.mlir | cut -d: -f1) -DARRIVE=$(grep -n '^ *ttng.arrive_barrier_named %c3_i32' %t.noback.mlir | cut -d: -f1) < %t.noback
// NOBACK-DAG: named_barrier_handoff.mlir.tmp.noback.mlir:[[ARRIVE]]:{{[0-9]+}}: error: named-barrier: arrive vs sync mismatch: rendezvous 0 of named barrier 3 completed by bar.arrive alone; no bar.sync waits for it
// NOBACK-DAG: named_barrier_handoff.mlir.tmp.noback.mlir:[[READ]]:{{[0-9]+}}: error: race-raw: the local_load of partition 'default' (iteration 0) reads tile before the local_store of partition 'partition0' (iteration 1) that fills it is known to be complete (CTA 0)
// NOBACK: tlx-sim check: 2 findings
// BUG 3: thread-count mismatch: the consumer syncs for 384 threads on id 2, which the two warp groups (256
// threads) never reach: named-barrier at the producer's bar.arrive that joins the 384-thread rendezvous with 256,
// and the consumer's bar.sync deadlocks.
// RUN: sed -e 's|%c256_i32 = arith.constant 256 : i32 // SYNC-COUNT|%c256_i32 = arith.constant 384 : i32|' %s > %t.count.mlir
// RUN: grep -q 'arith.constant 384' %t.count.mlir
// RUN: %tlx-sim check %t.count.mlir --grid 1 > %t.count; test $? -eq 1
// RUN: FileCheck %s --check-prefix=COUNT -DSYNC=$(grep -n '^ *ttng.wait_barrier_named %c2_i32' %t.count.mlir | cut -d: -f1) -DARRIVE=$(grep -n '^ *ttng.arrive_barrier_named %id2' %t.count.mlir | cut -d: -f1) < %t.count
// COUNT-DAG: named_barrier_handoff.mlir.tmp.count.mlir:[[ARRIVE]]:{{[0-9]+}}: error: named-barrier: thread-count mismatch: bar.arrive on named barrier 2 counts 256 threads, but the rendezvous it joins counts 384 (partition 'partition0', CTA 0)
// COUNT-DAG: named_barrier_handoff.mlir.tmp.count.mlir:[[SYNC]]:{{[0-9]+}}: error: deadlock: partition 'default' of CTA 0 waits forever in bar.sync on named barrier 2
// COUNT: tlx-sim check: 2 findings
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @named_barrier_handoff() attributes {noinline = false} {
    %tile = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("tile")
    ttg.warp_specialize(%tile) attributes {requestedRegisters = array<i32: 232>}
    default {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c2_i32 = arith.constant 2 : i32
      %c3_i32 = arith.constant 3 : i32
      %c256_i32 = arith.constant 256 : i32 // SYNC-COUNT
      %c256b = arith.constant 256 : i32
      scf.for %i = %c0 to %c2 step %c1 : i32 {
        // READ-EARLY: %v0 = ttg.local_load %tile : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
        ttng.wait_barrier_named %c2_i32, %c256_i32 : i32, i32
        %v = ttg.local_load %tile : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked> // READ-LATE
        ttng.arrive_barrier_named %c3_i32, %c256b : i32, i32
      }
      ttg.warp_yield
    }
    partition0(%t: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>) num_warps(4) {
      %p0 = arith.constant 0 : i32
      %p1 = arith.constant 1 : i32
      %p2 = arith.constant 2 : i32
      %id2 = arith.constant 2 : i32
      %id3 = arith.constant 3 : i32
      %n = arith.constant 256 : i32
      %one = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #blocked>
      scf.for %j = %p0 to %p2 step %p1 : i32 {
        ttg.local_store %one, %t : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
        ttng.arrive_barrier_named %id2, %n : i32, i32
        ttng.wait_barrier_named %id3, %n : i32, i32 // GIVE-BACK
      }
      ttg.warp_return
    } : (!ttg.memdesc<64x64xf16, #shared, #smem, mutable>) -> ()
    tt.return
  }
}
