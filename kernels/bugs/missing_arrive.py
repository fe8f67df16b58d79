"""Bug class B04 (bug-classes.md): a pipelined loop whose producer registers the bytes but drops an arrival.

``full`` expects two arrivals per phase: the producer's ``expect`` (arrive.expect_tx) and the arrive of the
copy-issuing path (the "emit_arrive" request of the 1-D bulk-copy lowering). With a trip count of 1 the producer
takes the bulk path that issues the bytes and no arrive (BUG 1): the bytes land, tx-count reaches 0, but one
arrival stays pending and the consumer waits forever. Class: deadlock (deadlock-count family).
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma


@gluon.jit
def _producer(a_desc, a_bufs, full, empty, K_ITERS, BUG: gl.constexpr):
    for k in range(K_ITERS):
        s = k % 2
        mbarrier.wait(empty.index(s), ((k // 2) & 1) ^ 1)
        mbarrier.expect(full.index(s), a_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(a_desc, [0, 0], full.index(s), a_bufs.index(s))
        if BUG == 1:
            pass  # BUG: b04-dropped-arrive: the bulk path emits expect_tx and the copy, not the arrive
        else:
            mbarrier.arrive(full.index(s))


@gluon.jit
def _consumer(a_bufs, sink, full, empty, K_ITERS, T: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    for k in range(K_ITERS):
        s = k % 2
        mbarrier.wait(full.index(s), (k // 2) & 1)
        sink.store(a_bufs.index(s).load(layout))
        mbarrier.arrive(empty.index(s))


@gluon.jit
def missing_arrive_kernel(a_desc, K_ITERS, T: gl.constexpr, BUG: gl.constexpr):
    a_bufs = gl.allocate_shared_memory(gl.float16, [2, T, T], a_desc.layout)
    sink = gl.allocate_shared_memory(gl.float16, [T, T], a_desc.layout)
    full = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(2):
        mbarrier.init(full.index(i), count=2)
        mbarrier.init(empty.index(i), count=1)
    gl.warp_specialize([
        (_consumer, (a_bufs, sink, full, empty, K_ITERS, T)),
        (_producer, (a_desc, a_bufs, full, empty, K_ITERS, BUG)),
    ], [1], [24])


KERNEL = missing_arrive_kernel
TARGETS = ["cuda:90"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"K_ITERS": 1}
CONFIGS = {
    "fixed": {"T": 64, "BUG": 0},
    "t64_bug_dropped_arrive": {"T": 64, "BUG": 1},
}


def launch(config, shape):
    """One CTA; the loop runs K_ITERS = 1 time (the trip count that takes the bulk path)."""
    from . import _common
    return _common.tile_launch(config, shape, ["a_desc"], args=["K_ITERS"])
