"""Warp-specialized fp16 GEMM for Hopper with a *parametric* proxy-fence bug, for tlx-sim's Z3 proofs.

The kernel is ``kernels/hopper/ws_gemm.py`` (TMA producer partition, wgmma consumer) with one change:

* ``BUG = 1`` (conditional fence): the epilogue writes the output tile to shared memory through the generic proxy
  (``c_smem.store``) and fences it (``fence_async_shared``) only when the K loop ran (``num_k > 0``): with
  ``K <= 0`` the TMA store reads ``c_smem`` through the async proxy with no fence after the write.

At the default launch (8192^3) the fence runs, so the simulation of that launch is clean; ``tlx-sim check``
proves proxy-fence for ``BUG = 0`` and finds K <= 0 for ``BUG = 1``.  The seeded line carries a ``# BUG:``
comment.  This module follows the kernel-module convention of ``kernels/README.md``.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                              warpgroup_mma_wait)

BUG_CONDITIONAL_FENCE = 1


@gluon.jit
def _load_partition(a_desc, b_desc, a_bufs, b_bufs, ready, empty, off_m, off_n, K, BK: gl.constexpr,
                    S: gl.constexpr):
    num_k = gl.cdiv(K, BK)
    for k in range(num_k):
        s = k % S
        phase = (k // S) & 1
        mbarrier.wait(empty.index(s), phase ^ 1)
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
        mbarrier.wait(ready.index(s), (k // S) & 1)
        acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s), acc, is_async=True)
        acc = warpgroup_mma_wait(1, deps=(acc, ))
        if k > 0:
            mbarrier.arrive(empty.index((k - 1) % S))
    acc = warpgroup_mma_wait(0, deps=(acc, ))
    c_smem = gl.allocate_shared_memory(gl.float16, [BM, BN], c_desc.layout)
    c_smem.store(acc.to(gl.float16))
    if BUG == 1:
        if num_k > 0:
            fence_async_shared()  # BUG: conditional-fence: no fence after the store when the K loop ran zero times
    else:
        fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


@gluon.jit
def fence_gemm_kernel(a_desc, b_desc, c_desc, M, N, K, BM: gl.constexpr, BN: gl.constexpr,
                              BK: gl.constexpr, S: gl.constexpr, GROUP_M: gl.constexpr, BUG: gl.constexpr):
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
        mbarrier.init(empty.index(i), count=1)

    gl.warp_specialize([
        (_mma_partition, (a_bufs, b_bufs, ready, empty, c_desc, off_m, off_n, K, BM, BN, BK, S, BUG)),
        (_load_partition, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, off_m, off_n, K, BK, S)),
    ], [1], [24])

    for i in gl.static_range(S):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(empty.index(i))


from .. import _harness  # noqa: E402

KERNEL = fence_gemm_kernel
TARGETS = ["cuda:90"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"M": 8192, "N": 8192, "K": 8192}

_TILE = {"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}
CONFIGS = {
    "s3": {**_TILE, "S": 3, "BUG": 0},
    "s3_bug_conditional_fence": {**_TILE, "S": 3, "BUG": BUG_CONDITIONAL_FENCE},
}


def launch(config, shape):
    """Launch spec of one config on a problem shape {"M", "N", "K"} (no GPU, no torch); see kernels/README.md."""
    return _harness.gemm_desc_launch(config, shape)
