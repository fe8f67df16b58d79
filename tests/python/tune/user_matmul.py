"""A user's script as written: an autotuned plain Triton matmul over torch tensors, launched at M N K (argv).

Used by tests/python/test_autotune.py through ``python -m tlx_sim.run_script`` and ``tlx-sim-tune`` (no GPU:
torch is the stand-in there).  ``TLXSIM_TEST_HOOK=1`` adds ``tlx_sim.autotune.prune(top_k=2)`` after the
kernel's own pruner.
"""
import os
import sys

import torch
import triton
import triton.language as tl


def own_prune(configs, named_args, **kwargs):
    """The user's own pruner: no tile wider than the problem."""
    return [c for c in configs if c.kwargs["BN"] <= max(64, named_args["N"])]


PRUNE = own_prune
if os.environ.get("TLXSIM_TEST_HOOK"):
    import tlx_sim.autotune
    PRUNE = tlx_sim.autotune.prune(top_k=2, after=own_prune)

CONFIGS = [triton.Config({"BM": bm, "BN": bn, "BK": 64, "GROUP_M": 8}, num_warps=4, num_stages=s)
           for bm, bn in ((128, 128), (128, 64), (64, 64)) for s in (2, 3)]
if os.environ.get("USER_MATMUL_WIDE"):  # 36 configs: the throughput measurement of tlx-sim-tune (README)
    CONFIGS = [triton.Config({"BM": bm, "BN": bn, "BK": 64, "GROUP_M": 8}, num_warps=w, num_stages=s)
               for bm in (64, 128) for bn in (64, 128, 256) for s in (2, 3, 4) for w in (4, 8)]


@triton.autotune(configs=CONFIGS, key=["M", "N", "K"], prune_configs_by={"early_config_prune": PRUNE})
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
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


def matmul(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), dtype=torch.float16, device=a.device)
    grid = lambda META: (triton.cdiv(M, META["BM"]) * triton.cdiv(N, META["BN"]), )  # noqa: E731
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1))
    return c


if __name__ == "__main__":
    M, N, K = (int(v) for v in (sys.argv[1:4] or (1024, 1024, 1024)))
    a = torch.randn((M, K), dtype=torch.float16, device="cuda")
    b = torch.randn((K, N), dtype=torch.float16, device="cuda")
    matmul(a, b)
