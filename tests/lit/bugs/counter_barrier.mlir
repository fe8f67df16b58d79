// A barrier used as a completion counter (TLX blackwell_fa_ws.py `acc_empties`): every iteration's MMA commits to
// `cnt`, and the only wait on `cnt` comes after the loop, with the parity of its last phase (3: parity 1). The
// phases before it complete with no one waiting, which PTX allows (PTX ISA 9.1 9.7.13.15.4: a phase completes when
// its arrivals and tx-count are done, waiters or not). The wait is unambiguous: the loop's wait on `step`
// (arrived by the MMA issued after each `cnt` MMA; tcgen05 ops complete in issue order, 9.7.16.6) tells the waiter
// that phase 2 completed, so the barrier is in phase 3 or 4 when it waits, and parity 1 names phase 3 in both.
// Clean. (Judging every arrival of phase k + 1 before a wait on phase k a lap, and the first wait's phase 3 a
// waiter three phases behind, reported arrive-count and parity-aliasing here.)
// RUN: %tlx-sim check %s --grid 1 --desc a_desc=128x64 --desc b_desc=64x128 --schedules 8 | FileCheck %s --check-prefix=CLEAN
// CLEAN: tlx-sim check: no findings
// BUG: without the waits on `step` nothing orders the MMAs before the wait on `cnt`: it may find `cnt` in phase 0,
// 1 or 2 (on a fresh barrier parity 1 passes at once; in phase 2 it names phase 1) and pass before the last MMA
// wrote acc: the tmem_load reads it before the MMA is known to be complete (race-raw).
// RUN: sed -e "s|^.*// STEP-WAIT$|// (no wait on step)|" %s > %t.bug.mlir
// RUN: %tlx-sim check %t.bug.mlir --grid 1 --desc a_desc=128x64 --desc b_desc=64x128 --no-proofs > %t.bug; test $? -eq 1
// RUN: FileCheck %s --check-prefix=RACE < %t.bug
#linear = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @counter_barrier(%a_desc: !tt.tensordesc<tensor<128x64xf16, #shared>> loc("a_desc"), %a_desc_0: i32 loc("a_desc"), %a_desc_1: i32 loc("a_desc"), %a_desc_2: i64 loc("a_desc"), %a_desc_3: i64 loc("a_desc"), %b_desc: !tt.tensordesc<tensor<64x128xf16, #shared>> loc("b_desc"), %b_desc_0: i32 loc("b_desc"), %b_desc_1: i32 loc("b_desc"), %b_desc_2: i64 loc("b_desc"), %b_desc_3: i64 loc("b_desc")) attributes {noinline = false} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %true = arith.constant true
    %a_smem = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable> loc("a_smem")
    %b_smem = ttg.local_alloc : () -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable> loc("b_smem")
    %ready = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("ready")
    %cnt = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("cnt")
    %step = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("step")
    %acc = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> loc("acc")
    %acc2 = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> loc("acc2")
    ttng.init_barrier %ready, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %cnt, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %step, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.barrier_expect %ready, 32768, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.async_tma_copy_global_to_local %a_desc[%c0, %c0] %a_smem, %ready, %true : !tt.tensordesc<tensor<128x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    ttng.async_tma_copy_global_to_local %b_desc[%c0, %c0] %b_smem, %ready, %true : !tt.tensordesc<tensor<64x128xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable>
    ttng.wait_barrier %ready, %c0, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %phase = scf.for %k = %c0 to %c4 step %c1 iter_args(%p = %c0) -> (i32) : i32 {
      ttng.tc_gen5_mma %a_smem, %b_smem, %acc, %true, %true, %cnt[%true] {is_async} : !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, !ttg.memdesc<64x128xf16, #shared, #smem, mutable>, !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      ttng.tc_gen5_mma %a_smem, %b_smem, %acc2, %true, %true, %step[%true] {is_async} : !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, !ttg.memdesc<64x128xf16, #shared, #smem, mutable>, !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      ttng.wait_barrier %step, %p, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> // STEP-WAIT
      %q = arith.xori %p, %c1 : i32
      scf.yield %q : i32
    }
    // the last phase of `cnt` is 3 (4 MMAs): parity 1
    ttng.wait_barrier %cnt, %c1, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    // RACE: bug.mlir:[[@LINE+1]]:{{[0-9]+}}: error: race-raw: the tmem_load of partition 'default' reads acc before the tcgen05 MMA of partition 'default' (iteration 3) that fills it is known to be complete
    %d = ttng.tmem_load %acc : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> tensor<128x128xf32, #linear>
    tt.return
  }
}
