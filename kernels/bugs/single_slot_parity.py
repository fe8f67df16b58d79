"""Bug class B02 (bug-classes.md): a ring-buffer parity formula applied to a single-slot mbarrier.

One warp group on Blackwell loads A and B tiles into single shared buffers with TMA, issues an asynchronous
``tcgen05_mma`` whose completion arrives on the single mbarrier ``mma_bar`` and waits on it before the next
iteration's TMA overwrites the buffers. ``mma_bar`` completes one phase per iteration, so the wait of iteration
``k`` needs parity ``k & 1``. BUG 1 waits with the ring formula ``(k // S) & 1`` (S = 3): at k = 1 it asks for
parity 0, which completed in iteration 0, so the wait passes at once and the TMA of iteration 2 overwrites
``a_smem`` while MMA 1 still reads it. Class: race-war (a wrong parity, deadlock-phase family).
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout, allocate_tensor_memory,
                                                                 mbarrier, tcgen05_mma, tma)


@gluon.jit
def single_slot_parity_kernel(a_desc, b_desc, K_ITERS, T: gl.constexpr, S: gl.constexpr, BUG: gl.constexpr):
    a_smem = gl.allocate_shared_memory(gl.float16, [T, T], a_desc.layout)
    b_smem = gl.allocate_shared_memory(gl.float16, [T, T], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mma_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(ready, count=1)
    mbarrier.init(mma_bar, count=1)
    acc_tmem = allocate_tensor_memory(gl.float32, [T, T], TensorMemoryLayout([T, T], col_stride=1))
    for k in range(K_ITERS):
        mbarrier.expect(ready, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(a_desc, [0, k * T], ready, a_smem)
        tma.async_copy_global_to_shared(b_desc, [0, k * T], ready, b_smem)
        mbarrier.wait(ready, k & 1)
        tcgen05_mma(a_smem, b_smem, acc_tmem, use_acc=k > 0, mbarriers=[mma_bar])
        if BUG == 1:
            mbarrier.wait(mma_bar, (k // S) & 1)  # BUG: b02-ring-parity: ring formula on a single-slot barrier
        else:
            mbarrier.wait(mma_bar, k & 1)
    mbarrier.invalidate(ready)
    mbarrier.invalidate(mma_bar)


KERNEL = single_slot_parity_kernel
TARGETS = ["cuda:100"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"K_ITERS": 6, "TILES": 6}
CONFIGS = {
    "fixed": {"T": 128, "S": 3, "BUG": 0},
    "s3_bug_ring_parity": {"T": 128, "S": 3, "BUG": 1},
}


def launch(config, shape):
    """One CTA, K_ITERS steps over [T, T * TILES] A and B."""
    from . import _common
    return _common.tile_launch(config, shape, ["a_desc", "b_desc"], args=["K_ITERS"])
