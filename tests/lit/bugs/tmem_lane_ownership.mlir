// Per-warp TMEM lane ownership (PTX ISA 9.1 9.7.16.2.3, tcgen05.ld / tcgen05.st): warp w may access only TMEM
// lanes 32 * (w % 4) .. + 31. The default partition (warps 0-3) writes acc with the canonical 32x32b layout
// (warp w holds rows 32w..32w+31) and releases `ready`; partition0 (warps 4-7, Triton's allocate-warp-groups order)
// waits and reads acc with a layout whose warp bases are swapped: warp 5 (lane quarter 1) would read rows 64-95 and
// warp 6 rows 32-63, lanes that belong to other warps: race-raw at the load. Triton's verifier rejects such a layout
// ("potential TMEM layout"); hand-written or other front ends' TTGIR can have it. The fixed variant (FIXED) loads
// with the canonical layout.
// RUN: %tlx-sim check %s --grid 1 > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
// RUN: sed -e 's|^#load = .*$|#load = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>|' %s > %t.fixed.mlir
// RUN: %tlx-sim check %t.fixed.mlir --grid 1 --schedules 16 | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
#store = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>
#load = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[64, 0], [32, 0]], block = []}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @tmem_lane_ownership() attributes {noinline = false} {
    %acc = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> loc("acc")
    %ready = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared, #smem, mutable> loc("ready")
    ttng.init_barrier %ready, 1 : !ttg.memdesc<1xi64, #shared, #smem, mutable>
    ttg.warp_specialize(%acc, %ready) attributes {requestedRegisters = array<i32: 232>}
    default {
      %true = arith.constant true
      %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #store>
      ttng.tmem_store %zero, %acc, %true : tensor<128x128xf32, #store> -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>
      ttng.arrive_barrier %ready, 1, %true : !ttg.memdesc<1xi64, #shared, #smem, mutable>
      ttg.warp_yield
    }
    partition0(%t: !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>, %r: !ttg.memdesc<1xi64, #shared, #smem, mutable>) num_warps(4) {
      %c0 = arith.constant 0 : i32
      %true = arith.constant true
      ttng.wait_barrier %r, %c0, %true : !ttg.memdesc<1xi64, #shared, #smem, mutable>
      // CHECK-DAG: tmem_lane_ownership.mlir:[[@LINE+2]]:{{[0-9]+}}: error: race-raw: the tmem_load of partition 'partition0': warp 5 reads TMEM lanes 64-95 of acc, but tcgen05.ld lets warp 5 access only lanes 32-63 (warp id % 4 = 1); those lanes belong to warp(s) 6 (CTA 0)
      // CHECK-DAG: tmem_lane_ownership.mlir:[[@LINE+1]]:{{[0-9]+}}: error: race-raw: the tmem_load of partition 'partition0': warp 6 reads TMEM lanes 32-63 of acc, but tcgen05.ld lets warp 6 access only lanes 64-95 (warp id % 4 = 2); those lanes belong to warp(s) 5 (CTA 0)
      %v = ttng.tmem_load %t : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> tensor<128x128xf32, #load>
      ttg.warp_return
    } : (!ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>, !ttg.memdesc<1xi64, #shared, #smem, mutable>) -> ()
    tt.return
  }
}
// CHECK: tlx-sim check: 2 findings
