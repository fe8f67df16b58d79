"""Run a user's script with every Triton launch captured: ``python -m tlx_sim.run_script user.py [args]``.

With no GPU (or ``--no-gpu``): the script runs under ``launch_capture.intercepting`` (fake driver for
``--target``, stand-in ``torch``): each launch compiles instead of running; an autotuned kernel compiles every
config its own pruning keeps.  On a GPU host (torch importable with CUDA, and not ``--no-gpu``) the script runs
for real: ``JITFunction.run`` is wrapped so each launch is also compiled for its capture (Triton's own ``run`` with
``warmup=True``, a disk-cache hit), and with ``--time`` Triton's launch hooks (``triton.knobs.runtime.
launch_enter_hook`` / ``launch_exit_hook``) record CUDA events around every launch, whose times go to the summary
(``measured_us``: median per distinct launch; host launch gaps are excluded, L2 is not flushed).

One capture folder per distinct launch (kernel, config, specialization, grid, arguments: ``capture_folder.
launch_key``) is written under ``--out`` (default ``tlx-sim-captures``) as ``<kernel>-<key>/``, plus
``summary.json``: ``{schema_version, script, argv, target, gpu, launches: [{kernel, config, grid, key, folder,
count, measured_us?}]}``.  Exit 0, or the script's own exit status; 2 on bad usage.  A script that imports TLX
(``triton.language.extra.tlx``) runs under fbtriton's venv (``.venv-tlx``), any other under the current one, as
``tlx_sim.capture`` picks them.
"""
from __future__ import annotations

import argparse
import json
import os
import runpy
import statistics
import sys
from pathlib import Path

from tlx_sim import capture_folder
from tlx_sim import kernel_module as kmod


def gpu_available() -> bool:
    """torch importable with a CUDA (or ROCm) device."""
    try:
        import torch
        return bool(torch.cuda.is_available())
    except Exception:
        return False


def _run_path(script: Path, argv: list[str]) -> int:
    saved_argv, saved_path = list(sys.argv), list(sys.path)
    sys.argv = [str(script), *argv]
    sys.path.insert(0, str(script.parent))
    try:
        runpy.run_path(str(script), run_name="__main__")
        return 0
    except SystemExit as err:
        return err.code if isinstance(err.code, int) else (0 if err.code is None else 1)
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path


class Collector:
    """Distinct launches by key, with how often each ran and (GPU, --time) their measured times."""

    def __init__(self, out: Path, target_of):
        self.out, self.target_of = out, target_of
        self.entries: dict[str, dict] = {}

    def add(self, launch, times_us=()):
        target = self.target_of()
        key = capture_folder.launch_key(launch, target)
        entry = self.entries.get(key)
        if entry is None:
            folder = capture_folder.write(launch, target, self.out / f"{launch.name}-{key[:12]}")
            entry = self.entries[key] = {"kernel": launch.name, "config": launch.config_name or (
                capture_folder.config_label(launch.config) if launch.config is not None else None),
                "grid": list(launch.grid), "key": key, "folder": folder.name, "count": 0, "times_us": []}
        entry["count"] += 1
        entry["times_us"].extend(times_us)
        return key

    def summary(self) -> list[dict]:
        out = []
        for e in self.entries.values():
            e = dict(e)
            if e["times_us"]:
                e["measured_us"] = statistics.median(e["times_us"])
            else:
                e.pop("times_us")
            out.append(e)
        return out


def run_no_gpu(script: Path, argv: list[str], target, out: Path) -> tuple[int, Collector]:
    """Run ``script`` under the fake driver for ``target``; every launch captured."""
    from tlx_sim import launch_capture as lc
    coll = Collector(out, lambda: target)
    with lc.intercepting(target) as launches:
        rc = _run_path(script, argv)
    for launch in launches:
        coll.add(launch)
    return rc, coll


class _AutotunerConfigs:
    """While active, tells which ``triton.Config`` a launch runs under the real ``@triton.autotune``: the config
    its benchmark (``Autotuner._bench``) is timing, else, for the launch ``Autotuner.run`` makes after tuning (or
    from its cache), the config it chose (``best_config``); None for a launch outside any autotuner."""

    def __init__(self):
        self.benching, self.tuners = [], []

    def config(self):
        if self.benching:
            return self.benching[-1]
        return getattr(self.tuners[-1], "best_config", None) if self.tuners else None

    def __enter__(self):
        from triton.runtime.autotuner import Autotuner
        self.cls, self.saved = Autotuner, (Autotuner._bench, Autotuner.run)
        bench, tuner_run = self.saved

        def timed_bench(tuner, *args, config, **meta):
            self.benching.append(config)
            try:
                return bench(tuner, *args, config=config, **meta)
            finally:
                self.benching.pop()

        def run(tuner, *args, **kwargs):
            self.tuners.append(tuner)
            try:
                return tuner_run(tuner, *args, **kwargs)
            finally:
                self.tuners.pop()

        Autotuner._bench, Autotuner.run = timed_bench, run
        return self

    def __exit__(self, *exc):
        self.cls._bench, self.cls.run = self.saved
        return False


def run_gpu(script: Path, argv: list[str], out: Path, timed: bool) -> tuple[int, Collector]:
    """Run ``script`` on the GPU; each launch is also compiled for its capture, and timed with ``timed``."""
    import torch
    from triton import knobs
    from triton.runtime import driver
    from triton.runtime.jit import JITFunction
    from tlx_sim import launch_capture as lc
    coll = Collector(out, lambda: driver.active.get_current_target())
    original = JITFunction.run
    events = []  # (key, start, end) in launch order
    pending = {}

    def enter(metadata):
        start = torch.cuda.Event(enable_timing=True)
        start.record()
        pending["start"] = start

    def exit_(metadata):
        end = torch.cuda.Event(enable_timing=True)
        end.record()
        events.append((pending.pop("key", None), pending.pop("start", None), end))

    def run(self, *args, grid, warmup, **kwargs):
        if warmup:
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)
        launch = lc.compile_launch(self, args, grid, kwargs, run=original)
        launch.config = tuning.config()
        pending["key"] = coll.add(launch)
        return original(self, *args, grid=grid, warmup=False, **kwargs)

    hooks = (knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook)
    JITFunction.run = run
    if timed:
        knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook = enter, exit_
    tuning = _AutotunerConfigs()
    try:
        with tuning:
            rc = _run_path(script, argv)
    finally:
        JITFunction.run = original
        knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook = hooks
    torch.cuda.synchronize()
    for key, start, end in events:
        if key in coll.entries and start is not None:
            coll.entries[key]["times_us"].append(start.elapsed_time(end) * 1000.0)
    return rc, coll


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tlx_sim.run_script", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("tlx-sim-captures"), help="where the capture folders go")
    parser.add_argument("--target", default="cuda:90", help="target with no GPU (cuda:90, cuda:100, hip:gfx942)")
    parser.add_argument("--no-gpu", action="store_true", help="capture with stand-ins even where a GPU is present")
    parser.add_argument("--time", action="store_true", help="on a GPU: time each launch (CUDA events)")
    parser.add_argument("script", type=Path)
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's own arguments")
    args = parser.parse_args(argv)
    if not args.script.is_file():
        raise kmod.UsageError(f"{args.script}: no such script")
    from tlx_sim import capture as cap  # a TLX script needs fbtriton's venv: re-execute there, as capture does
    needed = cap.module_compiler(str(args.script))
    if needed == "fbtriton" and cap.current_compiler() != needed:
        if os.environ.get("TLX_SIM_CAPTURE_REEXEC"):
            raise kmod.UsageError(f"{sys.executable} does not have {needed} (triton.language.extra.tlx)")
        cap.reexec_under(needed, list(sys.argv[1:] if argv is None else argv), module="tlx_sim.run_script")
    args.out.mkdir(parents=True, exist_ok=True)
    on_gpu = not args.no_gpu and gpu_available()
    target = kmod.parse_target(args.target)
    try:
        if on_gpu:
            rc, coll = run_gpu(args.script.resolve(), args.args, args.out, args.time)
        else:
            rc, coll = run_no_gpu(args.script.resolve(), args.args, target, args.out)
    except ModuleNotFoundError as err:
        # A script that reaches TLX only at run time (importlib.import_module of a tutorial copy), which the source
        # scan (capture.module_compiler) cannot see: run it again under fbtriton's venv, once.
        if not (err.name or "").startswith("triton.language.extra.tlx") or cap.current_compiler() == "fbtriton":
            raise
        if os.environ.get("TLX_SIM_CAPTURE_REEXEC"):
            raise kmod.UsageError(f"{sys.executable} does not have fbtriton (triton.language.extra.tlx)") from err
        print(f"{args.script}: imports triton.language.extra.tlx at run time: running it again under fbtriton's "
              "venv (.venv-tlx)", file=sys.stderr, flush=True)
        cap.reexec_under("fbtriton", list(sys.argv[1:] if argv is None else argv), module="tlx_sim.run_script")
    launches = coll.summary()
    summary = {"schema_version": 1, "script": str(args.script), "argv": args.args, "gpu": on_gpu,
               "target": None if on_gpu else kmod.target_str(target), "launches": launches}
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"{len(launches)} distinct launch(es) of {len({e['kernel'] for e in launches})} kernel(s) captured in "
          f"{args.out}/ (summary.json)", file=sys.stderr)
    for e in launches:
        timing = f" {e['measured_us']:.2f} us" if "measured_us" in e else ""
        print(f"  {e['folder']}: grid {e['grid']} x{e['count']}{timing}" + (f" [{e['config']}]" if e["config"] else ""),
              file=sys.stderr)
    return rc


def cli() -> int:
    """Entry point: ``main`` with usage errors as exit code 2."""
    return kmod.run_cli(main)


if __name__ == "__main__":
    sys.exit(cli())
