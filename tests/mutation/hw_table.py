"""Join a hardware run of staged mutants with the schedules of `tlx-sim check` that expose them (issue 16).

tools/h200-run-mutants.sh leaves OUT/summary.tsv (folder, runner exit, outcome, median us, mutant id, kind, the
classes of mutations_tlx.json). For every row this runs `tlx-sim check STAGING/FOLDER --max-ctas 2 --schedules N
--json` (no proofs, the accepted-findings baseline as mutate.py uses it) and adds, per finding class, the first
schedule that reports it (`default`, `producer-fast`, `consumer-fast` or `seed-K`: design.md's schedules), then
prints the table (TSV, one header line) and a cross-tabulation of check's verdict against the hardware outcome.

usage (from the repository root: the baseline path is relative to it):
  python3 tests/mutation/hw_table.py TLX_SIM STAGING SUMMARY_TSV [--schedules 16]
"""
import collections
import json
import os
import subprocess
import sys


def exposing(tlx_sim, folder, schedules):
    """{finding class: first schedule naming it} of `tlx-sim check` on the staged capture folder."""
    try:
        proc = subprocess.run([tlx_sim, "check", folder, "--max-ctas", "2", "--schedules", str(schedules), "--json",
                               "--baseline", "tests/lit/bugs/accepted_findings.json"], capture_output=True, text=True,
                              timeout=600, env={**os.environ, "TLXSIM_NO_PROOFS": "1"})
    except subprocess.TimeoutExpired:
        return {"error": "check did not finish within 600 s"}
    try:
        findings = json.loads(proc.stdout)["findings"]
    except (ValueError, KeyError):
        return {"error": proc.stderr.strip().splitlines()[0][:120] if proc.stderr.strip() else f"exit {proc.returncode}"}
    first = {}
    for f in findings:
        first.setdefault(f["class"], f.get("schedule", "?"))
    return first


def verdict(first):
    """check's verdict for the cross-table: deadlock / another error class / clean."""
    if "deadlock" in first:
        return "deadlock"
    return "finding" if first else "clean"


def main():
    tlx_sim, staging, summary = sys.argv[1], sys.argv[2], sys.argv[3]
    schedules = int(sys.argv[sys.argv.index("--schedules") + 1]) if "--schedules" in sys.argv else 16
    print("folder\toutcome\tmedian_us\tmutant\tkind\tcheck (class: first schedule)")
    cross = collections.Counter()
    for line in open(summary):
        fields = line.rstrip("\n").split("\t")
        if len(fields) < 6:  # a blank or cut-off line of an interrupted run
            continue
        folder, _, outcome, us, mid, kind, *_ = fields
        first = exposing(tlx_sim, os.path.join(staging, folder), schedules)
        cells = ", ".join(f"{c}: {s}" for c, s in sorted(first.items())) or "clean"
        print(f"{folder}\t{outcome}\t{us}\t{mid}\t{kind}\t{cells}")
        if mid != "base":
            cross[(verdict(first), outcome)] += 1
    print(f"\n# check (--schedules {schedules}) x hardware outcome, mutants only")
    for (v, o), n in sorted(cross.items()):
        print(f"# {v:9s} {o:13s} {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
