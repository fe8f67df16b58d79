"""Fit model knobs to the ``fit`` records of a hardware trace folder (never the held-out ones).

From the repository root, after building tlx-sim::

    python3 -m tlx_sim.calibrate traces/h200 --knob tma_latency_cycles=900:1300:100 \
        --knob clock_full_tensor_load_mhz=1180:1380:50 [--rounds 2] [--write]

The objective is the median absolute relative error of ``tlx-sim xcheck TRACES --split fit --json --set ...``
(ties broken by the mean absolute error).  The search is coordinate descent: each round sweeps every knob over
its grid ``LO:HI:STEP`` with the other knobs at their current best, keeps the best value, and stops early when a
round changes nothing.  The starting point is the model's current value of each knob.  ``--write`` stores the
fitted values in ``models/<model>.json`` with their provenance (the trace folder, how many fit records of which
kernels, the objective before and after, the date); afterwards run ``tlx-sim xcheck TRACES`` to see the held-out
error, which the fit never saw.  Exit code 0, or 2 for bad usage (unknown knob, bad grid, tlx-sim failing).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from tlx_sim import kernel_module as kmod

REPO = Path(__file__).resolve().parents[2]


def parse_knob(text: str) -> tuple[str, list[float]]:
    """``NAME=LO:HI:STEP`` -> (NAME, [LO, LO+STEP, ..., <= HI]); UsageError for anything else."""
    name, _, grid = text.partition("=")
    try:
        lo, hi, step = (float(v) for v in grid.split(":"))
    except ValueError:
        raise kmod.UsageError(f"--knob {text!r}: expected NAME=LO:HI:STEP") from None
    if not name or step <= 0 or hi < lo:
        raise kmod.UsageError(f"--knob {text!r}: expected NAME=LO:HI:STEP with STEP > 0 and LO <= HI")
    values, v = [], lo
    while v <= hi + 1e-9 * abs(step):
        values.append(round(v, 9))
        v += step
    return name, values


def objective(report: dict) -> tuple[float, float]:
    """(median |error|, mean |error|) over the records of an ``xcheck --json`` report that have an error."""
    errs = [abs(r["error"]) for r in report["records"] if r.get("error") is not None]
    if not errs:
        raise kmod.UsageError("xcheck predicted no record")
    return statistics.median(errs), statistics.fmean(errs)


def coordinate_descent(evaluate, start: dict, grids: dict, rounds: int) -> tuple[dict, tuple, list]:
    """Minimise ``evaluate(values) -> (primary, tie-break)`` one knob at a time over ``grids``; returns (best
    values, best objective, the log of every evaluation as (values, objective))."""
    cache, log = {}, []

    def score(values):
        key = tuple(sorted(values.items()))
        if key not in cache:
            cache[key] = evaluate(values)
            log.append((dict(values), cache[key]))
        return cache[key]

    best = dict(start)
    best_score = score(best)
    for _ in range(rounds):
        changed = False
        for knob, grid in grids.items():
            for v in grid:
                trial = {**best, knob: v}
                s = score(trial)
                if s < best_score:
                    best, best_score, changed = trial, s, True
        if not changed:
            break
    return best, best_score, log


def xcheck_evaluator(tlx_sim: str, traces: list[str], model: str | None, kernels: list[str] | None = None):
    """``evaluate(values)`` running ``tlx-sim xcheck --split fit --json`` with ``--set`` for each knob (and
    ``--kernel`` for each of ``kernels``, when given)."""
    def evaluate(values: dict) -> tuple[float, float]:
        cmd = [tlx_sim, "xcheck", *traces, "--split", "fit", "--json", "--max-median-error", "1",
               "--min-spearman", "-1"]  # the gate off: calibrate reads the JSON
        for k in kernels or []:
            cmd += ["--kernel", k]
        if model:
            cmd += ["--model", model]
        for k, v in values.items():
            cmd += ["--set", f"{k}={v:g}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            raise kmod.UsageError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
        return objective(json.loads(proc.stdout))
    return evaluate


def fit_records(traces: list[str]) -> dict:
    """Kernel -> number of fit records in the trace files under ``traces``."""
    counts = {}
    for t in traces:
        files = sorted(Path(t).glob("*.json")) if Path(t).is_dir() else [Path(t)]
        for f in files:
            doc = json.loads(f.read_text())
            n = sum(1 for r in doc.get("records", []) if r.get("split") == "fit")
            if n:
                counts[doc["kernel"]] = counts.get(doc["kernel"], 0) + n
    return counts


def rewrite_params(text: str, values: dict, source: str) -> str:
    """The model file ``text`` with each knob's ``value`` and ``source`` replaced, every other byte kept.

    The models keep one parameter per line (``"name": {"value": ..., "unit": ..., "source": ...}``), which is
    what is rewritten; a knob not found that way is a UsageError."""
    lines = text.splitlines(keepends=True)
    for knob, value in values.items():
        prefix = f'"{knob}": '
        for i, line in enumerate(lines):
            if line.strip().startswith(prefix):
                indent = line[:len(line) - len(line.lstrip())]
                comma = "," if line.rstrip().endswith(",") else ""
                entry = json.loads(line.strip().rstrip(",")[len(prefix):])
                entry["value"] = int(value) if float(value).is_integer() else value
                entry["source"] = source
                lines[i] = f"{indent}{prefix}{json.dumps(entry)}{comma}\n"
                break
        else:
            raise kmod.UsageError(f"cannot find the line of parameter {knob!r}")
    return "".join(lines)


def main(argv=None) -> int:
    """Command line; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python3 -m tlx_sim.calibrate", description=__doc__.split("\n\n")[0])
    parser.add_argument("traces", nargs="+", help="trace folders or files (traces/h200)")
    parser.add_argument("--knob", action="append", required=True, metavar="NAME=LO:HI:STEP")
    parser.add_argument("--model", help="model name (default: each trace file's gpu)")
    parser.add_argument("--kernel", action="append", metavar="NAME",
                        help="fit on this kernel's fit records only (repeatable; default: every kernel)")
    parser.add_argument("--rounds", type=int, default=2, help="coordinate-descent rounds (default 2)")
    parser.add_argument("--tlx-sim", default=os.environ.get("TLX_SIM", str(REPO / "build" / "tools" / "tlx-sim")))
    parser.add_argument("--write", action="store_true", help="store the fitted values in models/<model>.json")
    args = parser.parse_args(argv)

    grids = dict(parse_knob(k) for k in args.knob)
    counts = {k: n for k, n in fit_records(args.traces).items() if not args.kernel or k in args.kernel}
    gpus = {json.loads(f.read_text()).get("gpu") for t in args.traces
            for f in (sorted(Path(t).glob("*.json")) if Path(t).is_dir() else [Path(t)])} - {None}
    model = args.model or (gpus.pop() if len(gpus) == 1 else None)
    if model is None:
        raise kmod.UsageError("the traces are from several GPUs; pass --model")
    model_path = REPO / "models" / f"{model}.json"
    doc = json.loads(model_path.read_text())
    for knob in grids:
        if knob not in doc["params"]:
            raise kmod.UsageError(f"model {model} has no parameter {knob!r}")
    start = {k: float(doc["params"][k]["value"]) for k in grids}

    evaluate = xcheck_evaluator(args.tlx_sim, args.traces, args.model, args.kernel)
    best, best_score, log = coordinate_descent(evaluate, start, grids, args.rounds)
    before = log[0][1]
    for values, (med, mean) in log:
        print(" ".join(f"{k}={v:g}" for k, v in values.items()), f"median {100 * med:.2f} %  mean {100 * mean:.2f} %")
    print(f"fit records: {sum(counts.values())} ({', '.join(f'{k} {n}' for k, n in sorted(counts.items()))})")
    print(f"start {start} -> median |error| {100 * before[0]:.2f} %")
    print(f"best  {best} -> median |error| {100 * best_score[0]:.2f} %")
    if args.write:
        provenance = (f"fitted {datetime.date.today().isoformat()} by python -m tlx_sim.calibrate (coordinate descent, "
                      f"grids {', '.join(args.knob)}) on the fit records of {', '.join(args.traces)}: "
                      f"{sum(counts.values())} records of {', '.join(sorted(counts))}; fit median |error| "
                      f"{100 * before[0]:.1f} % -> {100 * best_score[0]:.1f} %")
        model_path.write_text(rewrite_params(model_path.read_text(), best, provenance))
        print(f"wrote {model_path}")
    return 0


def cli() -> int:
    """Entry point: ``main`` with usage errors as exit code 2."""
    return kmod.run_cli(main)


if __name__ == "__main__":
    sys.exit(cli())
