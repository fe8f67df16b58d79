"""Bug class B21 (bug-classes.md): the producer's expect + TMA sit inside a data-dependent branch, the
consumer's wait does not.

Block-sparse loop over K_ITERS blocks with 2 stages; block ``skip`` is masked out. BUG 1: the producer only
arms and fills ``full[s]`` for unmasked blocks, while the consumer waits every block: at k = skip nobody
arrives and the consumer waits forever. The fix arrives on ``full[s]`` (no bytes) for a masked block, so the
phases stay paired on every path. Class: deadlock (early-exit family).
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma


@gluon.jit
def _producer(a_desc, a_bufs, full, empty, K_ITERS, skip, T: gl.constexpr, BUG: gl.constexpr):
    for k in range(K_ITERS):
        s = k % 2
        mbarrier.wait(empty.index(s), ((k // 2) & 1) ^ 1)
        if k != skip:
            mbarrier.expect(full.index(s), a_desc.block_type.nbytes)
            tma.async_copy_global_to_shared(a_desc, [0, k * T], full.index(s), a_bufs.index(s))
        else:
            if BUG == 0:
                mbarrier.arrive(full.index(s))  # a masked block still completes the phase


@gluon.jit
def _consumer(a_bufs, sink, full, empty, K_ITERS, skip, BUG: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    for k in range(K_ITERS):
        s = k % 2
        mbarrier.wait(full.index(s), (k // 2) & 1)  # BUG: b21-unpaired-wait: waits even for a masked block
        if k != skip:
            sink.store(a_bufs.index(s).load(layout))
        mbarrier.arrive(empty.index(s))


@gluon.jit
def conditional_producer_kernel(a_desc, K_ITERS, skip, T: gl.constexpr, BUG: gl.constexpr):
    a_bufs = gl.allocate_shared_memory(gl.float16, [2, T, T], a_desc.layout)
    sink = gl.allocate_shared_memory(gl.float16, [T, T], a_desc.layout)
    full = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(2):
        mbarrier.init(full.index(i), count=1)
        mbarrier.init(empty.index(i), count=1)
    gl.warp_specialize([
        (_consumer, (a_bufs, sink, full, empty, K_ITERS, skip, BUG)),
        (_producer, (a_desc, a_bufs, full, empty, K_ITERS, skip, T, BUG)),
    ], [1], [24])


KERNEL = conditional_producer_kernel
TARGETS = ["cuda:90"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"K_ITERS": 4, "skip": 1, "TILES": 4}
CONFIGS = {
    "fixed": {"T": 64, "BUG": 0},
    "t64_bug_unpaired_wait": {"T": 64, "BUG": 1},
}


def launch(config, shape):
    """One CTA, K_ITERS blocks of which block `skip` is masked out (mask [1, 0, 1, 1])."""
    from . import _common
    return _common.tile_launch(config, shape, ["a_desc"], args=["K_ITERS", "skip"])
