"""Write one compiled launch (``launch_capture.Launch``) as a capture folder, as ``tlx_sim.capture`` does.

The folder holds ``<kernel>.ttgir``, the binary (``.cubin`` for CUDA, ``.hsaco`` for HIP), Triton's metadata
``<kernel>.json`` and ``launch.json`` (schema_version 1, kernels/README.md: grid, scalar ``args``, ``descs`` as at
compile time, ``constexprs``, ``signature``, ``divisibility``, ``ptrs``, launch ``options``), which is what
``tlx-sim check|predict|run X.ttgir --launch launch.json`` reads.  Used by ``tlx_sim.capture_launch``,
``tlx_sim.run_script`` and the autotuner hook ``tlx_sim.autotune``.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tlx_sim import kernel_module as kmod


def plain(value):
    """``value`` as JSON can hold it: tuples as lists, dict keys as strings, anything else not a JSON scalar as
    its ``str``."""
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)



def launch_fields(launch, target, excluded_options=("num_warps", "grid", "warmup")) -> dict:
    """The launch.json fields every capture has (schema_version 1, kernels/README.md), in launch.json's order:
    kernel, target, warps, grid, scalar ``args``, ``descs``, ``constexprs``, ``signature``, ``divisibility``, then
    ``pointer_range``, ``ptrs`` and launch ``options`` (those not in ``excluded_options``) where present."""
    options = {k: plain(v) for k, v in launch.launch_options.items() if k not in excluded_options and v is not None}
    spec = {
        "schema_version": kmod.LAUNCH_SCHEMA_VERSION,
        "kernel": launch.name,
        "target": kmod.target_str(target),
        "num_warps": launch.options.num_warps,
        "grid": list(launch.grid),
        "args": launch.scalar_args(),
        "descs": launch.descs,
        "constexprs": plain(launch.constexpr_values()),
        "signature": dict(launch.signature),
        "divisibility": launch.attribute("tt.divisibility"),
    }
    if launch.attribute("tt.pointer_range"):
        spec["pointer_range"] = launch.attribute("tt.pointer_range")
    if launch.ptrs():
        spec["ptrs"] = launch.ptrs()
    if options:
        spec["options"] = options
    return spec


def ordered(spec: dict, first: list[str]) -> dict:
    """``spec`` with the keys of ``first`` (those present) in that order, then the others in their own order."""
    out = {k: spec[k] for k in first if k in spec}
    out.update((k, v) for k, v in spec.items() if k not in out)
    return out


def launch_json(launch, target, extra: dict | None = None) -> dict:
    """launch.json of one intercepted/compiled launch (``extra`` keys are appended: config, shape, ...)."""
    import triton
    spec = launch_fields(launch, target)
    if launch.config is not None:
        spec["config"] = launch.config_name or config_label(launch.config)
        spec["config_kwargs"] = plain(launch.config.all_kwargs())
    if launch.shape:
        spec["shape"] = dict(launch.shape)
    spec.update(extra or {})
    spec["triton_version"] = triton.__version__
    return spec


def config_label(config) -> str:
    """A short stable name of a ``triton.Config``: ``BM128_BN256_..._w4_s1`` (its keywords and options)."""
    parts = [f"{k}{_short(v)}" for k, v in config.kwargs.items()]
    parts += [f"w{config.num_warps}", f"s{config.num_stages}"]
    ctas = getattr(config, "ctas_per_cga", None)
    if ctas and tuple(ctas) != (1, 1, 1):
        parts.append("cga" + "x".join(str(c) for c in ctas))
    return "_".join(parts)


def _short(value) -> str:
    return {True: "T", False: "F"}.get(value, str(value)) if isinstance(value, bool) else str(value)


def launch_key(launch, target) -> str:
    """The identity of a launch: Triton's compile hash (kernel source, constexprs = config, specialization,
    options, target) plus the launch's grid, scalar args and descriptors; 16 hex digits."""
    spec = launch_json(launch, target)
    ident = {"hash": launch.compiled.hash, "grid": spec["grid"], "args": spec["args"], "descs": spec["descs"],
             "ptrs": spec.get("ptrs", {}), "target": spec["target"]}
    return hashlib.sha256(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()[:16]


def write(launch, target, cdir: Path, extra: dict | None = None, root: Path | None = None) -> Path:
    """Write the four files of ``launch`` under ``cdir``; returns ``cdir``.  ``root``: paths in TTGIR locations
    and metadata are made relative to it (default: the current directory)."""
    cdir = Path(cdir)
    cdir.mkdir(parents=True, exist_ok=True)
    compiled = launch.compiled
    root = Path(root) if root else Path.cwd()
    name = launch.name
    (cdir / f"{name}.ttgir").write_text(kmod.rewrite_ttgir_paths(compiled.asm["ttgir"], root))
    kind = "cubin" if target.backend == "cuda" else "hsaco"
    (cdir / f"{name}.{kind}").write_bytes(compiled.asm[kind])
    (cdir / f"{name}.json").write_text(kmod.dump_json(kmod.metadata_json(compiled, root)))
    (cdir / "launch.json").write_text(kmod.dump_json(launch_json(launch, target, extra)))
    return cdir
