// The two-stage ring of tlx_ring.mlir whose consumer allocates a barrier in every iteration of its loop
// (tests/lit/proof/local_barrier.test): local_alloc + init_barrier + arrive + wait parity 0 + inval_barrier, the shape of a
// synchronous tcgen05 MMA's completion barrier (blackwell_fa_ws_pipelined.py:414, the MMA's commit arrives on it).
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#loc = loc("tlx_local.py":1:1)
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tlx_local(%N: i32 loc("N"(#loc))) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %empty = ttg.local_alloc : () -> !ttg.memdesc<2xi64, #shared1, #smem, mutable> loc("empty"(#loc))
    %e0 = ttg.memdesc_index %empty[%c0_i32] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %e0, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %e1 = ttg.memdesc_index %empty[%c1_i32] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %e1, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %full = ttg.local_alloc : () -> !ttg.memdesc<2xi64, #shared1, #smem, mutable> loc("full"(#loc))
    %f0 = ttg.memdesc_index %full[%c0_i32] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %f0, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %f1 = ttg.memdesc_index %full[%c1_i32] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %f1, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttg.warp_specialize(%N, %empty, %full) attributes {requestedRegisters = array<i32: 24>}
    default {
      %true = arith.constant true
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      // producer: phase = phase ^ (buf == 0); wait empty[buf], phase; arrive full[buf]
      %r:2 = scf.for %i = %c0 to %N step %c1 iter_args(%phase = %c0, %cnt = %c0) -> (i32, i32) : i32 {
        %buf = arith.remsi %cnt, %c2 : i32
        %is0 = arith.cmpi eq, %buf, %c0 : i32
        %flip = arith.extui %is0 : i1 to i32
        %p = arith.xori %phase, %flip : i32
        %e = ttg.memdesc_index %empty[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %e, %p, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_local.py":10:5)
        %f = ttg.memdesc_index %full[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.arrive_barrier %f, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_local.py":11:5)
        %n = arith.addi %cnt, %c1 : i32
        scf.yield %p, %n : i32, i32
      }
      ttg.warp_yield
    }
    partition0(%aN: i32, %aempty: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %afull: !ttg.memdesc<2xi64, #shared1, #smem, mutable>) num_warps(4) {
      %true_0 = arith.constant true
      %c0_0 = arith.constant 0 : i32
      %c1_0 = arith.constant 1 : i32
      %c2_0 = arith.constant 2 : i32
      // consumer: phase starts at 1 (flips to 0 at buf 0); wait full[buf], phase; arrive empty[buf]
      %r:2 = scf.for %i = %c0_0 to %aN step %c1_0 iter_args(%phase = %c1_0, %cnt = %c0_0) -> (i32, i32) : i32 {
        %buf = arith.remsi %cnt, %c2_0 : i32
        %is0 = arith.cmpi eq, %buf, %c0_0 : i32
        %flip = arith.extui %is0 : i1 to i32
        %p = arith.xori %phase, %flip : i32
        %f = ttg.memdesc_index %afull[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %f, %p, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_local.py":20:5)
        %done = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("done_bar"(#loc))
        ttng.init_barrier %done, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_local.py":29:5)
        ttng.arrive_barrier %done, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_local.py":30:5)
        ttng.wait_barrier %done, %c0_0, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_local.py":31:5)
        ttng.inval_barrier %done : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_local.py":32:5)
        %e = ttg.memdesc_index %aempty[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.arrive_barrier %e, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_local.py":21:5)
        %n = arith.addi %cnt, %c1_0 : i32
        scf.yield %p, %n : i32, i32
      }
      ttg.warp_return
    } : (i32, !ttg.memdesc<2xi64, #shared1, #smem, mutable>, !ttg.memdesc<2xi64, #shared1, #smem, mutable>) -> ()
    tt.return
  }
}
