"""Bug class B20 (bug-classes.md): a role skips its loop on an empty work tile, and with it an arrival.

The softmax role (worker) signals ``s_done`` at the end of its KV loop; the MMA role (default) waits for
``s_done`` once per tile in its epilogue. BUG 1 arrives inside the loop on its last iteration: with zero KV
tiles (n_kv = 0, the launch below) nobody arrives and the epilogue waits forever. The fix arrives after the
loop, whatever its trip count. Class: deadlock (early-exit family).
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier


@gluon.jit
def _softmax(s_done, n_kv, BUG: gl.constexpr):
    for j in range(n_kv):
        if BUG == 1:
            if j == n_kv - 1:
                mbarrier.arrive(s_done)  # BUG: b20-arrive-in-loop: skipped when n_kv == 0
    if BUG == 0:
        mbarrier.arrive(s_done)


@gluon.jit
def _mma(s_done):
    mbarrier.wait(s_done, 0)


@gluon.jit
def zero_trip_arrive_kernel(n_kv, BUG: gl.constexpr):
    s_done = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(s_done, count=1)
    gl.warp_specialize([
        (_mma, (s_done, )),
        (_softmax, (s_done, n_kv, BUG)),
    ], [1], [24])
    mbarrier.invalidate(s_done)


KERNEL = zero_trip_arrive_kernel
TARGETS = ["cuda:90"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"n_kv": 0}
CONFIGS = {
    "fixed": {"BUG": 0},
    "kv0_bug_arrive_in_loop": {"BUG": 1},
}


def launch(config, shape):
    """One CTA whose work tile has n_kv KV blocks (0: an empty sequence)."""
    return {"grid": [1, 1, 1], "args": {"n_kv": shape["n_kv"]}, "descs": {}}
