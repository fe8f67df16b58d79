"""Bug class B10 (bug-classes.md): too few operand buffers for a wgmma kept in flight across an iteration.

A software-pipelined loop in one warp group: the TMA load of step k + D (D = S stages of prefetch) is issued in
step k after ``warpgroup_mma_wait(1)``, which retires the wgmma group of step k - 1 but leaves step k's in
flight. One loaded A tile feeds two wgmmas (the "two uses" trigger of the pipeliner bug). Keeping a wgmma in
flight needs NBUF = D + 1 buffers; BUG 1 allocates D, so the load of step k + D refills the buffer that the
in-flight wgmma of step k still reads. Class: race-war (race-WAR-stage-reuse).
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma, warpgroup_mma, warpgroup_mma_wait


@gluon.jit
def wgmma_buffer_reuse_kernel(a_desc, b_desc, K_ITERS, T: gl.constexpr, D: gl.constexpr, BUG: gl.constexpr):
    NBUF: gl.constexpr = D + 1 - BUG
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                         instr_shape=[16, T, 16])
    a_bufs = gl.allocate_shared_memory(gl.float16, [NBUF, T, T], a_desc.layout)
    b_smem = gl.allocate_shared_memory(gl.float16, [T, T], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [NBUF, 1], mbarrier.MBarrierLayout())
    b_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    for i in gl.static_range(NBUF):
        mbarrier.init(ready.index(i), count=1)
    mbarrier.init(b_ready, count=1)
    mbarrier.expect(b_ready, b_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(b_desc, [0, 0], b_ready, b_smem)
    for j in gl.static_range(D):
        mbarrier.expect(ready.index(j), a_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(a_desc, [0, j * T], ready.index(j), a_bufs.index(j))
    mbarrier.wait(b_ready, 0)
    acc = gl.zeros((T, T), dtype=gl.float32, layout=mma_layout)
    acc2 = gl.zeros((T, T), dtype=gl.float32, layout=mma_layout)
    for k in range(K_ITERS):
        s = k % NBUF
        mbarrier.wait(ready.index(s), (k // NBUF) & 1)
        acc = warpgroup_mma(a_bufs.index(s), b_smem, acc, is_async=True)
        acc2 = warpgroup_mma(a_bufs.index(s), b_smem, acc2, is_async=True)
        acc, acc2 = warpgroup_mma_wait(2, deps=(acc, acc2))
        nxt = k + D
        if nxt < K_ITERS:
            t = nxt % NBUF
            mbarrier.expect(ready.index(t), a_desc.block_type.nbytes)
            tma.async_copy_global_to_shared(a_desc, [0, nxt * T], ready.index(t), a_bufs.index(t))  # BUG: b10-buffer-reuse: NBUF = D refills the in-flight stage
    acc, acc2 = warpgroup_mma_wait(0, deps=(acc, acc2))
    for i in gl.static_range(NBUF):
        mbarrier.invalidate(ready.index(i))


KERNEL = wgmma_buffer_reuse_kernel
# The prologue always fills D = 3 stages: with fewer K steps the loads of the unused stages are never waited for
# and land after the barriers are invalidated (found by the Z3 proofs; launch precondition of `tlx-sim check`).
PRECONDITIONS = ["K_ITERS>=3"]
TARGETS = ["cuda:90"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"K_ITERS": 8, "TILES": 8}
CONFIGS = {
    "fixed": {"T": 64, "D": 3, "BUG": 0},
    "d3_bug_buffer_reuse": {"T": 64, "D": 3, "BUG": 1},
}


def launch(config, shape):
    """One CTA, K_ITERS = 8 steps."""
    from . import _common
    return _common.tile_launch(config, shape, ["a_desc", "b_desc"], args=["K_ITERS"])
