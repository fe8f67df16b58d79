// AMD vmcnt is in issue order: waiting for a vector-memory load's result also retires every direct-to-LDS copy the
// wave issued before it (AMD CDNA3/CDNA4 ISA "s_waitcnt": vmcnt counts the wave's outstanding vector-memory
// instructions, `buffer_load ... lds` included, and they return in order; the compiler's s_waitcnt vmcnt(k) before
// the use leaves only the k younger ones in flight). The shape of TLX's amd_fa_persistent.py: each tile's K loop
// prefetches the next block even in its last iteration (a fully masked copy: buffer OOB writes zeros to LDS) and no
// async_wait follows it; the next tile loads q (amdg.buffer_load) and uses it before its prologue copy refills
// buf[0]. In the captured hsaco (amd-gfx950/amd_fa_persistent) that use is `s_waitcnt vmcnt(15) .. vmcnt(0)` before
// the ds_writes of q's convert_layout, then s_barrier, then the prologue's buffer_load ... lds: every wave's stale
// copy has landed before any wave refills the buffer.
// Here the prologue copy uses another layout than the loop's copies (the waves write other rows), so without that
// wait the refill races with the stale copy in hardware: wave 1 may write row 8 in the prologue (#blocked, waves
// along rows) while wave 0's stale copy of row 8 (#cols, waves along columns) is still in flight (race-waw).
// As written (q used before the refill): the use retires the stale copy; clean, also under 16 schedules.
// RUN: %tlx-sim check %s --grid 1 --schedules 16 | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
// BUG: q used only at the end of the tile (its local_store), after the refill: nothing waits for the stale copy
// before it (the s_barrier does not drain vmcnt).
// RUN: sed -e '/use-q$/d' %s > %t.bug.mlir
// RUN: not grep -q 'use-q$' %t.bug.mlir
// RUN: %tlx-sim check %t.bug.mlir --grid 1 > %t.out; test $? -eq 1
// RUN: FileCheck %s -DREFILL=$(grep -n '@refill$' %t.bug.mlir | cut -d: -f1) -DSTALE=$(grep -n '@stale$' %t.bug.mlir | cut -d: -f1) < %t.out
// CHECK: amd_vmcnt_order.mlir.tmp.bug.mlir:[[REFILL]]:{{[0-9]+}}: error: race-waw: the async copy (direct-to-LDS load) of partition 'default' (iteration 1) overwrites buf[0] while the async copy (direct-to-LDS load) of partition 'default' (iteration 1) may still be writing it (CTA 0)
// CHECK-NEXT: amd_vmcnt_order.mlir.tmp.bug.mlir:[[STALE]]:{{[0-9]+}}: note: the async copy (direct-to-LDS load) of partition 'default' (iteration 1) accesses it here
// CHECK: tlx-sim check: 1 finding
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 2], warpsPerCTA = [1, 4], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx950", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @amd_vmcnt_order(%k_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %q_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}) attributes {noinline = false} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> loc("buf")
    %sink = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("sink")
    %qs = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("qs")
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %cc = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %s64 = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %r3 = arith.muli %r2, %s64 : tensor<64x1xi32, #blocked>
    %c2d = tt.expand_dims %cc {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
    %rb = tt.broadcast %r3 : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %cb = tt.broadcast %c2d : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %offs = arith.addi %rb, %cb : tensor<64x64xi32, #blocked>
    %rc = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #cols}>>
    %ccc = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #cols}>>
    %rc2 = tt.expand_dims %rc {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #cols}>> -> tensor<64x1xi32, #cols>
    %s64c = arith.constant dense<64> : tensor<64x1xi32, #cols>
    %rc3 = arith.muli %rc2, %s64c : tensor<64x1xi32, #cols>
    %cc2 = tt.expand_dims %ccc {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #cols}>> -> tensor<1x64xi32, #cols>
    %rcb = tt.broadcast %rc3 : tensor<64x1xi32, #cols> -> tensor<64x64xi32, #cols>
    %ccb = tt.broadcast %cc2 : tensor<1x64xi32, #cols> -> tensor<64x64xi32, #cols>
    %offs_c = arith.addi %rcb, %ccb : tensor<64x64xi32, #cols>
    %lim = arith.constant dense<128> : tensor<64x64xi32, #cols>
    // two tiles, two K blocks each
    scf.for %t = %c0 to %c2 step %c1 : i32 {
      %qoff = arith.muli %t, %c64 : i32
      %qp = tt.addptr %q_ptr, %qoff : !tt.ptr<f16>, i32
      %q = amdg.buffer_load %qp[%offs] : tensor<64x64xf16, #blocked>
      %qq = arith.addf %q, %q : tensor<64x64xf16, #blocked> // use-q
      gpu.barrier
      // prologue: block 0 into buf[0]
      %b0 = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      %p0 = amdg.buffer_load_to_local %k_ptr[%offs] into %b0 : <f16>[tensor<64x64xi32, #blocked>] -> <64x64xf16, #shared, #smem, mutable> // @refill
      %g0 = ttg.async_commit_group tokens %p0
      scf.for %i = %c0 to %c2 step %c1 : i32 {
        %w = ttg.async_wait {num = 0 : i32}
        %cur = arith.remsi %i, %c2 : i32
        %bc = ttg.memdesc_index %buf[%cur] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
        %x = ttg.local_load %bc token %w : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
        ttg.local_store %x, %sink : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
        gpu.barrier
        // prefetch block i + 1 into buf[(i + 1) % 2], masked off past the last block (the stale copy)
        %n = arith.addi %i, %c1 : i32
        %nxt = arith.remsi %n, %c2 : i32
        %bn = ttg.memdesc_index %buf[%nxt] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
        %noff = arith.muli %n, %c64 : i32
        %nsp = tt.splat %noff : i32 -> tensor<64x64xi32, #cols>
        %nmask = arith.cmpi slt, %nsp, %lim : tensor<64x64xi32, #cols>
        %pn = amdg.buffer_load_to_local %k_ptr[%offs_c] mask = %nmask into %bn : <f16>[tensor<64x64xi32, #cols>] -> <64x64xf16, #shared, #smem, mutable> // @stale
        %gn = ttg.async_commit_group tokens %pn
      }
      ttg.local_store %q, %qs : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    }
    tt.return
  }
}
