// AMD warp pipelines (TLX `warp_pipeline_stage`, fbtriton 3.7): each stage is an `scf.execute_region
// {triton.warp_pipeline.stage}` that ConvertWarpPipeline inlines, with a cluster barrier at each border and the
// prelude barrier / postlude cond_barrier around a flat sequence (third_party/amd/lib/TritonAMDGPUToLLVM/
// ConvertWarpPipeline.cpp). The simulator runs each stage once in place. Here the wave-leader arrive of
// amd_wave_arrive.mlir sits in the second stage: BUG: `ready` counts 1 arrival, the four waves over-arrive
// (arrive-count at the arrive inside the stage); the fixed variant: 4 arrivals, no findings.
// RUN: %tlx-sim check %s --grid 1 > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
// RUN: sed -e 's|amdg.init_barrier %ready, 1 |amdg.init_barrier %ready, 4 |' %s > %t.fixed.mlir
// RUN: grep -q 'amdg.init_barrier %ready, 4 ' %t.fixed.mlir
// RUN: %tlx-sim check %t.fixed.mlir --grid 1 --schedules 4 2>&1 | FileCheck %s --check-prefix=FIXED
// FIXED-NOT: warning
// FIXED: tlx-sim check: no findings
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#shared1 = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx950", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @warp_pipeline_stage() attributes {noinline = false} {
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
      %c1_d = arith.constant 1 : i32
      scf.execute_region no_inline {
        %k = arith.addi %c0_d, %c1_d : i32
        scf.yield
      } {triton.warp_pipeline.priority = 1 : i32, triton.warp_pipeline.stage = "mem"}
      scf.execute_region no_inline {
        scf.if %wave_leader {
          // CHECK: warp_pipeline_stage.mlir:[[@LINE+1]]:{{[0-9]+}}: error: arrive-count:
          %old = amdg.arrive_barrier %ready, 1 : !ttg.memdesc<1xi64, #shared, #smem, mutable> -> i32
        }
        scf.yield
      } {triton.warp_pipeline.priority = 0 : i32, triton.warp_pipeline.stage = "compute"}
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
