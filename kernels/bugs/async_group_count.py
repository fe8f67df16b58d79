"""Bug class B08 (bug-classes.md): a cp.async wait-group count that leaves the next buffer's loads in flight.

Double-buffered pipeline in one warp group: the A and B tiles of each K step are two separate cp.async commit
groups. In step k the tiles of steps k and k + 1 are outstanding (4 groups); before reading buffer k % 2 the
wait must leave at most the 2 groups of step k + 1 in flight: ``wait_group(2)``. BUG 1 waits with
``wait_group(3)``, a count made for one group per tile (3 = tiles in flight + 1 with the B loads forgotten): the
B group of step k is still in flight when buffer k % 2 is read. ``async_wait`` counts commit groups, not tiles.
Class: race-raw.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.ampere import async_copy


@gluon.jit
def _issue(a_bufs, b_bufs, a_ptr, b_ptr, offs, j, K_ITERS, T: gl.constexpr):
    # the A and B tiles of step j, one commit group each (empty groups past the end keep the count uniform)
    s = j % 2
    async_copy.async_copy_global_to_shared(a_bufs.index(s), a_ptr + j * T * T + offs, mask=offs < (K_ITERS - j) * T * T)
    async_copy.commit_group()
    async_copy.async_copy_global_to_shared(b_bufs.index(s), b_ptr + j * T * T + offs, mask=offs < (K_ITERS - j) * T * T)
    async_copy.commit_group()


@gluon.jit
def async_group_count_kernel(a_ptr, b_ptr, K_ITERS, T: gl.constexpr, BUG: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    smem_layout: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    a_bufs = gl.allocate_shared_memory(gl.float16, [2, T, T], smem_layout)
    b_bufs = gl.allocate_shared_memory(gl.float16, [2, T, T], smem_layout)
    sink = gl.allocate_shared_memory(gl.float16, [T, T], smem_layout)
    rows = gl.arange(0, T, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, T, layout=gl.SliceLayout(0, layout))
    offs = rows[:, None] * T + cols[None, :]
    _issue(a_bufs, b_bufs, a_ptr, b_ptr, offs, 0, K_ITERS, T)
    _issue(a_bufs, b_bufs, a_ptr, b_ptr, offs, 1, K_ITERS, T)
    for k in range(K_ITERS):
        s = k % 2
        if BUG == 1:
            async_copy.wait_group(3)  # BUG: b08-group-count: counts tiles, not commit groups
        else:
            async_copy.wait_group(2)
        a = a_bufs.index(s).load(layout)
        b = b_bufs.index(s).load(layout)
        sink.store(a + b)
        _issue(a_bufs, b_bufs, a_ptr, b_ptr, offs, k + 2, K_ITERS, T)
    async_copy.wait_group(0)


KERNEL = async_group_count_kernel
TARGETS = ["cuda:90"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"K_ITERS": 6}
CONFIGS = {
    "fixed": {"T": 64, "BUG": 0},
    "t64_bug_group_count": {"T": 64, "BUG": 1},
}


from ._common import pointer_pair_launch as launch  # noqa: E402 (after the kernel: its lines stay put)
