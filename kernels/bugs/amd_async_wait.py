"""Bug class B08 (bug-classes.md) on AMD gfx950, and an s_barrier used in place of an async wait.

Double-buffered LDS pipeline in one CTA of 4 waves, Gluon's CDNA4 direct-to-LDS copies
(``buffer_load_to_shared``, ``global_load_lds`` on the hardware): the A and B tiles of each K step are two
separate commit groups. In step k the tiles of steps k and k + 1 are outstanding (4 groups); before reading
buffer k % 2 the wait must leave at most the 2 groups of step k + 1 in flight: ``wait_group(2)``.
  BUG 1 (B08, the TLX addmm template of facebookexperimental/triton#2058): ``wait_group(3)``, a count made for one
    group per tile: the B group of step k is still in flight when buffer k % 2 is read. ``async_wait`` counts
    commit groups (vmcnt of their direct-to-LDS instructions after lowering), not tiles. Class: race-raw.
  BUG 2: ``thread_barrier()`` (s_barrier) instead of the wait: s_barrier is an execution barrier only, it does not
    wait for outstanding vector-memory operations (vmcnt), so the tiles may still be landing in LDS. Class: race-raw.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.amd.cdna4 import async_copy


@gluon.jit
def _issue(a_bufs, b_bufs, a_ptr, b_ptr, offs, j, K_ITERS, T: gl.constexpr):
    # the A and B tiles of step j, one commit group each (empty groups past the end keep the count uniform)
    s = j % 2
    async_copy.buffer_load_to_shared(a_bufs.index(s), a_ptr + j * T * T, offs, mask=offs < (K_ITERS - j) * T * T)
    async_copy.commit_group()
    async_copy.buffer_load_to_shared(b_bufs.index(s), b_ptr + j * T * T, offs, mask=offs < (K_ITERS - j) * T * T)
    async_copy.commit_group()


@gluon.jit
def amd_async_wait_kernel(a_ptr, b_ptr, K_ITERS, T: gl.constexpr, BUG: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1, 8], [8, 8], [4, 1], [1, 0])
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
            async_copy.wait_group(3)  # BUG: amd-b08-group-count: counts tiles, not commit groups
        elif BUG == 2:
            gl.thread_barrier()  # BUG: amd-sbarrier-not-wait: s_barrier does not wait for the copies
        else:
            async_copy.wait_group(2)
        a = a_bufs.index(s).load(layout)  # amd-read
        b = b_bufs.index(s).load(layout)  # amd-read-b
        sink.store(a + b)
        gl.thread_barrier()  # every wave has read buffer s before step k + 2 refills it
        _issue(a_bufs, b_bufs, a_ptr, b_ptr, offs, k + 2, K_ITERS, T)
    async_copy.wait_group(0)


KERNEL = amd_async_wait_kernel
TARGETS = ["hip:gfx950"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"K_ITERS": 6}
CONFIGS = {
    "fixed": {"T": 64, "BUG": 0},
    "t64_bug_group_count": {"T": 64, "BUG": 1},
    "t64_bug_barrier_not_wait": {"T": 64, "BUG": 2},
}


from ._common import pointer_pair_launch as launch  # noqa: E402 (after the kernel: its lines stay put)
