// A persistent kernel in the shape of TLX's blackwell_gemm_ws.py (tests/lit/proof/while_guard.test): every
// partition's tile loop is an scf.while (`while tile_id < T: ...; tile_id += 1`), the K loop of the MMA and load
// partitions sits in `if N > 0:` (the tile-validity test of blackwell_gemm_ws.py:1225), and the epilogue (default)
// partition has a tile loop only. Rings: full / empty (2 stages, the K loop), acc_full / acc_empty (1 slot, the
// accumulator handed from the MMA partition to the epilogue once per tile).
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#loc = loc("tlx_while.py":1:1)
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tlx_while_guard(%N: i32 loc("N"(#loc)), %T: i32 loc("T"(#loc))) attributes {noinline = false} {
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
    %accf = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("acc_full"(#loc))
    %af0 = ttg.memdesc_index %accf[%c0_i32] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %af0, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %acce = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("acc_empty"(#loc))
    %ae0 = ttg.memdesc_index %acce[%c0_i32] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %ae0, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttg.warp_specialize(%N, %T, %empty, %full, %accf, %acce) attributes {requestedRegisters = array<i32: 24, 24>}
    default {
      %true = arith.constant true
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %pid = tt.get_program_id x : i32
      // epilogue: per tile (when N > 0) wait acc_full, release acc_empty
      %r:2 = scf.while (%tile = %pid, %tc = %c0) : (i32, i32) -> (i32, i32) {
        %lt = arith.cmpi slt, %tile, %T : i32
        scf.condition(%lt) %tile, %tc : i32, i32
      } do {
      ^bb0(%tile: i32, %tc: i32):
        %hase = arith.cmpi sgt, %N, %c0 : i32
        %tcn = scf.if %hase -> (i32) {
          %ph = arith.andi %tc, %c1 : i32
          %af = ttg.memdesc_index %accf[%c0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.wait_barrier %af, %ph, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_while.py":30:9)
          %ae = ttg.memdesc_index %acce[%c0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.arrive_barrier %ae, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_while.py":31:9)
          %t1 = arith.addi %tc, %c1 : i32
          scf.yield %t1 : i32
        } else {
          scf.yield %tc : i32
        }
        %tn = arith.addi %tile, %c1 : i32
        scf.yield %tn, %tcn : i32, i32
      }
      ttg.warp_yield
    }
    partition0(%aN: i32, %aT: i32, %aempty: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %afull: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %aaccf: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %aacce: !ttg.memdesc<1xi64, #shared1, #smem, mutable>) num_warps(1) {
      %true_0 = arith.constant true
      %c0_0 = arith.constant 0 : i32
      %c1_0 = arith.constant 1 : i32
      %c2_0 = arith.constant 2 : i32
      %cdiv = arith.constant 2 : i32
      %pid_0 = tt.get_program_id x : i32
      // MMA: per tile (when N > 0) wait acc_empty, consume the K ring, signal acc_full
      %r:3 = scf.while (%tile = %pid_0, %tc = %c0_0, %cnt = %c0_0) : (i32, i32, i32) -> (i32, i32, i32) {
        %lt = arith.cmpi slt, %tile, %aT : i32
        scf.condition(%lt) %tile, %tc, %cnt : i32, i32, i32
      } do {
      ^bb0(%tile: i32, %tc: i32, %cnt: i32):
        %has = arith.cmpi sgt, %aN, %c0_0 : i32
        %o:2 = scf.if %has -> (i32, i32) {
          %ph = arith.andi %tc, %c1_0 : i32
          %phe = arith.xori %ph, %c1_0 : i32
          %ae = ttg.memdesc_index %aacce[%c0_0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.wait_barrier %ae, %phe, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_while.py":40:9)
          %c = scf.for %k = %c0_0 to %aN step %c1_0 iter_args(%ci = %cnt) -> (i32) : i32 {
            %buf = arith.remsi %ci, %c2_0 : i32
            %q = arith.divsi %ci, %cdiv : i32
            %p = arith.andi %q, %c1_0 : i32
            %f = ttg.memdesc_index %afull[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
            ttng.wait_barrier %f, %p, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_while.py":42:13)
            %e = ttg.memdesc_index %aempty[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
            ttng.arrive_barrier %e, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_while.py":43:13)
            %cn = arith.addi %ci, %c1_0 : i32
            scf.yield %cn : i32
          }
          %af = ttg.memdesc_index %aaccf[%c0_0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.arrive_barrier %af, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_while.py":45:9)
          %t1 = arith.addi %tc, %c1_0 : i32
          scf.yield %t1, %c : i32, i32
        } else {
          scf.yield %tc, %cnt : i32, i32
        }
        %tn = arith.addi %tile, %c1_0 : i32
        scf.yield %tn, %o#0, %o#1 : i32, i32, i32
      }
      ttg.warp_return
    }
    partition1(%bN: i32, %bT: i32, %bempty: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %bfull: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %baccf: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %bacce: !ttg.memdesc<1xi64, #shared1, #smem, mutable>) num_warps(1) {
      %true_1 = arith.constant true
      %c0_1 = arith.constant 0 : i32
      %c1_1 = arith.constant 1 : i32
      %c2_1 = arith.constant 2 : i32
      %pid_1 = tt.get_program_id x : i32
      // load: per tile (when N > 0) fill the K ring
      %r:2 = scf.while (%tile = %pid_1, %cnt = %c0_1) : (i32, i32) -> (i32, i32) {
        %lt = arith.cmpi slt, %tile, %bT : i32
        scf.condition(%lt) %tile, %cnt : i32, i32
      } do {
      ^bb0(%tile: i32, %cnt: i32):
        %has = arith.cmpi sgt, %bN, %c0_1 : i32
        %o = scf.if %has -> (i32) {
          %c = scf.for %k = %c0_1 to %bN step %c1_1 iter_args(%ci = %cnt) -> (i32) : i32 {
            %buf = arith.remsi %ci, %c2_1 : i32
            %q = arith.divsi %ci, %c2_1 : i32
            %p = arith.andi %q, %c1_1 : i32
            %pe = arith.xori %p, %c1_1 : i32
            %e = ttg.memdesc_index %bempty[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
            ttng.wait_barrier %e, %pe, %true_1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_while.py":52:13)
            %f = ttg.memdesc_index %bfull[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
            ttng.arrive_barrier %f, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_while.py":53:13)
            %cn = arith.addi %ci, %c1_1 : i32
            scf.yield %cn : i32
          }
          scf.yield %c : i32
        } else {
          scf.yield %cnt : i32
        }
        %tn = arith.addi %tile, %c1_1 : i32
        scf.yield %tn, %o : i32, i32
      }
      ttg.warp_return
    } : (i32, i32, !ttg.memdesc<2xi64, #shared1, #smem, mutable>, !ttg.memdesc<2xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>) -> ()
    tt.return
  }
}
