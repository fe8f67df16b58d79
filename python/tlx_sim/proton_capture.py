"""Compile kernels with Proton's instrumentation mode on, with no GPU, and write the scope table next to a capture.

Proton's own switch is ``proton.start(..., backend="instrumentation")``, whose ``InstrumentationHook.activate``
(``triton/profiler/hooks/instrumentation.py`` of triton 3.6.0 and fbtriton 3.7.4) asks the driver for the
device's ``max_shared_mem`` and then

* sets ``triton.profiler.flags.flags.instrumentation_on`` (``pl.enter_scope`` / ``pl.scope`` emit
  ``proton.record`` ops only when it is on; otherwise they are no-ops);
* registers on the backend's compiler class (``CUDABackend.instrumentation``) the passes run in ``make_llir``:
  ``add_convert_proton_to_protongpu`` (mode Default: cycle metric, warp granularity, circular buffer in shared
  memory, profile buffer size 1 and alignment 128), CSE, ``add_allocate_proton_shared_memory``, then
  ``add_allocate_proton_global_scratch_buffer`` (3.6 only) and ``add_convert_proton_nvidia_gpu_to_llvm``;
* sets ``knobs.compilation.instrumentation_mode = str(mode)`` (the JIT passes it as the ``instrumentation_mode``
  option, so it is part of the cache key).

``instrumented(target)`` does the same without a driver (``max_shared_mem`` from ``launch_capture``'s device
table), so ``triton.compile`` and a JIT launch under ``launch_capture`` both produce the instrumented kernel: its
metadata gets a non-zero ``profile_scratch_size`` / ``profile_scratch_align`` (``make_cubin`` reads them from the
module attributes ``ttg.profile_scratch_memory_size`` / ``_alignment``).

``scope_table(ttgir_text)`` is what Proton's ``init_handle`` computes from the TTGIR: libtriton's
``proton.get_scope_id_names`` / ``get_scope_id_parents``; ``write_scope_table`` stores it as
``<kernel>.proton.json`` (format in ``kernels/README.md``), which ``tlx-sim run --proton`` reads.
"""
from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path

MODE = "default"  # Proton's mode name; Default(): cycle, warp granularity, circular shared buffer
PROFILE_BUFFER_SIZE = 1  # InstrumentationHook.profile_buffer_size (triton 3.6.0 / fbtriton 3.7.4)
PROFILE_BUFFER_ALIGNMENT = 128  # InstrumentationHook.profile_buffer_alignment
SCOPE_TABLE_SUFFIX = ".proton.json"


def _max_shared_mem(target) -> int:
    """The ``max_shared_mem`` Proton sizes its shared buffer from (the device table of ``launch_capture``:
    232448 bytes on sm_90 / sm_100, cudaDevAttrMaxSharedMemoryPerBlockOptin)."""
    return 232448 if target.backend == "cuda" else 160 * 1024


@contextlib.contextmanager
def instrumented(target):
    """Within the block, kernels compiled for ``target`` get Proton's instrumentation (mode Default), exactly as
    under ``proton.start(backend="instrumentation")`` (module docstring); everything is restored on exit."""
    import triton
    from triton import knobs
    from triton.backends import backends
    from triton._C.libtriton import proton as triton_proton
    from triton._C.libtriton import passes as triton_passes
    from triton.profiler import mode as pmode
    from triton.profiler.flags import flags
    from triton.profiler.hooks.instrumentation import Instrumentation

    backend_name = "nvidia" if target.backend == "cuda" else "amd"
    md = pmode.Default()
    max_shared = _max_shared_mem(target)

    def to_llvmir_passes(pm):
        is_long_clk = pmode.Optimize.CLOCK32 not in md.optimizations
        triton_proton.add_convert_proton_to_protongpu(pm, md.metric_type, md.sampling_strategy, md.sampling_options,
                                                      md.granularity, md.buffer_strategy, md.buffer_type,
                                                      md.buffer_size, max_shared, PROFILE_BUFFER_SIZE,
                                                      PROFILE_BUFFER_ALIGNMENT, is_long_clk)
        triton_passes.common.add_cse(pm)
        triton_proton.add_allocate_proton_shared_memory(pm)

    def to_llvm_passes(pm):
        if hasattr(triton_proton, "add_allocate_proton_global_scratch_buffer") and triton.__version__.startswith("3.6"):
            triton_proton.add_allocate_proton_global_scratch_buffer(pm)  # 3.6 runs it here; 3.7.4 no longer
        if backend_name == "nvidia":
            triton_proton.add_convert_proton_nvidia_gpu_to_llvm(pm)
        else:
            triton_proton.add_convert_proton_amd_gpu_to_llvm(pm, target.arch)

    compiler = backends[backend_name].compiler
    saved = (compiler.instrumentation, knobs.compilation.instrumentation_mode, flags.instrumentation_on)
    compiler.instrumentation = Instrumentation({"ttgpuir_to_llvmir": to_llvmir_passes, "llvmir_to_llvm": to_llvm_passes})
    knobs.compilation.instrumentation_mode = str(md)
    flags.instrumentation_on = True
    try:
        yield str(md)
    finally:
        compiler.instrumentation, knobs.compilation.instrumentation_mode, flags.instrumentation_on = saved


def scope_table(ttgir: str, target) -> dict:
    """Proton's scope table of a kernel from its TTGIR text: ``{"scopes": [{"id", "name", "parent"}]}`` sorted
    by id (``parent`` -1 for a top-level scope), computed by libtriton's ``proton.get_scope_id_names`` /
    ``get_scope_id_parents`` as ``InstrumentationHook.init_handle`` does."""
    from triton._C.libtriton import ir as triton_ir
    from triton._C.libtriton import proton as triton_proton
    context = triton_ir.context()
    triton_ir.load_dialects(context)
    if target.backend == "cuda":
        from triton._C.libtriton import nvidia
        nvidia.load_dialects(context)
    else:
        from triton._C.libtriton import amd
        amd.load_dialects(context)
    triton_proton.load_dialects(context)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel.ttgir"
        path.write_text(ttgir)
        module = triton_ir.parse_mlir_module(str(path), context)
        module.context = context
        names = dict(triton_proton.get_scope_id_names(module))
        parents = dict(triton_proton.get_scope_id_parents(module))
    return {"scopes": [{"id": int(i), "name": n, "parent": int(parents.get(i, -1))} for i, n in sorted(names.items())]}


def write_scope_table(cdir: Path, kernel: str, ttgir: str, target, mode: str) -> Path:
    """Write ``cdir/<kernel>.proton.json``: the scope table (``scope_table``) and the instrumentation mode string;
    returns the path."""
    table = {"mode": mode, **scope_table(ttgir, target)}
    path = Path(cdir) / f"{kernel}{SCOPE_TABLE_SUFFIX}"
    path.write_text(json.dumps(table, indent=1) + "\n")
    return path
