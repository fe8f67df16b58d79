"""Host-side harness shared by the kernel modules (kernels/README.md).

Launch specs, FLOP counts, inputs, torch references and single launches of the fp16 GEMMs
(C[M, N] = A[M, K] @ B[K, N]) and of the attention forward kernels (Q, K, V, O of [Z, H, N_CTX, HEAD_DIM]).
Each kernel module binds its convention names (``launch``, ``flops``, ``make_inputs``, ``reference``, ``run``)
to these.  The leading underscore keeps ``tlx_sim.capture kernels`` from taking this file for a kernel module.
Nothing here imports torch (or Gluon) at import time; the functions that need them import them inside.
"""


def fp16_desc(shape, block, layout=True):
    """One row-major fp16 tensor descriptor: global shape and strides in elements, TMA block and, for a Gluon
    kernel (``layout``), its shared layout; a plain Triton kernel picks the shared layout itself."""
    desc = {"shape": list(shape), "strides": [shape[1], 1], "block": list(block), "dtype": "fp16"}
    if layout:
        from triton.experimental.gluon import language as gl
        desc["layout"] = gl.NVMMASharedLayout.get_default_for(list(block), gl.float16)
    return desc


def launch_descs(kernel, num_warps, config, spec, tensors):
    """Launch ``kernel`` once on the launch spec ``spec``: a host TensorDescriptor per ``spec["descs"]`` entry over
    ``tensors[name]`` (Gluon's where the entry has a layout, else Triton's), the tensors of ``spec["ptrs"]`` by
    name, the scalar arguments and the config.  Returns what the JIT returned (its CompiledKernel)."""
    descs = {}
    for name, d in spec["descs"].items():
        if "layout" in d:
            from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
            descs[name] = TensorDescriptor(tensors[name], d["shape"], d["strides"], d["block"], d["layout"])
        else:
            from triton.tools.tensor_descriptor import TensorDescriptor
            descs[name] = TensorDescriptor(tensors[name], d["shape"], d["strides"], d["block"])
    ptrs = {name: tensors[name] for name in spec.get("ptrs", {})}
    return kernel[tuple(spec["grid"])](**descs, **ptrs, **spec["args"], **config, num_warps=num_warps)


# --- fp16 GEMM ---------------------------------------------------------------------------------------------------

def gemm_desc_launch(config, shape, layout=True, max_ctas=None):
    """Launch spec of a GEMM over A, B, C tensor descriptors (``a_desc``, ``b_desc``, ``c_desc``) on a shape
    {"M", "N", "K"}: one CTA per ``BM x BN`` output tile, or min(max_ctas, tiles) for a persistent kernel."""
    M, N, K = shape["M"], shape["N"], shape["K"]
    BM, BN, BK = config["BM"], config["BN"], config["BK"]
    tiles = -(-M // BM) * -(-N // BN)
    return {
        "grid": [tiles if max_ctas is None else min(max_ctas, tiles), 1, 1],
        "args": {"M": M, "N": N, "K": K},
        "descs": {
            "a_desc": fp16_desc([M, K], [BM, BK], layout),
            "b_desc": fp16_desc([K, N], [BK, BN], layout),
            "c_desc": fp16_desc([M, N], [BM, BN], layout),
        },
    }


def gemm_ptr_launch(config, shape):
    """Launch spec of a GEMM over row-major A, B, C pointers (``a_ptr``, ...) plus element strides on a shape
    {"M", "N", "K"} (no GPU, no torch); see kernels/README.md."""
    M, N, K = shape["M"], shape["N"], shape["K"]
    BM, BN = config["BM"], config["BN"]
    return {
        "grid": [-(-M // BM) * -(-N // BN), 1, 1],
        "args": {"M": M, "N": N, "K": K, "stride_am": K, "stride_ak": 1, "stride_bk": N, "stride_bn": 1,
                 "stride_cm": N, "stride_cn": 1},
        "descs": {},
        "ptrs": {
            "a_ptr": {"shape": [M, K], "dtype": "fp16"},
            "b_ptr": {"shape": [K, N], "dtype": "fp16"},
            "c_ptr": {"shape": [M, N], "dtype": "fp16"},
        },
    }


def gemm_flops(config, shape):
    """Floating-point operations of one launch: 2 * M * N * K (a multiply-add counts two)."""
    return 2 * shape["M"] * shape["N"] * shape["K"]


def gemm_make_inputs(shape, device="cuda", seed=0):
    """Random fp16 A [M, K], B [K, N] and an output C [M, N] on `device` (imports torch)."""
    import torch
    gen = torch.Generator(device=device).manual_seed(seed)
    M, N, K = shape["M"], shape["N"], shape["K"]
    return {
        "a": torch.randn((M, K), device=device, dtype=torch.float16, generator=gen),
        "b": torch.randn((K, N), device=device, dtype=torch.float16, generator=gen),
        "c": torch.empty((M, N), device=device, dtype=torch.float16),
    }


def gemm_reference(inputs):
    """torch.matmul(A, B) in fp16 (fp32 accumulation), the result `run` must match."""
    import torch
    return torch.matmul(inputs["a"], inputs["b"])


def gemm_run(kernel, num_warps, config, spec, inputs):
    """Launch a GEMM once on `spec` (its ``launch``) over make_inputs' tensors; returns (C, CompiledKernel)."""
    tensors = {f"{n}_{kind}": inputs[n] for n in ("a", "b", "c") for kind in ("desc", "ptr")}
    return inputs["c"], launch_descs(kernel, num_warps, config, spec, tensors)


# --- attention forward -------------------------------------------------------------------------------------------

def attention_launch(config, shape):
    """Launch spec of one config on a shape {"Z", "H", "N_CTX"} (no GPU, no torch); see kernels/README.md.

    Q, K, V, O are [Z * H * N_CTX, HEAD_DIM] descriptors; one CTA per BM query rows of one (batch, head).
    """
    Z, H, N_CTX = shape["Z"], shape["H"], shape["N_CTX"]
    BM, BN, D = config["BM"], config["BN"], config["HEAD_DIM"]
    if N_CTX % BM or N_CTX % BN:
        raise ValueError(f"N_CTX={N_CTX} must be a multiple of BM={BM} and BN={BN}")
    rows = Z * H * N_CTX
    return {
        "grid": [N_CTX // BM, Z * H, 1],
        "args": {"N_CTX": N_CTX},
        "descs": {
            "q_desc": fp16_desc([rows, D], [BM, D]),
            "k_desc": fp16_desc([rows, D], [BN, D]),
            "v_desc": fp16_desc([rows, D], [BN, D]),
            "o_desc": fp16_desc([rows, D], [BM, D]),
        },
    }


def attention_flops(config, shape):
    """Floating-point operations of one launch: two matmuls of 2 * N_CTX^2 * HEAD_DIM per head."""
    return 4 * shape["Z"] * shape["H"] * shape["N_CTX"] ** 2 * config["HEAD_DIM"]


def attention_make_inputs(shape, head_dim, device="cuda", seed=0):
    """Random fp16 Q, K, V [Z, H, N_CTX, head_dim] and an output O on `device` (imports torch)."""
    import torch
    gen = torch.Generator(device=device).manual_seed(seed)
    dims = (shape["Z"], shape["H"], shape["N_CTX"], head_dim)
    q, k, v = (torch.randn(dims, device=device, dtype=torch.float16, generator=gen) for _ in range(3))
    return {"q": q, "k": k, "v": v, "o": torch.empty_like(q)}


def attention_reference(inputs):
    """softmax(Q K^T / sqrt(d)) V computed in fp32, returned in fp16."""
    import torch
    q, k, v = (inputs[n].float() for n in ("q", "k", "v"))
    p = torch.softmax(q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5, dim=-1)
    return (p @ v).to(torch.float16)


def attention_run(kernel, num_warps, config, spec, inputs):
    """Launch an attention kernel once on `spec` over make_inputs' tensors; returns (O, CompiledKernel)."""
    tensors = {f"{n}_desc": inputs[n].view(-1, config["HEAD_DIM"]) for n in ("q", "k", "v", "o")}
    return inputs["o"], launch_descs(kernel, num_warps, config, spec, tensors)
