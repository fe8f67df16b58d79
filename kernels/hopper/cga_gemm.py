"""Cluster (CGA) warp-specialized fp16 GEMM for Hopper (sm_90a), written in Gluon: ``num_ctas = 2`` per tile.

C = A @ B with one BM x BN tile per cluster of 2 CTAs (the grid counts clusters; ``gl.program_id`` is the
cluster's index). The CGA layouts split A's and C's tiles by rows across the two CTAs (``cga_layout [[1, 0]]``:
each CTA computes BM / 2 rows) and broadcast B (``[[0, 0]]``: each CTA loads the whole B tile itself; Triton 3.6
lowers a Gluon TMA load to plain per-CTA copies, no multicast). A 1-warp TMA producer fills an S-stage ring, the
default partition (4 warps) runs wgmma on it, as ``ws_gemm.py``. Each CTA's ``ready[s]`` therefore expects its own
part of the A box plus the whole B box (``nbytes_per_cta``); the ``_bug_full_box`` config expects both whole boxes,
a transaction count that never completes (the hang on hardware).

This module follows the kernel-module convention of ``kernels/README.md``.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                              warpgroup_mma_wait)


@gluon.jit
def _load_partition(a_desc, b_desc, a_bufs, b_bufs, ready, empty, off_m, off_n, K, BK: gl.constexpr,
                    S: gl.constexpr, BUG_FULL_BOX: gl.constexpr):
    # A is split by rows over the CTAs (its CGA layout's one nonzero basis): a CTA's copy moves half of its box.
    if BUG_FULL_BOX:
        nbytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes  # both whole boxes per CTA
    else:
        nbytes: gl.constexpr = a_desc.block_type.nbytes // 2 + b_desc.block_type.nbytes
    num_k = gl.cdiv(K, BK)
    for k in range(num_k):
        s = k % S
        mbarrier.wait(empty.index(s), ((k // S) & 1) ^ 1)
        mbarrier.expect(ready.index(s), nbytes)
        tma.async_copy_global_to_shared(a_desc, [off_m, k * BK], ready.index(s), a_bufs.index(s))
        tma.async_copy_global_to_shared(b_desc, [k * BK, off_n], ready.index(s), b_bufs.index(s))


@gluon.jit
def _mma_partition(a_bufs, b_bufs, ready, empty, c_desc, off_m, off_n, K, BM: gl.constexpr, BN: gl.constexpr,
                   BK: gl.constexpr, S: gl.constexpr):
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                         instr_shape=[16, BN, 16], cga_layout=[[1, 0]])
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
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


@gluon.jit
def cga_gemm_kernel(a_desc, b_desc, c_desc, M, N, K, BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr,
                    S: gl.constexpr, BUG_FULL_BOX: gl.constexpr):
    pid = gl.program_id(0)  # the cluster's index: both CTAs of the cluster work on the same tile
    num_pid_n = gl.cdiv(N, BN)
    off_m = (pid // num_pid_n) * BM
    off_n = (pid % num_pid_n) * BN

    a_bufs = gl.allocate_shared_memory(gl.float16, [S, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(gl.float16, [S, BK, BN], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(S):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=1)

    gl.warp_specialize([
        (_mma_partition, (a_bufs, b_bufs, ready, empty, c_desc, off_m, off_n, K, BM, BN, BK, S)),
        (_load_partition, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, off_m, off_n, K, BK, S, BUG_FULL_BOX)),
    ], [1], [24])

    for i in gl.static_range(S):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(empty.index(i))


# ---------------------------------------------------------------------------------------------------------------
# Kernel-module convention (kernels/README.md).  Nothing here imports torch at import time.
# ---------------------------------------------------------------------------------------------------------------

from .. import _harness  # noqa: E402  (the kernels above keep their source lines: TTGIR records them)

KERNEL = cga_gemm_kernel
TARGETS = ["cuda:90"]
NUM_WARPS = 4
WORKER_WARPS = [1]
DEFAULT_SHAPE = {"M": 8192, "N": 8192, "K": 8192}

_TILE = {"BM": 256, "BN": 128, "BK": 64}
CONFIGS = {
    "c2_s3": {**_TILE, "S": 3, "BUG_FULL_BOX": False, "num_ctas": 2},
    "c2_s3_bug_full_box": {**_TILE, "S": 3, "BUG_FULL_BOX": True, "num_ctas": 2},
}
# CGA layouts of the descriptors (2 CTAs): A and C split by rows, B broadcast.
CGA = {"a_desc": [[1, 0]], "b_desc": [[0, 0]], "c_desc": [[1, 0]]}


def launch(config, shape):
    """Launch spec of one config on a shape {"M", "N", "K"} (no GPU, no torch): one cluster per BM x BN tile."""
    from triton.experimental.gluon import language as gl
    spec = _harness.gemm_desc_launch(config, shape)
    spec["grid"] = [-(-shape["M"] // config["BM"]) * -(-shape["N"] // config["BN"]), 1, 1]
    for name, d in spec["descs"].items():
        d["layout"] = gl.NVMMASharedLayout.get_default_for(d["block"], gl.float16, cga_layout=CGA[name])
    return spec


def flops(config, shape):
    """2 M N K."""
    return _harness.gemm_flops(config, shape)


make_inputs = _harness.gemm_make_inputs
reference = _harness.gemm_reference


def run(config, shape, inputs):
    """Launch the kernel once on the current GPU; returns (C, the JIT's CompiledKernel)."""
    return _harness.gemm_run(KERNEL, NUM_WARPS, config, launch(config, shape), inputs)
