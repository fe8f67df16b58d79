// A 2-CTA MMA pair as TLX compiles it (blackwell_gemm_2cta.py): both CTAs of the pair execute
// `tc_gen5_mma {two_ctas}` with the completion barrier `done` (count 1), but only the pair's even CTA issues it
// (tcgen05.mma.cta_group::2 is one MMA over the pair; fbtriton 3.7 MMAv5.cpp predicates it and its commits on
// %cluster_ctarank & 1 == 0, SASS `UTCHMMA.2CTA` under that branch), and its commit arrives once on `done` of both
// CTAs (tcgen05.commit.cta_group::2 .multicast::cluster, mask 0b11). Each CTA waits `done` once per iteration. No
// explicit cluster barrier: fbtriton puts one after the last `init_barrier` of the entry block of a paired-MMA
// kernel (tlx.enable_paired_cta_mma), which orders the peer's 2-CTA TMA bytes after the leader's init.
// Clean: one arrival per phase in each CTA. (Counting the odd CTA's op as a second MMA made each `done` complete
// two phases per iteration: "arrival for phase 1 of done before any wait observed phase 0".)
// RUN: %tlx-sim check %s --grid 2 --desc a_desc=128x64 --desc b_desc=64x128 --schedules 8 | FileCheck %s --check-prefix=CLEAN
// CLEAN: tlx-sim check: no findings
// BUG: `done` initialized for two arrivals (one commit per CTA): the pair's one commit completes no phase, and both
// CTAs wait on `done` forever.
// RUN: sed -e 's|init_barrier %done, 1|init_barrier %done, 2|' %s > %t.count2.mlir
// RUN: %tlx-sim check %t.count2.mlir --grid 2 --desc a_desc=128x64 --desc b_desc=64x128 --no-proofs > %t.count2; test $? -eq 1
// RUN: FileCheck %s --check-prefix=COUNT2 < %t.count2
// A standalone commit (`tc_gen5_commit %done` after an MMA without barriers) in a 2-CTA module is the same
// multicast, issued by the leader only (SASS `@P UTCBAR.2CTA.MULTICAST`, P = elect && !(rank & 1)): clean.
// RUN: sed -e 's|^.*// MMA-BAR$|// (the MMA with a barrier: below without)|' -e 's|// COMMIT: ||' %s > %t.commit.mlir
// RUN: %tlx-sim check %t.commit.mlir --grid 2 --desc a_desc=128x64 --desc b_desc=64x128 --schedules 8 | FileCheck %s --check-prefix=CLEAN
// Without the paired-MMA attribute and with no other remote barrier use, fbtriton inserts no entry cluster barrier:
// the peer's 2-CTA TMA bytes may reach the leader's `ready` before the leader initialized it.
// RUN: sed -e 's|tlx.enable_paired_cta_mma = true, ||' %s > %t.nosync.mlir
// RUN: %tlx-sim check %t.nosync.mlir --grid 2 --desc a_desc=128x64 --desc b_desc=64x128 --no-proofs > %t.nosync; test $? -eq 1
// RUN: FileCheck %s --check-prefix=NOSYNC < %t.nosync
#linear = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
module attributes {tlx.enable_paired_cta_mma = true, "ttg.cluster-dim-x" = 2 : i32, "ttg.cluster-dim-y" = 1 : i32, "ttg.cluster-dim-z" = 1 : i32, "ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32, "ttng.two-ctas" = true} {
  tt.func public @two_cta_pair(%a_desc: !tt.tensordesc<tensor<128x64xf16, #shared>> loc("a_desc"), %a_desc_0: i32 loc("a_desc"), %a_desc_1: i32 loc("a_desc"), %a_desc_2: i64 loc("a_desc"), %a_desc_3: i64 loc("a_desc"), %b_desc: !tt.tensordesc<tensor<64x128xf16, #shared>> loc("b_desc"), %b_desc_0: i32 loc("b_desc"), %b_desc_1: i32 loc("b_desc"), %b_desc_2: i64 loc("b_desc"), %b_desc_3: i64 loc("b_desc")) attributes {noinline = false} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c4 = arith.constant 4 : i32
    %c64 = arith.constant 64 : i32
    %true = arith.constant true
    %a_smem = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable> loc("a_smem")
    %b_smem = ttg.local_alloc : () -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable> loc("b_smem")
    %ready = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("ready")
    %done = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("done")
    %acc = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> loc("acc")
    ttng.init_barrier %ready, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %done, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %rank = nvg.cluster_id
    %odd = arith.remsi %rank, %c2 : i32
    %leader = arith.cmpi eq, %odd, %c0 : i32
    %phase = scf.for %k = %c0 to %c4 step %c1 iter_args(%p = %c0) -> (i32) : i32 {
      %off = arith.muli %k, %c64 : i32
      // the leader arms `ready` for the bytes of both CTAs; each CTA's 2-CTA copies complete on the leader's `ready`
      ttng.barrier_expect %ready, 65536, %leader : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      // NOSYNC: nosync.mlir:[[@LINE+1]]:{{[0-9]+}}: error: cluster-barrier: the TMA copy of partition 'default' of CTA 1 completes its bytes on ready of CTA 0 without being ordered after CTA 0 entered the barrier's current phase
      ttng.async_tma_copy_global_to_local %a_desc[%c0, %off] %a_smem, %ready, %true {two_cta = true} : !tt.tensordesc<tensor<128x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
      ttng.async_tma_copy_global_to_local %b_desc[%off, %c0] %b_smem, %ready, %true {two_cta = true} : !tt.tensordesc<tensor<64x128xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable>
      ttng.wait_barrier %ready, %p, %leader : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      ttng.tc_gen5_mma %a_smem, %b_smem, %acc, %true, %true, %done[%true] {is_async, two_ctas} : !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, !ttg.memdesc<64x128xf16, #shared, #smem, mutable>, !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> // MMA-BAR
      // COMMIT: ttng.tc_gen5_mma %a_smem, %b_smem, %acc, %true, %true {is_async, two_ctas} : !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, !ttg.memdesc<64x128xf16, #shared, #smem, mutable>, !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>
      // COMMIT: ttng.tc_gen5_commit %done : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      // COUNT2: count2.mlir:[[@LINE+1]]:{{[0-9]+}}: error: deadlock: partition 'default' of CTA {{[01]}} waits forever on done for parity 0 {{.*}}: the barrier is in phase 0 (parity 0) with 1 of 2 arrivals pending
      ttng.wait_barrier %done, %p, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      %q = arith.xori %p, %c1 : i32
      scf.yield %q : i32
    }
    %d = ttng.tmem_load %acc : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> tensor<128x128xf32, #linear>
    tt.return
  }
}
