// Bug class B09 (bug-classes.md): a TMA multicast issued before every destination CTA released its stage and
// armed its barrier for the phase. Cluster (2,1,1), 2 stages, K = 4. In each CTA the producer (partition0) waits its
// CTA's empty[s], arms full[s] (expect_tx) and CTA 0 multicasts the tile into bufs[s] of both CTAs (mask 0b11),
// completing the bytes on full[s] of each. The consumer (default) waits full[s], reads bufs[s] and releases it.
// BUG: each consumer releases only its own CTA's empty[s] (count 1), so CTA 0 refills CTA 1's stage while CTA 1's
// consumer may still read it, and its bytes may complete CTA 1's previous phase of full[s].
// Fixed variant: each consumer releases empty[s] of both CTAs (count 2, a remote arrive through map_to_remote_buffer): the
// multicast of iteration k + 2 is ordered after CTA 1 observed phase k of full[s] and released the stage.
// RUN: %tlx-sim check %s --grid 1 --desc a_desc=64x256 --no-proofs > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
// RUN: sed -e "/BUG-ONLY/d" -e 's|// FIXED: ||' %s > %t.fixed.mlir
// RUN: %tlx-sim check %t.fixed.mlir --grid 1 --desc a_desc=64x256 | FileCheck %s --check-prefix=CLEAN
// RUN: %tlx-sim check %t.fixed.mlir --grid 1 --desc a_desc=64x256 --schedules 8 | FileCheck %s --check-prefix=CLEAN
// CLEAN: tlx-sim check: no findings
// Variant: the fixed ring without the cluster barrier after the mbarrier inits: CTA 0's first multicast is not
// ordered after CTA 1 initialized full[0].
// RUN: grep -v -e cluster_arrive -e cluster_wait %t.fixed.mlir > %t.noinit.mlir
// RUN: %tlx-sim check %t.noinit.mlir --grid 1 --desc a_desc=64x256 > %t.noinit; test $? -eq 1
// RUN: FileCheck %s --check-prefix=NOINIT < %t.noinit
// NOINIT: error: cluster-barrier: the TMA copy of partition 'partition0' of CTA 0 completes its bytes on full[0] of CTA 1 without being ordered after CTA 1 entered the barrier's current phase
// NOINIT: note: partition 'default' of CTA 1 initializes full[0] here, unordered with the issue
// NOINIT-NOT: race-
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @multicast_ring(%a_desc: !tt.tensordesc<tensor<64x64xf16, #shared>> loc("a_desc"), %a_desc_0: i32 loc("a_desc"), %a_desc_1: i32 loc("a_desc"), %a_desc_2: i64 loc("a_desc"), %a_desc_3: i64 loc("a_desc")) attributes {noinline = false} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %bufs = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> loc("bufs")
    %sink = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("sink")
    %full = ttg.local_alloc : () -> !ttg.memdesc<2x1xi64, #shared1, #smem, mutable> loc("full")
    %empty = ttg.local_alloc : () -> !ttg.memdesc<2x1xi64, #shared1, #smem, mutable> loc("empty")
    %f0 = ttg.memdesc_index %full[%c0] : !ttg.memdesc<2x1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %f1 = ttg.memdesc_index %full[%c1] : !ttg.memdesc<2x1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %e0 = ttg.memdesc_index %empty[%c0] : !ttg.memdesc<2x1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %e1 = ttg.memdesc_index %empty[%c1] : !ttg.memdesc<2x1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %f0, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %f1, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %e0, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> // BUG-ONLY
    ttng.init_barrier %e1, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> // BUG-ONLY
    // FIXED: ttng.init_barrier %e0, 2 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    // FIXED: ttng.init_barrier %e1, 2 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.cluster_arrive {relaxed = false}
    ttng.cluster_wait
    ttg.warp_specialize(%a_desc, %bufs, %full, %empty, %sink) attributes {requestedRegisters = array<i32: 24>}
    default {
      %k0 = arith.constant 0 : i32
      %k1 = arith.constant 1 : i32
      %k2 = arith.constant 2 : i32
      %k4 = arith.constant 4 : i32
      %true = arith.constant true
      scf.for %k = %k0 to %k4 step %k1 : i32 {
        %s = arith.remsi %k, %k2 : i32
        %q = arith.divsi %k, %k2 : i32
        %ph = arith.andi %q, %k1 : i32
        %f = ttg.memdesc_index %full[%s] : !ttg.memdesc<2x1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %f, %ph, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        %b = ttg.memdesc_index %bufs[%s] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
        // CHECK-DAG: multicast_unarmed.mlir:[[@LINE+1]]:{{[0-9]+}}: note: the local_load of partition 'default' of CTA 1 (iteration 0) accesses it here
        %v = ttg.local_load %b : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
        ttg.local_store %v, %sink : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
        %e = ttg.memdesc_index %empty[%s] : !ttg.memdesc<2x1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.arrive_barrier %e, 1, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> // BUG-ONLY
        // FIXED: %r0 = ttng.map_to_remote_buffer %e, %k0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #ttng.shared_cluster_memory, mutable>
        // FIXED: ttng.arrive_barrier %r0, 1, %true : !ttg.memdesc<1xi64, #shared1, #ttng.shared_cluster_memory, mutable>
        // FIXED: %r1 = ttng.map_to_remote_buffer %e, %k1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #ttng.shared_cluster_memory, mutable>
        // FIXED: ttng.arrive_barrier %r1, 1, %true : !ttg.memdesc<1xi64, #shared1, #ttng.shared_cluster_memory, mutable>
      }
      ttg.warp_yield
    }
    partition0(%desc: !tt.tensordesc<tensor<64x64xf16, #shared>>, %pbufs: !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>, %pfull: !ttg.memdesc<2x1xi64, #shared1, #smem, mutable>, %pempty: !ttg.memdesc<2x1xi64, #shared1, #smem, mutable>, %psink: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>) num_warps(1) {
      %k0 = arith.constant 0 : i32
      %k1 = arith.constant 1 : i32
      %k2 = arith.constant 2 : i32
      %k3 = arith.constant 3 : i32
      %k4 = arith.constant 4 : i32
      %k64 = arith.constant 64 : i32
      %true = arith.constant true
      %rank = nvgpu.cluster_id
      %leader = arith.cmpi eq, %rank, %k0 : i32
      scf.for %k = %k0 to %k4 step %k1 : i32 {
        %s = arith.remsi %k, %k2 : i32
        %q = arith.divsi %k, %k2 : i32
        %ph = arith.andi %q, %k1 : i32
        %free = arith.xori %ph, %k1 : i32
        %e = ttg.memdesc_index %pempty[%s] : !ttg.memdesc<2x1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %e, %free, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        %f = ttg.memdesc_index %pfull[%s] : !ttg.memdesc<2x1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.barrier_expect %f, 8192, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        %b = ttg.memdesc_index %pbufs[%s] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
        %x = arith.muli %k, %k64 : i32
        // CHECK-DAG: multicast_unarmed.mlir:[[@LINE+2]]:{{[0-9]+}}: error: cluster-barrier: the TMA copy of partition 'partition0' of CTA 0 completes its bytes on full[0] of CTA 1 without being ordered after CTA 1 entered the barrier's current phase
        // CHECK-DAG: multicast_unarmed.mlir:[[@LINE+1]]:{{[0-9]+}}: error: race-war: the TMA load of partition 'partition0' of CTA 0 (iteration 2) overwrites bufs[0] while the local_load of partition 'default' of CTA 1 (iteration 0) may still be reading it (CTA 1)
        ttng.async_tma_copy_global_to_local %desc[%k0, %x] %b, %f, %leader, %k3 : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      }
      ttg.warp_return
    } : (!tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>, !ttg.memdesc<2x1xi64, #shared1, #smem, mutable>, !ttg.memdesc<2x1xi64, #shared1, #smem, mutable>, !ttg.memdesc<64x64xf16, #shared, #smem, mutable>) -> ()
    tt.return
  }
}
