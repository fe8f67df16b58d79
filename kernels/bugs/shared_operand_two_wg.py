"""Bug class B12 (bug-classes.md): two warp groups read one shared operand with async wgmma, and the loop-back
barrier before the operand is rewritten is missing.

The default warp group writes the A tile of step k to ``a_smem`` (generic stores), fences, publishes it on
``a_ready``; both warp groups (default and worker) issue an asynchronous wgmma on it and wait for their own.
Before writing step k + 1, the writer must know that the *other* warp group's wgmma retired too: the worker
arrives on ``a_free`` after its wait, and the writer waits for it. BUG 1 omits that wait (each warp group's
wgmma wait only orders its own reads): the rewrite races with the worker's in-flight wgmma. Class: race-war.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, warpgroup_mma,
                                                              warpgroup_mma_wait)


@gluon.jit
def _writer(a_smem, b_smem, a_ready, a_free, K_ITERS, T: gl.constexpr, BUG: gl.constexpr):
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                         instr_shape=[16, T, 16])
    layout: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    acc = gl.zeros((T, T), dtype=gl.float32, layout=mma_layout)
    for k in range(K_ITERS):
        if BUG == 0:
            mbarrier.wait(a_free, (k & 1) ^ 1)
        a_smem.store(gl.full([T, T], 1.0, gl.float16, layout))  # BUG: b12-no-loopback-barrier: the other warp group's wgmma may still read a_smem
        fence_async_shared()
        mbarrier.arrive(a_ready)
        acc = warpgroup_mma(a_smem, b_smem, acc, is_async=True)
        acc = warpgroup_mma_wait(0, deps=(acc, ))


@gluon.jit
def _reader(a_smem, b_smem, a_ready, a_free, K_ITERS, T: gl.constexpr, BUG: gl.constexpr):
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                         instr_shape=[16, T, 16])
    acc = gl.zeros((T, T), dtype=gl.float32, layout=mma_layout)
    for k in range(K_ITERS):
        mbarrier.wait(a_ready, k & 1)
        acc = warpgroup_mma(a_smem, b_smem, acc, is_async=True)
        acc = warpgroup_mma_wait(0, deps=(acc, ))
        mbarrier.arrive(a_free)


@gluon.jit
def shared_operand_two_wg_kernel(K_ITERS, T: gl.constexpr, BUG: gl.constexpr):
    smem_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([T, T], gl.float16)
    layout: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    a_smem = gl.allocate_shared_memory(gl.float16, [T, T], smem_layout)
    b_smem = gl.allocate_shared_memory(gl.float16, [T, T], smem_layout)
    a_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    a_free = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(a_ready, count=1)
    mbarrier.init(a_free, count=1)
    b_smem.store(gl.full([T, T], 1.0, gl.float16, layout))
    fence_async_shared()
    gl.warp_specialize([
        (_writer, (a_smem, b_smem, a_ready, a_free, K_ITERS, T, BUG)),
        (_reader, (a_smem, b_smem, a_ready, a_free, K_ITERS, T, BUG)),
    ], [4], [232])


KERNEL = shared_operand_two_wg_kernel
TARGETS = ["cuda:90"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"K_ITERS": 4}
CONFIGS = {
    "fixed": {"T": 64, "BUG": 0},
    "t64_bug_no_loopback_barrier": {"T": 64, "BUG": 1},
}


def launch(config, shape):
    """One CTA of two warp groups, K_ITERS steps."""
    return {"grid": [1, 1, 1], "args": {"K_ITERS": shape["K_ITERS"]}, "descs": {}}
