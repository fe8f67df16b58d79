// The ring of tlx_peel.mlir with the consumer's last iteration peeled instead (tests/lit/proof/tlx_peel.test):
// its loop runs 0..448 step 64 (7 iterations), the code after it handles the eighth block (wait full, release
// empty), while the producer loops 0..512 (8 iterations). The shape of TLX's fused_attention_ws_device_tma(_dp),
// whose softmax partitions stop their KV loop one block early (to 3968 of 4096) and process the last one after it.
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#loc = loc("tlx_peel_last.py":1:1)
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tlx_peel_last() attributes {noinline = false} {
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
    ttg.warp_specialize(%empty, %full) attributes {requestedRegisters = array<i32: 24>}
    default {
      %true = arith.constant true
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c64 = arith.constant 64 : i32
      %c512 = arith.constant 512 : i32
      // producer: 8 blocks; wait empty[buf] (parity flips when buf wraps to 0), arrive full[buf]
      %r:2 = scf.for %i = %c0 to %c512 step %c64 iter_args(%phase = %c0, %cnt = %c0) -> (i32, i32) : i32 {
        %buf = arith.remsi %cnt, %c2 : i32
        %is0 = arith.cmpi eq, %buf, %c0 : i32
        %flip = arith.extui %is0 : i1 to i32
        %p = arith.xori %phase, %flip : i32
        %e = ttg.memdesc_index %empty[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %e, %p, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_peel_last.py":10:5)
        %f = ttg.memdesc_index %full[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.arrive_barrier %f, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_peel_last.py":11:5)
        %n = arith.addi %cnt, %c1 : i32
        scf.yield %p, %n : i32, i32
      }
      ttg.warp_yield
    }
    partition0(%aempty: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %afull: !ttg.memdesc<2xi64, #shared1, #smem, mutable>) num_warps(4) {
      %true_0 = arith.constant true
      %c0_0 = arith.constant 0 : i32
      %c1_0 = arith.constant 1 : i32
      %c2_0 = arith.constant 2 : i32
      %c64_0 = arith.constant 64 : i32
      %c448_0 = arith.constant 448 : i32
      // consumer: blocks 0..6 in the loop (wait full[buf], release empty[buf]), block 7 after it
      %r:2 = scf.for %i = %c0_0 to %c448_0 step %c64_0 iter_args(%phase = %c1_0, %cnt = %c0_0) -> (i32, i32) : i32 {
        %buf = arith.remsi %cnt, %c2_0 : i32
        %is0 = arith.cmpi eq, %buf, %c0_0 : i32
        %flip = arith.extui %is0 : i1 to i32
        %p = arith.xori %phase, %flip : i32
        %f = ttg.memdesc_index %afull[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %f, %p, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_peel_last.py":20:5)
        %e = ttg.memdesc_index %aempty[%buf] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.arrive_barrier %e, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_peel_last.py":21:5)
        %n = arith.addi %cnt, %c1_0 : i32
        scf.yield %p, %n : i32, i32
      }
      // the peeled last block: buffer 1, the phase after seven waits (parity 1)
      %fl = ttg.memdesc_index %afull[%c1_0] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      ttng.wait_barrier %fl, %c1_0, %true_0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_peel_last.py":24:5)
      %el = ttg.memdesc_index %aempty[%c1_0] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      ttng.arrive_barrier %el, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("tlx_peel_last.py":25:5) // RELEASE-LAST
      ttg.warp_return
    } : (!ttg.memdesc<2xi64, #shared1, #smem, mutable>, !ttg.memdesc<2xi64, #shared1, #smem, mutable>) -> ()
    tt.return
  }
}
