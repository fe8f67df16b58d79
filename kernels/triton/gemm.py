"""Plain Triton fp16 GEMM for Hopper (sm_90a) over pointers: what Triton's software pipeliner makes of ``tl.dot``.

C[M, N] = A[M, K] @ B[K, N], fp16 inputs, fp32 accumulation, fp16 output, row-major tensors passed as pointers
plus element strides.  One ``BM x BN`` output tile per program, grouped tile order (``GROUP_M``).

Nothing here is asynchronous in the source: the K loop is ``tl.load`` + ``tl.dot``.  The launch option
``num_stages`` (a config entry, see kernels/README.md) makes Triton's pipeliner stage the loads through shared
memory with ``cp.async`` (``ttg.async_copy_global_to_local`` / ``ttg.async_commit_group`` / ``ttg.async_wait``)
and turn ``tl.dot`` into async wgmma (``ttng.warp_group_dot`` + ``ttng.warp_group_dot_wait``); the TTGIR shows
the prologue / steady-state / epilogue structure.  Loads are masked, so any M, N, K works.

This module follows the kernel-module convention of ``kernels/README.md``.
"""
import triton
import triton.language as tl


@triton.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BM + tl.arange(0, BM)) % M
    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn

    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk

    offs_cm = pid_m * BM + tl.arange(0, BM)
    offs_cn = pid_n * BN + tl.arange(0, BN)
    c_ptrs = c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


# ---------------------------------------------------------------------------------------------------------------
# Kernel-module convention (kernels/README.md).  Nothing here imports torch at import time.
# ---------------------------------------------------------------------------------------------------------------

from .. import _harness  # noqa: E402  (the kernels above keep their source lines: TTGIR records them)

KERNEL = gemm_kernel
TARGETS = ["cuda:90"]
NUM_WARPS = 4
DEFAULT_SHAPE = {"M": 8192, "N": 8192, "K": 8192}

_TILE = {"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}
CONFIGS = {  # num_stages is a launch option, not a kernel parameter
    "s2": {**_TILE, "num_stages": 2},
    "s3": {**_TILE, "num_stages": 3},
    "s4": {**_TILE, "num_stages": 4},
}


launch = _harness.gemm_ptr_launch
flops = _harness.gemm_flops
make_inputs = _harness.gemm_make_inputs
reference = _harness.gemm_reference


def run(config, shape, inputs):
    """Launch the kernel once on the current GPU; returns (C, the JIT's CompiledKernel)."""
    return _harness.gemm_run(KERNEL, NUM_WARPS, config, launch(config, shape), inputs)
