// Parity ABA with a leader-warp release (issue 16 (b)): the consumer warp group (partition0, 4 warps) waits on
// full[s], reads the stage, and only thread 0 (`if tid == 0`, the leader warp) releases it with an arrive on
// empty[s]; the producer (partition1, 1 warp) refills a stage once its empty barrier completes. On hardware each warp
// leaves try_wait on its own (PTX ISA 9.1 9.7.13.15.16), and an mbarrier arrive releases only the arriving thread's
// prior accesses (9.7.13.15.13, memory model: release by the executing thread). With no partition-wide barrier
// before the leader's arrive, nothing orders the other warps' wait and read before it: the producer may refill the
// stage while warp 1 still reads it, and a warp that lags by a round finds full[s] two phases on (the barrier flipped
// twice: ABA) and waits on a parity that never comes back.
// The thread-id condition that only warp 0 takes makes the simulator run partition0 as per-warp agents
// (sim/lowering/WarpDivergence.cpp); the `gpu.barrier` (bar.sync over the partition's 128 threads) is then a
// rendezvous of its four warp agents (sim/ops/WarpAgents.cpp).
// FIXED (this file: gpu.barrier after the read, before the leader's arrive): clean under 16 schedules, four agents.
// RUN: %tlx-sim check %s --grid 1 --schedules 16 --no-proofs | FileCheck %s --check-prefix=FIXED
// FIXED: tlx-sim check: no findings
// RUN: %tlx-sim predict %s --grid 1 | FileCheck %s --check-prefix=AGENTS
// AGENTS: partition0 warp 0
// AGENTS: partition0 warp 3
// BUG (no partition-wide barrier): under the default schedule the producer's refill of buf[0] in iteration 2 is
// unordered with warp 1's read of iteration 0 (race-war at the store); under a lagging-warp schedule
// (producer-fast: warps 1-3 resume late from each wait) warp 1 reads buf[0] after the producer refilled it for
// iteration 4 (race-raw at the read) and then waits on full[0] for parity 1 with the barrier in phase 3 (parity 1
// again): it hangs (deadlock at the wait).
// RUN: sed -e '/BARRIER$/d' %s > %t.bug.mlir
// RUN: not grep -q '^ *gpu.barrier' %t.bug.mlir
// RUN: %tlx-sim check %t.bug.mlir --grid 1 --no-proofs > %t.default; test $? -eq 1
// RUN: FileCheck %s --check-prefix=RACE -DREAD=$(grep -n '^ *%v = ttg.local_load' %t.bug.mlir | cut -d: -f1) -DSTORE=$(grep -n '^ *ttg.local_store' %t.bug.mlir | cut -d: -f1) < %t.default
// RACE: warp_parity_aba.mlir.tmp.bug.mlir:[[STORE]]:{{[0-9]+}}: error: race-war: the local_store of partition 'partition1' (iteration 2) overwrites buf[0] while the local_load of partition 'partition0 warp 1' (iteration 0) may still be reading it (CTA 0)
// RACE-NEXT: warp_parity_aba.mlir.tmp.bug.mlir:[[READ]]:{{[0-9]+}}: note: the local_load of partition 'partition0 warp 1' (iteration 0) accesses it here
// RACE: tlx-sim check: 1 finding
// RUN: %tlx-sim check %t.bug.mlir --grid 1 --schedules 4 --no-proofs > %t.lag; test $? -eq 1
// RUN: FileCheck %s --check-prefix=ABA -DREAD=$(grep -n '^ *%v = ttg.local_load' %t.bug.mlir | cut -d: -f1) -DWAIT=$(grep -n '^ *ttng.wait_barrier %fb' %t.bug.mlir | cut -d: -f1) < %t.lag
// ABA-DAG: warp_parity_aba.mlir.tmp.bug.mlir:[[READ]]:{{[0-9]+}}: error: race-raw: the local_load of partition 'partition0 warp 1' (iteration 0) reads buf[0] before the local_store of partition 'partition1' (iteration 4) that fills it is known to be complete (CTA 0)
// ABA-DAG: warp_parity_aba.mlir.tmp.bug.mlir:[[WAIT]]:{{[0-9]+}}: error: deadlock: partition 'partition0 warp 1' of CTA 0 waits forever on full[0] for parity 1 (iteration 2 of the loop at {{.*}}): the barrier is in phase 3 (parity 1) with 1 of 1 arrivals pending
// ABA: tlx-sim check: 3 findings
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @warp_parity_aba() attributes {noinline = false} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %full = ttg.local_alloc : () -> !ttg.memdesc<2xi64, #shared1, #smem, mutable> loc("full")
    %empty = ttg.local_alloc : () -> !ttg.memdesc<2xi64, #shared1, #smem, mutable> loc("empty")
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> loc("buf")
    %f0 = ttg.memdesc_index %full[%c0] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %f1 = ttg.memdesc_index %full[%c1] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %e0 = ttg.memdesc_index %empty[%c0] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %e1 = ttg.memdesc_index %empty[%c1] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %f0, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %f1, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %e0, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttng.init_barrier %e1, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    ttg.warp_specialize(%full, %empty, %buf) attributes {requestedRegisters = array<i32: 232, 40>}
    default {
      ttg.warp_yield
    }
    partition0(%fa: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %ea: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %b: !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>) num_warps(4) {
      %k0 = arith.constant 0 : i32
      %k1 = arith.constant 1 : i32
      %k2 = arith.constant 2 : i32
      %n = arith.constant 6 : i32
      %zero = arith.constant 0 : index
      %true = arith.constant true
      scf.for %k = %k0 to %n step %k1 : i32 {
        %s = arith.remsi %k, %k2 : i32
        %r = arith.divsi %k, %k2 : i32
        %ph = arith.andi %r, %k1 : i32
        %fb = ttg.memdesc_index %fa[%s] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %fb, %ph, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        %bs = ttg.memdesc_index %b[%s] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
        %v = ttg.local_load %bs : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
        gpu.barrier // PARTITION-BARRIER
        %tid = gpu.thread_id x
        %lead = arith.cmpi eq, %tid, %zero : index
        scf.if %lead {
          %eb = ttg.memdesc_index %ea[%s] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
          ttng.arrive_barrier %eb, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        }
      }
      ttg.warp_return
    }
    partition1(%fp: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %ep: !ttg.memdesc<2xi64, #shared1, #smem, mutable>, %bp: !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>) num_warps(1) {
      %p0 = arith.constant 0 : i32
      %p1 = arith.constant 1 : i32
      %p2 = arith.constant 2 : i32
      %pn = arith.constant 6 : i32
      %ptrue = arith.constant true
      %one = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #blocked1>
      scf.for %j = %p0 to %pn step %p1 : i32 {
        %s = arith.remsi %j, %p2 : i32
        %r = arith.divsi %j, %p2 : i32
        %ph = arith.andi %r, %p1 : i32
        %eph = arith.xori %ph, %p1 : i32
        %eb = ttg.memdesc_index %ep[%s] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.wait_barrier %eb, %eph, %ptrue : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        %bs = ttg.memdesc_index %bp[%s] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
        ttg.local_store %one, %bs : tensor<64x64xf16, #blocked1> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
        %fb = ttg.memdesc_index %fp[%s] : !ttg.memdesc<2xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #smem, mutable>
        ttng.arrive_barrier %fb, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
      }
      ttg.warp_return
    } : (!ttg.memdesc<2xi64, #shared1, #smem, mutable>, !ttg.memdesc<2xi64, #shared1, #smem, mutable>, !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>) -> ()
    tt.return
  }
}
