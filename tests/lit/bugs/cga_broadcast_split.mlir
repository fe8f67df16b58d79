// Gluon `num_ctas` = 4 with a CGA layout that broadcasts (issue 16 case (e), Gluon/Triton form): the TTGIR Triton
// 3.6 makes of kernels/hopper/cga_tma_scale.py with cga_layout [[1, 0], [0, 0]] (CTA-id bit 0 splits the box's rows
// in two, bit 1 is a zero basis: CTAs 0 and 2, 1 and 3 hold the same half). Triton 3.6 lowers the TMA load to one
// plain copy per CTA of its half (SASS: UTMALDG.2D, no .MULTICAST; host box 64x64, tensordesc_meta.block_size) on
// the CTA's own mbarrier: every CTA receives 64 x 128 fp16 = 16384 bytes, the box over CTASplitNum (2), not over
// num_ctas (4).
// BUG: the expect written as `x_desc.block_type.nbytes // gl.num_ctas()` (8192), right only when every CTA-id bit
// splits: each CTA's barrier expects 8192 bytes and 16384 land on it. Found as tx-count at the expect (the simulator
// completes a copy's bytes at once, so the phase never completes: deadlock at the wait; on hardware the bytes complete
// in pieces, the phase may complete when half of them landed, and the local_load read a half-written buffer).
// Fixed variant: 16384 = nbytes // 2 (the CTAs of a split).
// RUN: not %tlx-sim check %s --grid 2 --desc x_desc=8192x8192 --desc y_desc=8192x8192 --arg R=8192 --arg C=8192 --arg alpha=2.0 --no-proofs > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// RUN: sed -e "/BUG-ONLY/d" -e 's|// FIXED: ||' %s > %t.fixed.mlir
// RUN: %tlx-sim check %t.fixed.mlir --grid 2 --desc x_desc=8192x8192 --desc y_desc=8192x8192 --arg R=8192 --arg C=8192 --arg alpha=2.0 --schedules 8 --proofs 2>&1 | FileCheck %s --check-prefix=CLEAN
// CLEAN: tlx-sim check: no findings (8 CTAs simulated
// CLEAN: proof: tx-balance on bar (default): proved
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], CGALayout = [[1, 0], [0, 0]]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CGALayout = [[1, 0], [0, 0]]}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 4 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @cga_tma_scale_kernel(%x_desc: !tt.tensordesc<tensor<128x128xf16, #shared>> loc("x_desc"), %x_desc_0: i32 loc("x_desc"), %x_desc_1: i32 loc("x_desc"), %x_desc_2: i64 loc("x_desc"), %x_desc_3: i64 loc("x_desc"), %y_desc: !tt.tensordesc<tensor<128x128xf16, #shared>> loc("y_desc"), %y_desc_4: i32 loc("y_desc"), %y_desc_5: i32 loc("y_desc"), %y_desc_6: i64 loc("y_desc"), %y_desc_7: i64 loc("y_desc"), %R: i32 {tt.divisibility = 16 : i32} loc("R"), %C: i32 {tt.divisibility = 16 : i32} loc("C"), %alpha: f32 loc("alpha")) attributes {noinline = false} {
    %c127_i32 = arith.constant 127 : i32
    %c128_i32 = arith.constant 128 : i32
    %true = arith.constant true
    %c0_i32 = arith.constant 0 : i32
    %pid = tt.get_program_id x : i32
    %tiles_c = arith.addi %C, %c127_i32 : i32
    %tiles_c_8 = arith.divsi %tiles_c, %c128_i32 : i32
    %off_r = arith.divsi %pid, %tiles_c_8 : i32
    %off_r_9 = arith.muli %off_r, %c128_i32 : i32
    %off_c = arith.remsi %pid, %tiles_c_8 : i32
    %off_c_10 = arith.muli %off_c, %c128_i32 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<128x128xf16, #shared, #smem, mutable> loc("buf")
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("bar")
    ttng.init_barrier %bar, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    // CHECK: cga_broadcast_split.mlir:[[@LINE+1]]:{{[0-9]+}}: error: tx-count: expect-tx registered 8192 bytes on bar, but the 1 TMA copy completing on it delivered 16384; 8192 bytes too many arrive
    ttng.barrier_expect %bar, 8192, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> // BUG-ONLY
    // FIXED: ttng.barrier_expect %bar, 16384, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.async_tma_copy_global_to_local %x_desc[%off_r_9, %off_c_10] %buf, %bar, %true : !tt.tensordesc<tensor<128x128xf16, #shared>>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<128x128xf16, #shared, #smem, mutable>
    // CHECK: cga_broadcast_split.mlir:[[@LINE+1]]:{{[0-9]+}}: error: deadlock: partition 'default' of CTA 0 waits forever on bar for parity 0
    ttng.wait_barrier %bar, %c0_i32, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %x = ttg.local_load %buf : !ttg.memdesc<128x128xf16, #shared, #smem, mutable> -> tensor<128x128xf16, #blocked>
    %y = arith.extf %x : tensor<128x128xf16, #blocked> to tensor<128x128xf32, #blocked>
    %y_11 = tt.splat %alpha : f32 -> tensor<128x128xf32, #blocked>
    %y_12 = arith.mulf %y, %y_11 : tensor<128x128xf32, #blocked>
    %y_13 = arith.truncf %y_12 : tensor<128x128xf32, #blocked> to tensor<128x128xf16, #blocked>
    ttg.local_store %y_13, %buf : tensor<128x128xf16, #blocked> -> !ttg.memdesc<128x128xf16, #shared, #smem, mutable>
    ttng.fence_async_shared {bCluster = false}
    ttng.async_tma_copy_local_to_global %y_desc[%off_r_9, %off_c_10] %buf : !tt.tensordesc<tensor<128x128xf16, #shared>>, !ttg.memdesc<128x128xf16, #shared, #smem, mutable>
    ttng.async_tma_store_wait {pendings = 0 : i32}
    ttng.inval_barrier %bar : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    tt.return
  }
}
