"""Bug class B17 (bug-classes.md): a value published through shared memory is ordered only by barriers of a
loop that can run zero times.

The MMA warp (worker) allocates tensor memory and writes its base address to ``addr_slot`` in shared memory;
the epilogue (default) reads it after its KV loop to deallocate. BUG 1 relies on the loop's ``mma_done``
handshake to order the write before the read: with zero KV tiles (n_kv = 0, the launch below) the loop does not
run and nothing orders them. The fix publishes the address with its own barrier ``addr_ready``.
Class: race-raw (tmem-race family, early exit).
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import mbarrier


@gluon.jit
def _mma_warp(addr_slot, mma_done, addr_ready, n_kv, BUG: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [1], [0])
    addr_slot.store(gl.full([32], 0, gl.int32, layout))
    if BUG == 0:
        mbarrier.arrive(addr_ready)
    for j in range(n_kv):
        mbarrier.arrive(mma_done)


@gluon.jit
def _epilogue(addr_slot, sink, mma_done, addr_ready, n_kv, BUG: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    if BUG == 0:
        mbarrier.wait(addr_ready, 0)
    for j in range(n_kv):
        mbarrier.wait(mma_done, j & 1)
    addr = addr_slot.load(layout)  # BUG: b17-unordered-publish: ordered only by the loop's barriers
    sink.store(addr)  # stands for the dealloc that uses the address


@gluon.jit
def tmem_addr_publish_kernel(n_kv, BUG: gl.constexpr):
    slot_layout: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [0])
    addr_slot = gl.allocate_shared_memory(gl.int32, [32], slot_layout)
    sink = gl.allocate_shared_memory(gl.int32, [32], slot_layout)
    mma_done = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    addr_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(mma_done, count=1)
    mbarrier.init(addr_ready, count=1)
    gl.warp_specialize([
        (_epilogue, (addr_slot, sink, mma_done, addr_ready, n_kv, BUG)),
        (_mma_warp, (addr_slot, mma_done, addr_ready, n_kv, BUG)),
    ], [1], [24])


KERNEL = tmem_addr_publish_kernel
TARGETS = ["cuda:100"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"n_kv": 0}
CONFIGS = {
    "fixed": {"BUG": 0},
    "kv0_bug_unordered_publish": {"BUG": 1},
}


def launch(config, shape):
    """One persistent CTA whose work tile has n_kv = 0 KV tiles."""
    return {"grid": [1, 1, 1], "args": {"n_kv": shape["n_kv"]}, "descs": {}}
