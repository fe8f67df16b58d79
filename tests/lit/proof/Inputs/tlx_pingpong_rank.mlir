// TLX's hopper-persistent-gemm-ws-pingpong.py as the tutorial writes its consumers' ring position
// (tests/lit/proof/nonlinear_rank.test): Inputs/tlx_pingpong.mlir with each consumer's ring counter computed at the
// tile's start as `tile_rank * N` (tile_rank = c, c + 2, ...: a carried rank times the symbolic K trip count), not
// carried; the producer's stays carried.
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#loc = loc("tlx_pingpong.py":1:1)
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tlx_pingpong(%N: i32 loc("N"(#loc)), %T: i32 loc("T"(#loc))) attributes {noinline = false} {
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
    %turn = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("turn"(#loc))
    %t0 = ttg.memdesc_index %turn[%c0_i32] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %t0, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttg.warp_specialize(%N, %T, %empty, %full, %turn) attributes {requestedRegisters = array<i32: 24, 24>}
    default {
      %true = arith.constant true
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %pid = tt.get_program_id x : i32
      // producer: every tile, N fills of the ring
      %r = scf.for %t = %pid to %T step %c1 iter_args(%cnt = %c0) -> (i32) : i32 {
        %c = scf.for %k = %c0 to %N step %c1 iter_args(%ci = %cnt) -> (i32) : i32 {
          %buf = arith.remsi %ci, %c2 : i32
          %lap = arith.divsi %ci, %c2 : i32
          %p = arith.andi %lap, %c1 : i32
          %pe = arith.xori %p, %c1 : i32
          %e = ttg.memdesc_index %empty[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.wait_barrier %e, %pe, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_pingpong.py":20:9)
          %f = ttg.memdesc_index %full[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.arrive_barrier %f, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_pingpong.py":21:9)
          %cn = arith.addi %ci, %c1 : i32
          scf.yield %cn : i32
        }
        scf.yield %c : i32
      }
      ttg.warp_yield
    }
    partition0(%aN: i32, %aT: i32, %aempty: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %afull: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %aturn: !ttg.memdesc<1xi64, #shared1, #smem, mutable>) num_warps(1) {
      %true_0 = arith.constant true
      %c0_0 = arith.constant 0 : i32
      %c1_0 = arith.constant 1 : i32
      %c2_0 = arith.constant 2 : i32
      %pid_0 = tt.get_program_id x : i32
      // consumer 0: tiles pid, pid + 2, ...; its ring position is tile_rank * N, tile_rank = 0, 2, ...
      %r = scf.for %t = %pid_0 to %aT step %c2_0 iter_args(%rank = %c0_0) -> (i32) : i32 {
        %cnt = arith.muli %rank, %aN : i32
        %tw = ttg.memdesc_index %aturn[%c0_0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %tw, %c1_0, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_pingpong.py":30:9)
        %c = scf.for %k = %c0_0 to %aN step %c1_0 iter_args(%ci = %cnt) -> (i32) : i32 {
          %buf = arith.remsi %ci, %c2_0 : i32
          %lap = arith.divsi %ci, %c2_0 : i32
          %p = arith.andi %lap, %c1_0 : i32
          %f = ttg.memdesc_index %afull[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.wait_barrier %f, %p, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_pingpong.py":32:13)
          %e = ttg.memdesc_index %aempty[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.arrive_barrier %e, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_pingpong.py":33:13)
          %cn = arith.addi %ci, %c1_0 : i32
          scf.yield %cn : i32
        }
        ttng.arrive_barrier %tw, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_pingpong.py":35:9)
        %next = arith.addi %rank, %c2_0 : i32
        scf.yield %next : i32
      }
      ttg.warp_return
    }
    partition1(%bN: i32, %bT: i32, %bempty: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %bfull: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %bturn: !ttg.memdesc<1xi64, #shared1, #smem, mutable>) num_warps(1) {
      %true_1 = arith.constant true
      %c0_1 = arith.constant 0 : i32
      %c1_1 = arith.constant 1 : i32
      %c2_1 = arith.constant 2 : i32
      %pid_1 = tt.get_program_id x : i32
      %start = arith.addi %pid_1, %c1_1 : i32
      // consumer 1: tiles pid + 1, pid + 3, ...; its ring position is tile_rank * N, tile_rank = 1, 3, ...
      %r = scf.for %t = %start to %bT step %c2_1 iter_args(%rank = %c1_1) -> (i32) : i32 {
        %cnt = arith.muli %rank, %bN : i32
        %tw = ttg.memdesc_index %bturn[%c0_1] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %tw, %c0_1, %true_1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_pingpong.py":40:9)
        %c = scf.for %k = %c0_1 to %bN step %c1_1 iter_args(%ci = %cnt) -> (i32) : i32 {
          %buf = arith.remsi %ci, %c2_1 : i32
          %lap = arith.divsi %ci, %c2_1 : i32
          %p = arith.andi %lap, %c1_1 : i32
          %f = ttg.memdesc_index %bfull[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.wait_barrier %f, %p, %true_1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_pingpong.py":42:13)
          %e = ttg.memdesc_index %bempty[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.arrive_barrier %e, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_pingpong.py":43:13)
          %cn = arith.addi %ci, %c1_1 : i32
          scf.yield %cn : i32
        }
        ttng.arrive_barrier %tw, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_pingpong.py":45:9)
        %next = arith.addi %rank, %c2_1 : i32
        scf.yield %next : i32
      }
      ttg.warp_return
    } : (i32, i32, !ttg.memdesc<2xi64, #shared1, #smem, mutable>, !ttg.memdesc<2xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>) -> ()
    tt.return
  }
}
