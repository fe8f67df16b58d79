// AMD arrive model: TLX lowers an mbarrier arrive on gfx9 to an LDS barrier arrive under `tid % 64 == 0`
// (third_party/amd LowerBarrierOps), so it counts once per wave, not once per partition as ttng.arrive_barrier
// does on NVIDIA (tlx_barriers.md: "AMD: number of warps that execute the arrive"). The default partition (4 waves)
// fills `tile` and arrives on `ready`; partition0 spins on the barrier phase (amdg.read_barrier_phase + s_sleep)
// and reads the tile. With `ready` initialized for 4 arrivals (FIXED) the phase completes and the read is ordered
// after the fill. BUG: the count of 1 that NVIDIA would need: the four waves over-arrive (arrive-count).
// RUN: %tlx-sim check %s --grid 1 > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
// RUN: sed -e 's|amdg.init_barrier %ready, 1 |amdg.init_barrier %ready, 4 |' %s > %t.fixed.mlir
// RUN: grep -q 'amdg.init_barrier %ready, 4 ' %t.fixed.mlir
// RUN: %tlx-sim check %t.fixed.mlir --grid 1 --schedules 16 | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#shared1 = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx950", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @amd_wave_arrive() attributes {noinline = false} {
    %ready = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared, #smem, mutable> loc("ready")
    %tile = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared1, #smem, mutable> loc("tile")
    %tid = rocdl.workitem.id.x : i32
    %c0 = arith.constant 0 : i32
    %first_thread = arith.cmpi eq, %tid, %c0 : i32
    scf.if %first_thread {
      amdg.init_barrier %ready, 1 : !ttg.memdesc<1xi64, #shared, #smem, mutable>
    }
    ttg.warp_specialize(%ready, %tile)
    default {
      %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf16, #blocked>
      ttg.local_store %zero, %tile : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared1, #smem, mutable>
      %t = rocdl.workitem.id.x : i32
      %c64 = arith.constant 64 : i32
      %c0_d = arith.constant 0 : i32
      %lane = arith.remsi %t, %c64 : i32
      %wave_leader = arith.cmpi eq, %lane, %c0_d : i32
      scf.if %wave_leader {
        // CHECK: amd_wave_arrive.mlir:[[@LINE+1]]:{{[0-9]+}}: error: arrive-count:
        %old = amdg.arrive_barrier %ready, 1 : !ttg.memdesc<1xi64, #shared, #smem, mutable> -> i32
      }
      ttg.warp_yield
    }
    partition0(%r: !ttg.memdesc<1xi64, #shared, #smem, mutable>, %tl: !ttg.memdesc<64x64xf16, #shared1, #smem, mutable>) num_warps(4) {
      %c0_w = arith.constant 0 : i32
      scf.while : () -> () {
        %phase = "amdg.read_barrier_phase"(%r) : (!ttg.memdesc<1xi64, #shared, #smem, mutable>) -> i32
        %not_done = arith.cmpi eq, %phase, %c0_w : i32
        scf.condition(%not_done)
      } do {
        rocdl.s.sleep 5
        scf.yield
      }
      %v = ttg.local_load %tl : !ttg.memdesc<64x64xf16, #shared1, #smem, mutable> -> tensor<64x64xf16, #blocked>
      ttg.warp_return
    } : (!ttg.memdesc<1xi64, #shared, #smem, mutable>, !ttg.memdesc<64x64xf16, #shared1, #smem, mutable>) -> ()
    tt.return
  }
}
