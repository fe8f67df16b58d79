// Unstructured control flow (cf.cond_br / cf.br): a function body split into blocks, as fbtriton 3.7 emits for
// an early `if` whose branches rejoin (AMD's XCD pid remap). The simulator runs a cond_br triangle as an scf.if
// whose results are the join block's arguments. Here the proxy fence before a TMA store sits in the branch that
// runs when `%go` holds. The fixed variant: %go = pid >= 0 (always): the fence runs. BUG: %go = pid < 0 (never): the TMA
// store reads buf through the async proxy after a generic write with no fence_async_shared (missing-fence).
// RUN: %tlx-sim check %s --grid 2 --desc c_desc=256x64 --schedules 4 2>&1 | FileCheck %s --check-prefix=FIXED
// FIXED-NOT: warning
// FIXED: tlx-sim check: no findings
// RUN: sed -e 's|arith.cmpi sge, %wid, %c0|arith.cmpi slt, %wid, %c0|' %s > %t.bug.mlir
// RUN: grep -q 'cmpi slt, %wid' %t.bug.mlir
// RUN: %tlx-sim check %t.bug.mlir --grid 2 --desc c_desc=256x64 > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @cf_triangle(%c_desc: !tt.tensordesc<tensor<64x64xf16, #shared>> loc("c_desc"), %c_desc_0: i32 loc("c_desc"), %c_desc_1: i32 loc("c_desc"), %c_desc_2: i64 loc("c_desc"), %c_desc_3: i64 loc("c_desc")) attributes {noinline = false} {
    %one = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #blocked>
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %wid = tt.get_program_id x : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("buf")
    ttg.local_store %one, %buf : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %go = arith.cmpi sge, %wid, %c0 : i32
    cf.cond_br %go, ^bb1, ^bb2(%c0 : i32)
  ^bb1:
    ttng.fence_async_shared {bCluster = false}
    %row = arith.muli %wid, %c64 : i32
    cf.br ^bb2(%row : i32)
  ^bb2(%r: i32):
    // CHECK: cf_triangle.mlir.tmp.bug.mlir:[[@LINE+1]]:{{[0-9]+}}: error: missing-fence:
    ttng.async_tma_copy_local_to_global %c_desc[%r, %c0] %buf : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    ttng.async_tma_store_wait {pendings = 0 : i32}
    tt.return
  }
}
