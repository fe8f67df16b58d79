// TMEM halves of a 2-CTA pair (tcgen05 cta_group::2, TLX async_dot(two_ctas=True)): the leader's one MMA (M = 256)
// writes the accumulator rows 0-127 in the TMEM of the leader and rows 128-255 in the TMEM of its peer; each CTA's
// `acc` (128 x 128 f32) is its half. The commit arrives on `done` of both CTAs (multicast to the pair), so each CTA
// must wait on its own `done` before its tmem_load.
// BUG: only the leader waits on `done`; the peer (rank 1) relies on a cluster barrier that the leader passes right
// after issuing the MMA, and reads its half while the leader's MMA may still write it: race-raw in CTA 1 (the
// leader's own read, after its wait, is clean).
// Fixed variant: both CTAs wait on their `done`.
// RUN: %tlx-sim check %s --grid 1 --desc a_desc=128x64 --desc b_desc=64x128 --no-proofs > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
// RUN: sed -e "/BUG-ONLY/d" -e 's|// FIXED: ||' %s > %t.fixed.mlir
// RUN: %tlx-sim check %t.fixed.mlir --grid 1 --desc a_desc=128x64 --desc b_desc=64x128 --schedules 8 | FileCheck %s --check-prefix=CLEAN
// CLEAN: tlx-sim check: no findings (2 CTAs simulated
// The same pairs inside a 2x2 cluster (TLX ctas_per_cga = (2, 2, 1), grid (2, 2): one cluster): the pairs are the
// ranks that differ in bit 0, {0, 1} and {2, 3}, i.e. x-neighbours. The bug shows in a peer (findings are reported
// once per pair of source lines); the fixed variant is clean in both pairs.
// RUN: sed -e 's|"ttg.num-ctas" = 2 : i32|"ttg.cluster-dim-x" = 2 : i32, "ttg.cluster-dim-y" = 2 : i32, "ttg.num-ctas" = 1 : i32|' %s > %t.2d.mlir
// RUN: %tlx-sim check %t.2d.mlir --grid 2,2 --desc a_desc=128x64 --desc b_desc=64x128 --no-proofs > %t.2d; test $? -eq 1
// RUN: FileCheck %s --check-prefix=PAIRS < %t.2d
// PAIRS: error: race-raw: the tmem_load of partition 'default' of CTA [[PEER:[13]]] reads acc before the tcgen05 MMA of partition 'default' of CTA {{[02]}} that fills it is known to be complete (CTA [[PEER]])
// PAIRS-NOT: race-raw
// RUN: sed -e 's|"ttg.num-ctas" = 2 : i32|"ttg.cluster-dim-x" = 2 : i32, "ttg.cluster-dim-y" = 2 : i32, "ttg.num-ctas" = 1 : i32|' %t.fixed.mlir > %t.2d.fixed.mlir
// RUN: %tlx-sim check %t.2d.fixed.mlir --grid 2,2 --desc a_desc=128x64 --desc b_desc=64x128 --schedules 8 | FileCheck %s --check-prefix=CLEAN4
// CLEAN4: tlx-sim check: no findings (4 CTAs simulated
#linear = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @two_cta_tmem(%a_desc: !tt.tensordesc<tensor<128x64xf16, #shared>> loc("a_desc"), %a_desc_0: i32 loc("a_desc"), %a_desc_1: i32 loc("a_desc"), %a_desc_2: i64 loc("a_desc"), %a_desc_3: i64 loc("a_desc"), %b_desc: !tt.tensordesc<tensor<64x128xf16, #shared>> loc("b_desc"), %b_desc_0: i32 loc("b_desc"), %b_desc_1: i32 loc("b_desc"), %b_desc_2: i64 loc("b_desc"), %b_desc_3: i64 loc("b_desc")) attributes {noinline = false} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %true = arith.constant true
    %false = arith.constant false
    %a_smem = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable> loc("a_smem")
    %b_smem = ttg.local_alloc : () -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable> loc("b_smem")
    %ready = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("ready")
    %done = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("done")
    %acc = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> loc("acc")
    ttng.init_barrier %ready, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %done, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.cluster_arrive {relaxed = false}
    ttng.cluster_wait
    %rank = nvgpu.cluster_id
    %bit = arith.andi %rank, %c1 : i32
    %leader = arith.cmpi eq, %bit, %c0 : i32 // the pair's leader: the even rank
    ttng.barrier_expect %ready, 65536, %leader : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.async_tma_copy_global_to_local %a_desc[%c0, %c0] %a_smem, %ready, %true {two_cta = true} : !tt.tensordesc<tensor<128x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    ttng.async_tma_copy_global_to_local %b_desc[%c0, %c0] %b_smem, %ready, %true {two_cta = true} : !tt.tensordesc<tensor<64x128xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable>
    ttng.wait_barrier %ready, %c0, %leader : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.tc_gen5_mma %a_smem, %b_smem, %acc, %false, %leader, %done[%true] {is_async, two_ctas} : !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, !ttg.memdesc<64x128xf16, #shared, #smem, mutable>, !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    // The leader releases the cluster right after issuing the MMA: a cluster barrier orders the issue, not the
    // MMA's completion.
    ttng.cluster_arrive {relaxed = false}
    ttng.cluster_wait
    ttng.wait_barrier %done, %c0, %leader : !ttg.memdesc<1xi64, #shared1, #smem, mutable> // BUG-ONLY
    // FIXED: ttng.wait_barrier %done, %c0, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    // CHECK: two_cta_tmem.mlir:[[@LINE+2]]:{{[0-9]+}}: error: race-raw: the tmem_load of partition 'default' of CTA 1 reads acc before the tcgen05 MMA of partition 'default' of CTA 0 that fills it is known to be complete (CTA 1)
    // CHECK: two_cta_tmem.mlir:[[@LINE-8]]:{{[0-9]+}}: note: the tcgen05 MMA of partition 'default' of CTA 0 accesses it here
    %d = ttng.tmem_load %acc : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> tensor<128x128xf32, #linear>
    ttng.inval_barrier %ready : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.inval_barrier %done : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    // Neither CTA exits while the other may still reach into its shared memory.
    ttng.cluster_arrive {relaxed = false}
    ttng.cluster_wait
    tt.return
  }
}
// CHECK-NOT: (CTA 0)
