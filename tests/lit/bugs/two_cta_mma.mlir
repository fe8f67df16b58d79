// 2-CTA MMA (tcgen05 cta_group::2, TLX async_dot(two_ctas=True)): the pair's leader CTA (rank 0) issues one MMA
// that reads the operand tiles of both CTAs of the pair and arrives on `done` of both (the commit is multicast to
// the pair). Every CTA loads its own tiles a_smem and b_smem by TMA.
// BUG: each CTA completes its tiles' bytes on its own `ready`, and the leader waits only its own: the MMA reads
// CTA 1's tiles before CTA 1's TMA loads are known to be complete (race-raw in CTA 1).
// Fixed variant: the loads are 2-CTA TMA copies (`two_cta`: they complete on `ready` of the pair's leader) and the
// leader arms `ready` for the bytes of both CTAs (TLX: only the leader calls expect).
// RUN: %tlx-sim check %s --grid 1 --desc a_desc=128x64 --desc b_desc=64x128 --no-proofs > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
// RUN: sed -e "/BUG-ONLY/d" -e 's|// FIXED: ||' %s > %t.fixed.mlir
// RUN: %tlx-sim check %t.fixed.mlir --grid 1 --desc a_desc=128x64 --desc b_desc=64x128 --schedules 8 | FileCheck %s --check-prefix=CLEAN
// CLEAN: tlx-sim check: no findings
// Variant: the peer does not wait for the MMA (its wait on `done` removed) and exits while the leader's MMA still
// reads its tiles and writes its accumulator.
// RUN: grep -v PEER-WAIT %t.fixed.mlir > %t.exit.mlir
// RUN: %tlx-sim check %t.exit.mlir --grid 1 --desc a_desc=128x64 --desc b_desc=64x128 --no-proofs > %t.exit; test $? -eq 1
// RUN: FileCheck %s --check-prefix=EXIT < %t.exit
// EXIT: error: cluster-barrier: partition 'default' of CTA 0 accesses the shared memory of CTA 1 of its cluster, which has already exited
// A 2-CTA MMA needs a cluster of at least 2 CTAs: a clear error (exit 2), not a single-CTA answer.
// RUN: sed -e 's|"ttg.num-ctas" = 2|"ttg.num-ctas" = 1|' %t.fixed.mlir > %t.one.mlir
// RUN: not %tlx-sim check %t.one.mlir --grid 1 --desc a_desc=128x64 --desc b_desc=64x128 2> %t.err
// RUN: FileCheck %s --check-prefix=ONE < %t.err
// ONE: 2-CTA (two_ctas / cta_group::2) operation needs clusters of at least 2 CTAs (ttg.num-ctas = 1)
#linear = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @two_cta_mma(%a_desc: !tt.tensordesc<tensor<128x64xf16, #shared>> loc("a_desc"), %a_desc_0: i32 loc("a_desc"), %a_desc_1: i32 loc("a_desc"), %a_desc_2: i64 loc("a_desc"), %a_desc_3: i64 loc("a_desc"), %b_desc: !tt.tensordesc<tensor<64x128xf16, #shared>> loc("b_desc"), %b_desc_0: i32 loc("b_desc"), %b_desc_1: i32 loc("b_desc"), %b_desc_2: i64 loc("b_desc"), %b_desc_3: i64 loc("b_desc")) attributes {noinline = false} {
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
    %leader = arith.cmpi eq, %rank, %c0 : i32
    ttng.barrier_expect %ready, 32768, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> // BUG-ONLY
    ttng.async_tma_copy_global_to_local %a_desc[%c0, %c0] %a_smem, %ready, %true : !tt.tensordesc<tensor<128x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable> // BUG-ONLY
    // CHECK-DAG: two_cta_mma.mlir:[[@LINE+1]]:{{[0-9]+}}: note: the TMA load of partition 'default' of CTA 1 accesses it here
    ttng.async_tma_copy_global_to_local %b_desc[%c0, %c0] %b_smem, %ready, %true : !tt.tensordesc<tensor<64x128xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable> // BUG-ONLY
    // FIXED: ttng.barrier_expect %ready, 65536, %leader : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    // FIXED: ttng.async_tma_copy_global_to_local %a_desc[%c0, %c0] %a_smem, %ready, %true {two_cta = true} : !tt.tensordesc<tensor<128x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    // FIXED: ttng.async_tma_copy_global_to_local %b_desc[%c0, %c0] %b_smem, %ready, %true {two_cta = true} : !tt.tensordesc<tensor<64x128xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable>
    ttng.wait_barrier %ready, %c0, %leader : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    // CHECK-DAG: two_cta_mma.mlir:[[@LINE+1]]:{{[0-9]+}}: error: race-raw: the tcgen05 MMA of partition 'default' of CTA 0 reads a_smem before the TMA load of partition 'default' of CTA 1 that fills it is known to be complete (CTA 1)
    ttng.tc_gen5_mma %a_smem, %b_smem, %acc, %false, %leader, %done[%true] {is_async, two_ctas} : !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, !ttg.memdesc<64x128xf16, #shared, #smem, mutable>, !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.wait_barrier %done, %c0, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> // PEER-WAIT
    %d = ttng.tmem_load %acc : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> tensor<128x128xf32, #linear>
    ttng.inval_barrier %ready : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.inval_barrier %done : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    tt.return
  }
}
// TLX's form of the launch (ctas_per_cga = (2, 1, 1)): ttg.num-ctas 1 and ttg.cluster-dim-x 2, the grid counts CTAs
// (here at the end: the mutation test names lines of this file).
// RUN: sed -e 's|"ttg.num-ctas" = 2 : i32|"ttg.cluster-dim-x" = 2 : i32, "ttg.num-ctas" = 1 : i32|' %t.fixed.mlir > %t.tlx.mlir
// RUN: %tlx-sim check %t.tlx.mlir --grid 2 --desc a_desc=128x64 --desc b_desc=64x128 --schedules 8 | FileCheck %s --check-prefix=CLEAN
