"""Every correct captured kernel is clean under `tlx-sim check --schedules N`.

usage: check_schedules.py TLX_SIM INPUT_ROOT [--schedules N] [--max-ctas M] [--baseline FILE] [--exclude DIR]...
Correct = every capture folder under INPUT_ROOT whose config name has no `_bug_` (kernels/README.md).
`--baseline` passes a baseline of accepted findings (each justified where the file is written).
Each must exit 0 with no finding; prints "ok: K kernels clean under N schedules" or one FAIL line per kernel.
"""
import concurrent.futures
import json
import pathlib
import subprocess
import sys

tlx_sim, root = sys.argv[1], pathlib.Path(sys.argv[2])
schedules = sys.argv[sys.argv.index("--schedules") + 1] if "--schedules" in sys.argv else "16"
max_ctas = sys.argv[sys.argv.index("--max-ctas") + 1] if "--max-ctas" in sys.argv else "2"
repo = root.resolve().parent.parent  # INPUT_ROOT is <repo>/tests/inputs
baseline = ["--baseline", str(pathlib.Path(sys.argv[sys.argv.index("--baseline") + 1]).resolve())] if "--baseline" in sys.argv else []
# --exclude DIR (repeatable): leave out INPUT_ROOT/DIR (tests/inputs/tlx: TLX's tutorials, captured as they are
# with fbtriton, are left out until the TTGIR reader covers them; issue 15).
excluded = {a for i, a in enumerate(sys.argv) if i and sys.argv[i - 1] == "--exclude"}


def _kept(path):
    rel = pathlib.Path(path).resolve().relative_to(pathlib.Path(root).resolve()).parts
    return not (rel and rel[0] in excluded)


inputs = sorted(p for p in root.rglob("*.ttgir") if _kept(p) and "_bug_" not in p.parent.name and (p.parent / "launch.json").exists())


def check(path):
    # from the repository root: captured locations are repository-relative, and baseline fingerprints read the
    # source line they point at
    run = subprocess.run([tlx_sim, "check", str(path.resolve()), "--launch", str((path.parent / "launch.json").resolve()),
                          "--schedules", schedules, "--max-ctas", max_ctas, "--json"] + baseline,
                         capture_output=True, text=True, cwd=repo)
    if run.returncode != 0:
        try:
            found = [f"{f['class']} ({f['schedule']}) at {f['location']}" for f in json.loads(run.stdout)["findings"]]
        except (ValueError, KeyError):
            found = [run.stderr[:300]]
        return f"FAIL {path}: exit {run.returncode}: {'; '.join(found)[:600]}"
    return None


with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    failures = [r for r in pool.map(check, inputs) if r]
for line in failures:
    print(line)
print(f"{'ok' if not failures else 'failed'}: {len(inputs)} kernels clean under {schedules} schedules" if not failures
      else f"failed: {len(failures)} of {len(inputs)} kernels")
sys.exit(1 if failures or not inputs else 0)
