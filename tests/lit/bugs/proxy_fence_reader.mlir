// A proxy fence on the reader's side (the TLX attention epilogues, Triton's autoWS TMA-store partition): the
// softmax partition (default) writes the output tile with generic stores and arrives on `full`; the epilogue
// partition waits on `full`, issues fence.proxy.async, then the TMA store that reads the tile through the async
// proxy. The PTX memory model asks for a proxy fence on the causality path from the generic write to the async
// read (PTX ISA 9.1 9.7.13.4, 9.7.15.7.1): the write happens before the wait that acquires it, the wait before the
// fence, the fence before the store. The fixed kernel is clean (only a fence by the writer counted, which made this
// a missing-fence). BUG: the epilogue fences before its wait: the write is not ordered before that fence, so
// nothing orders it before the async read (missing-fence at the TMA store).
// RUN: %tlx-sim check %s --grid 1 --desc o_desc=256x64 --schedules 8 | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
// RUN: sed -e 's|// ttng.fence_async_shared {bCluster = false} // BEFORE|ttng.fence_async_shared {bCluster = false}|' -e 's|^ *ttng.fence_async_shared {bCluster = false} // AFTER$|// (moved before the wait)|' %s > %t.bug.mlir
// RUN: grep -c '^ *ttng.fence_async_shared' %t.bug.mlir | grep -q '^1$'
// RUN: %tlx-sim check %t.bug.mlir --grid 1 --desc o_desc=256x64 > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @proxy_fence_reader(%o_desc: !tt.tensordesc<tensor<64x64xf16, #shared>> loc("o_desc"), %o_desc_0: i32 loc("o_desc"), %o_desc_1: i32 loc("o_desc"), %o_desc_2: i64 loc("o_desc"), %o_desc_3: i64 loc("o_desc")) attributes {noinline = false} {
    %tile = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("tile")
    %full = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("full")
    ttng.init_barrier %full, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttg.warp_specialize(%o_desc, %tile, %full) attributes {requestedRegisters = array<i32: 232>}
    default {
      %one = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #blocked>
      // CHECK-DAG: proxy_fence_reader.mlir.tmp.bug.mlir:[[@LINE+1]]:{{[0-9]+}}: note: the local_store of partition 'default' accesses it here
      ttg.local_store %one, %tile : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      ttng.arrive_barrier %full, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      ttg.warp_yield
    }
    partition0(%desc: !tt.tensordesc<tensor<64x64xf16, #shared>>, %tile_: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, %full_: !ttg.memdesc<1xi64, #shared1, #smem, mutable>) num_warps(1) {
      %true = arith.constant true
      %c0 = arith.constant 0 : i32
      // ttng.fence_async_shared {bCluster = false} // BEFORE
      ttng.wait_barrier %full_, %c0, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      ttng.fence_async_shared {bCluster = false} // AFTER
      // CHECK-DAG: proxy_fence_reader.mlir.tmp.bug.mlir:[[@LINE+1]]:{{[0-9]+}}: error: missing-fence: the TMA store of partition 'partition0' reads tile through the async proxy, but the local_store of partition 'default' wrote it through the generic proxy with no fence_async_shared (fence.proxy.async) after it (CTA 0)
      ttng.async_tma_copy_local_to_global %desc[%c0, %c0] %tile_ : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      ttng.async_tma_store_wait {pendings = 0 : i32}
      ttg.warp_return
    } : (!tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>) -> ()
    tt.return
  }
}
