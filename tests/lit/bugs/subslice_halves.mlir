// Column halves of an NVMMA-swizzled tile (TLX hopper_gemm_ws.py `local_slice(data_b, [0, BN // 2], ...)`): a
// 64x128 f16 buffer with 128-byte swizzling is stored as two 64x64 column blocks (a 128B-swizzled row holds 64 f16),
// so the subslices [0, 0] and [0, 64] are disjoint, contiguous 4096-element ranges. Two TMA boxes fill one half each:
// clean. (Taking every subslice to start at its buffer's first element made the two fills overlap: race-waw.)
// RUN: %tlx-sim check %s --grid 1 --desc b_desc=64x64 --schedules 4 | FileCheck %s --check-prefix=CLEAN
// CLEAN: tlx-sim check: no findings
// BUG: both boxes go to the first half: the second TMA overwrites the first one's bytes (race-waw).
// RUN: sed -e 's|%b_smem\[0, 64\]|%b_smem[0, 0]|' %s > %t.bug.mlir
// RUN: %tlx-sim check %t.bug.mlir --grid 1 --desc b_desc=64x64 --no-proofs > %t.bug; test $? -eq 1
// RUN: FileCheck %s --check-prefix=WAW < %t.bug
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @subslice_halves(%b_desc: !tt.tensordesc<tensor<64x64xf16, #shared>> loc("b_desc"), %b_desc_0: i32 loc("b_desc"), %b_desc_1: i32 loc("b_desc"), %b_desc_2: i64 loc("b_desc"), %b_desc_3: i64 loc("b_desc")) attributes {noinline = false} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %true = arith.constant true
    %b_smem = ttg.local_alloc : () -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable> loc("b_smem")
    %full = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("full")
    ttng.init_barrier %full, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %lo = ttg.memdesc_subslice %b_smem[0, 0] : !ttg.memdesc<64x128xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable, 64x128>
    %hi = ttg.memdesc_subslice %b_smem[0, 64] : !ttg.memdesc<64x128xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable, 64x128>
    ttng.barrier_expect %full, 16384, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.async_tma_copy_global_to_local %b_desc[%c0, %c0] %lo, %full, %true : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable, 64x128>
    // WAW: bug.mlir:[[@LINE+1]]:{{[0-9]+}}: error: race-waw: the TMA load of partition 'default' overwrites b_smem[0] while the TMA load of partition 'default' may still be writing it
    ttng.async_tma_copy_global_to_local %b_desc[%c0, %c64] %hi, %full, %true : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable, 64x128>
    ttng.wait_barrier %full, %c0, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %v = ttg.local_load %b_smem : !ttg.memdesc<64x128xf16, #shared, #smem, mutable> -> tensor<64x128xf16, #blocked>
    tt.return
  }
}
