// B08 (bug-classes.md) in the shape of TLX's gfx9_gemm a16w16 v5_local_prefetch / v6_loop_unroll tutorials (gfx950):
// two LDS buffers, the loop's `async_load_wait_group(1)` comes *before* it issues the next copy, and the loop then
// reads the other buffer. At that wait the only group in flight is the one filling the buffer about to be read, so
// wait(1) waits for nothing and the read races with the copy that fills it:
//   prologue: G0 -> a[0], G1 -> a[1]; wait(1) retires G0; read a[0]
//   iteration k: wait(1) (in flight: G(k+1) only -> no wait); G(k+2) -> a[k % 2]; read a[(k + 1) % 2] <- G(k+1)
// The captured hsaco does exactly this (amd-gfx950/gfx9_gemm_a16w16_v5_local_prefetch: 16 `buffer_load_dwordx4 ...
// lds` per group per wave, the loop's `s_waitcnt vmcnt(16) lgkmcnt(0); s_barrier`, 16 loads into a[k % 2], then the
// ds_read_b128 / ds_read_b64_tr_b16 of a[(k + 1) % 2] with no vmcnt wait before them).
// BUG: race-raw at the read of the other buffer, in the first iteration.
// RUN: %tlx-sim check %s --grid 1 > %t.out; test $? -eq 1
// RUN: FileCheck %s -DREAD=$(grep -n 'read-next$' %s | cut -d: -f1) < %t.out
// CHECK: amd_local_prefetch.mlir:[[READ]]:{{[0-9]+}}: error: race-raw: the local_load of partition 'default' (iteration 0) reads a[1] before the async copy (direct-to-LDS load) of partition 'default' that fills it is known to be complete (CTA 0)
// BUG, as make_llir's UpdateAsyncWaitCount writes the wait: a copy of this layout is 2 direct-to-LDS instructions per
// thread (16 elements, 8 contiguous), so wait(1) is vmcnt(2): the same race.
// RUN: sed -e 's|ttg.async_wait {num = 1 : i32} // loop-wait|amdg.async_wait {num_inst = 2 : i32}|' %s > %t.inst.mlir
// RUN: grep -q 'amdg.async_wait {num_inst = 2' %t.inst.mlir
// RUN: %tlx-sim check %t.inst.mlir --grid 1 > %t.inst.out; test $? -eq 1
// RUN: FileCheck %s --check-prefix=INST < %t.inst.out
// INST: error: race-raw: the local_load of partition 'default' (iteration 0) reads a[1] before the async copy
// FIXED (v7_slice's order): issue the next copy, then wait(1) (in flight: G(k+1), G(k+2) -> retires G(k+1)), then
// read. Clean, also under 16 schedules; and with the wait as vmcnt(2).
// RUN: sed -e '/loop-wait$/d' -e 's|^ *// wait-after-issue$|      %w = ttg.async_wait {num = 1 : i32}|' %s > %t.fixed.mlir
// RUN: grep -q '^      %w = ttg.async_wait' %t.fixed.mlir
// RUN: %tlx-sim check %t.fixed.mlir --grid 1 --schedules 16 | FileCheck %s --check-prefix=FIXED
// RUN: sed -e 's|ttg.async_wait {num = 1 : i32}$|amdg.async_wait {num_inst = 2 : i32}|' %t.fixed.mlir > %t.fixed-inst.mlir
// RUN: grep -q '^      %w = amdg.async_wait {num_inst = 2' %t.fixed-inst.mlir
// RUN: %tlx-sim check %t.fixed-inst.mlir --grid 1 | FileCheck %s --check-prefix=FIXED
// FIXED (2): keep the order, wait for everything (wait(0)): clean.
// RUN: sed -e 's|ttg.async_wait {num = 1 : i32} // loop-wait|ttg.async_wait {num = 0 : i32}|' %s > %t.wait0.mlir
// RUN: grep -q 'async_wait {num = 0' %t.wait0.mlir
// RUN: %tlx-sim check %t.wait0.mlir --grid 1 | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx950", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @amd_local_prefetch(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}) attributes {noinline = false} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %c4096 = arith.constant 4096 : i32
    %a = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> loc("a")
    %sink = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("sink")
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %cc = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %s64 = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %r3 = arith.muli %r2, %s64 : tensor<64x1xi32, #blocked>
    %c2d = tt.expand_dims %cc {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
    %rb = tt.broadcast %r3 : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %cb = tt.broadcast %c2d : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %offs = arith.addi %rb, %cb : tensor<64x64xi32, #blocked>
    // prologue: G0 -> a[0], G1 -> a[1], wait for G0, read a[0]
    %a0 = ttg.memdesc_index %a[%c0] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %p0 = amdg.buffer_load_to_local %a_ptr[%offs] into %a0 : <f16>[tensor<64x64xi32, #blocked>] -> <64x64xf16, #shared, #smem, mutable>
    %g0 = ttg.async_commit_group
    %a1 = ttg.memdesc_index %a[%c1] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %ptr1 = tt.addptr %a_ptr, %c4096 : !tt.ptr<f16>, i32
    %p1 = amdg.buffer_load_to_local %ptr1[%offs] into %a1 : <f16>[tensor<64x64xi32, #blocked>] -> <64x64xf16, #shared, #smem, mutable>
    %g1 = ttg.async_commit_group
    %w0 = ttg.async_wait {num = 1 : i32}
    %x0 = ttg.local_load %a0 : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
    // 4 K steps: the loop consumes steps 0..2 and prefetches 2..3 (the last copy masked off, as v5's)
    %xl = scf.for %k = %c0 to %c3 step %c1 iter_args(%x = %x0) -> (tensor<64x64xf16, #blocked>) : i32 {
      ttg.local_store %x, %sink : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      %wl = ttg.async_wait {num = 1 : i32} // loop-wait
      gpu.barrier
      %g = arith.remsi %k, %c2 : i32
      %l = arith.subi %c1, %g : i32
      %ag = ttg.memdesc_index %a[%g] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      %k2 = arith.addi %k, %c2 : i32
      %off = arith.muli %k2, %c4096 : i32
      %pk = tt.addptr %a_ptr, %off : !tt.ptr<f16>, i32
      %last = arith.cmpi ne, %k, %c2 : i32
      %m = tt.splat %last : i1 -> tensor<64x64xi1, #blocked>
      %pg = amdg.buffer_load_to_local %pk[%offs] mask = %m into %ag : <f16>[tensor<64x64xi32, #blocked>] -> <64x64xf16, #shared, #smem, mutable>
      %gg = ttg.async_commit_group
      // wait-after-issue
      %al = ttg.memdesc_index %a[%l] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      %xn = ttg.local_load %al : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked> // read-next
      scf.yield %xn : tensor<64x64xf16, #blocked>
    }
    ttg.local_store %xl, %sink : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    tt.return
  }
}
