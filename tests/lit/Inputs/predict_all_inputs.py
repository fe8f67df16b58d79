"""Every captured kernel predicts on its default GPU model with no unknown-op warning.

usage: predict_all_inputs.py TLX_SIM INPUT_ROOT [--min N]
For each INPUT_ROOT/**/launch.json: `tlx-sim predict KERNEL.ttgir --launch launch.json --json`
(the model follows the module's ttg.target) must print no "has no simulator semantics"
warning and exit 0 with a positive time, or exit 1 with findings (the seeded-bug variants and
kernels the verifier flags still simulate every op). Prints "ok: N inputs predicted (models:
...)" or one FAIL line per problem.
"""
import json
import pathlib
import subprocess
import sys

tlx_sim, root = sys.argv[1], pathlib.Path(sys.argv[2])
minimum = int(sys.argv[sys.argv.index("--min") + 1]) if "--min" in sys.argv else 1
launches = sorted(root.rglob("launch.json"))
failures, models = [], set()
if len(launches) < minimum:
    failures.append(f"FAIL: {len(launches)} inputs under {root}, expected at least {minimum}")
for launch in launches:
    kernels = sorted(launch.parent.glob("*.ttgir"))
    if len(kernels) != 1:
        failures.append(f"FAIL {launch.parent}: expected one .ttgir, found {len(kernels)}")
        continue
    run = subprocess.run([tlx_sim, "predict", str(kernels[0]), "--launch", str(launch), "--json"],
                         capture_output=True, text=True)
    output = run.stdout + run.stderr
    if "has no simulator semantics" in output:
        lines = [l for l in output.splitlines() if "has no simulator semantics" in l]
        failures.append(f"FAIL {launch.parent}: {lines[0]}")
    if run.returncode == 0:
        result = json.loads(run.stdout)
        models.add(result["model"])
        if not result["time_us"] > 0:
            failures.append(f"FAIL {launch.parent}: time_us {result['time_us']}")
    elif run.returncode != 1:
        failures.append(f"FAIL {launch.parent}: exit {run.returncode}: {run.stderr[:300]}")
for line in failures:
    print(line)
print(f"{'ok' if not failures else 'failed'}: {len(launches)} inputs predicted (models: {', '.join(sorted(models))})")
