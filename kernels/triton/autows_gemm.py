"""Plain Triton fp16 GEMM with Triton's automatic warp specialization, for Blackwell (sm_100a).

C[M, N] = A[M, K] @ B[K, N], fp16 inputs, fp32 accumulation, fp16 output.  One ``BM x BN`` output tile per
program, grouped tile order (``GROUP_M``); A, B and C are host ``TensorDescriptor``s
(``triton.tools.tensor_descriptor``).

The source has no partitions, barriers or async ops: the K loop is ``tl.range(..., warp_specialize=True)`` over
``desc.load`` + ``tl.dot``.  Triton's automatic warp specialization (its ``tritongpu-automatic-warp-
specialization`` pass, run for sm_100) splits the loop into a TMA load partition, a tcgen05 MMA partition and the
default partition, with ``num_stages`` (the config's launch option) buffers and mbarriers between them; the TTGIR
is a ``ttg.warp_specialize`` op as in a hand-written Gluon kernel.  Same kernel body as ``tma_gemm.py`` except
for ``warp_specialize=True``.

This module follows the kernel-module convention of ``kernels/README.md``.
"""
import triton
import triton.language as tl


@triton.jit
def autows_gemm_kernel(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                    GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    off_m = pid_m * BM
    off_n = pid_n * BN

    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=True):
        a = a_desc.load([off_m, k * BK])
        b = b_desc.load([k * BK, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(tl.float16))


# ---------------------------------------------------------------------------------------------------------------
# Kernel-module convention (kernels/README.md).  Nothing here imports torch at import time.
# ---------------------------------------------------------------------------------------------------------------

from .. import _harness  # noqa: E402  (the kernels above keep their source lines: TTGIR records them)

KERNEL = autows_gemm_kernel
TARGETS = ["cuda:100"]
NUM_WARPS = 4  # the default partition; the compiler adds its own partitions (metadata num_warps is the total)
DEFAULT_SHAPE = {"M": 8192, "N": 8192, "K": 8192}

_TILE = {"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}
CONFIGS = {  # num_stages is a launch option, not a kernel parameter
    "s3": {**_TILE, "num_stages": 3},
    "s4": {**_TILE, "num_stages": 4},
}


def launch(config, shape):
    """Launch spec of one config on a problem shape {"M", "N", "K"} (no GPU, no torch); see kernels/README.md."""
    return _harness.gemm_desc_launch(config, shape, layout=False)


flops = _harness.gemm_flops
make_inputs = _harness.gemm_make_inputs
reference = _harness.gemm_reference


def run(config, shape, inputs):
    """Launch the kernel once on the current (Blackwell) GPU; returns (C, the JIT's CompiledKernel)."""
    return _harness.gemm_run(KERNEL, NUM_WARPS, config, launch(config, shape), inputs)
