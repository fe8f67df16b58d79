"""Every captured kernel predicts on its default GPU model with no unknown-op warning.

usage: predict_all_inputs.py TLX_SIM INPUT_ROOT MODELS_DIR [--min N] [--exclude DIR]...
For each INPUT_ROOT/**/launch.json: `tlx-sim predict KERNEL.ttgir --launch launch.json --json`
(the model follows the module's ttg.target) must print no "has no simulator semantics"
warning and exit 0 with a positive time, or exit 1 with findings (the seeded-bug variants and
kernels the verifier flags still simulate every op). A predicted time must also respect the
model's peaks: TFLOP/s <= SMs x the largest tensor_flops_per_clk_sm_* x the predicted clock, and
HBM bytes/s <= hbm_bytes_per_s. Prints "ok: N inputs predicted (models:
...)" or one FAIL line per problem.
"""
import json
import pathlib
import subprocess
import sys

tlx_sim, root, models_dir = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
minimum = int(sys.argv[sys.argv.index("--min") + 1]) if "--min" in sys.argv else 1
# --exclude DIR (repeatable): leave out INPUT_ROOT/DIR (tests/inputs/tlx: TLX's tutorials, captured as they are
# with fbtriton, are left out until the TTGIR reader covers them; issue 15).
excluded = {a for i, a in enumerate(sys.argv) if i and sys.argv[i - 1] == "--exclude"}


def _kept(path):
    rel = pathlib.Path(path).resolve().relative_to(pathlib.Path(root).resolve()).parts
    return not (rel and rel[0] in excluded)


launches = sorted(p for p in root.rglob("launch.json") if _kept(p))
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
        params = json.loads((models_dir / f"{result['model']}.json").read_text())["params"]
        per_clk = max(v["value"] for k, v in params.items() if k.startswith("tensor_flops_per_clk_sm_"))
        peak_tflops = params["num_sms"]["value"] * per_clk * result["clock_mhz"] * 1e6 / 1e12
        if result["tflops"] > peak_tflops * (1 + 1e-9):
            failures.append(f"FAIL {launch.parent}: {result['tflops']:.1f} TFLOP/s above the peak {peak_tflops:.1f}")
        if result["bytes_per_s"] > params["hbm_bytes_per_s"]["value"] * (1 + 1e-9):
            failures.append(f"FAIL {launch.parent}: {result['bytes_per_s']:.3g} B/s above the HBM peak")
    elif run.returncode != 1:
        failures.append(f"FAIL {launch.parent}: exit {run.returncode}: {run.stderr[:300]}")
for line in failures:
    print(line)
print(f"{'ok' if not failures else 'failed'}: {len(launches)} inputs predicted (models: {', '.join(sorted(models))})")
