"""Plain Triton fp16 GEMM over host TMA tensor descriptors, software-pipelined (sm_90a and sm_100a).

C[M, N] = A[M, K] @ B[K, N], fp16 inputs, fp32 accumulation, fp16 output.  One ``BM x BN`` output tile per
program, grouped tile order (``GROUP_M``).  A, B and C are passed as host ``TensorDescriptor``s
(``triton.tools.tensor_descriptor``); the kernel reads tiles with ``desc.load`` and writes with ``desc.store``.

Nothing here is asynchronous in the source.  With the launch option ``num_stages`` (a config entry, see
kernels/README.md) Triton's pipeliner turns the descriptor loads into a ring of shared-memory buffers filled by
TMA with one mbarrier per stage (``ttng.async_tma_copy_global_to_local`` + ``ttng.barrier_expect`` +
``ttng.wait_barrier``); ``tl.dot`` becomes async wgmma on sm_90 and ``ttng.tc_gen5_mma`` into tensor memory on
sm_100.  No warp specialization (see ``autows_gemm.py`` for that).

This module follows the kernel-module convention of ``kernels/README.md``.
"""
import triton
import triton.language as tl


@triton.jit
def tma_gemm_kernel(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
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
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([off_m, k * BK])
        b = b_desc.load([k * BK, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(tl.float16))


# ---------------------------------------------------------------------------------------------------------------
# Kernel-module convention (kernels/README.md).  Nothing here imports torch at import time.
# ---------------------------------------------------------------------------------------------------------------

from .. import _harness  # noqa: E402  (the kernels above keep their source lines: TTGIR records them)

KERNEL = tma_gemm_kernel
TARGETS = ["cuda:90", "cuda:100"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"M": 8192, "N": 8192, "K": 8192}

_TILE = {"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}
CONFIGS = {  # num_stages is a launch option, not a kernel parameter
    "s3": {**_TILE, "num_stages": 3},
    "s4": {**_TILE, "num_stages": 4},
    # a cluster of 2 CTAs per tile (the grid counts clusters): Triton picks the CGA layouts (on sm_90a A broadcast,
    # B and C split by columns) and the per-CTA expect bytes itself
    "s3_c2": {**_TILE, "num_stages": 3, "num_ctas": 2},
}


def launch(config, shape):
    """Launch spec of one config on a problem shape {"M", "N", "K"} (no GPU, no torch); see kernels/README.md."""
    return _harness.gemm_desc_launch(config, shape, layout=False)


flops = _harness.gemm_flops
make_inputs = _harness.gemm_make_inputs
reference = _harness.gemm_reference


def run(config, shape, inputs):
    """Launch the kernel once on the current GPU; returns (C, the JIT's CompiledKernel)."""
    return _harness.gemm_run(KERNEL, NUM_WARPS, config, launch(config, shape), inputs)
