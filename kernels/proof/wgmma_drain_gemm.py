"""Pipelined Hopper wgmma loop with a *parametric* wgmma wait-depth bug, for tlx-sim's Z3 proofs.

One warp group computes ``acc = sum_k A_k @ B`` over ``K_ITERS`` steps: a ring of ``NBUF`` A stages filled by TMA
``NBUF - 1`` steps ahead, async wgmma, ``warpgroup_mma_wait(1)`` (one wgmma group kept in flight, so the refill of
step ``k + NBUF - 1`` goes to the stage of step ``k - 1``, already retired).  The epilogue adds a residual tile R
that it loads by TMA into stage 0 of the A ring (the ring is free once the loop is done) and stores the result.

* ``BUG = 1`` (drain after reuse): the residual load is issued *before* ``warpgroup_mma_wait(0)``.  The wgmma of
  the last step is still in flight there and reads stage ``(K_ITERS - 1) % NBUF``: the load overwrites it exactly
  when ``K_ITERS % NBUF == 1``.  At the default launch (8 steps, NBUF = 4: the last step reads stage 3) the
  simulation is clean; ``tlx-sim check`` proves stage-ownership (its wgmma-depth part) for ``BUG = 0`` and finds a
  ``K_ITERS`` with ``K_ITERS % 4 == 1`` for ``BUG = 1``, whose replay is a race-war on the A ring.

The seeded line carries a ``# BUG:`` comment.  This module follows the kernel-module convention of
``kernels/README.md``.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                              warpgroup_mma_wait)

BUG_DRAIN_AFTER_REUSE = 1


@gluon.jit
def wgmma_drain_gemm_kernel(a_desc, b_desc, r_desc, c_desc, K_ITERS, T: gl.constexpr, NBUF: gl.constexpr,
                            BUG: gl.constexpr):
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                         instr_shape=[16, T, 16])
    a_bufs = gl.allocate_shared_memory(gl.float16, [NBUF, T, T], a_desc.layout)
    b_smem = gl.allocate_shared_memory(gl.float16, [T, T], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [NBUF, 1], mbarrier.MBarrierLayout())
    b_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    r_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    for i in gl.static_range(NBUF):
        mbarrier.init(ready.index(i), count=1)
    mbarrier.init(b_ready, count=1)
    mbarrier.init(r_ready, count=1)
    mbarrier.expect(b_ready, b_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(b_desc, [0, 0], b_ready, b_smem)
    for j in gl.static_range(NBUF - 1):
        if j < K_ITERS:
            mbarrier.expect(ready.index(j), a_desc.block_type.nbytes)
            tma.async_copy_global_to_shared(a_desc, [0, j * T], ready.index(j), a_bufs.index(j))
    mbarrier.wait(b_ready, 0)
    acc = gl.zeros((T, T), dtype=gl.float32, layout=mma_layout)
    for k in range(K_ITERS):
        s = k % NBUF
        mbarrier.wait(ready.index(s), (k // NBUF) & 1)
        acc = warpgroup_mma(a_bufs.index(s), b_smem, acc, is_async=True)
        acc = warpgroup_mma_wait(1, deps=(acc, ))
        nxt = k + NBUF - 1
        if nxt < K_ITERS:
            t = nxt % NBUF
            mbarrier.expect(ready.index(t), a_desc.block_type.nbytes)
            tma.async_copy_global_to_shared(a_desc, [0, nxt * T], ready.index(t), a_bufs.index(t))
    r_smem = a_bufs.index(0)
    if BUG == 1:
        mbarrier.expect(r_ready, r_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(r_desc, [0, 0], r_ready, r_smem)  # BUG: drain-after-reuse: the last wgmma may read stage 0
        acc = warpgroup_mma_wait(0, deps=(acc, ))
    else:
        acc = warpgroup_mma_wait(0, deps=(acc, ))
        mbarrier.expect(r_ready, r_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(r_desc, [0, 0], r_ready, r_smem)
    mbarrier.wait(r_ready, 0)
    r = r_smem.load(mma_layout)
    out = acc + r.to(gl.float32)
    c_smem = gl.allocate_shared_memory(gl.float16, [T, T], c_desc.layout, out.to(gl.float16))
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [0, 0], c_smem)
    tma.store_wait(0)
    for i in gl.static_range(NBUF):
        mbarrier.invalidate(ready.index(i))
    mbarrier.invalidate(b_ready)
    mbarrier.invalidate(r_ready)


KERNEL = wgmma_drain_gemm_kernel
TARGETS = ["cuda:90"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"K_ITERS": 8, "TILES": 8}
CONFIGS = {
    "n4": {"T": 64, "NBUF": 4, "BUG": 0},
    "n4_bug_drain_after_reuse": {"T": 64, "NBUF": 4, "BUG": BUG_DRAIN_AFTER_REUSE},
}


def launch(config, shape):
    """One CTA, K_ITERS = 8 steps over [T, T * TILES] fp16 descriptors (kernels/bugs/_common.py)."""
    from ..bugs import _common
    return _common.tile_launch(config, shape, ["a_desc", "b_desc", "r_desc", "c_desc"], args=["K_ITERS"])
