"""Sweep a kernel module's configs: capture each with no GPU, predict each with tlx-sim, rank them.

Usage (from the repository root, ``PYTHONPATH=python:.`` or after ``pip install ./python``)::

    python3 -m tlx_sim.sweep kernels/hopper/ws_gemm.py --param S=2,3,4 --param BN=128,256 \\
        --shape 8192,8192,8192 --model h200
    python3 -m tlx_sim.sweep kernels/hopper/ws_gemm.py                    # the module's CONFIGS (no seeded bugs)
    python3 -m tlx_sim.sweep kernels/hopper/ws_gemm.py --config s2 s4 --shape M=4096,N=4096,K=4096 --json

Configs come from ``--param NAME=V1,V2,...`` (every combination, each applied over a base config: ``--base``,
default the module's first config that is not a seeded bug) or from the module's ``CONFIGS`` (``--config`` to
pick some; seeded-bug configs, ``*_bug_*``, are left out unless named). ``--shape`` takes the values of the module's
``DEFAULT_SHAPE`` keys in order (``8192,8192,8192`` for M, N, K) or ``NAME=VALUE`` pairs.

Each config is compiled exactly as a launch at that shape would be (``tlx_sim.kernel_module``; compilations are
shared between configs and shapes whose specialization is the same) and predicted with ``tlx-sim predict --json``
on the whole grid. A progress bar goes to stderr; stdout gets the ranked table (fastest first) and the recommended
config, or with ``--json`` one object: ``{schema_version, module, kernel, shape, model, results: [{config, params,
status, time_us, tflops, bound, predict}], recommended}``; ``status`` is ``ok``, ``findings`` (the launch
deadlocks: no time; races are ``tlx-sim check``'s to find), ``infeasible`` (tlx-sim rejects the launch, e.g. a
CTA does not fit on an SM) or ``compile-error``. Exit 0 when some config was predicted, 1 when none was, 2 on bad usage.
"""
from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tlx_sim import api
from tlx_sim import capture as cap
from tlx_sim import kernel_module as kmod


@dataclass
class SweepResult:
    """One swept config: its name, the constexprs/options it set, and what tlx-sim predicted."""
    config: str
    params: dict
    status: str  # ok | findings | infeasible | compile-error
    time_us: float | None = None
    tflops: float | None = None
    bound: str | None = None
    message: str = ""
    predict: dict = field(default_factory=dict)

    def as_json(self) -> dict:
        return {"config": self.config, "params": self.params, "status": self.status, "time_us": self.time_us,
                "tflops": self.tflops, "bound": self.bound, "message": self.message, "predict": self.predict}


class SweepModule(kmod.KernelModule):
    """A kernel module whose config table also holds the sweep's synthetic configs."""

    def __init__(self, km: kmod.KernelModule, extra: dict):
        super().__init__(module=km.module, root=km.root, path=km.path)
        self.extra = extra

    def config(self, name: str) -> dict:
        if name in self.extra:
            return self.extra[name]
        return super().config(name)


def parse_params(items: list[str]) -> dict:
    """``["S=2,3,4", "BN=128,256"]`` -> ``{"S": [2, 3, 4], "BN": [128, 256]}`` (ints where they parse)."""
    params = {}
    for item in items:
        name, sep, values = item.partition("=")
        if not sep or not name or not values:
            raise kmod.UsageError(f"--param expects NAME=V1,V2,..., got {item!r}")
        parsed = []
        for v in values.split(","):
            v = v.strip()
            try:
                parsed.append(int(v))
            except ValueError:
                parsed.append(v)
        params[name.strip()] = parsed
    return params


def parse_sweep_shape(text: str | None, default: dict) -> dict:
    """``8192,8192,8192`` (values of DEFAULT_SHAPE's keys in order) or ``M=8192,N=...`` -> a shape dict."""
    if text and "=" not in text:
        values = [v.strip() for v in text.split(",")]
        if len(values) != len(default) or not all(v.isdigit() for v in values):
            raise kmod.UsageError(f"--shape {text!r}: expected {len(default)} integers for "
                                  f"{', '.join(default)} (or NAME=VALUE pairs)")
        return dict(zip(default, map(int, values)))
    return kmod.parse_shape(text, default)


def config_table(km: kmod.KernelModule, params: dict, base: str | None, names: list[str] | None) -> dict:
    """The configs to sweep: name -> config dict."""
    if params:
        if base is None:
            base = next((n for n in km.configs if kmod.BUG_MARKER not in n), None)
            if base is None:
                raise kmod.UsageError(f"{km.path}: no config to use as the base of --param")
        allowed = {p.name for p in km.kernel.params} | set(km.config(base))
        for name in params:
            if name not in allowed and name not in ("num_stages", "num_ctas", "maxnreg"):
                raise kmod.UsageError(f"--param {name}: not a parameter of {km.kernel_name} nor a key of config "
                                      f"{base!r}")
        table = {}
        for combo in itertools.product(*params.values()):
            chosen = dict(zip(params, combo))
            name = "_".join(f"{k}{v}" for k, v in chosen.items())
            table[name] = {**km.config(base), **chosen}
        return table
    picked = names or [n for n in km.configs if kmod.BUG_MARKER not in n]
    return {n: km.config(n) for n in picked}


class Progress:
    """A plain-text progress bar on stderr: ``[#####.....] 3/6 S3_BN256: predicting``."""

    def __init__(self, total: int, stream=sys.stderr, width: int = 24):
        self.total, self.stream, self.width, self.done = total, stream, width, 0
        self.start = time.time()

    def show(self, what: str):
        filled = self.width * self.done // max(1, self.total)
        line = f"[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} {what}"
        self.stream.write(f"\r{line[:110]:<110}")
        self.stream.flush()

    def step(self, what: str):
        self.done += 1
        self.show(what)

    def finish(self):
        self.stream.write(f"\r{' ' * 110}\r{self.done}/{self.total} configs in {time.time() - self.start:.1f} s\n")
        self.stream.flush()


class Sweeper:
    """Captures and predicts configs of one module for one target and model; compilations are cached by
    specialization (the same config at another shape with the same argument divisibility reuses its binary)."""

    def __init__(self, km: kmod.KernelModule, target=None, model=None, workdir=None, max_ctas=None):
        self.km = km
        self.target = kmod.parse_target(target) if isinstance(target, str) else (
            target or kmod.parse_target(km.targets[0]))
        self.model = model
        self.max_ctas = max_ctas
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="tlx-sim-sweep-"))
        self.compiled = {}  # specialization key -> capture directory

    def _capture(self, skm: SweepModule, name: str, shape: dict) -> Path:
        sp = kmod.specialize(skm, name, shape, self.target)
        key = json.dumps([skm.config(name), repr(sp.signature), repr(sorted(sp.constexprs.items())),
                          repr(sorted(sp.attrs.items())), kmod.target_str(self.target)], sort_keys=True, default=str)
        cdir = self.compiled.get(key)
        if cdir is None:
            cdir = cap.capture_config(skm, name, shape, self.target, self.workdir / f"c{len(self.compiled)}")
            self.compiled[key] = cdir
        # The launch of this shape, next to the (shared) compiled files.
        launch = self.workdir / f"launch-{name}-{'x'.join(str(v) for v in shape.values())}.json"
        launch.write_text(kmod.dump_json(kmod.launch_json(skm, name, shape, self.target, sp)))
        return cdir, launch

    def run_one(self, table: dict, name: str, shape: dict, params: dict) -> SweepResult:
        skm = SweepModule(self.km, table)
        try:
            cdir, launch = self._capture(skm, name, shape)
        except kmod.UsageError:
            raise
        except Exception as err:  # a config Triton cannot compile is a result of the sweep, not a crash
            return SweepResult(name, params, "compile-error", message=f"{type(err).__name__}: {err}"[:300])
        ttgir = cdir / f"{self.km.kernel_name}.ttgir"
        try:
            r = api.run_tool("predict", ttgir, launch, model=self.model, max_ctas=self.max_ctas)
        except api.ToolError as err:
            message = str(err).replace("tlx-sim predict exited 2: ", "").replace("tlx-sim: error: ", "")
            message = message.replace(f"{ttgir}: ", "")
            return SweepResult(name, params, "infeasible", message=message[:300])
        if r.exit_code != 0 or r.time_us is None:
            classes = sorted({f.get("class", "?") for f in r.findings})
            return SweepResult(name, params, "findings", message=", ".join(classes), predict=r.data)
        return SweepResult(name, params, "ok", r.time_us, r.tflops, r.bound, predict=r.data)

    def sweep(self, table: dict, shape: dict, progress: Progress | None = None) -> list[SweepResult]:
        """Predict every config of ``table`` at ``shape``; results ranked fastest first (failures last)."""
        results = []
        for name, config in table.items():
            params = {k: v for k, v in config.items()}
            if progress:
                progress.show(f"{name}: capturing and predicting")
            results.append(self.run_one(table, name, shape, params))
            if progress:
                progress.step(f"{name}: {results[-1].status}")
        return rank(results)


def rank(results: list[SweepResult]) -> list[SweepResult]:
    """Predicted configs by time (fastest first), then the others in their order."""
    ok = sorted((r for r in results if r.status == "ok"), key=lambda r: r.time_us)
    return ok + [r for r in results if r.status != "ok"]


def format_table(results: list[SweepResult], varied: list[str]) -> str:
    """The ranked table as text."""
    lines = [f"{'rank':>4}  {'config':<20} {'time (us)':>11} {'TFLOP/s':>8}  {'bound':<16} " +
             " ".join(f"{v:>6}" for v in varied)]
    for i, r in enumerate(results, 1):
        values = " ".join(f"{str(r.params.get(v, '')):>6}" for v in varied)
        if r.status == "ok":
            lines.append(f"{i:>4}  {r.config:<20} {r.time_us:>11.2f} {r.tflops:>8.1f}  {r.bound:<16} {values}")
        else:
            lines.append(f"{'-':>4}  {r.config:<20} {r.status:>11} {'':>8}  {r.message[:60]}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m tlx_sim.sweep", description=__doc__.split("\n\n")[0])
    parser.add_argument("module", help="kernel module (kernels/hopper/ws_gemm.py or a dotted name)")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=V1,V2",
                        help="sweep a constexpr (or launch option) over values; repeat for a grid of combinations")
    parser.add_argument("--base", help="the config --param values are applied over (default: the first non-bug one)")
    parser.add_argument("--config", nargs="+", metavar="NAME", help="configs of the module to sweep (no --param)")
    parser.add_argument("--shape", help="problem shape: values in DEFAULT_SHAPE order (8192,8192,8192) or M=...,N=...")
    parser.add_argument("--model", help="tlx-sim model (default: from the target)")
    parser.add_argument("--target", help="cuda:90, cuda:100, hip:gfx942 (default: the module's first TARGETS entry)")
    parser.add_argument("--max-ctas", type=int, help="simulate only the first N CTAs (faster, less exact)")
    parser.add_argument("--keep", type=Path, help="keep the captures in this directory")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args(argv)
    if args.param and args.config:
        parser.error("--param and --config exclude each other (use --base to pick the config --param starts from)")

    km = kmod.load_module(args.module)
    shape = parse_sweep_shape(args.shape, km.default_shape)
    table = config_table(km, parse_params(args.param), args.base, args.config)
    api.find_tlx_sim()  # fail before compiling anything
    sweeper = Sweeper(km, args.target, args.model, args.keep, args.max_ctas)
    progress = Progress(len(table))
    try:
        results = sweeper.sweep(table, shape, progress)
    except api.ToolError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    progress.finish()
    varied = list(parse_params(args.param)) or sorted({k for c in table.values() for k in c
                                                      if len({str(t.get(k)) for t in table.values()}) > 1})
    best = results[0] if results and results[0].status == "ok" else None
    model = (best.predict.get("model") if best else args.model) or "the target's default model"
    if args.json:
        print(json.dumps({"schema_version": 1, "module": km.path, "kernel": km.kernel_name, "shape": shape,
                          "target": kmod.target_str(sweeper.target), "model": model,
                          "results": [r.as_json() for r in results],
                          "recommended": best.config if best else None}, indent=2))
    else:
        print(f"{km.path} ({km.kernel_name}) at {', '.join(f'{k}={v}' for k, v in shape.items())} on {model}:")
        print(format_table(results, varied))
        if best:
            chosen = ", ".join(f"{k}={best.params[k]}" for k in varied if k in best.params) or best.config
            print(f"recommended: {best.config} ({chosen}): {best.time_us:.2f} us, {best.tflops:.1f} TFLOP/s, "
                  f"{best.bound}-bound")
        else:
            print("recommended: none (no config could be predicted)")
    return 0 if best else 1


def cli() -> int:
    """Entry point: ``main`` with usage errors as exit code 2."""
    return kmod.run_cli(main)


if __name__ == "__main__":
    sys.exit(cli())
