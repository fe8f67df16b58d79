// A persistent kernel in the shape of TLX's blackwell_gemm_clc.py (tests/lit/proof/clc.test): every partition's
// tile loop is a CLC tile loop, `while tile_id != -1: ...; tile_id = clc_query(...)` (an scf.while whose next tile
// id comes from ttng.clc_query_cancel, -1 once no cluster is left). The default partition issues the
// cancellation requests (try_cancel on clc_full after waiting clc_empty) and is the epilogue; all three partitions
// read each response after waiting clc_full, fence the read (fence.proxy.async, as TLX's clc_consumer does) and
// release it on clc_empty (count 3) when they got a tile. Rings:
// full / empty (2 stages, the K loop of the load and MMA partitions), acc_full / acc_empty (1 slot, once per tile).
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#loc = loc("tlx_clc.py":1:1)
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tlx_clc(%N: i32 loc("N"(#loc))) attributes {noinline = false} {
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
    %clce = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("clc_empty"(#loc))
    %ce0 = ttg.memdesc_index %clce[%c0_i32] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %ce0, 3 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %clcf = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("clc_full"(#loc))
    %cf0 = ttg.memdesc_index %clcf[%c0_i32] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %cf0, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %resp = ttg.local_alloc : () -> !ttg.memdesc<1xui128, #shared1, #smem, mutable> loc("clc_response"(#loc))
    ttg.warp_specialize(%N, %empty, %full, %accf, %acce, %clce, %clcf, %resp) attributes {requestedRegisters = array<i32: 24, 24>}
    default {
      %true = arith.constant true
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %cm1 = arith.constant -1 : i32
      %pid = tt.get_program_id x : i32
      %rank = nvg.cluster_id
      // scheduler + epilogue: request the next tile, wait acc_full, release acc_empty, read the response
      %r:3 = scf.while (%tile = %pid, %tc = %c0, %cph = %c0) : (i32, i32, i32) -> (i32, i32, i32) {
        %go = arith.cmpi ne, %tile, %cm1 : i32
        scf.condition(%go) %tile, %tc, %cph : i32, i32, i32
      } do {
      ^bb0(%tile: i32, %tc: i32, %cph: i32):
        %pph = arith.xori %cph, %c1 : i32
        %ce = ttg.memdesc_index %clce[%c0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %ce, %pph, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_clc.py":20:9)
        %cf = ttg.memdesc_index %clcf[%c0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.barrier_expect %cf, 16, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_clc.py":21:9)
        ttng.async_clc_try_cancel %cf, %resp : !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xui128, #shared1, #smem, mutable> loc("tlx_clc.py":22:9)
        %ph = arith.andi %tc, %c1 : i32
        %af = ttg.memdesc_index %accf[%c0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %af, %ph, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_clc.py":24:9)
        %ae = ttg.memdesc_index %acce[%c0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.arrive_barrier %ae, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_clc.py":25:9)
        %t1 = arith.addi %tc, %c1 : i32
        ttng.wait_barrier %cf, %cph, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_clc.py":27:9)
        %q:3 = ttng.clc_query_cancel %resp : (!ttg.memdesc<1xui128, #shared1, #smem, mutable>) -> (i32, i32, i32) loc("tlx_clc.py":28:16)
        ttng.fence_async_shared {bCluster = false} loc("tlx_clc.py":28:16)
        %none = arith.cmpi eq, %q#0, %cm1 : i32
        %mine = arith.addi %q#0, %rank : i32
        %next = arith.select %none, %q#0, %mine : i32
        %got = arith.cmpi sge, %next, %c0 : i32
        ttng.arrive_barrier %ce, 1, %got : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_clc.py":30:9)
        %cph2 = arith.xori %cph, %c1 : i32
        scf.yield %next, %t1, %cph2 : i32, i32, i32
      }
      ttg.warp_yield
    }
    partition0(%aN: i32, %aempty: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %afull: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %aaccf: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %aacce: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %aclce: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %aclcf: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %aresp: !ttg.memdesc<1xui128, #shared1, #smem, mutable>) num_warps(1) {
      %true_0 = arith.constant true
      %c0_0 = arith.constant 0 : i32
      %c1_0 = arith.constant 1 : i32
      %c2_0 = arith.constant 2 : i32
      %cm1_0 = arith.constant -1 : i32
      %pid_0 = tt.get_program_id x : i32
      %rank_0 = nvg.cluster_id
      // MMA: per tile wait acc_empty, consume the K ring, signal acc_full, read the response
      %r:3 = scf.while (%tile = %pid_0, %tc = %c0_0, %cnt = %c0_0, %cph = %c0_0) : (i32, i32, i32, i32) -> (i32, i32, i32) {
        %go = arith.cmpi ne, %tile, %cm1_0 : i32
        scf.condition(%go) %tc, %cnt, %cph : i32, i32, i32
      } do {
      ^bb0(%tc: i32, %cnt: i32, %cph: i32):
        %ph = arith.andi %tc, %c1_0 : i32
        %phe = arith.xori %ph, %c1_0 : i32
        %ae = ttg.memdesc_index %aacce[%c0_0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %ae, %phe, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_clc.py":40:9)
        %c = scf.for %k = %c0_0 to %aN step %c1_0 iter_args(%ci = %cnt) -> (i32) : i32 {
          %buf = arith.remsi %ci, %c2_0 : i32
          %q = arith.divsi %ci, %c2_0 : i32
          %p = arith.andi %q, %c1_0 : i32
          %f = ttg.memdesc_index %afull[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.wait_barrier %f, %p, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_clc.py":42:13)
          %e = ttg.memdesc_index %aempty[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.arrive_barrier %e, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_clc.py":43:13)
          %cn = arith.addi %ci, %c1_0 : i32
          scf.yield %cn : i32
        }
        %af = ttg.memdesc_index %aaccf[%c0_0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.arrive_barrier %af, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_clc.py":45:9)
        %t1 = arith.addi %tc, %c1_0 : i32
        %cf = ttg.memdesc_index %aclcf[%c0_0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %cf, %cph, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_clc.py":47:9)
        %qq:3 = ttng.clc_query_cancel %aresp : (!ttg.memdesc<1xui128, #shared1, #smem, mutable>) -> (i32, i32, i32) loc("tlx_clc.py":48:16)
        ttng.fence_async_shared {bCluster = false} loc("tlx_clc.py":48:16)
        %none = arith.cmpi eq, %qq#0, %cm1_0 : i32
        %mine = arith.addi %qq#0, %rank_0 : i32
        %next = arith.select %none, %qq#0, %mine : i32
        %got = arith.cmpi sge, %next, %c0_0 : i32
        %ce = ttg.memdesc_index %aclce[%c0_0] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.arrive_barrier %ce, 1, %got : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_clc.py":50:9)
        %cph2 = arith.xori %cph, %c1_0 : i32
        scf.yield %next, %t1, %c, %cph2 : i32, i32, i32, i32
      }
      ttg.warp_return
    }
    partition1(%bN: i32, %bempty: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %bfull: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %baccf: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %bacce: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %bclce: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %bclcf: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %bresp: !ttg.memdesc<1xui128, #shared1, #smem, mutable>) num_warps(1) {
      %true_1 = arith.constant true
      %c0_1 = arith.constant 0 : i32
      %c1_1 = arith.constant 1 : i32
      %c2_1 = arith.constant 2 : i32
      %cm1_1 = arith.constant -1 : i32
      %pid_1 = tt.get_program_id x : i32
      %rank_1 = nvg.cluster_id
      // load: per tile fill the K ring, read the response
      %r:3 = scf.while (%tile = %pid_1, %cnt = %c0_1, %cph = %c0_1) : (i32, i32, i32) -> (i32, i32, i32) {
        %go = arith.cmpi ne, %tile, %cm1_1 : i32
        scf.condition(%go) %tile, %cnt, %cph : i32, i32, i32
      } do {
      ^bb0(%tile: i32, %cnt: i32, %cph: i32):
        %c = scf.for %k = %c0_1 to %bN step %c1_1 iter_args(%ci = %cnt) -> (i32) : i32 {
          %buf = arith.remsi %ci, %c2_1 : i32
          %q = arith.divsi %ci, %c2_1 : i32
          %p = arith.andi %q, %c1_1 : i32
          %pe = arith.xori %p, %c1_1 : i32
          %e = ttg.memdesc_index %bempty[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.wait_barrier %e, %pe, %true_1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_clc.py":52:13)
          %f = ttg.memdesc_index %bfull[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.arrive_barrier %f, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_clc.py":53:13)
          %cn = arith.addi %ci, %c1_1 : i32
          scf.yield %cn : i32
        }
        %cf = ttg.memdesc_index %bclcf[%c0_1] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %cf, %cph, %true_1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_clc.py":57:9)
        %qq:3 = ttng.clc_query_cancel %bresp : (!ttg.memdesc<1xui128, #shared1, #smem, mutable>) -> (i32, i32, i32) loc("tlx_clc.py":58:16)
        ttng.fence_async_shared {bCluster = false} loc("tlx_clc.py":58:16)
        %none = arith.cmpi eq, %qq#0, %cm1_1 : i32
        %mine = arith.addi %qq#0, %rank_1 : i32
        %next = arith.select %none, %qq#0, %mine : i32
        %got = arith.cmpi sge, %next, %c0_1 : i32
        %ce = ttg.memdesc_index %bclce[%c0_1] : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.arrive_barrier %ce, 1, %got : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_clc.py":60:9)
        %cph2 = arith.xori %cph, %c1_1 : i32
        scf.yield %next, %c, %cph2 : i32, i32, i32
      }
      ttg.warp_return
    } : (i32, !ttg.memdesc<2xi64, #shared1, #smem, mutable>, !ttg.memdesc<2xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xui128, #shared1, #smem, mutable>) -> ()
    tt.return
  }
}
