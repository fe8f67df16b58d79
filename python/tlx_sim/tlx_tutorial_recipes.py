"""The recipe table of ``tlx_sim.tlx_tutorials``: how to call each TLX tutorial and what to capture of it.

Per tutorial (key: the file's stem): ``file`` in the wheel's tutorials folder, the host ``entry`` the
tutorial itself uses (``matmul``, ``attention``), an ``inputs`` builder (``gemm``, ``attention``: stand-in
tensors of ``shape``), the ``kernel`` whose launches are kept, ``configs`` (name -> a selector: entries of
``triton.Config.all_kwargs()`` that pick exactly one config of the tutorial's own list; prefer configs the
tutorial's own pruning keeps at that shape, see ``python -m tlx_sim.capture --tutorial X --list-configs``)
and ``targets`` (every target the tutorial is written for).  ``preconditions``: launch constraints the
tutorial's own host code guarantees (``"K>=0"``: a tensor dimension; ``"M>=1"``: the host's grid launches no
program otherwise), written to launch.json ``preconditions`` so that ``tlx-sim check`` assumes them in its
proofs (each entry of the table says where the host code guarantees it).  ``configs_from_autotune=False`` for a kernel
launched without the autotuner (the host entry picks its launch itself): then each config is the keywords to
call the entry with (``{"config": {...}}`` or ``{}``), one call per config.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from tlx_sim.fake_torch import FakeTensor


def gemm(shape: dict):
    """``matmul(a, b)``: a[M, K], b[K, N] row-major, of ``shape["dtype"]`` (default float16)."""
    dt = shape.get("dtype", "float16")
    return (FakeTensor([shape["M"], shape["K"]], dt), FakeTensor([shape["K"], shape["N"]], dt)), {}


def gemm_bt(shape: dict):
    """``matmul(a, b)`` with b given as b[N, K] row-major (tutorials computing a @ b.T)."""
    dt = shape.get("dtype", "float16")
    return (FakeTensor([shape["M"], shape["K"]], dt), FakeTensor([shape["N"], shape["K"]], dt)), {}


def attention(shape: dict, causal=None):
    """``attention(q, k, v, sm_scale[, causal])``: q, k, v [Z, H, N_CTX, D]; sm_scale = 1/sqrt(D)."""
    dt = shape.get("dtype", "float16")
    dims = [shape["Z"], shape["H"], shape["N_CTX"], shape["D"]]
    q, k, v = (FakeTensor(dims, dt) for _ in range(3))
    args = (q, k, v, 1.0 / math.sqrt(shape["D"]))
    return (args + (causal, ) if causal is not None else args), {}


def attention_causal(shape: dict):
    """``attention(q, k, v, sm_scale, causal)`` with ``shape["causal"]`` (default False)."""
    return attention(shape, causal=bool(shape.get("causal", False)))


def fused_attention(shape: dict):
    """``attention(q, k, v, causal, sm_scale, baseVariant, SUBTILING, VECT_MUL, FADD2_REDUCE)`` of
    fused_attention_ws_device_tma*.py: q, k, v [Z, H, N_CTX, D]; variant and flags from ``shape``."""
    (q, k, v, sm_scale), _ = attention(shape)
    return (q, k, v, False, sm_scale, shape.get("variant", "ws"), False, 0, False), {}


def attention_dp(shape: dict):
    """``attention(q, k, v, causal, sm_scale)`` of fused_attention_ws_device_tma_dp.py (its default variant)."""
    (q, k, v, sm_scale), _ = attention(shape)
    return (q, k, v, False, sm_scale), {}


def grouped_gemm(shape: dict):
    """``group_gemm_tlx_fn(group_A, group_B)``: ``shape["G"]`` problems a[M, K] @ b[N, K].T."""
    dt = shape.get("dtype", "float16")
    group_a = [FakeTensor([shape["M"], shape["K"]], dt) for _ in range(shape["G"])]
    group_b = [FakeTensor([shape["N"], shape["K"]], dt) for _ in range(shape["G"])]
    return (group_a, group_b), {}


def vector_add2(shape: dict):
    """``add2(x, y, a, b)``: four float32 vectors of ``shape["N"]`` elements."""
    return tuple(FakeTensor([shape["N"]], shape.get("dtype", "float32")) for _ in range(4)), {}


@dataclass
class Recipe:
    """How to capture one tutorial (see the module docstring)."""
    file: str
    entry: str
    inputs: Callable
    shape: dict
    kernel: str
    configs: dict
    targets: list
    configs_from_autotune: bool = True
    note: str = ""
    preconditions: tuple = ()

    @property
    def kernels(self) -> tuple:
        """The kernel names whose launches are captured (``kernel``: one name, or several when the host entry
        picks the kernel by config)."""
        return (self.kernel, ) if isinstance(self.kernel, str) else tuple(self.kernel)


GFX942_FAIL = ("not for gfx942: fbtriton 3.7.4 fails there in LLVM translation (builtin.unrealized_conversion_cast "
               "left over from lowering a TLX op)")
GEMM_4K = {"M": 4096, "N": 4096, "K": 4096}
GEMM_8K = {"M": 8192, "N": 8192, "K": 8192}
GEMM_GFX9 = {"M": 4096, "N": 4096, "K": 8192}  # the shape of gfx9_gemm/a16w16/README.md
ATTN = {"Z": 4, "H": 32, "N_CTX": 4096, "D": 128}

# Launch preconditions the host code guarantees (Recipe.preconditions). Attention: Z, H, N_CTX are q.shape[0..2]
# (tensor dimensions, >= 0), and the host's grid, e.g. hopper_fa_ws.py:230 `(cdiv(q.shape[2], BLOCK_M),
# q.shape[0] * q.shape[1], 1)` (persistent: hopper_fa_ws_pipelined_pingpong_persistent.py:379 `min(NUM_SMS,
# cdiv(q.shape[2], BLOCK_M) * q.shape[0] * q.shape[1])`), launches no program unless each of them is >= 1.
ATTN_PRE = ("Z>=1", "H>=1", "N_CTX>=1")
# GEMM: M, N, K are a.shape[0], b.shape[1], a.shape[1] (tensor dimensions, >= 0; e.g.
# hopper-persistent-gemm-ws-cooperative.py:231, blackwell_gemm_pipelined.py:157); the host's grid, cdiv(M, BM) *
# cdiv(N, BN) programs (blackwell_gemm_pipelined.py:184; the persistent GEMMs' min(NUM_SMS, that),
# hopper-persistent-gemm-ws-cooperative.py:245), launches none unless M >= 1 and N >= 1. Nothing guarantees K >= 1.
GEMM_PRE = ("M>=1", "N>=1", "K>=0")
# GEMMs whose host code wraps A (M x K) and B (K x N) in host-side TensorDescriptors (e.g.
# hopper-persistent-gemm-ws-pingpong.py:261 `TensorDescriptor(a, shape=[M, K], ...)`): Triton's launcher encodes
# them with cuTensorMapEncodeTiled, whose globalDim entries "must be non-zero" (CUDA Driver API, Tensor Map Object
# Management), so the kernel is never launched with K = 0 either.
GEMM_HOST_DESC_PRE = ("M>=1", "N>=1", "K>=1")
# Hopper's persistent GEMMs launch min(NUM_SMS, tiles) programs (hopper-persistent-gemm-ws-pingpong.py:269,
# hopper-persistent-gemm-ws-cooperative.py:245) with NUM_SMS the device's SM count, 132 on the H100 / H200 SXM these
# recipes capture for. The protocol reads the program id, not the grid: the prover takes the bound as program_id_x
# < 132 (without it, the ping-pong GEMM's unaligned encoding printed an unconfirmed counterexample at program id
# 1048575).
PERSISTENT_GRID_PRE = ("num_programs_x<=132",)
# Blackwell's persistent GEMM launches min(NUM_SMS, total_tiles) programs (blackwell_gemm_ws.py:1455 `grid =
# (min(NUM_SMS, total_tiles), )`), NUM_SMS = 148 on the B200 these recipes capture for (its launch.json constexpr
# NUM_SMS); it also wraps A, B and C in host-side TensorDescriptors (blackwell_gemm_ws.py:1402), so M, N, K >= 1.
# Without the grid bound the prover's wait-parity search on the sub2 config concretized at program id 1048575.
BW_PERSISTENT_GRID_PRE = ("num_programs_x<=148",)

_HOPPER_GEMM_WS = dict(GROUP_SIZE_M=8, NUM_MMA_WARPS=8, NUM_MMA_GROUPS=2, USE_WARP_BARRIER=False)
_BW_GEMM_WS = dict(BLOCK_SIZE_M=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, NUM_MMA_GROUPS=2, SPLIT_K=1,
                   INTERLEAVE_EPILOGUE=0, USE_WARP_BARRIER=False)

RECIPES: dict[str, Recipe] = {
    # --- Hopper (cuda:90) -------------------------------------------------------------------------------------
    "hopper_gemm_ws": Recipe(
        "hopper_gemm_ws.py", "matmul", gemm, GEMM_4K, "matmul_kernel_tlx_ws",
        {"bn256_s3_sub": dict(BM=128, BN=256, BK=64, NUM_STAGES=3, EPILOGUE_SUBTILE=True, NUM_CTAS=1,
                              **_HOPPER_GEMM_WS),
         "bn128_s4": dict(BM=128, BN=128, BK=64, NUM_STAGES=4, EPILOGUE_SUBTILE=False, NUM_CTAS=1,
                          **_HOPPER_GEMM_WS),
         "bn128_s3_cta2": dict(BM=128, BN=128, BK=64, NUM_STAGES=3, EPILOGUE_SUBTILE=False, NUM_CTAS=2,
                               **_HOPPER_GEMM_WS),
         # TLX warp barriers (alloc_warp_barrier: every thread of the consumer warps arrives on its own)
         "bn128_s4_warpbar": dict(BM=128, BN=128, BK=64, NUM_STAGES=4, EPILOGUE_SUBTILE=False, NUM_CTAS=1,
                                  **{**_HOPPER_GEMM_WS, "USE_WARP_BARRIER": True})},
        ["cuda:90"]),
    "hopper_gemm_pipelined": Recipe(
        "hopper_gemm_pipelined.py", "matmul", gemm, GEMM_4K, "matmul_kernel_pipelined_hopper",
        {"bn256_s3": dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, NUM_STAGES=3)}, ["cuda:90"]),
    "hopper_fa_ws": Recipe(
        "hopper_fa_ws.py", "attention", attention, ATTN, "_attn_fwd_ws",
        {"g1": dict(NUM_MMA_GROUPS=1), "g2": dict(NUM_MMA_GROUPS=2)}, ["cuda:90"], preconditions=ATTN_PRE),
    "hopper_fa_ws_pipelined": Recipe(
        "hopper_fa_ws_pipelined.py", "attention", attention, ATTN, "_attn_fwd_ws_pipelined",
        {"g1": dict(NUM_MMA_GROUPS=1), "g2": dict(NUM_MMA_GROUPS=2)}, ["cuda:90"], preconditions=ATTN_PRE),
    "hopper_fa_ws_pipelined_pingpong": Recipe(
        "hopper_fa_ws_pipelined_pingpong.py", "attention", attention, ATTN, "_attn_fwd_ws_pipelined_pingpong",
        {"g2": dict(NUM_MMA_GROUPS=2)}, ["cuda:90"], preconditions=ATTN_PRE),
    "hopper_fa_ws_pipelined_pingpong_persistent": Recipe(
        "hopper_fa_ws_pipelined_pingpong_persistent.py", "attention", attention, ATTN,
        "_attn_fwd_ws_pipelined_pingpong_persistent", {"g2": dict(NUM_MMA_GROUPS=2)}, ["cuda:90"],
        preconditions=ATTN_PRE),
    "hopper-persistent-gemm-ws-cooperative": Recipe(
        "hopper-persistent-gemm-ws-cooperative.py", "matmul_tlx_ws_persistent", gemm, GEMM_4K,
        "matmul_kernel_tlx_ws_persistent",
        {"bm128_bn256_s3": dict(BM=128, BN=256, NUM_STAGES=3), "bm256_bn128_s4": dict(BM=256, BN=128, NUM_STAGES=4)},
        ["cuda:90"], preconditions=GEMM_HOST_DESC_PRE + PERSISTENT_GRID_PRE),
    "hopper-persistent-gemm-ws-pingpong": Recipe(
        "hopper-persistent-gemm-ws-pingpong.py", "matmul_tlx_ws_persistent", gemm, GEMM_4K,
        "matmul_kernel_tlx_ws_persistent",
        {"named_bar": dict(USE_NAMED_BARRIER=True), "mbar": dict(USE_NAMED_BARRIER=False)}, ["cuda:90"],
        preconditions=GEMM_HOST_DESC_PRE + PERSISTENT_GRID_PRE),
    "vector-add2": Recipe(
        "vector-add2.py", "add2_warp_specialized", vector_add2, {"N": 2**20}, "add2_warp_specialized_kernel",
        {"default": {}}, ["cuda:90", "cuda:100"], configs_from_autotune=False),
    # --- Blackwell (cuda:100) ----------------------------------------------------------------------------------
    "blackwell_gemm_2cta": Recipe(
        "blackwell_gemm_2cta.py", "matmul", gemm, GEMM_4K, "tcgen5_dot_kernel2cta_tma", {"default": {}},
        ["cuda:100"], configs_from_autotune=False),
    "blackwell-triton-addmm-2cta_test": Recipe(
        "blackwell-triton-addmm-2cta_test.py", "matmul_2cta", gemm, GEMM_4K, "matmul_2cta_kernel", {"default": {}},
        ["cuda:100"], configs_from_autotune=False),
    "blackwell-triton-addmm-2cta_test_ws": Recipe(
        "blackwell-triton-addmm-2cta_test.py", "matmul_2cta_ws", gemm, GEMM_4K, "matmul_2cta_ws_kernel",
        {"default": {}}, ["cuda:100"], configs_from_autotune=False),
    "fused_attention_ws_device_tma": Recipe(
        "fused_attention_ws_device_tma.py", "attention", fused_attention, ATTN, "_attn_fwd",
        {"bm256_dp2": dict(BLOCK_M=256, DP_FACTOR=2)}, ["cuda:100"]),
    "fused_attention_ws_device_tma_dp": Recipe(
        "fused_attention_ws_device_tma_dp.py", "attention", attention_dp, ATTN, "_attn_fwd_persist",
        {"bn128_pingpong": dict(BLOCK_N=128, SUBTILING=False, SUBTILING_P=False, maxRegAutoWS=192,
                                pingpongAutoWS=True)}, ["cuda:100"]),
    "blackwell-grouped-gemm_test": Recipe(
        "blackwell-grouped-gemm_test.py", "group_gemm_tlx_fn", grouped_gemm, {"G": 4, "M": 4096, "N": 4096, "K": 4096},
        "grouped_matmul_tlx_kernel",
        {"bn256_bk128_s3_sub4": dict(BLOCK_SIZE_N=256, BLOCK_SIZE_K=128, NUM_SMEM_BUFFERS=3, EPILOGUE_SUBTILE=4,
                                     NUM_CTAS=1),
         "bn128_bk64_s4_sub2": dict(BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, NUM_SMEM_BUFFERS=4, EPILOGUE_SUBTILE=2,
                                    NUM_CTAS=1)}, ["cuda:100"]),
    "blackwell_fa_ws_pipelined": Recipe(
        "blackwell_fa_ws_pipelined.py", "attention", attention_causal, ATTN, "_attn_fwd_ws",
        {"bm256_kv3": dict(BLOCK_M=256, NUM_BUFFERS_KV=3)}, ["cuda:100"], preconditions=ATTN_PRE),
    "blackwell_fa_ws_persistent": Recipe(
        "blackwell_fa_ws_persistent.py", "attention", attention_causal, ATTN, "_attn_fwd_ws",
        {"bm256_kv3": dict(BLOCK_M=256, NUM_BUFFERS_KV=3)}, ["cuda:100"], preconditions=ATTN_PRE),
    "blackwell_fa_ws_pipelined_persistent": Recipe(
        "blackwell_fa_ws_pipelined_persistent.py", "attention", attention_causal, ATTN, "_attn_fwd_ws",
        {"kv3": dict(NUM_BUFFERS_KV=3, GROUP_SIZE_N=1, RESCALE_OPT=False, USE_WHERE=False, USE_WARP_BARRIER=False),
         "kv3_rescale_where": dict(NUM_BUFFERS_KV=3, GROUP_SIZE_N=1, RESCALE_OPT=True, USE_WHERE=True,
                                   USE_WARP_BARRIER=False)}, ["cuda:100"],
        preconditions=ATTN_PRE),
    "blackwell_fa_clc": Recipe(
        "blackwell_fa_clc.py", "attention", attention_causal, ATTN, "_attn_fwd_clc",
        {"kv3": dict(NUM_BUFFERS_KV=3, GROUP_SIZE_N=1, RESCALE_OPT=False, USE_WHERE=False, USE_WARP_BARRIER=False),
         "kv3_rescale_where": dict(NUM_BUFFERS_KV=3, GROUP_SIZE_N=1, RESCALE_OPT=True, USE_WHERE=True,
                                   USE_WARP_BARRIER=False)}, ["cuda:100"],
        preconditions=ATTN_PRE),
    "blackwell_gemm_ws": Recipe(
        "blackwell_gemm_ws.py", "matmul", gemm, GEMM_4K, "matmul_kernel_tma_ws_blackwell",
        {"bm256_bn128_s4_t2_sub2": dict(BLOCK_SIZE_N=128, NUM_SMEM_BUFFERS=4, NUM_TMEM_BUFFERS=2, EPILOGUE_SUBTILE=2,
                                        NUM_CTAS=1, **_BW_GEMM_WS),
         "bm256_bn128_s5_t2_sub4_cta2": dict(BLOCK_SIZE_N=128, NUM_SMEM_BUFFERS=5, NUM_TMEM_BUFFERS=2,
                                             EPILOGUE_SUBTILE=4, NUM_CTAS=2, **_BW_GEMM_WS)},
        ["cuda:100"], preconditions=GEMM_HOST_DESC_PRE + BW_PERSISTENT_GRID_PRE),
    "blackwell_gemm_pipelined": Recipe(
        "blackwell_gemm_pipelined.py", "matmul", gemm, GEMM_4K, "matmul_kernel_tma_pipelined_blackwell",
        {"bn256_bk64_s4": dict(BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, NUM_STAGES=4),
         "bn128_bk128_s2": dict(BLOCK_SIZE_N=128, BLOCK_SIZE_K=128, NUM_STAGES=2)}, ["cuda:100"],
        preconditions=GEMM_PRE),
    "blackwell_gemm_clc": Recipe(
        "blackwell_gemm_clc.py", "matmul", gemm, GEMM_4K, "matmul_kernel_tma_ws_blackwell_clc",
        {"bn256_bk64_s4_t2": dict(BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, NUM_SMEM_BUFFERS=4, NUM_TMEM_BUFFERS=2,
                                  USE_WARP_BARRIER=False),
         "bn128_bk64_s3_t3": dict(BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, NUM_SMEM_BUFFERS=3, NUM_TMEM_BUFFERS=3,
                                  USE_WARP_BARRIER=False)}, ["cuda:100"],
        preconditions=GEMM_HOST_DESC_PRE),  # blackwell_gemm_clc.py:244 TensorDescriptor(a, a.shape, ...)
    "blackwell_fa_ws": Recipe(
        "blackwell_fa_ws.py", "attention", attention, ATTN, "_attn_fwd_ws",
        {"bm256_kv3": dict(BLOCK_M=256, NUM_BUFFERS_KV=3)}, ["cuda:100"], preconditions=ATTN_PRE),
    # --- AMD (hip:gfx942 = MI300X, hip:gfx950 = MI355X) -------------------------------------------------------
    "amd_gemm_pipelined": Recipe(
        "amd_gemm_pipelined.py", "matmul", gemm, GEMM_4K, "matmul_kernel_pipelined_mi300",
        {"bm256_bn256_bk64": dict(BLOCK_SIZE_M=256, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64),
         "bm128_bn128_bk128": dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=128)}, ["hip:gfx942", "hip:gfx950"]),
    "amd_fa_pipelined": Recipe(
        "amd_fa_pipelined.py", "attention", attention_causal, ATTN, ("_attn_fwd_async_simple",
                                                                     "_attn_fwd_async_prefetch"),
        {"simple": {"config": {"BLOCK_M": 256, "BLOCK_N": 64, "num_warps": 4}},
         "prefetch": {"config": {"BLOCK_M": 256, "BLOCK_N": 64, "num_warps": 4, "PREFETCH": True}}},
        ["hip:gfx950"], configs_from_autotune=False, note=GFX942_FAIL),
    "amd_fa_persistent": Recipe(
        "amd_fa_persistent.py", "flash_attn_persistent", attention_causal, ATTN, "_attn_fwd_persistent",
        {"default": {}}, ["hip:gfx950"], configs_from_autotune=False, note=GFX942_FAIL),
    "amd_fa_cluster": Recipe(  # CDNA4 (gfx950): a rotated 4-cluster pipeline
        "amd_fa_cluster.py", "attention", attention_causal, ATTN, "_attn_fwd_cluster_pipeline", {"default": {}},
        ["hip:gfx950"], configs_from_autotune=False),
    "amd_fa_cluster_persistent": Recipe(
        "amd_fa_cluster.py", "persistent_attention", attention_causal, ATTN, "_attn_fwd_cluster_persistent_pipeline",
        {"default": {}}, ["hip:gfx950"], configs_from_autotune=False),
    "amd_gemm_warp_pipeline": Recipe(
        "amd_gemm_warp_pipeline.py", "matmul", gemm, GEMM_8K, "matmul_kernel_warp_pipeline", {"default": {}},
        ["hip:gfx950"], configs_from_autotune=False),
    # gfx9_gemm/a16w16 (developed on gfx950): v0, v1 compile for both; v4-v9 for gfx950 only (GFX942_FAIL);
    # v2_async_copy and v3_lds and inter_wave/a16w16 for neither (tests/inputs/tlx/README.md).
    **{f"gfx9_gemm_a16w16_{v}": Recipe(
        f"gfx9_gemm/a16w16/{v}/matmul_kernel.py", "matmul", gemm, GEMM_GFX9, v, {"default": {}},
        ["hip:gfx942", "hip:gfx950"] if v in ("v0_naive", "v1_buffer_load") else ["hip:gfx950"],
        configs_from_autotune=False, note="" if v in ("v0_naive", "v1_buffer_load") else GFX942_FAIL)
       for v in ("v0_naive", "v1_buffer_load", "v4_global_prefetch", "v5_local_prefetch", "v6_loop_unroll",
                 "v7_slice", "v8_warp_pipeline", "v9_beyond_hotloop")},
}
