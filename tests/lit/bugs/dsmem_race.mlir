// Distributed shared memory (DSMEM) race: in a cluster of 2 CTAs each CTA stores a tile into its peer's `buf`
// (ttg.remote_shmem_store, st.shared::cluster) and then reads its own `buf`, which its peer wrote.
// BUG: nothing orders the peer's remote store before the local read (race-raw across CTAs).
// Fixed variants: a cluster barrier between the store and the read (SYNC-CLUSTER), or a remote arrive on the peer's
// `recv` barrier (map_to_remote_buffer + arrive_barrier) that the peer waits on (SYNC-MBAR), or a multicast arrive
// on `recv` of both CTAs (Triton main's `ctaMask`, count 2) after fence_mbarrier_init_release_cluster (SYNC-MASK).
// RUN: %tlx-sim check %s --grid 1 --no-proofs > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
// RUN: sed -e 's|// SYNC-CLUSTER: ||' %s > %t.cluster.mlir
// RUN: %tlx-sim check %t.cluster.mlir --grid 1 --schedules 8 | FileCheck %s --check-prefix=CLEAN
// RUN: sed -e 's|// SYNC-MBAR: ||' %s > %t.mbar.mlir
// RUN: %tlx-sim check %t.mbar.mlir --grid 1 --schedules 8 | FileCheck %s --check-prefix=CLEAN
// RUN: sed -e 's|// SYNC-MASK: ||' -e 's|init_barrier %recv, 1|init_barrier %recv, 2|' %s > %t.mask.mlir
// RUN: %tlx-sim check %t.mask.mlir --grid 1 --schedules 8 | FileCheck %s --check-prefix=CLEAN
// CLEAN: tlx-sim check: no findings
// Variant: the mbarrier protocol without the cluster barrier after the inits: the remote arrive may reach `recv`
// before the peer initialized it.
// RUN: grep -v INIT-SYNC %t.mbar.mlir > %t.noinit.mlir
// RUN: %tlx-sim check %t.noinit.mlir --grid 1 --no-proofs > %t.noinit; test $? -eq 1
// RUN: FileCheck %s --check-prefix=NOINIT < %t.noinit
// NOINIT: error: cluster-barrier: partition 'default' of CTA {{[01]}} arrives on recv of CTA [[P:[01]]] without being ordered after CTA [[P]] initialized it
// NOINIT: note: partition 'default' of CTA [[P]] initializes recv here, unordered with the arrive
// NOINIT-NOT: race-
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#shared1 = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @dsmem_exchange() attributes {noinline = false} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %true = arith.constant true
    %tile = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #blocked>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("buf")
    %out = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("out")
    %recv = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #shared1, #smem, mutable> loc("recv")
    ttng.init_barrier %recv, 1 : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    // SYNC-MASK: ttng.fence_mbarrier_init_release_cluster
    ttng.cluster_arrive {relaxed = false} // INIT-SYNC
    ttng.cluster_wait // INIT-SYNC
    %rank = nvgpu.cluster_id
    %peer = arith.xori %rank, %c1 : i32
    // CHECK-DAG: dsmem_race.mlir:[[@LINE+1]]:{{[0-9]+}}: note: the remote shared-memory store of partition 'default' of CTA [[W:[01]]] accesses it here
    ttg.remote_shmem_store %tile, rank %peer, %buf : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    // SYNC-CLUSTER: ttng.cluster_arrive {relaxed = false}
    // SYNC-CLUSTER: ttng.cluster_wait
    // SYNC-MBAR: %r = ttng.map_to_remote_buffer %recv, %peer : !ttg.memdesc<1xi64, #shared1, #smem, mutable> -> !ttg.memdesc<1xi64, #shared1, #ttng.shared_cluster_memory, mutable>
    // SYNC-MBAR: ttng.arrive_barrier %r, 1, %true : !ttg.memdesc<1xi64, #shared1, #ttng.shared_cluster_memory, mutable>
    // SYNC-MBAR: ttng.wait_barrier %recv, %c0, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    // SYNC-MASK: ttng.arrive_barrier %recv, 1, %true {ctaMask = 3 : i32} : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    // SYNC-MASK: ttng.wait_barrier %recv, %c0, %true : !ttg.memdesc<1xi64, #shared1, #smem, mutable>
    // CHECK-DAG: dsmem_race.mlir:[[@LINE+1]]:{{[0-9]+}}: error: race-raw: the local_load of partition 'default' of CTA [[R:[01]]] reads buf before the remote shared-memory store of partition 'default' of CTA {{[01]}} that fills it is known to be complete (CTA [[R]])
    %v = ttg.local_load %buf : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
    ttg.local_store %v, %out : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    // The peer may still write into this CTA's shared memory until both CTAs are done with it.
    ttng.cluster_arrive {relaxed = false}
    ttng.cluster_wait
    tt.return
  }
}
