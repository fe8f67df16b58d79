"""Persistent warp-specialized fp16 GEMM for Hopper with *parametric* protocol bugs, for tlx-sim's Z3 proofs.

The kernel is ``kernels/hopper/persistent_ws_gemm.py`` with the stage/phase bookkeeping across tiles changed:

* ``BUG = 1`` (reset-all): both partitions restart their K-step counter at 0 for every tile, while the barriers
  keep the phases they reached.  Right only when the K-tile count ``cdiv(K, BK)`` is a multiple of ``2 * S`` (then
  every barrier is back at the phase the restarted counter expects) or when a CTA has a single tile.
* ``BUG = 2`` (reset-stage): both partitions take the stage from the tile-local ``k`` (``s = k % S``) but the phase
  from a counter carried across tiles.  Right only when ``cdiv(K, BK)`` is a multiple of ``S``.

At the default launch (8192^3, S = 4: 128 K tiles, a multiple of 8) both are correct, so the simulation of that
launch is clean; ``tlx-sim check`` proves them wrong for other K with a concrete counterexample.
Each seeded line carries a ``# BUG:`` comment.  This module follows the kernel-module convention of
``kernels/README.md``.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                              warpgroup_mma_wait)

BUG_RESET_ALL = 1
BUG_RESET_STAGE = 2


@gluon.jit
def _tile_offsets(tile, M, N, BM: gl.constexpr, BN: gl.constexpr, GROUP_M: gl.constexpr):
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
                    BK: gl.constexpr, S: gl.constexpr, GROUP_M: gl.constexpr, BUG: gl.constexpr):
    num_tiles = gl.cdiv(M, BM) * gl.cdiv(N, BN)
    num_k = gl.cdiv(K, BK)
    it = 0
    for tile in range(gl.program_id(0), num_tiles, gl.num_programs(0)):
        off_m, off_n = _tile_offsets(tile, M, N, BM, BN, GROUP_M)
        if BUG == 1:
            it = 0  # BUG: reset-all: the K-step counter restarts per tile, the barriers keep their phase
        for k in range(num_k):
            if BUG == 2:
                s = k % S  # BUG: reset-stage: the stage restarts per tile, the phase comes from the carried counter
            else:
                s = it % S
            mbarrier.wait(empty.index(s), ((it // S) & 1) ^ 1)
            mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
            tma.async_copy_global_to_shared(a_desc, [off_m, k * BK], ready.index(s), a_bufs.index(s))
            tma.async_copy_global_to_shared(b_desc, [k * BK, off_n], ready.index(s), b_bufs.index(s))
            it += 1


@gluon.jit
def _mma_partition(a_bufs, b_bufs, ready, empty, c_desc, M, N, K, BM: gl.constexpr, BN: gl.constexpr,
                   BK: gl.constexpr, S: gl.constexpr, GROUP_M: gl.constexpr, BUG: gl.constexpr):
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                         instr_shape=[16, BN, 16])
    c_smem = gl.allocate_shared_memory(gl.float16, [BM, BN], c_desc.layout)
    num_tiles = gl.cdiv(M, BM) * gl.cdiv(N, BN)
    num_k = gl.cdiv(K, BK)
    it = 0
    for tile in range(gl.program_id(0), num_tiles, gl.num_programs(0)):
        off_m, off_n = _tile_offsets(tile, M, N, BM, BN, GROUP_M)
        if BUG == 1:
            it = 0  # BUG: reset-all: the K-step counter restarts per tile
        acc = gl.zeros((BM, BN), dtype=gl.float32, layout=mma_layout)
        for k in range(num_k):
            if BUG == 2:
                s = k % S  # BUG: reset-stage: stage from the tile-local k
                prev = (k - 1) % S
            else:
                s = it % S
                prev = (it - 1) % S
            mbarrier.wait(ready.index(s), (it // S) & 1)
            acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s), acc, is_async=True)
            acc = warpgroup_mma_wait(1, deps=(acc, ))
            if k > 0:
                mbarrier.arrive(empty.index(prev))
            it += 1
        acc = warpgroup_mma_wait(0, deps=(acc, ))
        if num_k > 0:
            if BUG == 2:
                mbarrier.arrive(empty.index((num_k - 1) % S))
            else:
                mbarrier.arrive(empty.index((it - 1) % S))
        tma.store_wait(0)
        c_smem.store(acc.to(gl.float16))
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


@gluon.jit
def persistent_reset_gemm_kernel(a_desc, b_desc, c_desc, M, N, K, BM: gl.constexpr, BN: gl.constexpr,
                                 BK: gl.constexpr, S: gl.constexpr, GROUP_M: gl.constexpr, BUG: gl.constexpr):
    a_bufs = gl.allocate_shared_memory(gl.float16, [S, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(gl.float16, [S, BK, BN], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(S):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=1)

    gl.warp_specialize([
        (_mma_partition, (a_bufs, b_bufs, ready, empty, c_desc, M, N, K, BM, BN, BK, S, GROUP_M, BUG)),
        (_load_partition, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, M, N, K, BM, BN, BK, S, GROUP_M, BUG)),
    ], [1], [24])

    for i in gl.static_range(S):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(empty.index(i))


from .. import _harness  # noqa: E402

KERNEL = persistent_reset_gemm_kernel
TARGETS = ["cuda:90"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"M": 8192, "N": 8192, "K": 8192}
NUM_SMS = 132

_TILE = {"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}
CONFIGS = {
    "s4_bug_reset_all": {**_TILE, "S": 4, "BUG": BUG_RESET_ALL},
    "s4_bug_reset_stage": {**_TILE, "S": 4, "BUG": BUG_RESET_STAGE},
}


def launch(config, shape, num_sms=NUM_SMS):
    """Launch spec (no GPU, no torch); see kernels/README.md. The grid is min(num_sms, output tiles) CTAs."""
    return _harness.gemm_desc_launch(config, shape, max_ctas=num_sms)
