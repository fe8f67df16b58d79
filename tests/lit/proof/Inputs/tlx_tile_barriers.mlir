// A persistent kernel in the shape of TLX's blackwell_fa_ws_persistent.py (tests/lit/proof/tile_barriers.test): every
// partition's tile loop is `for j in range(0, T)`, the phases of the per-tile barriers are `j & 1` (the tile loop's
// index, not a loop-carried value), the K ring's `cnt // 2 & 1`. Barriers: full / empty (2 stages, the K loop),
// q_full / q_empty (1 slot, the Q tile loaded once per tile: the loader waits q_empty and arrives q_full before its
// K loop, the MMA partition waits q_full before its K loop and releases q_empty after it), acc_full / acc_empty
// (1 slot, the accumulator handed from the MMA partition to the epilogue once per tile; the epilogue has a tile loop
// only).
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#loc = loc("tlx_tiles.py":1:1)
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tlx_tile_barriers(%N: i32 loc("N"(#loc)), %T: i32 loc("T"(#loc))) attributes {noinline = false} {
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
    %qf = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("q_full"(#loc))
    %qf0 = ttg.memdesc_index %qf[%c0_i32] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %qf0, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %qe = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("q_empty"(#loc))
    %qe0 = ttg.memdesc_index %qe[%c0_i32] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %qe0, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %accf = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("acc_full"(#loc))
    %af0 = ttg.memdesc_index %accf[%c0_i32] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %af0, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %acce = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("acc_empty"(#loc))
    %ae0 = ttg.memdesc_index %acce[%c0_i32] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %ae0, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttg.warp_specialize(%N, %T, %empty, %full, %qf, %qe, %accf, %acce) attributes {requestedRegisters = array<i32: 24, 24>}
    default {
      %true = arith.constant true
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      // epilogue: per tile wait acc_full, release acc_empty
      scf.for %i = %c0 to %T step %c1 : i32 {
        %ph = arith.andi %i, %c1 : i32
        %af = ttg.memdesc_index %accf[%c0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %af, %ph, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_tiles.py":30:9)
        %ae = ttg.memdesc_index %acce[%c0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.arrive_barrier %ae, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_tiles.py":31:9)
      }
      ttg.warp_yield
    }
    partition0(%aN: i32, %aT: i32, %aempty: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %afull: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %aqf: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %aqe: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %aaccf: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %aacce: !ttg.memdesc<1xi64, #shared1, #smem, mutable>) num_warps(1) {
      %true_0 = arith.constant true
      %c0_0 = arith.constant 0 : i32
      %c1_0 = arith.constant 1 : i32
      %c2_0 = arith.constant 2 : i32
      // MMA: per tile wait q_full and acc_empty, consume the K ring, release q_empty, signal acc_full
      %r = scf.for %j = %c0_0 to %aT step %c1_0 iter_args(%cnt = %c0_0) -> (i32) : i32 {
        %ph = arith.andi %j, %c1_0 : i32
        %q = ttg.memdesc_index %aqf[%c0_0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %q, %ph, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_tiles.py":39:9)
        %phe = arith.xori %ph, %c1_0 : i32
        %ae = ttg.memdesc_index %aacce[%c0_0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %ae, %phe, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_tiles.py":40:9)
        %c = scf.for %k = %c0_0 to %aN step %c1_0 iter_args(%ci = %cnt) -> (i32) : i32 {
          %buf = arith.remsi %ci, %c2_0 : i32
          %qq = arith.divsi %ci, %c2_0 : i32
          %p = arith.andi %qq, %c1_0 : i32
          %f = ttg.memdesc_index %afull[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.wait_barrier %f, %p, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_tiles.py":42:13)
          %e = ttg.memdesc_index %aempty[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.arrive_barrier %e, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_tiles.py":43:13)
          %cn = arith.addi %ci, %c1_0 : i32
          scf.yield %cn : i32
        }
        %qr = ttg.memdesc_index %aqe[%c0_0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.arrive_barrier %qr, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_tiles.py":45:9)
        %af = ttg.memdesc_index %aaccf[%c0_0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.arrive_barrier %af, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_tiles.py":46:9)
        scf.yield %c : i32
      }
      ttg.warp_return
    }
    partition1(%bN: i32, %bT: i32, %bempty: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %bfull: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %bqf: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %bqe: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %baccf: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %bacce: !ttg.memdesc<1xi64, #shared1, #smem, mutable>) num_warps(1) {
      %true_1 = arith.constant true
      %c0_1 = arith.constant 0 : i32
      %c1_1 = arith.constant 1 : i32
      %c2_1 = arith.constant 2 : i32
      // load: per tile wait q_empty and fill q_full, then fill the K ring
      %r = scf.for %j = %c0_1 to %bT step %c1_1 iter_args(%cnt = %c0_1) -> (i32) : i32 {
        %ph = arith.andi %j, %c1_1 : i32
        %phe = arith.xori %ph, %c1_1 : i32
        %q = ttg.memdesc_index %bqe[%c0_1] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %q, %phe, %true_1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_tiles.py":50:9)
        %qa = ttg.memdesc_index %bqf[%c0_1] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.arrive_barrier %qa, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_tiles.py":51:9)
        %c = scf.for %k = %c0_1 to %bN step %c1_1 iter_args(%ci = %cnt) -> (i32) : i32 {
          %buf = arith.remsi %ci, %c2_1 : i32
          %qq = arith.divsi %ci, %c2_1 : i32
          %p = arith.andi %qq, %c1_1 : i32
          %pe = arith.xori %p, %c1_1 : i32
          %e = ttg.memdesc_index %bempty[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.wait_barrier %e, %pe, %true_1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_tiles.py":54:13)
          %f = ttg.memdesc_index %bfull[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.arrive_barrier %f, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_tiles.py":55:13)
          %cn = arith.addi %ci, %c1_1 : i32
          scf.yield %cn : i32
        }
        scf.yield %c : i32
      }
      ttg.warp_return
    } : (i32, i32, !ttg.memdesc<2xi64, #shared1, #smem, mutable>, !ttg.memdesc<2xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>) -> ()
    tt.return
  }
}
