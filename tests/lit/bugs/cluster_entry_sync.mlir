// fbtriton's kernel-entry cluster barrier (TritonGPUToLLVM maybeInsertClusterSync): in a TLX kernel with a physical
// cluster (`ctas_per_cga`: ttg.cluster-dim-x 2, ttg.num-ctas 1) that arrives on a remote barrier
// (map_to_remote_buffer), the compiler puts fence.mbarrier_init.release.cluster, barrier.cluster.arrive.relaxed and
// barrier.cluster.wait after the last init_barrier of the kernel's entry block (SASS: UCGABAR_ARV / UCGABAR_WAIT
// right after the SYNCS.EXCH.64 inits), so CTA 1's remote arrive on `bar` of CTA 0 follows CTA 0's init
// (PTX ISA 9.1 9.7.13.15.18). Clean, with no cluster barrier in the TTGIR (blackwell_gemm_2cta.py `bar_cta`).
// RUN: %tlx-sim check %s --grid 2 --schedules 8 | FileCheck %s --check-prefix=CLEAN
// CLEAN: tlx-sim check: no findings
// BUG: the init is not in the entry block (here under an scf.if): the compiler inserts no cluster barrier for it,
// and the remote arrive may reach `bar` before CTA 0 initialized it.
// RUN: sed -e 's|^    ttng.init_barrier %%bar, 2 : \(.*\)$|    scf.if %%true {\n      ttng.init_barrier %%bar, 2 : \1\n    }|' %s > %t.nested.mlir
// RUN: %tlx-sim check %t.nested.mlir --grid 2 --no-proofs > %t.nested; test $? -eq 1
// RUN: FileCheck %s --check-prefix=NESTED < %t.nested
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.cluster-dim-x" = 2 : i32, "ttg.cluster-dim-y" = 1 : i32, "ttg.cluster-dim-z" = 1 : i32, "ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @cluster_entry_sync() attributes {noinline = false} {
    %c0 = arith.constant 0 : i32
    %true = arith.constant true
    %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("bar")
    ttng.init_barrier %bar, 2 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    %rank = nvg.cluster_id
    %leader = arith.cmpi eq, %rank, %c0 : i32
    %remote = ttng.map_to_remote_buffer %bar, %c0 : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #ttng.shared_cluster_memory, mutable>
    // NESTED: nested.mlir:[[@LINE+3]]:{{[0-9]+}}: error: cluster-barrier: partition 'default' of CTA 1 arrives on bar of CTA 0 without being ordered after CTA 0 initialized it
    ttng.arrive_barrier %remote, 1 : !ttg.memdesc<1xi64, #shared1, #ttng.shared_cluster_memory, mutable>
    ttng.wait_barrier %bar, %c0, %leader : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    tt.return
  }
}
