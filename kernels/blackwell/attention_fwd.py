"""Warp-specialized attention forward for Blackwell (sm_100a), written in Gluon: TMA + tcgen05 + tensor memory.

O = softmax(Q K^T / sqrt(HEAD_DIM)) V (non-causal, fp16) for ``Z * H`` heads of ``N_CTX`` rows each.  Q, K, V and
O are ``[Z * H * N_CTX, HEAD_DIM]`` fp16 row-major tensors (head ``bh`` owns rows ``bh * N_CTX ...``); CTA
``(i, bh)`` computes the ``BM`` query rows ``i * BM ...`` of head ``bh``.  ``N_CTX`` must be a multiple of ``BM``
and ``BN``; the softmax scale is the constexpr ``1/sqrt(HEAD_DIM)``.

Tensor memory holds ``S = Q K^T`` (``BM x BN`` fp32) and ``PV = P V`` (``BM x HEAD_DIM`` fp32) of the current KV
block; P goes through shared memory (fp16) and O is accumulated in registers of the softmax partition.

Partitions (``gl.warp_specialize``), barriers all of count 1 and waited with parity ``j & 1`` unless noted:
  * worker 0 (1 warp), TMA loads: Q once (``q_ready``), then for KV block ``j`` it waits ``kv_empty[s]``
    (``s = j % S``, parity ``((j // S) & 1) ^ 1``), expects the K and V bytes on ``kv_ready[s]`` and loads both.
  * worker 1 (1 warp), tcgen05 MMAs: waits ``q_ready`` (parity 0); per block waits ``kv_ready[s]``
    (parity ``(j // S) & 1``), issues ``S = Q K^T`` into TMEM with completion on ``s_ready``, waits ``p_ready``
    (the softmax has read S and written P), then issues ``PV = P V`` into TMEM whose completion arrives on both
    ``pv_ready`` and ``kv_empty[s]`` (``mbarriers=[pv_ready, kv_empty[s]]``).
  * default (4 warps), softmax: waits ``s_ready``, loads S from TMEM, updates the running max ``m_i`` and sum
    ``l_i`` (base 2), writes P (fp16) to shared memory, fences the generic->async proxy and arrives on
    ``p_ready``; then waits ``pv_ready``, loads PV from TMEM and does ``acc = acc * alpha + PV``.  The epilogue
    divides by ``l_i`` and stores O with TMA.

The order makes every reuse safe: S of block ``j + 1`` is written after ``p_ready`` of block ``j`` (S was read);
P of block ``j + 1`` is written after ``pv_ready`` of block ``j`` (the PV MMA finished reading P); PV of block
``j + 1`` is written after ``p_ready`` of block ``j + 1``, which the softmax arrives on only after loading PV of j.

This module follows the kernel-module convention of ``kernels/README.md``.  sm_100 only: compiled, not run here.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout, allocate_tensor_memory,
                                                                 fence_async_shared, get_tmem_reg_layout, mbarrier,
                                                                 tcgen05_mma, tma)

LOG2E = gl.constexpr(1.4426950408889634)


@gluon.jit
def _load_partition(q_desc, k_desc, v_desc, q_smem, k_bufs, v_bufs, p_smem, s_tmem, pv_tmem, q_ready, kv_ready,
                    kv_empty, s_ready, p_ready, pv_ready, q_row, kv_row, N_CTX, BN: gl.constexpr, S: gl.constexpr):
    mbarrier.expect(q_ready, q_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(q_desc, [q_row, 0], q_ready, q_smem)
    for j in range(N_CTX // BN):
        s = j % S
        mbarrier.wait(kv_empty.index(s), ((j // S) & 1) ^ 1)
        mbarrier.expect(kv_ready.index(s), k_desc.block_type.nbytes + v_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(k_desc, [kv_row + j * BN, 0], kv_ready.index(s), k_bufs.index(s))
        tma.async_copy_global_to_shared(v_desc, [kv_row + j * BN, 0], kv_ready.index(s), v_bufs.index(s))


@gluon.jit
def _mma_partition(q_desc, k_desc, v_desc, q_smem, k_bufs, v_bufs, p_smem, s_tmem, pv_tmem, q_ready, kv_ready,
                   kv_empty, s_ready, p_ready, pv_ready, q_row, kv_row, N_CTX, BN: gl.constexpr, S: gl.constexpr):
    mbarrier.wait(q_ready, 0)
    for j in range(N_CTX // BN):
        s = j % S
        mbarrier.wait(kv_ready.index(s), (j // S) & 1)
        tcgen05_mma(q_smem, k_bufs.index(s).permute((1, 0)), s_tmem, use_acc=False, mbarriers=[s_ready])
        mbarrier.wait(p_ready, j & 1)
        tcgen05_mma(p_smem, v_bufs.index(s), pv_tmem, use_acc=False, mbarriers=[pv_ready, kv_empty.index(s)])


@gluon.jit
def _softmax_partition(o_desc, p_smem, s_tmem, pv_tmem, s_ready, p_ready, pv_ready, q_row, N_CTX, BM: gl.constexpr,
                       BN: gl.constexpr, HEAD_DIM: gl.constexpr, num_warps: gl.constexpr):
    s_layout: gl.constexpr = get_tmem_reg_layout(gl.float32, (BM, BN), TensorMemoryLayout([BM, BN], col_stride=1),
                                                 num_warps)
    o_layout: gl.constexpr = get_tmem_reg_layout(gl.float32, (BM, HEAD_DIM),
                                                 TensorMemoryLayout([BM, HEAD_DIM], col_stride=1), num_warps)
    qk_scale: gl.constexpr = LOG2E / (HEAD_DIM**0.5)

    m_i = gl.full([BM], float("-inf"), gl.float32, layout=gl.SliceLayout(1, s_layout))
    l_i = gl.zeros([BM], gl.float32, layout=gl.SliceLayout(1, s_layout))
    acc = gl.zeros((BM, HEAD_DIM), gl.float32, layout=o_layout)
    for j in range(N_CTX // BN):
        mbarrier.wait(s_ready, j & 1)
        qk = s_tmem.load(s_layout)
        m_new = gl.maximum(m_i, gl.max(qk, axis=1) * qk_scale)
        p = gl.exp2(qk * qk_scale - m_new[:, None])
        alpha = gl.exp2(m_i - m_new)
        l_i = l_i * alpha + gl.sum(p, axis=1)
        m_i = m_new
        p_smem.store(p.to(gl.float16))
        fence_async_shared()  # order the generic-proxy P store before the MMA (async proxy) reads it
        mbarrier.arrive(p_ready)

        mbarrier.wait(pv_ready, j & 1)
        pv = pv_tmem.load(o_layout)
        acc = acc * gl.convert_layout(alpha, gl.SliceLayout(1, o_layout))[:, None] + pv

    o = acc / gl.convert_layout(l_i, gl.SliceLayout(1, o_layout))[:, None]
    o_smem = gl.allocate_shared_memory(gl.float16, [BM, HEAD_DIM], o_desc.layout)
    o_smem.store(o.to(gl.float16))
    fence_async_shared()
    tma.async_copy_shared_to_global(o_desc, [q_row, 0], o_smem)
    tma.store_wait(0)


@gluon.jit
def attention_fwd_kernel(q_desc, k_desc, v_desc, o_desc, N_CTX, BM: gl.constexpr, BN: gl.constexpr,
                         HEAD_DIM: gl.constexpr, S: gl.constexpr):
    q_row = gl.program_id(1) * N_CTX + gl.program_id(0) * BM
    kv_row = gl.program_id(1) * N_CTX

    q_smem = gl.allocate_shared_memory(gl.float16, [BM, HEAD_DIM], q_desc.layout)
    k_bufs = gl.allocate_shared_memory(gl.float16, [S, BN, HEAD_DIM], k_desc.layout)
    v_bufs = gl.allocate_shared_memory(gl.float16, [S, BN, HEAD_DIM], v_desc.layout)
    p_smem = gl.allocate_shared_memory(gl.float16, [BM, BN], gl.NVMMASharedLayout.get_default_for([BM, BN],
                                                                                                  gl.float16))
    s_tmem = allocate_tensor_memory(gl.float32, [BM, BN], TensorMemoryLayout([BM, BN], col_stride=1))
    pv_tmem = allocate_tensor_memory(gl.float32, [BM, HEAD_DIM], TensorMemoryLayout([BM, HEAD_DIM], col_stride=1))

    q_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    s_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    p_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    pv_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    kv_ready = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    kv_empty = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    mbarrier.init(q_ready, count=1)
    mbarrier.init(s_ready, count=1)
    mbarrier.init(p_ready, count=1)
    mbarrier.init(pv_ready, count=1)
    for i in gl.static_range(S):
        mbarrier.init(kv_ready.index(i), count=1)
        mbarrier.init(kv_empty.index(i), count=1)

    gl.warp_specialize([
        (_softmax_partition, (o_desc, p_smem, s_tmem, pv_tmem, s_ready, p_ready, pv_ready, q_row, N_CTX, BM, BN,
                              HEAD_DIM, gl.num_warps())),
        (_load_partition, (q_desc, k_desc, v_desc, q_smem, k_bufs, v_bufs, p_smem, s_tmem, pv_tmem, q_ready, kv_ready,
                           kv_empty, s_ready, p_ready, pv_ready, q_row, kv_row, N_CTX, BN, S)),
        (_mma_partition, (q_desc, k_desc, v_desc, q_smem, k_bufs, v_bufs, p_smem, s_tmem, pv_tmem, q_ready, kv_ready,
                          kv_empty, s_ready, p_ready, pv_ready, q_row, kv_row, N_CTX, BN, S)),
    ], [1, 1], [24, 24])

    mbarrier.invalidate(q_ready)
    mbarrier.invalidate(s_ready)
    mbarrier.invalidate(p_ready)
    mbarrier.invalidate(pv_ready)
    for i in gl.static_range(S):
        mbarrier.invalidate(kv_ready.index(i))
        mbarrier.invalidate(kv_empty.index(i))


# ---------------------------------------------------------------------------------------------------------------
# Kernel-module convention (kernels/README.md).  Nothing here imports torch at import time.
# ---------------------------------------------------------------------------------------------------------------

from .. import _harness  # noqa: E402  (the kernels above keep their source lines: TTGIR records them)

KERNEL = attention_fwd_kernel
TARGETS = ["cuda:100"]
NUM_WARPS = 4  # softmax partition; Triton's metadata reports 8 (4 + 1 + 1, rounded up to warp groups)
DEFAULT_SHAPE = {"Z": 4, "H": 32, "N_CTX": 4096}
HEAD_DIM = 64

CONFIGS = {  # one head dim for all configs, so make_inputs/reference serve every config
    "bn128_s2": {"BM": 128, "BN": 128, "HEAD_DIM": HEAD_DIM, "S": 2},
    "bn128_s3": {"BM": 128, "BN": 128, "HEAD_DIM": HEAD_DIM, "S": 3},
    "bn64_s2": {"BM": 128, "BN": 64, "HEAD_DIM": HEAD_DIM, "S": 2},
}


launch = _harness.attention_launch
flops = _harness.attention_flops
reference = _harness.attention_reference


def make_inputs(shape, device="cuda", seed=0):
    """Random fp16 Q, K, V [Z, H, N_CTX, HEAD_DIM] and an output O on `device` (imports torch)."""
    return _harness.attention_make_inputs(shape, HEAD_DIM, device, seed)


def run(config, shape, inputs):
    """Launch the kernel once on the current (Blackwell) GPU; returns (O, the JIT's CompiledKernel)."""
    return _harness.attention_run(KERNEL, NUM_WARPS, config, launch(config, shape), inputs)
