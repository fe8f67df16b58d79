"""Warp-specialized fp16 GEMM for Hopper (sm_90a), written in Gluon.

C[M, N] = A[M, K] @ B[K, N], fp16 inputs, fp32 accumulation, fp16 output.

Partitions (``gl.warp_specialize``):
  * default (4 warps, one warp group): the wgmma consumer.  For every K step it waits
    ``ready[s]`` with parity ``(k // S) & 1``, issues an async wgmma on stage ``s``, keeps
    one wgmma group in flight (``warpgroup_mma_wait(1)``) and then releases the *previous*
    stage by arriving on ``empty[(k - 1) % S]``.  The epilogue converts to fp16, writes
    shared memory, fences the generic->async proxy and stores the tile with TMA.
  * worker 0 (1 warp): the TMA producer.  It waits ``empty[s]`` with parity
    ``((k // S) & 1) ^ 1`` (a fresh barrier passes parity 1 at once), registers the expected
    bytes of both tiles on ``ready[s]`` and issues the two TMA loads.

``BUG`` selects a seeded synchronization bug for tlx-sim's tests (0 = correct kernel).
Each seeded line carries a ``# BUG:`` comment so the tests locate it by text.

This module follows the kernel-module convention of ``kernels/README.md``.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                              warpgroup_mma_wait)
import triton.profiler.language as pl  # Proton scopes: no-ops unless Proton instrumentation is on (record.py --proton)

BUG_NONE = 0
BUG_EXPECT_TOO_LARGE = 1  # expect-bytes larger than the two TMA boxes -> ready[s] never completes
BUG_PRODUCER_PARITY = 2  # producer waits empty[s] on the wrong parity -> blocks on a fresh barrier
BUG_EMPTY_COUNT = 3  # empty[s] initialised with 2 arrivals but released once per phase -> producer blocks
BUG_RELEASE_EARLY = 4  # consumer releases the stage its in-flight wgmma still reads -> race-war with the refill
BUG_MISSING_FENCE = 5  # epilogue TMA store of a generic-proxy write without fence_async_shared -> missing-fence
BUG_NO_READY_WAIT = 6  # wgmma reads a stage without waiting for its TMA fill -> race-raw


@gluon.jit
def _load_partition(a_desc, b_desc, a_bufs, b_bufs, ready, empty, off_m, off_n, K, BK: gl.constexpr,
                    S: gl.constexpr, BUG: gl.constexpr):
    num_k = gl.cdiv(K, BK)
    for k in range(num_k):
        s = k % S
        phase = (k // S) & 1
        pl.enter_scope("wait_empty")
        if BUG == 2:
            mbarrier.wait(empty.index(s), phase)  # BUG: producer-parity: waits the consumer's parity, not phase ^ 1
        else:
            mbarrier.wait(empty.index(s), phase ^ 1)
        pl.exit_scope("wait_empty")
        if BUG == 1:
            mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes + 2048)  # BUG: expect-bytes: two boxes plus 2048 bytes
        else:
            mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(a_desc, [off_m, k * BK], ready.index(s), a_bufs.index(s))
        tma.async_copy_global_to_shared(b_desc, [k * BK, off_n], ready.index(s), b_bufs.index(s))


@gluon.jit
def _mma_partition(a_bufs, b_bufs, ready, empty, c_desc, off_m, off_n, K, BM: gl.constexpr, BN: gl.constexpr,
                   BK: gl.constexpr, S: gl.constexpr, BUG: gl.constexpr):
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                         instr_shape=[16, BN, 16])
    acc = gl.zeros((BM, BN), dtype=gl.float32, layout=mma_layout)
    num_k = gl.cdiv(K, BK)
    for k in range(num_k):
        s = k % S
        if BUG == 6:
            acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s), acc, is_async=True)  # BUG: no-ready-wait: no wait on ready[s]
        else:
            pl.enter_scope("wait_ready")
            mbarrier.wait(ready.index(s), (k // S) & 1)
            pl.exit_scope("wait_ready")
            acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s), acc, is_async=True)
        # Keep one wgmma group in flight: the group of step k - 1 has now retired.
        pl.enter_scope("wgmma_wait")
        acc = warpgroup_mma_wait(1, deps=(acc, ))
        pl.exit_scope("wgmma_wait")
        if BUG == 4:
            mbarrier.arrive(empty.index(s))  # BUG: release-early: releases the stage its wgmma may still read
        elif k > 0:
            mbarrier.arrive(empty.index((k - 1) % S))
    acc = warpgroup_mma_wait(0, deps=(acc, ))

    c_smem = gl.allocate_shared_memory(gl.float16, [BM, BN], c_desc.layout)
    c_smem.store(acc.to(gl.float16))
    if BUG == 5:
        tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)  # BUG: missing-fence: no fence_async_shared
    else:
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


@gluon.jit
def ws_gemm_kernel(a_desc, b_desc, c_desc, M, N, K, BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr,
                   S: gl.constexpr, GROUP_M: gl.constexpr, BUG: gl.constexpr):
    # Grouped tile order: GROUP_M row-tiles share each B column-tile in L2.
    pid = gl.program_id(0)
    num_pid_m = gl.cdiv(M, BM)
    num_pid_n = gl.cdiv(N, BN)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    off_m = pid_m * BM
    off_n = pid_n * BN

    a_bufs = gl.allocate_shared_memory(gl.float16, [S, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(gl.float16, [S, BK, BN], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(S):
        mbarrier.init(ready.index(i), count=1)
        if BUG == 3:
            mbarrier.init(empty.index(i), count=2)  # BUG: empty-count: two arrivals expected, the consumer gives one
        else:
            mbarrier.init(empty.index(i), count=1)

    gl.warp_specialize([
        (_mma_partition, (a_bufs, b_bufs, ready, empty, c_desc, off_m, off_n, K, BM, BN, BK, S, BUG)),
        (_load_partition, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, off_m, off_n, K, BK, S, BUG)),
    ], [1], [24])

    for i in gl.static_range(S):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(empty.index(i))


# ---------------------------------------------------------------------------------------------------------------
# Kernel-module convention (kernels/README.md): read by tlx_sim.capture, the hardware tools, sweeps and the
# Python API.  Nothing here imports torch at import time; the GPU-only helpers import it inside the function.
# ---------------------------------------------------------------------------------------------------------------

from .. import _harness  # noqa: E402  (the kernels above keep their source lines: TTGIR records them)

KERNEL = ws_gemm_kernel
TARGETS = ["cuda:90"]
NUM_WARPS = 4  # warps of the default partition; Triton's metadata reports 8 (4 + the 1-warp producer, rounded up)
WORKER_WARPS = [1]  # warps of each worker partition, in gl.warp_specialize order (record.py maps Proton warps)
DEFAULT_SHAPE = {"M": 8192, "N": 8192, "K": 8192}

_TILE = {"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}
CONFIGS = {
    "s2": {**_TILE, "S": 2, "BUG": BUG_NONE},
    "s3": {**_TILE, "S": 3, "BUG": BUG_NONE},
    "s4": {**_TILE, "S": 4, "BUG": BUG_NONE},
    "s3_bug_expect_bytes": {**_TILE, "S": 3, "BUG": BUG_EXPECT_TOO_LARGE},
    "s3_bug_producer_parity": {**_TILE, "S": 3, "BUG": BUG_PRODUCER_PARITY},
    "s3_bug_empty_count": {**_TILE, "S": 3, "BUG": BUG_EMPTY_COUNT},
    "s3_bug_release_early": {**_TILE, "S": 3, "BUG": BUG_RELEASE_EARLY},
    "s3_bug_missing_fence": {**_TILE, "S": 3, "BUG": BUG_MISSING_FENCE},
    "s3_bug_no_ready_wait": {**_TILE, "S": 3, "BUG": BUG_NO_READY_WAIT},
}


def launch(config, shape):
    """Launch spec of one config on a problem shape {"M", "N", "K"} (no GPU, no torch); see kernels/README.md."""
    return _harness.gemm_desc_launch(config, shape)


flops = _harness.gemm_flops
make_inputs = _harness.gemm_make_inputs
reference = _harness.gemm_reference


def run(config, shape, inputs):
    """Launch the kernel once on the current GPU; returns (C, the JIT's CompiledKernel)."""
    return _harness.gemm_run(KERNEL, NUM_WARPS, config, launch(config, shape), inputs)
