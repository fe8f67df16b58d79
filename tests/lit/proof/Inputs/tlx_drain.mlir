// A persistent tcgen05 GEMM in the shape of TLX's blackwell_gemm_clc.py / blackwell_gemm_ws.py (tests/lit/proof/
// drain_wait.test): the MMA partition's tcgen05 MMAs release the K ring's stages (`empty[buf]`, the MMA's
// completion barrier), and after its K loop it waits on the last stage's `empty` with the parity of that stage's
// last use, to know the tile's last MMA (and so every earlier one: tcgen05 ops complete in issue order) is done
// before it signals `acc_full`. A drain wait: it names the barrier's latest phase, skipping the phases the loader
// consumed. Tiles: a counted loop of T; K loop of N.
#linear = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#loc = loc("tlx_drain.py":1:1)
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tlx_drain(%T: i32 loc("T"(#loc)), %N: i32 loc("N"(#loc))) attributes {noinline = false} {
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
    ttng.init_barrier %accf, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %acce = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("acc_empty"(#loc))
    ttng.init_barrier %acce, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %a_smem = ttg.local_alloc : () -> !ttg.memdesc<128x64xf16, #shared, #smem, mutable> loc("a_smem"(#loc))
    %b_smem = ttg.local_alloc : () -> !ttg.memdesc<64x128xf16, #shared, #smem, mutable> loc("b_smem"(#loc))
    %acc = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> loc("acc"(#loc))
    ttg.warp_specialize(%T, %N, %empty, %full, %accf, %acce, %a_smem, %b_smem, %acc) attributes {requestedRegisters = array<i32: 24, 24>}
    default {
      %true = arith.constant true
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      // epilogue: per tile wait acc_full, read the accumulator, release it on acc_empty
      %r = scf.for %t = %c0 to %T step %c1 iter_args(%tc = %c0) -> (i32) : i32 {
        %ph = arith.andi %tc, %c1 : i32
        ttng.wait_barrier %accf, %ph, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_drain.py":20:9)
        %d = ttng.tmem_load %acc : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> tensor<128x128xf32, #linear> loc("tlx_drain.py":21:13)
        ttng.arrive_barrier %acce, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_drain.py":22:9)
        %t1 = arith.addi %tc, %c1 : i32
        scf.yield %t1 : i32
      }
      ttg.warp_yield
    }
    partition0(%mT: i32, %mN: i32, %mempty: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %mfull: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %maccf: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %macce: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %ma: !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, %mb: !ttg.memdesc<64x128xf16, #shared, #smem, mutable>, %macc: !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>) num_warps(1) {
      %true_0 = arith.constant true
      %c0_0 = arith.constant 0 : i32
      %c1_0 = arith.constant 1 : i32
      %c2_0 = arith.constant 2 : i32
      // MMA: per tile wait acc_empty, one tcgen05 MMA per K step releasing empty[buf], drain, signal acc_full
      %r:2 = scf.for %t = %c0_0 to %mT step %c1_0 iter_args(%cnt = %c0_0, %tc = %c0_0) -> (i32, i32) : i32 {
        %ph = arith.andi %tc, %c1_0 : i32
        %phe = arith.xori %ph, %c1_0 : i32
        ttng.wait_barrier %macce, %phe, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_drain.py":30:9)
        %c = scf.for %k = %c0_0 to %mN step %c1_0 iter_args(%ci = %cnt) -> (i32) : i32 {
          %buf = arith.remsi %ci, %c2_0 : i32
          %q = arith.divsi %ci, %c2_0 : i32
          %p = arith.andi %q, %c1_0 : i32
          %f = ttg.memdesc_index %mfull[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.wait_barrier %f, %p, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_drain.py":33:13)
          %e = ttg.memdesc_index %mempty[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          %first = arith.cmpi sgt, %k, %c0_0 : i32
          ttng.tc_gen5_mma %ma, %mb, %macc, %first, %true_0, %e[%true_0] {is_async} : !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, !ttg.memdesc<64x128xf16, #shared, #smem, mutable>, !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_drain.py":35:13)
          %cn = arith.addi %ci, %c1_0 : i32
          scf.yield %cn : i32
        }
        %last = arith.subi %c, %c1_0 : i32
        %lbuf = arith.remsi %last, %c2_0 : i32
        %lq = arith.divsi %last, %c2_0 : i32
        %lp = arith.andi %lq, %c1_0 : i32
        %le = ttg.memdesc_index %mempty[%lbuf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %le, %lp, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_drain.py":38:9)
        ttng.arrive_barrier %maccf, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_drain.py":39:9)
        %t1 = arith.addi %tc, %c1_0 : i32
        scf.yield %c, %t1 : i32, i32
      }
      ttg.warp_return
    }
    partition1(%lT: i32, %lN: i32, %lempty: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %lfull: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %laccf: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %lacce: !ttg.memdesc<1xi64, #shared1, #smem, mutable>, %la: !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, %lb: !ttg.memdesc<64x128xf16, #shared, #smem, mutable>, %lacc: !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>) num_warps(1) {
      %true_1 = arith.constant true
      %c0_1 = arith.constant 0 : i32
      %c1_1 = arith.constant 1 : i32
      %c2_1 = arith.constant 2 : i32
      // load: per K step wait empty[buf] (a fresh stage passes at parity 1), signal full[buf]
      %r = scf.for %t = %c0_1 to %lT step %c1_1 iter_args(%cnt = %c0_1) -> (i32) : i32 {
        %c = scf.for %k = %c0_1 to %lN step %c1_1 iter_args(%ci = %cnt) -> (i32) : i32 {
          %buf = arith.remsi %ci, %c2_1 : i32
          %q = arith.divsi %ci, %c2_1 : i32
          %p = arith.andi %q, %c1_1 : i32
          %pe = arith.xori %p, %c1_1 : i32
          %e = ttg.memdesc_index %lempty[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.wait_barrier %e, %pe, %true_1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_drain.py":45:13)
          %f = ttg.memdesc_index %lfull[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.arrive_barrier %f, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_drain.py":46:13)
          %cn = arith.addi %ci, %c1_1 : i32
          scf.yield %cn : i32
        }
        scf.yield %c : i32
      }
      ttg.warp_return
    } : (i32, i32, !ttg.memdesc<2xi64, #shared1, #smem, mutable>, !ttg.memdesc<2xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<1xi64, #shared1, #smem, mutable>, !ttg.memdesc<128x64xf16, #shared, #smem, mutable>, !ttg.memdesc<64x128xf16, #shared, #smem, mutable>, !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>) -> ()
    tt.return
  }
}
