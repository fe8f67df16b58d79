"""Persistent warp-specialized fp16 GEMM for Hopper (sm_90a), written in Gluon.

C[M, N] = A[M, K] @ B[K, N], fp16 inputs, fp32 accumulation, fp16 output.

Persistent: the grid has one CTA per SM (``NUM_SMS``, or fewer when there are fewer tiles) and CTA ``pid`` walks
the output tiles ``pid, pid + nprog, pid + 2 * nprog, ...`` (``nprog = gl.num_programs(0)``) in grouped order
(``GROUP_M`` row-tiles per group, for L2 reuse of B).  The S-stage ring of A/B buffers and its barriers live for
the whole CTA, so both partitions carry one running K-step counter ``it`` across tiles: stage ``s = it % S``,
phase ``(it // S) & 1``.  Nothing is re-initialized between tiles.

Partitions (``gl.warp_specialize``):
  * default (4 warps, one warp group): the wgmma consumer and epilogue.  For every K step it waits ``ready[s]``
    with parity ``(it // S) & 1``, issues an async wgmma, keeps one wgmma group in flight
    (``warpgroup_mma_wait(1)``) and releases the *previous* step's stage on ``empty``.  At the end of a tile it
    waits for all wgmma groups, releases the tile's last stage, waits for the previous tile's TMA store to have
    read ``c_smem`` (``tma.store_wait(0)``), writes the fp16 tile to ``c_smem``, fences and issues the TMA store.
  * worker 0 (1 warp): the TMA producer.  It waits ``empty[s]`` with parity ``((it // S) & 1) ^ 1`` (a fresh
    barrier passes parity 1 at once), registers the bytes of both tiles on ``ready[s]`` and issues the two loads.

This module follows the kernel-module convention of ``kernels/README.md``.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                              warpgroup_mma_wait)


@gluon.jit
def _tile_offsets(tile, M, N, BM: gl.constexpr, BN: gl.constexpr, GROUP_M: gl.constexpr):
    """(off_m, off_n) of output tile number ``tile`` in grouped order."""
    num_pid_m = gl.cdiv(M, BM)
    num_pid_n = gl.cdiv(N, BN)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = tile // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (tile % group_size_m)
    pid_n = (tile % num_pid_in_group) // group_size_m
    return pid_m * BM, pid_n * BN


@gluon.jit
def _load_partition(a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, BM: gl.constexpr, BN: gl.constexpr,
                    BK: gl.constexpr, S: gl.constexpr, GROUP_M: gl.constexpr):
    num_tiles = gl.cdiv(M, BM) * gl.cdiv(N, BN)
    num_k = gl.cdiv(K, BK)
    it = 0  # K steps issued by this CTA so far, over all its tiles
    for tile in range(gl.program_id(0), num_tiles, gl.num_programs(0)):
        off_m, off_n = _tile_offsets(tile, M, N, BM, BN, GROUP_M)
        for k in range(num_k):
            s = it % S
            mbarrier.wait(empty.index(s), ((it // S) & 1) ^ 1)
            mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
            tma.async_copy_global_to_shared(a_desc, [off_m, k * BK], ready.index(s), a_bufs.index(s))
            tma.async_copy_global_to_shared(b_desc, [k * BK, off_n], ready.index(s), b_bufs.index(s))
            it += 1


@gluon.jit
def _mma_partition(a_bufs, b_bufs, ready, empty, c_desc, M, N, K, BM: gl.constexpr, BN: gl.constexpr,
                   BK: gl.constexpr, S: gl.constexpr, GROUP_M: gl.constexpr):
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                         instr_shape=[16, BN, 16])
    c_smem = gl.allocate_shared_memory(gl.float16, [BM, BN], c_desc.layout)
    num_tiles = gl.cdiv(M, BM) * gl.cdiv(N, BN)
    num_k = gl.cdiv(K, BK)
    it = 0  # K steps consumed by this CTA so far; the same sequence as the producer's
    for tile in range(gl.program_id(0), num_tiles, gl.num_programs(0)):
        off_m, off_n = _tile_offsets(tile, M, N, BM, BN, GROUP_M)
        acc = gl.zeros((BM, BN), dtype=gl.float32, layout=mma_layout)
        for k in range(num_k):
            s = it % S
            mbarrier.wait(ready.index(s), (it // S) & 1)
            acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s), acc, is_async=True)
            # Keep one wgmma group in flight: the group of the previous step has now retired.
            acc = warpgroup_mma_wait(1, deps=(acc, ))
            if k > 0:
                mbarrier.arrive(empty.index((it - 1) % S))
            it += 1
        acc = warpgroup_mma_wait(0, deps=(acc, ))
        mbarrier.arrive(empty.index((it - 1) % S))  # the tile's last stage

        tma.store_wait(0)  # the previous tile's store has finished reading c_smem
        c_smem.store(acc.to(gl.float16))
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


@gluon.jit
def persistent_ws_gemm_kernel(a_desc, b_desc, c_desc, M, N, K, BM: gl.constexpr, BN: gl.constexpr,
                              BK: gl.constexpr, S: gl.constexpr, GROUP_M: gl.constexpr):
    a_bufs = gl.allocate_shared_memory(gl.float16, [S, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(gl.float16, [S, BK, BN], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(S):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=1)

    gl.warp_specialize([
        (_mma_partition, (a_bufs, b_bufs, ready, empty, c_desc, M, N, K, BM, BN, BK, S, GROUP_M)),
        (_load_partition, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, BM, BN, BK, S, GROUP_M)),
    ], [1], [24])

    for i in gl.static_range(S):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(empty.index(i))


# ---------------------------------------------------------------------------------------------------------------
# Kernel-module convention (kernels/README.md).  Nothing here imports torch at import time.
# ---------------------------------------------------------------------------------------------------------------

from .. import _harness  # noqa: E402  (the kernels above keep their source lines: TTGIR records them)

KERNEL = persistent_ws_gemm_kernel
TARGETS = ["cuda:90"]
NUM_WARPS = 4  # default partition; Triton's metadata reports 8 (4 + the 1-warp producer, rounded up)
DEFAULT_SHAPE = {"M": 8192, "N": 8192, "K": 8192}
# The kernel is only correct with at least one K step: for K <= 0 the epilogue releases empty[(it - 1) % S] =
# empty[-1] (out of the barrier array). `tlx-sim check` proves the protocol under this launch precondition
# (launch.json "preconditions"); tests/lit/proof/preconditions.test shows the counterexample without it.
PRECONDITIONS = ["K>=1"]
NUM_SMS = 132  # H200 (and H100 SXM); the grid of the captures. run() uses the GPU's own count.

_TILE = {"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}
CONFIGS = {
    "s2": {**_TILE, "S": 2},
    "s3": {**_TILE, "S": 3},
    "s4": {**_TILE, "S": 4},
}


def launch(config, shape, num_sms=NUM_SMS):
    """Launch spec of one config on a problem shape {"M", "N", "K"} (no GPU, no torch); see kernels/README.md.

    The grid is min(num_sms, number of output tiles) CTAs.
    """
    return _harness.gemm_desc_launch(config, shape, max_ctas=num_sms)


flops = _harness.gemm_flops
make_inputs = _harness.gemm_make_inputs
reference = _harness.gemm_reference


def run(config, shape, inputs):
    """Launch the kernel once on the current GPU (one CTA per SM); returns (C, the JIT's CompiledKernel)."""
    import torch
    num_sms = torch.cuda.get_device_properties(inputs["c"].device).multi_processor_count
    return _harness.gemm_run(KERNEL, NUM_WARPS, config, launch(config, shape, num_sms), inputs)
