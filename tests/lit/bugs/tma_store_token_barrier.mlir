// fbtriton 3.7 `ttng.async_tma_store_token_wait %ktok, %bar[%pred]`: waits until the TMA store named by %ktok (and
// the issuer's older bulk groups) has read its shared memory (cp.async.bulk.wait_group.read, PTX ISA 9.7.9.25.4.3),
// then arrives once on each barrier whose predicate holds (fbtriton NVGPUTMAStoreTokenWaitLowering: a
// ttng.async_tma_store_wait followed by one ttng.arrive_barrier of count 1 per barrier). TLX's epilogue releases
// its staging buffer that way. Here partition0 fills the staging buffer and arrives on %full; the default
// partition TMA-stores it and gives it back through the token wait's arrive on %empty, which partition0 waits on
// before refilling. Two rounds: the second fill waits for the first round's arrive (a simulator without the
// arrivals deadlocks there on this correct kernel).
// FIXED (this file): clean under 16 schedules.
// RUN: %tlx-sim check %s --grid 1 --desc c_desc=128x64 --schedules 16 | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
// BUG 1 (early release): the staging buffer is given back by a plain arrive before the token wait, which then
// carries no barrier: the refill can overwrite the buffer while the first store still reads it (race-war at the
// refill's local_store, naming the TMA store).
// RUN: sed -e 's|^ *// EARLY-ARRIVE: ||' -e 's|ttng.async_tma_store_token_wait %ktok, %rel\[%yes\] : !ttg.async.token, !ttg.memdesc<1xi64, #shared1, #smem, mutable>|ttng.async_tma_store_token_wait %ktok : !ttg.async.token|' %s > %t.early.mlir
// RUN: grep -q 'ttng.async_tma_store_token_wait %ktok : !ttg.async.token' %t.early.mlir
// RUN: %tlx-sim check %t.early.mlir --grid 1 --desc c_desc=128x64 > %t.early; test $? -eq 1
// RUN: FileCheck %s --check-prefix=EARLY -DSTORE=$(grep -n '^ *ttg.local_store' %t.early.mlir | cut -d: -f1) -DTMA=$(grep -n '^ *%ktok = ' %t.early.mlir | cut -d: -f1) < %t.early
// EARLY: tma_store_token_barrier.mlir.tmp.early.mlir:[[STORE]]:{{[0-9]+}}: error: race-war: the local_store of partition 'partition0' (iteration 1) overwrites stage while the TMA store of partition 'default' (iteration 0) may still be reading it (CTA 0)
// EARLY-NEXT: tma_store_token_barrier.mlir.tmp.early.mlir:[[TMA]]:{{[0-9]+}}: note: the TMA store of partition 'default' (iteration 0) accesses it here
// EARLY: tlx-sim check: 1 finding
// BUG 2 (no release): the token wait carries no barrier and nothing else arrives on %empty: partition0's refill
// waits forever on %empty, so the storer waits forever on %full (deadlock; the finding leads with partition0's wait
// and the missing release, and notes the storer's).
// RUN: sed -e 's|ttng.async_tma_store_token_wait %ktok, %rel\[%yes\] : !ttg.async.token, !ttg.memdesc<1xi64, #shared1, #smem, mutable>|ttng.async_tma_store_token_wait %ktok : !ttg.async.token|' %s > %t.none.mlir
// RUN: grep -q 'ttng.async_tma_store_token_wait %ktok : !ttg.async.token' %t.none.mlir
// RUN: %tlx-sim check %t.none.mlir --grid 1 --desc c_desc=128x64 > %t.none; test $? -eq 1
// RUN: FileCheck %s --check-prefix=NONE -DFULL=$(grep -n '^ *ttng.wait_barrier %full' %t.none.mlir | cut -d: -f1) -DEMPTY=$(grep -n '^ *ttng.wait_barrier %mt' %t.none.mlir | cut -d: -f1) < %t.none
// NONE: tma_store_token_barrier.mlir.tmp.none.mlir:[[EMPTY]]:{{[0-9]+}}: error: deadlock: partition 'partition0' of CTA 0 waits forever on empty for parity 0 (iteration 1{{.*}}likely cause: this partition already passed its waits on the fresh phases of empty, and no op has arrived on any slot of empty in CTA 0 since
// NONE-NEXT: tma_store_token_barrier.mlir.tmp.none.mlir:[[FULL]]:{{[0-9]+}}: note: partition 'default' of CTA 0 waits forever on full for parity 1
// NONE: tlx-sim check: 1 finding
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tma_store_token_barrier(%c_desc: !tt.tensordesc<tensor<64x64xf16, #shared>> loc("c_desc"), %c_desc_0: i32 loc("c_desc"), %c_desc_1: i32 loc("c_desc"), %c_desc_2: i64 loc("c_desc"), %c_desc_3: i64 loc("c_desc")) attributes {noinline = false} {
    %stage = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("stage")
    %full = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("full")
    %empty = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("empty")
    ttng.init_barrier %full, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %empty, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttg.warp_specialize(%c_desc, %stage, %full, %empty) attributes {requestedRegisters = array<i32: 232>}
    default {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c64 = arith.constant 64 : i32
      %yes = arith.constant true
      scf.for %i = %c0 to %c2 step %c1 : i32 {
        %p = arith.andi %i, %c1 : i32
        ttng.wait_barrier %full, %p : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        %row = arith.muli %i, %c64 : i32
        %ktok = ttng.async_tma_copy_local_to_global %c_desc[%row, %c0] %stage : !tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> !ttg.async.token
        // EARLY-ARRIVE: ttng.arrive_barrier %empty, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        %rel = ttg.memdesc_index %empty[%c0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.async_tma_store_token_wait %ktok, %rel[%yes] : !ttg.async.token, !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      }
      ttg.warp_yield
    }
    partition0(%d: !tt.tensordesc<tensor<64x64xf16, #shared>>, %st: !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, %fl: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %mt: !ttg.memdesc<1xi64, #shared1, #smem, mutable>) num_warps(4) {
      %p0 = arith.constant 0 : i32
      %p1 = arith.constant 1 : i32
      %p2 = arith.constant 2 : i32
      %one = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #blocked>
      scf.for %j = %p0 to %p2 step %p1 : i32 {
        %q = arith.andi %j, %p1 : i32
        %q1 = arith.xori %q, %p1 : i32
        ttng.wait_barrier %mt, %q1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttg.local_store %one, %st : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
        ttng.fence_async_shared {bCluster = false}
        ttng.arrive_barrier %fl, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      }
      ttg.warp_return
    } : (!tt.tensordesc<tensor<64x64xf16, #shared>>, !ttg.memdesc<64x64xf16, #shared, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>) -> ()
    tt.return
  }
}
