// Clusters spanning two dimensions (TLX ctas_per_cga = (2, 2, 1): module attributes ttg.cluster-dim-x/-y, ttg.num-ctas
// 1, so the grid counts CTAs as in CUDA). Grid (4, 2): two clusters of 2x2 CTAs, {x 0-1} and {x 2-3}. A CTA's
// %cluster_ctarank is x + 2 * y of its position in the cluster (PTX ISA %cluster_ctarank, %cluster_ctaid).
// Each CTA stores a tile into the `buf` of its x-neighbour (rank ^ 1) by DSMEM (st.shared::cluster), then a cluster
// barrier orders the stores before every CTA reads its own `buf`.
// BUG: the kernel derives its rank from its program ids as if a cluster were 4 consecutive CTAs of the grid
// ((pid_x + pid_y * num_programs_x) % 4). With 2-D clusters that names ranks 0, 1, 0, 1 in the first cluster: CTAs
// (0, 0) and (0, 1) both store into rank 1's `buf`, unordered (race-waw), and ranks 2 and 3 are never written.
// A simulator that took a cluster as consecutive CTA ids would find nothing here: the guess would be right.
// Fixed variant: the rank from nvgpu.cluster_id (TLX cluster_cta_rank).
// RUN: %tlx-sim check %s --grid 4,2 --no-proofs > %t.out; test $? -eq 1
// RUN: FileCheck %s < %t.out
// RUN: sed -e "/BUG-ONLY/d" -e 's|// FIXED: ||' %s > %t.fixed.mlir
// RUN: %tlx-sim check %t.fixed.mlir --grid 4,2 --schedules 8 | FileCheck %s --check-prefix=CLEAN
// CLEAN: tlx-sim check: no findings (8 CTAs simulated
// Triton's multiplicative form of the same launch: ttg.num-ctas 4 with the 2x2 shape, the grid counts clusters
// (the launcher multiplies each grid dimension by the cluster's): --grid 2 runs the same 8 CTAs.
// RUN: sed -e 's|"ttg.num-ctas" = 1|"ttg.num-ctas" = 4|' %t.fixed.mlir > %t.mul.mlir
// RUN: %tlx-sim check %t.mul.mlir --grid 2 | FileCheck %s --check-prefix=CLEAN
// In that form program ids are cluster ids (%clusterid): the BUG kernel's guess is the cluster's x for all 4 CTAs of
// a cluster, and all of them store into one peer (with %ctaid program ids the guess would be right here).
// RUN: sed -e 's|"ttg.num-ctas" = 1|"ttg.num-ctas" = 4|' %s > %t.mulbug.mlir
// RUN: %tlx-sim check %t.mulbug.mlir --grid 2 --no-proofs > %t.mulbug; test $? -eq 1
// RUN: FileCheck %s --check-prefix=MULBUG < %t.mulbug
// MULBUG: error: race-waw: the remote shared-memory store of partition 'default' of CTA {{[0-3]}} overwrites buf while the remote shared-memory store of partition 'default' of CTA {{[0-3]}} may still be writing it (CTA 1)
// --max-ctas simulates whole clusters: 1 CTA asked, the first cluster of 4 runs.
// RUN: %tlx-sim check %t.fixed.mlir --grid 4,2 --max-ctas 1 | FileCheck %s --check-prefix=MAX
// MAX: tlx-sim check: no findings (4 CTAs simulated
// Bad launches (exit 2, CUDA would reject them: CUDA_ERROR_INVALID_CLUSTER_SIZE): a grid that is not a whole number
// of clusters; cluster-dim attributes that disagree with ttg.num-ctas.
// RUN: %tlx-sim check %t.fixed.mlir --grid 3,2 2> %t.grid; test $? -eq 2
// RUN: FileCheck %s --check-prefix=GRID < %t.grid
// GRID: the grid (3, 2, 1) is not a whole number of clusters of shape (2, 2, 1) along every dimension
// GRID-SAME: CUDA_ERROR_INVALID_CLUSTER_SIZE
// RUN: %tlx-sim check %t.fixed.mlir --grid 4,1; test $? -eq 2
// RUN: sed -e 's|"ttg.num-ctas" = 1|"ttg.num-ctas" = 2|' %t.fixed.mlir > %t.mismatch.mlir
// RUN: %tlx-sim check %t.mismatch.mlir --grid 1 2> %t.mismatch; test $? -eq 2
// RUN: FileCheck %s --check-prefix=MISMATCH < %t.mismatch
// MISMATCH: module attributes ttg.cluster-dim-x/-y/-z (2, 2, 1) make clusters of 4 CTAs, but ttg.num-ctas is 2
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.cluster-dim-x" = 2 : i32, "ttg.cluster-dim-y" = 2 : i32, "ttg.cluster-dim-z" = 1 : i32, "ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @cluster_2d_exchange() attributes {noinline = false} {
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %tile = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #blocked>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("buf")
    %out = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc("out")
    %pid_x = tt.get_program_id x : i32 // BUG-ONLY
    %pid_y = tt.get_program_id y : i32 // BUG-ONLY
    %nx = tt.get_num_programs x : i32 // BUG-ONLY
    %row = arith.muli %pid_y, %nx : i32 // BUG-ONLY
    %lin = arith.addi %pid_x, %row : i32 // BUG-ONLY
    %rank = arith.remsi %lin, %c4 : i32 // BUG-ONLY
    // FIXED: %rank = nvgpu.cluster_id
    %peer = arith.xori %rank, %c1 : i32
    // CHECK: cluster_2d_rank.mlir:[[@LINE+2]]:{{[0-9]+}}: error: race-waw: the remote shared-memory store of partition 'default' of CTA {{[02]}} overwrites buf while the remote shared-memory store of partition 'default' of CTA {{[02]}} may still be writing it (CTA 1)
    // CHECK: cluster_2d_rank.mlir:[[@LINE+1]]:{{[0-9]+}}: note: the remote shared-memory store
    ttg.remote_shmem_store %tile, rank %peer, %buf : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    ttng.cluster_arrive {relaxed = false}
    ttng.cluster_wait
    %v = ttg.local_load %buf : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
    ttg.local_store %v, %out : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    tt.return
  }
}
// CHECK-NOT: race-raw
// CHECK: tlx-sim check: 1 finding
