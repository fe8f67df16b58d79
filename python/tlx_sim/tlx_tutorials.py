"""Capture TLX's own tutorial kernels (fbtriton's wheel, ``triton/language/extra/tlx/tutorials``) as they are.

A tutorial is never copied or rewritten: its file is imported from the wheel under the stand-in ``torch`` and
driver of ``tlx_sim.launch_capture`` (no GPU), its own host function (``matmul(a, b)``, ``attention(q, k, v,
sm_scale)``) is called with ``FakeTensor`` inputs, so its grid lambda, ``TensorDescriptor`` creation,
autotune configs, ``early_config_prune`` and pre-hooks run as they would; each launch compiles instead of
running.  The TTGIR's locations are the tutorial's own lines (``triton/language/extra/tlx/tutorials/x.py``).

The recipe table ``RECIPES`` (``tlx_tutorial_recipes.py``) says per tutorial: the host entry, the input builder
and shape, the kernel to keep, which configs of the tutorial's own list to capture (each a subset of
``Config.all_kwargs()`` that must match exactly one config) and the targets.  ``capture(name, config,
target, outdir)`` writes ``outdir/<config>/`` with ``<kernel>.ttgir``, ``.cubin``/``.hsaco``, ``<kernel>.json``
and ``launch.json`` (``"compiler": "fbtriton"``).  Needs fbtriton (``triton.language.extra.tlx``).
"""
from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
from pathlib import Path

from tlx_sim import capture_folder
from tlx_sim import kernel_module as kmod
from tlx_sim import launch_capture as lc
from tlx_sim.tlx_tutorial_recipes import RECIPES, Recipe  # noqa: F401  (re-exported)

REPO_ROOT = Path(__file__).resolve().parents[2]
TLX_DIR = "tlx"  # tests/inputs/tlx/<arch>/<tutorial>/<config>


def tutorials_dir() -> Path:
    """The tutorials folder of the installed fbtriton wheel; UsageError when triton has no TLX."""
    try:
        import triton.language.extra.tlx as tlx
    except ImportError:
        raise kmod.UsageError("TLX tutorials need fbtriton (triton.language.extra.tlx); run under .venv-tlx") from None
    return Path(tlx.__file__).parent / "tutorials"


def tutorial_path(name: str) -> str:
    """The tutorial's file as TTGIR locations and launch.json spell it: ``triton/language/extra/tlx/tutorials/x.py``."""
    return f"triton/language/extra/tlx/tutorials/{RECIPES[name].file}"


def recipe(name: str) -> Recipe:
    """``RECIPES[name]``; UsageError lists the known names."""
    try:
        return RECIPES[name]
    except KeyError:
        raise kmod.UsageError(f"no TLX tutorial recipe {name!r} (known: {', '.join(RECIPES)})") from None


def load_tutorial(name: str):
    """Import the tutorial file from the wheel as a fresh module (its autotune and JIT caches start empty).

    Must run inside ``launch_capture.intercepting`` (tutorials import torch and ask the driver at import)."""
    file = tutorials_dir() / recipe(name).file
    if not file.is_file():
        raise kmod.UsageError(f"{file}: no such tutorial in the installed fbtriton")
    module_name = "tlx_tutorial_" + name.replace("-", "_")
    spec = importlib.util.spec_from_file_location(module_name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses / aggregates look their module up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def match_config(rcp: Recipe, config_name: str, configs: list):
    """The one config of ``configs`` whose ``all_kwargs()`` holds every entry of the recipe's selector."""
    selector = rcp.configs[config_name]
    hits = [c for c in configs if all(c.all_kwargs().get(k, _MISSING) == v for k, v in selector.items())]
    if len(hits) != 1:
        raise kmod.UsageError(f"{rcp.file}: config selector {config_name} = {selector} matches {len(hits)} of the "
                              f"tutorial's {len(configs)} configs (need exactly one)")
    return hits[0]


_MISSING = object()


@contextlib.contextmanager
def _environ_restored():
    """Undo what a tutorial does to ``os.environ`` at import (``os.environ.setdefault("TRITON_...", ...)``) once
    its capture is done, so it cannot change how later tutorials in the same process compile."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_tutorial(name: str, config_names: list[str], target, shape: dict | None = None) -> list[lc.Launch]:
    """Import tutorial ``name``, call its host entry on stand-in inputs of ``shape`` (default: the recipe's) for
    ``target`` and compile the chosen configs of its kernel ``recipe.kernel``; returns the launches of that
    kernel (one per config name)."""
    rcp = recipe(name)
    shape = dict(rcp.shape if shape is None else shape)
    for c in config_names:
        if c not in rcp.configs:
            raise kmod.UsageError(f"tutorial {name}: no config {c!r} (known: {', '.join(rcp.configs)})")
    if kmod.target_str(target) not in rcp.targets:
        raise kmod.UsageError(f"tutorial {name} is captured for {', '.join(rcp.targets)}, not {kmod.target_str(target)}")

    def select(autotuner, pruned):
        if autotuner.base_fn.__name__ not in rcp.kernels:
            return [(None, pruned[0])]
        return [(c, match_config(rcp, c, autotuner.configs)) for c in config_names]

    with kmod.fresh_triton_cache(), _environ_restored(), lc.intercepting(target, select) as launches:
        module = load_tutorial(name)
        args, kwargs = rcp.inputs(shape)
        if rcp.configs_from_autotune:
            getattr(module, rcp.entry)(*args, **kwargs)
        else:  # the host entry launches the kernel itself: one call per config, its keywords from the recipe
            for c in config_names:
                before = len(launches)
                getattr(module, rcp.entry)(*args, **kwargs, **rcp.configs[c])
                for launch in launches[before:]:
                    if launch.name in rcp.kernels:
                        launch.config_name = c
    for launch in launches:
        launch.shape = shape
    mine = [launch for launch in launches if launch.name in rcp.kernels]
    got = [launch.config_name for launch in mine]
    if sorted(got) != sorted(config_names):
        raise kmod.UsageError(f"tutorial {name}: expected launches of {rcp.kernel} for {config_names}, got {got} "
                              f"(kernels launched: {sorted({launch.name for launch in launches})})")
    return mine


def launch_json(name: str, launch: lc.Launch, target) -> dict:
    """launch.json (schema_version 1, kernels/README.md) for one captured tutorial launch: the fields of every
    capture (capture_folder.launch_fields) with the tutorial's own (module, config, shape, tutorial, entry,
    kept_by_prune, compiler) in the committed captures' key order."""
    import triton
    rcp = RECIPES[name]
    spec = capture_folder.launch_fields(launch, target, excluded_options=("num_warps",))
    spec.update({
        "module": tutorial_path(name),
        "config": launch.config_name,
        "shape": dict(launch.shape or rcp.shape),
        # launch constraints the host code guarantees: the prover's default assumptions
        **({"preconditions": list(rcp.preconditions)} if rcp.preconditions else {}),
        "tutorial": name,
        "entry": rcp.entry,
        "kept_by_prune": launch.kept_by_prune,
        "compiler": "fbtriton",
        "triton_version": triton.__version__,
    })
    return capture_folder.ordered(spec, ["schema_version", "kernel", "module", "config", "target", "num_warps", "grid",
                                         "args", "descs", "constexprs", "shape", "signature", "divisibility",
                                         "pointer_range", "ptrs", "options"])


def write_launch(name: str, launch: lc.Launch, target, cdir: Path) -> Path:
    """Write the four files of one launch under ``cdir``; returns ``cdir``."""
    kernel = launch.name
    compiled = launch.compiled
    cdir.mkdir(parents=True, exist_ok=True)
    (cdir / f"{kernel}.ttgir").write_text(kmod.rewrite_ttgir_paths(compiled.asm["ttgir"], REPO_ROOT))
    kind = "cubin" if target.backend == "cuda" else "hsaco"
    (cdir / f"{kernel}.{kind}").write_bytes(compiled.asm[kind])
    (cdir / f"{kernel}.json").write_text(kmod.dump_json(kmod.metadata_json(compiled, REPO_ROOT)))
    (cdir / "launch.json").write_text(kmod.dump_json(launch_json(name, launch, target)))
    return cdir


def default_outdir(name: str, target) -> Path:
    """``tests/inputs/tlx/<arch>/<tutorial>`` (arch: hopper, blackwell, amd-gfx942, amd-gfx950; tutorial: the
    recipe name, the file's stem or, below a subfolder, its path joined with ``_``)."""
    return REPO_ROOT / "tests" / "inputs" / TLX_DIR / kmod.arch_dir(target) / name


def capture(name: str, config_names: list[str], target, outdir: Path | None = None,
            shape: dict | None = None, proton: bool = False) -> list[Path]:
    """Capture configs ``config_names`` of tutorial ``name`` for ``target`` (at ``shape``, default the recipe's)
    into ``outdir/<config>/`` (default ``default_outdir``); returns the config directories.

    ``proton``: compile with Proton's instrumentation mode on and write the scope table
    (``proton_capture.instrumented`` / ``write_scope_table``)."""
    from tlx_sim import proton_capture
    outdir = Path(outdir) if outdir is not None else default_outdir(name, target)
    with proton_capture.instrumented(target) if proton else contextlib.nullcontext() as mode:
        launches = run_tutorial(name, config_names, target, shape)
    dirs = []
    for launch in launches:
        cdir = write_launch(name, launch, target, outdir / launch.config_name)
        if proton:
            proton_capture.write_scope_table(cdir, launch.name, launch.compiled.asm["ttgir"], target, mode)
        dirs.append(cdir)
    return dirs


def list_configs(name: str, target) -> list[tuple[bool, object]]:
    """Every config of the tutorial's kernel at the recipe's shape with whether its own pruning keeps it."""
    rcp = recipe(name)
    seen = []

    def select(autotuner, pruned):
        if autotuner.base_fn.__name__ in rcp.kernels:
            seen.extend((any(c is p for p in pruned), c) for c in autotuner.configs)
            return []
        return [(None, pruned[0])]

    with kmod.fresh_triton_cache(), _environ_restored(), lc.intercepting(target, select):
        module = load_tutorial(name)
        args, kwargs = rcp.inputs(rcp.shape)
        try:
            getattr(module, rcp.entry)(*args, **kwargs)
        except Exception:  # the host code may use the (absent) result
            pass
    return seen
