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

``capture_waits(plain, cdir)`` instruments a kernel that declares no scopes (TLX's tutorials): a scope around
every mbarrier wait and wgmma wait of its captured TTGIR, compiled from that TTGIR (``--proton-waits``).

``scope_table(ttgir_text)`` is what Proton's ``init_handle`` computes from the TTGIR: libtriton's
``proton.get_scope_id_names`` / ``get_scope_id_parents``; ``write_scope_table`` stores it as
``<kernel>.proton.json`` (format in ``kernels/README.md``), which ``tlx-sim run --proton`` reads.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
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


# ---------------------------------------------------------------------------------------------------------------
# Scopes around the waits of an existing capture (kernels that declare no scopes, e.g. TLX's tutorials)
# ---------------------------------------------------------------------------------------------------------------

_WAIT_OP = re.compile(r'^(\s*)(?:%\S+ = )?(ttng\.wait_barrier|ttng\.warp_group_dot_wait)\b\s*(%[\w.$-]+)?')


def wait_scope_name(op: str, operand: str | None) -> str:
    """The scope of one wait op: ``wgmma_wait`` for ``ttng.warp_group_dot_wait``; ``wait_<barrier>`` for
    ``ttng.wait_barrier %<barrier>[_N]`` (the SSA name, which Triton takes from the Python variable, less a
    numeric suffix: the same barrier seen from two partitions shares a name)."""
    if op.endswith("dot_wait"):
        return "wgmma_wait"
    return "wait_" + re.sub(r"_\d+$", "", (operand or "%barrier")[1:])


def instrument_waits(ttgir: str) -> tuple[str, list[str]]:
    """``ttgir`` with a ``proton.record start`` / ``end`` pair around every ``ttng.wait_barrier`` (mbarrier wait)
    and ``ttng.warp_group_dot_wait`` (wgmma wait), each on its own line at the op's indentation; returns the new
    text and the scope names in order of first use."""
    out, names = [], []
    for line in ttgir.splitlines():
        m = _WAIT_OP.match(line)
        if not m:
            out.append(line)
            continue
        name = wait_scope_name(m.group(2), m.group(3))
        names += [name] if name not in names else []
        out += [f'{m.group(1)}proton.record start "{name}"', line, f'{m.group(1)}proton.record end "{name}"']
    return "\n".join(out) + "\n", names


def capture_waits(plain: Path, cdir: Path, root: Path) -> Path:
    """Instrument the capture ``plain`` (a ``<config>/`` folder) around its waits (``instrument_waits``) and
    compile that TTGIR with Proton's instrumentation on (``triton.compile`` of a ``.ttgir`` file starts after the
    TTGIR passes, so the kernel is the captured one plus the records), writing a capture into ``cdir``: the
    instrumented ``<kernel>.ttgir``, the binary, the metadata (``tensordesc_meta`` taken from ``plain``: a TTGIR
    source does not produce it), the same ``launch.json`` and the scope table with ``"waits_from"`` naming
    ``plain`` (relative to ``root``). Options are the plain metadata's backend options. Returns ``cdir``."""
    from tlx_sim import kernel_module as kmod
    plain, cdir = Path(plain), Path(cdir)
    launch = json.loads((plain / "launch.json").read_text())
    kernel, target = launch["kernel"], kmod.parse_target(launch["target"])
    text, _ = instrument_waits((plain / f"{kernel}.ttgir").read_text())
    with instrumented(target) as mode:
        compiled, new_meta = kmod.recompile_ttgir(plain, text, root, {"instrumentation_mode": mode})
    cdir.mkdir(parents=True, exist_ok=True)
    (cdir / f"{kernel}.ttgir").write_text(text)
    kind = "cubin" if target.backend == "cuda" else "hsaco"
    (cdir / f"{kernel}.{kind}").write_bytes(compiled.asm[kind])
    (cdir / f"{kernel}.json").write_text(kmod.dump_json(new_meta))
    (cdir / "launch.json").write_text((plain / "launch.json").read_text())
    path = write_scope_table(cdir, kernel, text, target, mode)
    table = json.loads(path.read_text())
    table["waits_from"] = os.path.relpath(plain.resolve(), Path(root).resolve())
    path.write_text(json.dumps(table, indent=1) + "\n")
    return cdir
