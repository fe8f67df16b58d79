"""Cluster (CGA) fp16 scale for Hopper (sm_90a), written in Gluon: Y = alpha * X, ``num_ctas`` CTAs per tile.

A launch with ``num_ctas = N`` > 1 runs clusters of N CTAs; the grid counts clusters (``gl.program_id`` is the
cluster's index, the same in every CTA of it).  One ``BR x BC`` tile per cluster: the descriptors' shared layout
carries a CGA layout (``cga_layout``) that splits the box's rows across the CTAs of the cluster, so Triton lowers
the one TMA load to one copy per CTA of its ``BR / N`` rows into that CTA's shared memory, completing on that CTA's
own mbarrier.  Each CTA's barrier therefore expects the bytes of its part of the box (``nbytes_per_cta``), not
the box's: the ``_bug_full_box`` configs expect the whole box on every CTA's barrier, a transaction count that
never completes (the hang on hardware).

This module follows the kernel-module convention of ``kernels/README.md``.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, mbarrier, tma


@gluon.jit
def cga_tma_scale_kernel(x_desc, y_desc, R, C, alpha, BR: gl.constexpr, BC: gl.constexpr, BUG_FULL_BOX: gl.constexpr):
    pid = gl.program_id(0)  # the cluster's index: every CTA of the cluster works on the same tile
    tiles_c = gl.cdiv(C, BC)
    off_r = (pid // tiles_c) * BR
    off_c = (pid % tiles_c) * BC

    buf = gl.allocate_shared_memory(gl.float16, [BR, BC], x_desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    if BUG_FULL_BOX:
        nbytes: gl.constexpr = x_desc.block_type.nbytes  # the whole box on each CTA's barrier
    else:
        nbytes: gl.constexpr = x_desc.block_type.nbytes // gl.num_ctas()  # this CTA's rows of the box
    mbarrier.expect(bar, nbytes)
    tma.async_copy_global_to_shared(x_desc, [off_r, off_c], bar, buf)
    mbarrier.wait(bar, 0)

    layout: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0], 
                                             cga_layout=x_desc.layout.cga_layout)
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

KERNEL = cga_tma_scale_kernel
TARGETS = ["cuda:90"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"R": 8192, "C": 8192}

# `num_ctas` is a launch option (the cluster size); the CGA layout of the descriptors follows from it.
CONFIGS = {
    "c2_b128x128": {"BR": 128, "BC": 128, "BUG_FULL_BOX": False, "num_ctas": 2},
    "c4_b128x128": {"BR": 128, "BC": 128, "BUG_FULL_BOX": False, "num_ctas": 4},
    "c2_b128x128_bug_full_box": {"BR": 128, "BC": 128, "BUG_FULL_BOX": True, "num_ctas": 2},
}
ALPHA = 2.0
# What `tlx-sim run` checks the output against (launch.json "reference"): y_desc = alpha * x_desc.
REFERENCE = {"kind": "scale", "operands": ["x_desc", "y_desc"], "factor": "alpha"}


def cga_bases(num_ctas):
    """CGA layout bases splitting dimension 0 (rows) of a 2-D tensor into `num_ctas` contiguous parts, CTA r of
    the cluster holding part r (Gluon `cga_layout`: log2(num_ctas) bases, basis i is CTA bit i's offset)."""
    return [[1 << i, 0] for i in range(num_ctas.bit_length() - 1)]


def fp16_cga_desc(shape, block, num_ctas):
    """A row-major fp16 descriptor whose shared layout splits the box's rows across the cluster's CTAs."""
    from triton.experimental.gluon import language as gl
    desc = _harness.fp16_desc(shape, block, layout=False)
    desc["layout"] = gl.NVMMASharedLayout.get_default_for(list(block), gl.float16,
                                                          cga_layout=cga_bases(num_ctas))
    return desc


def launch(config, shape):
    """Launch spec of one config on a shape {"R", "C"} (no GPU, no torch): one cluster per BR x BC tile."""
    R, C, BR, BC = shape["R"], shape["C"], config["BR"], config["BC"]
    n = config["num_ctas"]
    return {
        "grid": [-(-R // BR) * -(-C // BC), 1, 1],
        "args": {"R": R, "C": C, "alpha": ALPHA},
        "descs": {"x_desc": fp16_cga_desc([R, C], [BR, BC], n), "y_desc": fp16_cga_desc([R, C], [BR, BC], n)},
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
