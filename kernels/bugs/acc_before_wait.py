"""Bug class B07 (bug-classes.md): a wgmma accumulator used before the asynchronous wgmma completed.

One warp group loads A and B with TMA, issues an asynchronous ``warpgroup_mma`` and converts the accumulator to
fp16 for the epilogue. BUG 1 waits with ``warpgroup_mma_wait(1)`` (wgmma.wait_group 1), which leaves the one
outstanding group in flight (Gluon cannot express "no wait at all"; a too-shallow wait is the same race): the
accumulator registers are read while the tensor core still writes them. Class: race-raw.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                              warpgroup_mma_wait)


@gluon.jit
def acc_before_wait_kernel(a_desc, b_desc, c_desc, T: gl.constexpr, BUG: gl.constexpr):
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                         instr_shape=[16, T, 16])
    a_smem = gl.allocate_shared_memory(gl.float16, [T, T], a_desc.layout)
    b_smem = gl.allocate_shared_memory(gl.float16, [T, T], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(ready, count=1)
    mbarrier.expect(ready, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(a_desc, [0, 0], ready, a_smem)
    tma.async_copy_global_to_shared(b_desc, [0, 0], ready, b_smem)
    mbarrier.wait(ready, 0)
    acc = gl.zeros((T, T), dtype=gl.float32, layout=mma_layout)
    acc = warpgroup_mma(a_smem, b_smem, acc, is_async=True)
    if BUG == 1:
        acc = warpgroup_mma_wait(1, deps=(acc, ))  # BUG: b07-acc-before-wait: leaves the accumulator's group in flight
    else:
        acc = warpgroup_mma_wait(0, deps=(acc, ))
    c_smem = gl.allocate_shared_memory(gl.float16, [T, T], c_desc.layout)
    c_smem.store(acc.to(gl.float16))
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [0, 0], c_smem)
    tma.store_wait(0)
    mbarrier.invalidate(ready)


KERNEL = acc_before_wait_kernel
TARGETS = ["cuda:90"]
NUM_WARPS = 4
DEFAULT_SHAPE = {}
CONFIGS = {
    "fixed": {"T": 64, "BUG": 0},
    "t64_bug_acc_before_wait": {"T": 64, "BUG": 1},
}


def launch(config, shape):
    """One CTA computing one [T, T] tile."""
    from . import _common
    return _common.tile_launch(config, shape, ["a_desc", "b_desc", "c_desc"])
