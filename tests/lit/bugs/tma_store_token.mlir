// fbtriton 3.7 TMA store tokens: `ttng.async_tma_copy_local_to_global ... -> !ttg.async.token` names the store's
// bulk-async group, and `ttng.async_tma_store_token_wait %tok` waits until that store (and the issuer's older
// ones) have read their shared memory: cp.async.bulk.wait_group.read N with N the younger groups (PTX ISA
// 9.7.9.25.4.3). Two stores: %a from buf_a, then %b from buf_b; waiting on %a frees buf_a only.
// The fixed kernel rewrites buf_a after the wait on %a. BUG: buf_b is rewritten after the wait on %a, while the
// store of %b may still read it (race-war at the local_store).
// RUN: %tlx-sim check %s --grid 1 --desc c_desc=256x64 --schedules 4 | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
// RUN: sed -e 's|ttg.local_store %val2, %buf_a :|ttg.local_store %val2, %buf_b :|' %s > %t.bug.mlir
// RUN: grep -q 'local_store %val2, %buf_b' %t.bug.mlir
// RUN: %tlx-sim check %t.bug.mlir --grid 1 --desc c_desc=256x64 > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tma_store_token(%c_desc: !tt.tensordesc<tensor<64x64xf16, #shared>> loc("c_desc"), %c_desc_0: i32 loc("c_desc"), %c_desc_1: i32 loc("c_desc"), %c_desc_2: i64 loc("c_desc"), %c_desc_3: i64 loc("c_desc")) attributes {noinline = false} {
    %one = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #blocked>
    %val2 = arith.constant dense<2.000000e+00> : tensor<64x64xf16, #blocked>
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %buf_a = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("buf_a")
    %buf_b = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("buf_b")
    ttg.local_store %one, %buf_a : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    ttg.local_store %one, %buf_b : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    ttng.fence_async_shared {bCluster = false}
    %a = ttng.async_tma_copy_local_to_global %c_desc[%c0, %c0] %buf_a : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> !ttg.async.token
    %b = ttng.async_tma_copy_local_to_global %c_desc[%c64, %c0] %buf_b : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> !ttg.async.token
    ttng.async_tma_store_token_wait %a : !ttg.async.token
    // CHECK: tma_store_token.mlir.tmp.bug.mlir:[[@LINE+1]]:{{[0-9]+}}: error: race-war:
    ttg.local_store %val2, %buf_a : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    ttng.async_tma_store_token_wait %b : !ttg.async.token
    tt.return
  }
}
