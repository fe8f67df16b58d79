"""A Triton autotuner hook: rank an ``@triton.autotune`` config space with tlx-sim and keep the best k, no GPU.

    @triton.autotune(configs=..., key=["M", "N", "K"],
                     prune_configs_by={"early_config_prune": tlx_sim.autotune.prune(top_k=4, model="h200")})
    # or after the kernel's own pruner:  tlx_sim.autotune.prune(top_k=4, after=preprocess_configs)

Triton calls ``early_config_prune(configs, named_args, **kwargs)`` from ``Autotuner.prune_configs`` (triton 3.6)
or ``Autotuner._prune_configs`` (fbtriton 3.7) -- without the kernel.  ``find_autotuner`` walks up the caller
frames to the first local ``self`` that is an ``Autotuner`` (both versions call the pruner from a method of it);
``kwargs`` holds the launch's keywords plus ``grid`` and ``warmup`` (``Autotuner.__getitem__`` puts them there).

For each config (``evaluate``): the config's ``pre_hook`` runs on copies of the descriptor arguments (the user's
objects are not touched), the kernel is compiled for the launch's arguments exactly as the launch would compile
(``launch_capture.compile_launch``: Triton's own ``run`` with ``warmup=True``, no launch), written as a capture
folder, checked (``tlx-sim check --max-ctas 2 --no-proofs``) and predicted (``tlx-sim predict``; binary found as
``api.find_tlx_sim``).  A config that does not compile (out of shared memory / registers), that tlx-sim rejects
(a CTA does not fit on an SM: exit 2) or that has findings (check or predict exit 1) is dropped, its reason
logged on the ``tlx_sim.autotune`` logger.  The ``top_k`` fastest predicted configs are returned to the
autotuner, which benchmarks them on the GPU as usual.

Results are cached on disk per (Triton's compile hash = kernel source + config + specialization + options +
target, the launch's grid / scalar args / descriptors, model, check options) in ``$TLXSIM_TUNE_CACHE`` (default
``~/.cache/tlx-sim/tune``), one JSON file per key; compiles themselves hit Triton's own cache.

A config whose binary spills registers (``predict``'s spill warning: a stack frame of 128 B or more per thread) keeps
its predicted time but gets status ``spills`` and ranks after every config that does not spill: local-memory traffic
is not modeled, and measured TLX kernels that spill ran 2-7x slower than predicted (traces/h200/tlx).  The reason
is logged (WARNING); spilling configs are kept only when fewer than ``top_k`` configs do not spill.
"""
from __future__ import annotations

import copy
import hashlib
import inspect
import json
import logging
import os
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from tlx_sim import api
from tlx_sim import capture_folder
from tlx_sim import kernel_module as kmod

LOG = logging.getLogger("tlx_sim.autotune")
CACHE_VERSION = 2


@dataclass
class ConfigResult:
    """What tlx-sim said of one config at one launch.

    ``status``: ``ok`` (predicted), ``spills`` (predicted, but the binary spills registers: ranked after ``ok``),
    ``findings`` (check or predict found deadlocks / races / protocol errors),
    ``infeasible`` (tlx-sim rejects the launch: does not fit on an SM), ``compile-error`` (Triton could not
    compile it: out of resources, ...).  ``time_us``: predicted kernel time in microseconds (ok only).
    ``capture``: the capture folder; ``cached``: answered from the tune cache.
    """
    config: str
    kwargs: dict
    status: str
    time_us: float | None = None
    tflops: float | None = None
    bound: str | None = None
    reason: str = ""
    capture: str | None = None
    key: str | None = None
    cached: bool = False
    seconds: float = 0.0
    index: int | None = None

    def as_json(self) -> dict:
        return asdict(self)


def cache_dir() -> Path:
    """``$TLXSIM_TUNE_CACHE`` or ``~/.cache/tlx-sim/tune``."""
    return Path(os.environ.get("TLXSIM_TUNE_CACHE") or Path.home() / ".cache" / "tlx-sim" / "tune")


def _tool_id() -> str:
    """The tlx-sim binary's identity (path, size, mtime): a rebuilt binary misses the cache."""
    path = api.find_tlx_sim()
    st = os.stat(path)
    return f"{os.path.realpath(path)}:{st.st_size}:{int(st.st_mtime)}"


def find_autotuner(frame=None):
    """The ``Autotuner`` whose ``prune_configs`` called us: the first caller frame with a local ``self`` that is
    a ``triton.runtime.autotuner.Autotuner``.  RuntimeError when there is none (the hook was called by hand)."""
    from triton.runtime.autotuner import Autotuner
    frame = frame or inspect.currentframe()
    try:
        while frame is not None:
            candidate = frame.f_locals.get("self")
            if isinstance(candidate, Autotuner):
                return candidate
            frame = frame.f_back
    finally:
        del frame
    raise RuntimeError("tlx_sim.autotune.prune: no triton Autotuner among the callers (the hook must be an "
                       "early_config_prune of @triton.autotune)")


def _copy_arg(value):
    """Descriptors are copied (a pre_hook sets their block_shape); tensors and scalars are passed as they are."""
    if hasattr(value, "block_shape") and hasattr(value, "base"):
        return copy.copy(value)
    return value


def compile_config(autotuner, args, kwargs, config, grid, index=None, shape=None):
    """Compile ``config`` of ``autotuner`` for the launch ``(args, kwargs, grid)`` without launching; returns the
    ``launch_capture.Launch`` (its ``config`` set).  The config's ``pre_hook`` and the autotuner's run first, on
    copies of the descriptor arguments, as ``Autotuner._bench`` runs them before a benchmark."""
    from tlx_sim import launch_capture as lc
    args = [_copy_arg(a) for a in args]
    kwargs = {k: _copy_arg(v) for k, v in kwargs.items() if k not in ("grid", "warmup")}
    current = {**kwargs, **config.all_kwargs()}
    full = {**dict(zip(autotuner.arg_names, args)), **current}
    if config.pre_hook is not None:
        config.pre_hook(full)
    launch = lc.compile_launch(autotuner.fn, args, grid, current)
    launch.config, launch.config_name = config, capture_folder.config_label(config)
    launch.shape = shape
    return launch


def _tool(command, cdir, launch, model, extra):
    ttgir = cdir / f"{launch.name}.ttgir"
    return api.run_tool(command, ttgir, cdir / "launch.json", model=model, extra=extra)


def evaluate(autotuner, args, kwargs, config, grid, model=None, max_ctas=2, workdir=None, use_cache=True,
             index=None, shape=None) -> ConfigResult:
    """Compile, check and predict one config (see the module docstring); never raises for a bad config."""
    start = time.time()
    label = capture_folder.config_label(config)
    plain = capture_folder.plain(config.all_kwargs())
    try:
        launch = compile_config(autotuner, args, kwargs, config, grid, index, shape)
    except Exception as err:  # a config Triton cannot compile is a result, not a crash
        return ConfigResult(label, plain, "compile-error", reason=f"{type(err).__name__}: {err}"[:300],
                            seconds=time.time() - start, index=index)
    from triton.runtime import driver
    target = driver.active.get_current_target()
    key_text = json.dumps([CACHE_VERSION, capture_folder.launch_key(launch, target), model, max_ctas, _tool_id()])
    key = hashlib.sha256(key_text.encode()).hexdigest()[:24]
    entry = cache_dir() / f"{key}.json"
    if use_cache and entry.is_file():
        try:
            got = ConfigResult(**json.loads(entry.read_text()))
            got.cached, got.seconds, got.index, got.config = True, time.time() - start, index, label
            return got
        except (ValueError, TypeError):
            pass
    base = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="tlx-sim-tune-"))
    cdir = capture_folder.write(launch, target, base / f"{launch.name}-{key[:12]}")
    result = ConfigResult(label, plain, "ok", capture=str(cdir), key=key, index=index)
    try:
        chk = _tool("check", cdir, launch, model, ["--max-ctas", str(max_ctas), "--no-proofs"] if max_ctas else
                    ["--no-proofs"])
        if chk.exit_code != 0 or chk.findings:
            result.status = "findings"
            result.reason = "check: " + ", ".join(sorted({f.get("class", "?") for f in chk.findings}) or ["exit 1"])
        else:
            pred = _tool("predict", cdir, launch, model, [])
            if pred.exit_code != 0 or pred.time_us is None:
                result.status = "findings"
                result.reason = "predict: " + ", ".join(sorted({f.get("class", "?") for f in pred.findings})
                                                         or ["exit 1"])
            else:
                result.time_us, result.tflops, result.bound = pred.time_us, pred.tflops, pred.bound
                if pred.spill_warning:
                    result.status = "spills"
                    result.reason = pred.spill_warning
    except api.ToolError as err:
        result.status = "infeasible"
        result.reason = str(err).replace("tlx-sim: error: ", "")[:300]
    result.seconds = time.time() - start
    if use_cache:
        entry.parent.mkdir(parents=True, exist_ok=True)
        tmp = entry.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps({k: v for k, v in result.as_json().items() if k not in ("cached", "seconds")}))
        os.replace(tmp, entry)
    return result


def rank(results: list[ConfigResult]) -> list[ConfigResult]:
    """Predicted configs fastest first (ties by config order), then the predicted ones whose binary spills
    (fastest first), then the dropped ones in their order."""
    def by_time(status):
        return sorted((r for r in results if r.status == status), key=lambda r: (r.time_us, r.index or 0))
    return by_time("ok") + by_time("spills") + [r for r in results if r.status not in ("ok", "spills")]


def prune(top_k: int = 4, model: str | None = None, after=None, max_ctas: int = 2, workdir=None,
          use_cache: bool = True, report: list | None = None):
    """An ``early_config_prune`` for ``@triton.autotune``: the ``top_k`` configs tlx-sim predicts fastest.

    ``model``: tlx-sim model (h200, b200, ...; default from the target); ``after``: the user's own pruner, run
    first (its survivors are ranked); ``max_ctas``: CTAs simulated by the synchronization check; ``report``: a
    list that receives each call's ranked ``ConfigResult``s (for tests and tools).  Dropped configs are logged
    with their reason (``tlx_sim.autotune`` logger, WARNING).  If no config survives, the user's configs are
    returned unchanged (the autotuner would otherwise fail) and an ERROR is logged.
    """
    def early_config_prune(configs, named_args, **kwargs):
        configs = list(configs)
        if after is not None:
            configs = list(after(configs, named_args, **kwargs))
        autotuner = find_autotuner(inspect.currentframe().f_back)
        grid = kwargs.get("grid")
        args = [named_args[n] for n in autotuner.arg_names if n in named_args]
        results = [evaluate(autotuner, args, kwargs, c, grid, model=model, max_ctas=max_ctas, workdir=workdir,
                            use_cache=use_cache, index=i) for i, c in enumerate(configs)]
        ranked = rank(results)
        for r in ranked:
            if r.status == "spills":
                LOG.warning("%s: ranked last %s (%.1f us predicted): %s", autotuner.base_fn.__name__, r.config,
                            r.time_us, r.reason)
            elif r.status != "ok":
                LOG.warning("%s: dropped %s: %s: %s", autotuner.base_fn.__name__, r.config, r.status, r.reason)
        if report is not None:
            report.append(ranked)
        keep = [configs[r.index] for r in ranked if r.status in ("ok", "spills")][:top_k]
        if not keep:
            LOG.error("%s: tlx-sim predicted none of %d configs; keeping them all", autotuner.base_fn.__name__,
                      len(configs))
            return configs
        LOG.info("%s: kept %s", autotuner.base_fn.__name__,
                 ", ".join(f"{r.config} ({r.time_us:.1f} us)" for r in ranked[:len(keep)]))
        return keep
    early_config_prune.tlx_sim_top_k = top_k
    return early_config_prune
