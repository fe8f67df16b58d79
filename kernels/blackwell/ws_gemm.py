"""Warp-specialized fp16 GEMM for Blackwell (sm_100a), written in Gluon: TMA + tcgen05 + tensor memory.

C[M, N] = A[M, K] @ B[K, N], fp16 inputs, fp32 accumulation in tensor memory (TMEM), fp16 output.
One output tile per CTA.

Partitions (``gl.warp_specialize``):
  * default (4 warps): the epilogue.  It waits ``acc_ready`` (parity 0: it completes once per CTA), loads the
    accumulator from TMEM into registers (``tensor_memory_descriptor.load``), converts it to fp16, writes shared
    memory, fences the generic->async proxy and stores the tile with TMA.
  * worker 0 (1 warp): the TMA producer.  For K step ``k`` it waits ``empty[s]`` (``s = k % S``) with parity
    ``((k // S) & 1) ^ 1`` (a fresh barrier passes parity 1 at once), registers the bytes of both tiles on
    ``ready[s]`` and issues the two TMA loads.
  * worker 1 (1 warp): the tcgen05 MMA issuer.  It waits ``ready[s]`` with parity ``(k // S) & 1`` and issues an
    asynchronous ``tcgen05_mma`` into the TMEM accumulator (``use_acc=False`` on the first step) whose completion
    arrives on ``empty[s]`` (``mbarriers=[empty[s]]``), handing the stage back to the producer.  After the last
    step ``tcgen05_commit(acc_ready)`` makes ``acc_ready`` complete once every MMA issued so far has finished.

This module follows the kernel-module convention of ``kernels/README.md``.  sm_100 only: it is compiled (TTGIR,
cubin) but the project has no Blackwell GPU to run it on.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout, allocate_tensor_memory,
                                                                 fence_async_shared, get_tmem_reg_layout, mbarrier,
                                                                 tcgen05_commit, tcgen05_mma, tma)


@gluon.jit
def _load_partition(a_desc, b_desc, a_bufs, b_bufs, ready, empty, acc_tmem, acc_ready, off_m, off_n, K,
                    BK: gl.constexpr, S: gl.constexpr):
    for k in range(gl.cdiv(K, BK)):
        s = k % S
        mbarrier.wait(empty.index(s), ((k // S) & 1) ^ 1)
        mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(a_desc, [off_m, k * BK], ready.index(s), a_bufs.index(s))
        tma.async_copy_global_to_shared(b_desc, [k * BK, off_n], ready.index(s), b_bufs.index(s))


@gluon.jit
def _mma_partition(a_desc, b_desc, a_bufs, b_bufs, ready, empty, acc_tmem, acc_ready, off_m, off_n, K,
                   BK: gl.constexpr, S: gl.constexpr):
    for k in range(gl.cdiv(K, BK)):
        s = k % S
        mbarrier.wait(ready.index(s), (k // S) & 1)
        # Asynchronous: the MMA's completion arrives on empty[s], releasing the stage to the producer.
        tcgen05_mma(a_bufs.index(s), b_bufs.index(s), acc_tmem, use_acc=k > 0, mbarriers=[empty.index(s)])
    # acc_ready completes when all MMAs issued by this thread have finished.
    tcgen05_commit(acc_ready)


@gluon.jit
def _epilogue_partition(acc_tmem, acc_ready, c_desc, off_m, off_n, BM: gl.constexpr, BN: gl.constexpr,
                        num_warps: gl.constexpr):
    acc_layout: gl.constexpr = get_tmem_reg_layout(gl.float32, (BM, BN), TensorMemoryLayout([BM, BN], col_stride=1),
                                                   num_warps)
    mbarrier.wait(acc_ready, 0)
    acc = acc_tmem.load(acc_layout)
    c_smem = gl.allocate_shared_memory(gl.float16, [BM, BN], c_desc.layout)
    c_smem.store(acc.to(gl.float16))
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


@gluon.jit
def ws_gemm_kernel(a_desc, b_desc, c_desc, M, N, K, BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr,
                   S: gl.constexpr, GROUP_M: gl.constexpr):
    # Grouped tile order: GROUP_M row-tiles share each B column-tile in L2.
    pid = gl.program_id(0)
    num_pid_m = gl.cdiv(M, BM)
    num_pid_n = gl.cdiv(N, BN)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    off_m = pid_m * BM
    off_n = pid_n * BN

    a_bufs = gl.allocate_shared_memory(gl.float16, [S, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(gl.float16, [S, BK, BN], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    acc_ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    for i in gl.static_range(S):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=1)
    mbarrier.init(acc_ready, count=1)

    acc_tmem = allocate_tensor_memory(gl.float32, [BM, BN], TensorMemoryLayout([BM, BN], col_stride=1))

    gl.warp_specialize([
        (_epilogue_partition, (acc_tmem, acc_ready, c_desc, off_m, off_n, BM, BN, gl.num_warps())),
        (_load_partition, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, acc_tmem, acc_ready, off_m, off_n, K, BK,
                           S)),
        (_mma_partition, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, acc_tmem, acc_ready, off_m, off_n, K, BK,
                          S)),
    ], [1, 1], [24, 24])

    for i in gl.static_range(S):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(empty.index(i))
    mbarrier.invalidate(acc_ready)


# ---------------------------------------------------------------------------------------------------------------
# Kernel-module convention (kernels/README.md).  Nothing here imports torch at import time.
# ---------------------------------------------------------------------------------------------------------------

from .. import _harness  # noqa: E402  (the kernels above keep their source lines: TTGIR records them)

KERNEL = ws_gemm_kernel
TARGETS = ["cuda:100"]
NUM_WARPS = 4  # default partition (epilogue); Triton's metadata reports 8 (4 + 1 + 1, rounded up to warp groups)
DEFAULT_SHAPE = {"M": 8192, "N": 8192, "K": 8192}

CONFIGS = {
    "s2": {"BM": 128, "BN": 128, "BK": 64, "S": 2, "GROUP_M": 8},
    "s4": {"BM": 128, "BN": 128, "BK": 64, "S": 4, "GROUP_M": 8},
    "s3_bk128": {"BM": 128, "BN": 128, "BK": 128, "S": 3, "GROUP_M": 8},
}


def launch(config, shape):
    """Launch spec of one config on a problem shape {"M", "N", "K"} (no GPU, no torch); see kernels/README.md."""
    return _harness.gemm_desc_launch(config, shape)


flops = _harness.gemm_flops
make_inputs = _harness.gemm_make_inputs
reference = _harness.gemm_reference


def run(config, shape, inputs):
    """Launch the kernel once on the current (Blackwell) GPU; returns (C, the JIT's CompiledKernel)."""
    return _harness.gemm_run(KERNEL, NUM_WARPS, config, launch(config, shape), inputs)
