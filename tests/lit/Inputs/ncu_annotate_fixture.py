"""A stage and an Nsight CSV for `tools/ncu_cycles.py annotate` over the xcheck fixture (OUT_DIR/tma_scale.json).

usage: ncu_annotate_fixture.py OUT_DIR
Stages the fixture's records with `stage --per-config 0`, then writes OUT_DIR/ncu.csv: the first staged launch at
its record's time (cycles = 1500 x us), the second at 3x its record's time (another launch: annotate must skip it)."""
import csv
import json
import subprocess
import sys
from pathlib import Path

out = Path(sys.argv[1])
tool = Path(__file__).resolve().parents[3] / "tools/ncu_cycles.py"
subprocess.run([sys.executable, str(tool), "stage", str(out), "-o", str(out / "stage"), "--per-config", "0"],
               check=True, capture_output=True)
plan = [line.split("\t") for line in (out / "stage/plan.tsv").read_text().splitlines()]
doc = json.loads((out / "tma_scale.json").read_text())
with open(out / "ncu.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["folder", "metric", "unit", "value"])
    for (folder, _, _, config, shape), factor in zip(plan[:2], (1, 3)):
        rec = next(r for r in doc["records"]
                   if r["config"] == config and "_".join(f"{k}{v}" for k, v in sorted(r["shape"].items())) == shape)
        us = rec["measured_us"] * factor
        w.writerow([folder, "gpu__time_duration.sum", "ns", f"{us * 1000:.0f}"])
        w.writerow([folder, "sm__cycles_elapsed.max", "cycle", f"{us * 1500:.0f}"])
        w.writerow([folder, "sm__cycles_elapsed.avg.per_second", "hz", "1500000000"])
