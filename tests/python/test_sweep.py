"""The sweep's acceptance test: where traces/<gpu> has hardware measurements of a kernel module, the sweep's top
pick (tlx_sim.sweep over the measured configs, whole grid, at each measured shape) is within 5 % of the best
measured config, or the measured best is among its top two.

Measurements come from ``traces/<gpu>/<kernel>.json`` (traces/README.md: ``records`` with ``config``, ``shape``,
``measured_us``, ``correct``) where present, else from the first session's ``traces/<gpu>/<kernel>.hw_time.jsonl``
(``config``, ``shape``, ``ms``, ``ok``). Also checks the sweep's own pieces on ws_gemm: the CLI's ranked table and
recommendation, --param grids over constexprs (an infeasible config is reported, not a crash), bad usage exit 2;
and every kernel module under kernels/ sweeps (first CTAs only).

Usage: python3 tests/python/test_sweep.py [--traces traces/h200] [--kernels ws_gemm,...] [--no-every-kernel]
Prints one line per (kernel, shape) and `N passed, M failed`.
"""
import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "python"), str(ROOT)]

from tlx_sim import kernel_module as kmod  # noqa: E402
from tlx_sim import sweep  # noqa: E402

TOLERANCE = 0.05


def load_measurements(traces: Path, kernel: str):
    """(module path, {shape tuple: {config: measured_us}}) of one kernel, or None without measurements."""
    new = traces / f"{kernel}.json"
    old = traces / f"{kernel}.hw_time.jsonl"
    by_shape = defaultdict(dict)
    if new.is_file():
        data = json.loads(new.read_text())
        module = data["module"]
        for r in data["records"]:
            if r.get("correct", True) and r.get("measured_us"):
                by_shape[tuple(sorted(r["shape"].items()))][r["config"]] = float(r["measured_us"])
    elif old.is_file():
        module = None
        for line in old.read_text().splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            module = r.get("module", module)
            if r.get("ok", True):
                by_shape[tuple(sorted(r["shape"].items()))][r["config"]] = 1000.0 * float(r["ms"])
    else:
        return None
    return module, by_shape


def kernels_with_measurements(traces: Path):
    names = {p.name[:-len(".hw_time.jsonl")] for p in traces.glob("*.hw_time.jsonl")}
    for p in traces.glob("*.json"):
        try:
            if "records" in json.loads(p.read_text()):
                names.add(p.stem)
        except (ValueError, OSError):
            pass
    return sorted(names)


def check_acceptance(traces: Path, kernels, failures, passed):
    for kernel in kernels:
        found = load_measurements(traces, kernel)
        if not found:
            print(f"{kernel}: no measurements in {traces}")
            continue
        module, by_shape = found
        km = kmod.load_module(str(ROOT / module))
        sweeper = sweep.Sweeper(km, model=traces.name)
        for shape_items, measured in sorted(by_shape.items()):
            shape = dict(shape_items)
            shape = {k: shape[k] for k in km.default_shape if k in shape}
            configs = [c for c in measured if c in km.configs]
            if len(configs) < 2:
                continue
            table = sweep.config_table(km, {}, None, configs)
            ranked = [r for r in sweeper.sweep(table, shape) if r.status == "ok"]
            best = min(measured[c] for c in configs)
            best_config = min(configs, key=lambda c: measured[c])
            order = [r.config for r in ranked]
            top = order[0] if order else None
            within = top is not None and measured[top] <= (1 + TOLERANCE) * best
            top_two = best_config in order[:2]
            ok = within or top_two
            label = f"{kernel} {','.join(f'{k}={v}' for k, v in shape.items())}"
            print(f"{'ok' if ok else 'FAIL'}: {label}: predicted order {order}, measured best {best_config} "
                  f"({best:.1f} us), top pick {top} ({measured.get(top, float('nan')):.1f} us measured, "
                  f"{(measured.get(top, float('nan')) / best - 1) * 100:+.1f} %)")
            (passed if ok else failures).append(label)


def run_cli(args):
    env = dict(os.environ, PYTHONPATH=f"{ROOT / 'python'}:{ROOT}")
    return subprocess.run([sys.executable, "-m", "tlx_sim.sweep", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT)


def check_cli(failures, passed):
    """The CLI on ws_gemm: a --param grid at 4096^3 on the first 132 CTAs (one wave) with an infeasible config."""
    proc = run_cli(["kernels/hopper/ws_gemm.py", "--param", "S=2,4", "--param", "BN=128,256", "--shape",
                    "4096,4096,4096", "--model", "h200", "--max-ctas", "132"])
    lines = proc.stdout.splitlines()
    checks = {
        "exit 0": proc.returncode == 0,
        "header": bool(lines) and lines[0].startswith("kernels/hopper/ws_gemm.py (ws_gemm_kernel) at M=4096"),
        "four rows": sum(1 for line in lines if line.split()[:1] in (["1"], ["2"], ["3"], ["4"], ["-"])) == 4,
        "S=4, BN=256 does not fit": any("S4_BN256" in line and "infeasible" in line and "does not fit" in line
                                        for line in lines),
        "ranked by time": _ranked(lines),
        "recommendation": any(line.startswith("recommended: S4_BN128 (S=4, BN=128)") for line in lines),
        "progress bar": "4/4" in proc.stderr and "[" in proc.stderr,
    }
    bad = [name for name, ok in checks.items() if not ok]
    print(f"{'ok' if not bad else 'FAIL'}: sweep CLI --param grid" + (f": {bad}\n{proc.stdout}\n{proc.stderr}"
                                                                         if bad else ""))
    (failures if bad else passed).append("cli")

    proc = run_cli(["kernels/hopper/ws_gemm.py", "--config", "s2", "s3", "--shape", "M=2048,N=2048,K=2048",
                    "--max-ctas", "16", "--json"])
    try:
        data = json.loads(proc.stdout)
        ok = (proc.returncode == 0 and data["recommended"] == "s3" and [r["config"] for r in data["results"]] ==
              ["s3", "s2"] and data["results"][0]["time_us"] < data["results"][1]["time_us"] and
              data["shape"] == {"M": 2048, "N": 2048, "K": 2048} and data["results"][0]["predict"]["command"] ==
              "predict")
    except (ValueError, KeyError):
        ok = False
    print(f"{'ok' if ok else 'FAIL'}: sweep CLI --config --json" + ("" if ok else f": {proc.stdout}{proc.stderr}"))
    (passed if ok else failures).append("cli-json")

    for bad_args, text in ((["--param", "NOPE=1,2"], "not a parameter"), (["--shape", "1,2"], "expected 3 integers"),
                           (["--config", "s9"], "no config 's9'")):
        proc = run_cli(["kernels/hopper/ws_gemm.py", *bad_args])
        ok = proc.returncode == 2 and text in proc.stderr
        print(f"{'ok' if ok else 'FAIL'}: bad usage {bad_args} -> exit 2" + ("" if ok else f": {proc.stderr}"))
        (passed if ok else failures).append(str(bad_args))


def check_every_kernel(failures, passed):
    """Every kernel module under kernels/ sweeps (its CONFIGS less seeded bugs, first 4 CTAs, its first target):
    every config gets a verdict, predicted ones ranked by time."""
    for path in sorted((ROOT / "kernels").rglob("*.py")):
        if path.name.startswith("_"):
            continue
        km = kmod.load_module(str(path))
        table = sweep.config_table(km, {}, None, None)
        results = sweep.Sweeper(km, max_ctas=4).sweep(table, km.default_shape)
        # Every config gets a verdict (a kernel that deadlocks has no time: "findings").
        times = [r.time_us for r in results if r.status == "ok"]
        ok = times == sorted(times) and len(results) == len(table) and all(
            r.status in ("ok", "findings", "infeasible") for r in results) and (times or all(
                r.status == "findings" for r in results))
        print(f"{'ok' if ok else 'FAIL'}: sweep {km.path}: " +
              ", ".join(f"{r.config} {r.status}" + (f" {r.time_us:.1f} us" if r.time_us else "") for r in results))
        (passed if ok else failures).append(km.path)


def _ranked(lines):
    times = []
    for line in lines:
        parts = line.split()
        if len(parts) > 3 and parts[0].isdigit():
            times.append(float(parts[2]))
    return len(times) >= 2 and times == sorted(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--traces", type=Path, default=ROOT / "traces" / "h200")
    # Default: every kernel with measurements in --traces (all six of traces/h200: about 2 minutes here);
    # --kernels narrows it for a quick run.
    parser.add_argument("--kernels", default=None, help="comma-separated kernel names (default: every measured one)")
    parser.add_argument("--no-every-kernel", action="store_true", help="skip sweeping every module under kernels/")
    args = parser.parse_args()
    failures, passed = [], []
    check_cli(failures, passed)
    if not args.no_every_kernel:
        check_every_kernel(failures, passed)
    kernels = args.kernels.split(",") if args.kernels else kernels_with_measurements(args.traces)
    before = len(failures) + len(passed)
    check_acceptance(args.traces, kernels, failures, passed)
    if len(failures) + len(passed) == before:
        print(f"FAIL: no measured (kernel, shape) with two or more configs in {args.traces} for {kernels}")
        failures.append("no measurements")
    print(f"{len(passed)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
