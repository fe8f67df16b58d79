"""The fp16 GEMM of ``kernels/amd/gemm.py`` with 8 waves and 256 x 256 tiles on gfx942, where Triton's AMD backend
applies its block ping-pong schedule (third_party/amd/lib/TritonAMDGPUTransforms/BlockPingpong.cpp, enabled for
gfx942 with ``num_stages`` 2): ``amdg.cond_barrier`` holds waves 4-7 back by one s_barrier so that one wave group
runs the MFMA cluster while the other runs the memory cluster, ``ttg.barrier local`` between the clusters.

This module follows the kernel-module convention of ``kernels/README.md``; ``run`` needs a ROCm torch on an MI300
(the project only compiles it).
"""
from . import gemm as _gemm
from .. import _harness

KERNEL = _gemm.gemm_kernel
TARGETS = ["hip:gfx942"]
NUM_WARPS = 8
DEFAULT_SHAPE = {"M": 8192, "N": 8192, "K": 8192}

CONFIGS = {  # num_stages is a launch option, not a kernel parameter
    "bm256_s2": {"BM": 256, "BN": 256, "BK": 64, "GROUP_M": 8, "num_stages": 2},
}

launch = _harness.gemm_ptr_launch
flops = _harness.gemm_flops
make_inputs = _harness.gemm_make_inputs
reference = _harness.gemm_reference


def run(config, shape, inputs):
    """Launch the kernel once on the current GPU; returns (C, the JIT's CompiledKernel)."""
    return _harness.gemm_run(KERNEL, NUM_WARPS, config, launch(config, shape), inputs)
