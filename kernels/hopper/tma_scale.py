"""Memory-bound fp16 scale for Hopper (sm_90a), written in Gluon: Y = alpha * X over a 2-D tensor.

One ``BR x BC`` tile per program: a TMA load into shared memory (one mbarrier, expect-tx), a shared -> register
load, the multiply, a register -> shared store, ``fence_async_shared`` and a TMA store.  It moves 4 bytes per
element (2 read, 2 written) and does one multiply: its time is set by HBM bandwidth and by how many tiles are in
flight per SM (shared memory per CTA limits the resident CTAs), which is what the project's memory-bound
traces measure.

This module follows the kernel-module convention of ``kernels/README.md``.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, mbarrier, tma


@gluon.jit
def tma_scale_kernel(x_desc, y_desc, R, C, alpha, BR: gl.constexpr, BC: gl.constexpr):
    pid = gl.program_id(0)
    tiles_c = gl.cdiv(C, BC)
    off_r = (pid // tiles_c) * BR
    off_c = (pid % tiles_c) * BC

    buf = gl.allocate_shared_memory(gl.float16, [BR, BC], x_desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, x_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(x_desc, [off_r, off_c], bar, buf)
    mbarrier.wait(bar, 0)

    layout: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    x = buf.load(layout)
    y = (x.to(gl.float32) * alpha).to(gl.float16)
    buf.store(y)
    fence_async_shared()
    tma.async_copy_shared_to_global(y_desc, [off_r, off_c], buf)
    tma.store_wait(0)
    mbarrier.invalidate(bar)


# ---------------------------------------------------------------------------------------------------------------
# Kernel-module convention (kernels/README.md).  Nothing here imports torch at import time.
# ---------------------------------------------------------------------------------------------------------------

from .. import _harness  # noqa: E402  (the kernel above keeps its source lines: TTGIR records them)

KERNEL = tma_scale_kernel
TARGETS = ["cuda:90"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"R": 8192, "C": 8192}

CONFIGS = {
    "b64x128": {"BR": 64, "BC": 128},
    "b128x128": {"BR": 128, "BC": 128},
    "b128x256": {"BR": 128, "BC": 256},
}
ALPHA = 2.0
# What `tlx-sim run` checks the output against (launch.json "reference"): y_desc = alpha * x_desc.
REFERENCE = {"kind": "scale", "operands": ["x_desc", "y_desc"], "factor": "alpha"}


def launch(config, shape):
    """Launch spec of one config on a shape {"R", "C"} (no GPU, no torch): one CTA per BR x BC tile."""
    R, C, BR, BC = shape["R"], shape["C"], config["BR"], config["BC"]
    return {
        "grid": [-(-R // BR) * -(-C // BC), 1, 1],
        "args": {"R": R, "C": C, "alpha": ALPHA},
        "descs": {"x_desc": _harness.fp16_desc([R, C], [BR, BC]), "y_desc": _harness.fp16_desc([R, C], [BR, BC])},
    }


def flops(config, shape):
    """One multiply per element."""
    return shape["R"] * shape["C"]


def bytes_moved(config, shape):
    """HBM bytes of one launch: X read and Y written, 2 bytes per element each."""
    return 4 * shape["R"] * shape["C"]


def make_inputs(shape, device="cuda", seed=0):
    """Random fp16 X [R, C] and an output Y on `device` (imports torch)."""
    import torch
    gen = torch.Generator(device=device).manual_seed(seed)
    x = torch.randn((shape["R"], shape["C"]), device=device, dtype=torch.float16, generator=gen)
    return {"x": x, "y": torch.empty_like(x)}


def reference(inputs):
    """ALPHA * X in fp16."""
    return (inputs["x"].float() * ALPHA).half()


def run(config, shape, inputs):
    """Launch the kernel once on the current GPU; returns (Y, the JIT's CompiledKernel)."""
    spec = launch(config, shape)
    return inputs["y"], _harness.launch_descs(KERNEL, NUM_WARPS, config, spec,
                                              {"x_desc": inputs["x"], "y_desc": inputs["y"]})
