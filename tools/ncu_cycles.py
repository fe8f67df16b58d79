#!/usr/bin/env python3
"""Kernel cycles without the clock: Nsight Compute's SM cycles of recorded launches against the model's cycles.

A record's time is cycles / clock. The records of traces/<gpu> carry a sampled mean SM clock (nvidia-smi), and
`xcheck` splits the time error into a clock error and a cycles error from it (issue 17). This tool measures the
cycles directly: Nsight Compute's `sm__cycles_elapsed.max` counts the SM clock's cycles from the kernel's start to its
end whatever the clock ran at, so the model's cycles (`tlx-sim predict --json`: `cycles`) are compared with the
hardware's without any clock in between.

  stage:   python3 tools/ncu_cycles.py stage traces/h100-sxm traces/h100-sxm/tlx -o build/ncu-stage [--per-config 2]
           copies each chosen record's capture into STAGE/<n>-<kernel>-<config>-<shape>/ with the record's launch as
           launch.json and writes STAGE/plan.tsv (folder, kernel name, record file, config, shape); per (record
           file, config) the records with the most and the fewest FLOPs (--per-config 1: the most only, 0: all).
  device:  tools/h200-ncu-cycles.sh STAGE OUT          (carry build/static and STAGE)
  annotate: python3 tools/ncu_cycles.py annotate STAGE OUT/ncu.csv --tool "Nsight Compute 2025.3.1" --date DATE
           writes each measured launch's cycles into its record (`ncu`: cycles, clock_mhz, tool, date, source), which
           `tlx-sim xcheck` then uses for its cycles / clock split instead of nvidia-smi's sampled clock.
  compare: python3 tools/ncu_cycles.py compare STAGE OUT/ncu.csv --model h100-sxm [--tlx-sim build/tools/tlx-sim]
           prints per launch the hardware cycles (and the clock Nsight saw), the model's cycles, their ratio, and the
           tensor pipe's busy share on both sides; per kernel the median cycles error.

Nsight Compute runs with `--clock-control none` (the GPU's own clock, as in the records) and `--cache-control all`
(caches flushed before the launch, as the records' L2 flush does). Cycles of a compute-bound kernel hardly depend
on the clock; a memory-bound one's do (the HBM's latency and bandwidth are fixed in ns), so the clock Nsight saw is
printed next to them.
"""
import argparse
import csv
import functools
import json
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from tlx_sim.kernel_module import dump_json  # noqa: E402  (record.py's trace-file format)


def _records(paths):
    """(record file, its folder, record) for each record of the trace files under `paths` (traces/README.md)."""
    for folder in paths:
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if not name.endswith(".json") or not os.path.isfile(path):
                continue
            with open(path) as f:
                doc = json.load(f)
            for rec in doc.get("records", []):
                if rec.get("launch") and rec.get("capture"):
                    yield path, folder, rec


def _shape(rec):
    return "_".join(f"{k}{v}" for k, v in sorted(rec.get("shape", {}).items()))


def stage(args):
    """Copies the chosen records' captures with their launches into args.out; writes plan.tsv."""
    groups = {}
    for path, folder, rec in _records(args.traces):
        groups.setdefault((path, rec["config"]), []).append((folder, rec))
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for (path, config), recs in sorted(groups.items()):
        recs.sort(key=lambda fr: fr[1].get("flops", 0))
        chosen = recs if args.per_config == 0 else \
            [recs[-1]] if args.per_config == 1 or len(recs) == 1 else [recs[-1], recs[0]]
        for folder, rec in chosen:
            src = os.path.join(folder, rec["capture"])
            cubins = [n for n in os.listdir(src) if n.endswith(".cubin")]
            kernel = rec["launch"].get("kernel") or (cubins[0][:-6] if cubins else "")
            name = f"{len(rows):03d}-{os.path.basename(path)[:-5]}-{config}-{_shape(rec)}"
            dest = os.path.join(args.out, name)
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(src, dest)
            launch = {}  # TLX records keep only the launch's values: the capture's launch.json has the rest
            if os.path.exists(os.path.join(src, "launch.json")):
                with open(os.path.join(src, "launch.json")) as f:
                    launch = json.load(f)
            launch.update(rec["launch"])
            launch["shape"] = rec.get("shape", launch.get("shape"))  # the reference's shape is the record's
            launch.setdefault("kernel", kernel)
            with open(os.path.join(dest, "launch.json"), "w") as f:
                json.dump(launch, f, indent=1)
            rows.append((name, kernel, path, config, _shape(rec)))
    with open(os.path.join(args.out, "plan.tsv"), "w") as f:
        for row in rows:
            f.write("\t".join(row) + "\n")
    print(f"staged {len(rows)} launches in {args.out}")


def _ncu_rows(csv_path):
    """{folder: {metric: (value, unit)}} from the device script's CSV (folder, metric, unit, value). A metric given
    twice for one folder (CSVs of two runs concatenated) is an error: which one is meant is not known."""
    out = {}
    with open(csv_path) as f:
        for n, row in enumerate(csv.reader(f), 1):
            if len(row) != 4 or row[0] == "folder":
                continue
            try:
                value = float(row[3].replace(",", ""))
            except ValueError:
                continue
            if row[1] in out.get(row[0], {}):
                sys.exit(f"{csv_path}:{n}: {row[0]} {row[1]} given twice")
            out.setdefault(row[0], {})[row[1]] = (value, row[2])
    return out


def _scaled(ncu, metric, scale):
    """Nsight's value of `metric` in the unit `scale` maps to 1 ({unit: factor}), or None where it was not read; an
    unknown unit is an error."""
    if metric not in ncu:
        return None
    value, unit = ncu[metric]
    if unit.lower() not in scale:
        sys.exit(f"{metric} in unit '{unit}': not one of {sorted(scale)}")
    return value * scale[unit.lower()]


def _mhz(ncu):
    """The SM clock Nsight saw (`sm__cycles_elapsed.avg.per_second`), MHz, or None."""
    return _scaled(ncu, "sm__cycles_elapsed.avg.per_second", {
        "hz": 1e-6, "khz": 1e-3, "mhz": 1.0, "ghz": 1e3, "cycle/second": 1e-6, "cycle/nsecond": 1e3,
        "cycle/usecond": 1.0})


def _gpu_us(ncu):
    """The launch's GPU time (`gpu__time_duration.sum`), us, or None."""
    return _scaled(ncu, "gpu__time_duration.sum", {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0,
                                                   "ms": 1e3, "msecond": 1e3})


def _plan(stage_dir):
    """The rows of STAGE/plan.tsv: (folder, kernel name, record file, config, shape)."""
    with open(os.path.join(stage_dir, "plan.tsv")) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def _tensor_share(ncu):
    """The tensor pipe's busy share of the elapsed cycles (0-1), from whichever Hopper tensor metric was read."""
    for key, (value, unit) in ncu.items():
        if "pipe_tensor" in key and key.endswith("pct_of_peak_sustained_elapsed"):
            return value / 100.0
    return None


@functools.lru_cache(maxsize=None)
def _trace_file(path):
    """Trace file `path`, read once per run."""
    with open(path) as f:
        return json.load(f)


def _record(path, config, shape):
    """The record of trace file `path` with this config and shape (stage's names), or None."""
    return next((r for r in _trace_file(path).get("records", [])
                 if r.get("config") == config and _shape(r) == shape), None)


def compare(args):
    """Prints the hardware's and the model's cycles per staged launch, and per kernel the median error; with the
    record's time, the clock the timed launches ran at (Nsight's cycles over the record's time), the model's clock
    and the record's sampled mean clock (nvidia-smi)."""
    hw = _ncu_rows(args.csv)
    per_kernel = {}
    print(f"{'launch':58s} {'hw kcyc':>9s} {'MHz':>5s} {'model kcyc':>10s} {'cycles err':>10s} "
          f"{'tensor hw':>9s} {'model':>6s} {'timed MHz':>9s} {'model':>5s} {'smi':>5s}")
    for folder, kernel, path, config, shape in _plan(args.stage):
        got = hw.get(folder)
        if not got or "sm__cycles_elapsed.max" not in got:
            print(f"{folder:58s} (no Nsight row)")
            continue
        cycles = got["sm__cycles_elapsed.max"][0]
        mhz = _mhz(got) or 0
        rec = _record(path, config, shape) or {}
        timed_mhz = cycles / rec["measured_us"] if rec.get("measured_us") else None
        smi = (rec.get("sm_clock_mhz") or {}).get("mean")
        proc = subprocess.run([args.tlx_sim, "predict", os.path.join(args.stage, folder), "--model", args.model,
                               "--json"], capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"{folder:58s} predict failed: {proc.stderr.strip()[:120]}")
            continue
        pred = json.loads(proc.stdout)
        model_cycles = pred["cycles"]
        err = model_cycles / cycles - 1
        model_tensor = next((u["utilization"] for u in pred.get("units", []) if u.get("name") == "tensor core"), None)
        hw_tensor = _tensor_share(got)
        spills = any("spills registers" in str(w) for w in pred.get("warnings", []))
        if not spills:  # local-memory traffic is not modeled: listed, left out of the medians (as xcheck does)
            per_kernel.setdefault(os.path.basename(path)[:-5], []).append(err)
        print(f"{folder:58s} {cycles / 1e3:9.1f} {mhz:5.0f} {model_cycles / 1e3:10.1f} {100 * err:+9.1f}% "
              f"{'' if hw_tensor is None else f'{100 * hw_tensor:8.1f}%'} "
              f"{'' if model_tensor is None else f'{100 * model_tensor:5.1f}%'} "
              f"{'' if timed_mhz is None else f'{timed_mhz:9.0f}'} {pred.get('clock_mhz', 0):5.0f} "
              f"{'' if smi is None else f'{smi:5.0f}'}{' [spills]' if spills else ''}")
    print("\nper kernel: median cycles error (model / hardware - 1; binaries that spill left out)")
    for kernel, errs in sorted(per_kernel.items()):
        print(f"  {kernel:48s} {len(errs):3d}  {100 * statistics.median(errs):+6.1f} %")


def annotate(args):
    """Adds `ncu` {cycles, clock_mhz, tool, date, source} to each record with a Nsight row; rewrites the trace files."""
    hw = _ncu_rows(args.csv)
    by_file = {}
    for folder, kernel, path, config, shape in _plan(args.stage):
        got = hw.get(folder, {})
        if "sm__cycles_elapsed.max" in got:
            by_file.setdefault(path, {})[(config, shape)] = got
    done, skipped = 0, 0
    for path, rows in sorted(by_file.items()):
        with open(path) as f:
            text = f.read()
        doc = json.loads(text)
        compact = dump_json(doc) == text  # record.py's spelling (the runner's is llvm::json's, indent 2)
        for rec in doc.get("records", []):
            got = rows.get((rec.get("config"), _shape(rec)))
            if not got:
                continue
            # the profiled launch must be the record's: its time within 0.5-2x of the record's (the clocks differ)
            ratio = (_gpu_us(got) or 0) / rec["measured_us"]
            if not 0.5 <= ratio <= 2:
                print(f"{path}: {rec['config']} {_shape(rec)}: Nsight's launch took {ratio:.2f}x the record's "
                      f"time: not the same launch? skipped", file=sys.stderr)
                skipped += 1
                continue
            mhz = _mhz(got)
            rec["ncu"] = {"cycles": int(got["sm__cycles_elapsed.max"][0]),
                          "clock_mhz": None if mhz is None else round(mhz, 1),
                          "tool": args.tool, "date": args.date, "source": args.source}
            done += 1
        # record.py's dump_json where the file is in it; else indent 2, as the runner writes (floats in Python's
        # shortest spelling, which may differ from the runner's in the last digits but not in value)
        with open(path, "w") as f:
            f.write(dump_json(doc) if compact else json.dumps(doc, indent=2) + "\n")
    print(f"annotated {done} records in {len(by_file)} files, {skipped} skipped")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("stage", help="copy the chosen records' captures and launches")
    s.add_argument("traces", nargs="+", help="trace folders (traces/<gpu>, traces/<gpu>/tlx)")
    s.add_argument("-o", "--out", required=True)
    s.add_argument("--per-config", type=int, choices=(0, 1, 2), default=2, help="0: every record")
    c = sub.add_parser("compare", help="the model's cycles against Nsight's")
    c.add_argument("stage")
    c.add_argument("csv")
    c.add_argument("--model", required=True)
    c.add_argument("--tlx-sim", default="build/tools/tlx-sim")
    a = sub.add_parser("annotate", help="write the measured cycles into the records")
    a.add_argument("stage")
    a.add_argument("csv")
    a.add_argument("--tool", required=True, help="e.g. 'Nsight Compute 2025.3.1, --clock-control none'")
    a.add_argument("--date", required=True)
    a.add_argument("--source", default="", help="where the CSV is kept (e.g. traces/h100-sxm/ncu/...)")
    args = p.parse_args(argv)
    return {"stage": stage, "compare": compare, "annotate": annotate}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
