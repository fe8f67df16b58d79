// `ub.poison` (MLIR ub dialect): a value with no defined content, as fbtriton seeds a loop-carried TMA store token
// (fused_attention_ws_device_tma_dp): free, an unknown value; a token wait on it names no bulk group and waits for
// nothing. Each iteration waits on the previous iteration's store token before rewriting buf (the first iteration
// waits on the poison token: nothing is in flight yet).
// The fixed kernel is clean, and ub.poison has semantics (no warning). BUG: the loop carries the incoming token on (yields %old_tok
// instead of the new store's %cur_tok): every iteration waits on the poison token, so iteration 1 rewrites buf while the
// TMA store of iteration 0 may still read it.
// RUN: %tlx-sim check %s --grid 1 --desc c_desc=256x64 --schedules 4 2>&1 | FileCheck %s --check-prefix=FIXED
// FIXED-NOT: no simulator semantics
// FIXED: tlx-sim check: no findings
// RUN: sed -e 's|scf.yield %cur_tok :|scf.yield %old_tok :|' %s > %t.bug.mlir
// RUN: grep -q 'scf.yield %old_tok :' %t.bug.mlir
// RUN: %tlx-sim check %t.bug.mlir --grid 1 --desc c_desc=256x64 > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @ub_poison_token(%c_desc: !tt.tensordesc<tensor<64x64xf16, #shared>> loc("c_desc"), %c_desc_0: i32 loc("c_desc"), %c_desc_1: i32 loc("c_desc"), %c_desc_2: i64 loc("c_desc"), %c_desc_3: i64 loc("c_desc")) attributes {noinline = false} {
    %one = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #blocked>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %c64 = arith.constant 64 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("buf")
    %poison = ub.poison : !ttg.async.token
    %last = scf.for %i = %c0 to %c4 step %c1 iter_args(%old_tok = %poison) -> (!ttg.async.token) : i32 {
      ttng.async_tma_store_token_wait %old_tok : !ttg.async.token
      // CHECK-DAG: ub_poison_token.mlir.tmp.bug.mlir:[[@LINE+1]]:{{[0-9]+}}: error: race-war: the local_store of partition 'default' (iteration 1) overwrites buf while the TMA store of partition 'default' (iteration 0) may still be reading it (CTA 0)
      ttg.local_store %one, %buf : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      ttng.fence_async_shared {bCluster = false}
      %row = arith.muli %i, %c64 : i32
      %cur_tok = ttng.async_tma_copy_local_to_global %c_desc[%row, %c0] %buf : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> !ttg.async.token
      scf.yield %cur_tok : !ttg.async.token
    }
    ttng.async_tma_store_token_wait %last : !ttg.async.token
    tt.return
  }
}
