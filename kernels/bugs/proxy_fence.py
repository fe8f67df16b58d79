"""Bug classes B14 and B15 (bug-classes.md): generic shared-memory writes consumed by a TMA store (async proxy).

One warp group writes an fp16 tile to shared memory with ordinary stores and stores it to global memory with
TMA. ``fence_async_shared`` must sit between the two on every path:
  * BUG 1 (B14): no fence at all;
  * BUG 2 (B14, zero-trip variant): the only fence sits inside a loop that runs ``n`` times, and the launch
    has n = 0;
  * BUG 3 (B15): the fence comes after the TMA store and its wait, which gives no ordering.
Class: missing-fence. Config ``fixed`` fences between the write and the TMA store.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, tma


@gluon.jit
def proxy_fence_kernel(c_desc, n, T: gl.constexpr, BUG: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    tile = gl.full([T, T], 1.0, gl.float16, layout)
    c_smem = gl.allocate_shared_memory(gl.float16, [T, T], c_desc.layout)
    c_smem.store(tile)
    if BUG == 1:
        tma.async_copy_shared_to_global(c_desc, [0, 0], c_smem)  # BUG: b14-no-fence: generic write, no fence
        tma.store_wait(0)
    elif BUG == 2:
        for i in range(n):
            fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [0, 0], c_smem)  # BUG: b14-zero-trip-fence: fence only in the loop
        tma.store_wait(0)
    elif BUG == 3:
        tma.async_copy_shared_to_global(c_desc, [0, 0], c_smem)  # BUG: b15-fence-after-store: fence comes after it
        tma.store_wait(0)
        fence_async_shared()
    else:
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [0, 0], c_smem)
        tma.store_wait(0)


KERNEL = proxy_fence_kernel
TARGETS = ["cuda:90"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"n": 0}
CONFIGS = {
    "fixed": {"T": 64, "BUG": 0},
    "t64_bug_no_fence": {"T": 64, "BUG": 1},
    "t64_bug_zero_trip_fence": {"T": 64, "BUG": 2},
    "t64_bug_fence_after_store": {"T": 64, "BUG": 3},
}


def launch(config, shape):
    """One CTA storing one [T, T] tile; `n` is the trip count of the loop holding the fence (BUG 2)."""
    from . import _common
    return _common.tile_launch(config, shape, ["c_desc"], args=["n"])
