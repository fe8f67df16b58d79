"""Every captured TLX tutorial config of the given targets checks clean and predicts a time.

usage: check_tlx_inputs.py TLX_SIM TLX_ROOT TARGET_DIR... [--min N] [--max-ctas N]
For each TLX_ROOT/TARGET_DIR/<tutorial>/<config>/launch.json: `tlx-sim check KERNEL.ttgir --launch
launch.json --schedules 4 --max-ctas N` must exit 0 ("no findings") with no "has no simulator semantics" or
"unsupported" line, and `tlx-sim predict ... --json` must exit 0 with a positive time. Prints one FAIL line per
problem, then "ok: N configs checked and predicted (TARGETS)" or "failed: ...".
"""
import json
import pathlib
import subprocess
import sys

args = sys.argv[1:]
minimum = int(args[args.index("--min") + 1]) if "--min" in args else 1
max_ctas = args[args.index("--max-ctas") + 1] if "--max-ctas" in args else "2"
positional = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or not args[i - 1].startswith("--"))]
tlx_sim, root, targets = positional[0], pathlib.Path(positional[1]), positional[2:]
launches = sorted(p for t in targets for p in (root / t).glob("*/*/launch.json"))
failures = []
if len(launches) < minimum:
    failures.append(f"FAIL: {len(launches)} configs under {root} {targets}, expected at least {minimum}")
for launch in launches:
    where = launch.parent.relative_to(root)
    kernels = sorted(launch.parent.glob("*.ttgir"))
    if len(kernels) != 1:
        failures.append(f"FAIL {where}: expected one .ttgir, found {len(kernels)}")
        continue
    common = [str(kernels[0]), "--launch", str(launch), "--max-ctas", max_ctas]
    check = subprocess.run([tlx_sim, "check", *common, "--schedules", "4"], capture_output=True, text=True)
    output = check.stdout + check.stderr
    bad = [l for l in output.splitlines() if "has no simulator semantics" in l or "unsupported" in l]
    if bad:
        failures.append(f"FAIL {where}: {bad[0][:300]}")
    if check.returncode != 0:
        lines = [l for l in output.splitlines() if "error" in l] or output.splitlines()[-1:]
        failures.append(f"FAIL {where}: check exit {check.returncode}: {(lines[0] if lines else '')[:300]}")
    predict = subprocess.run([tlx_sim, "predict", *common, "--json"], capture_output=True, text=True)
    if predict.returncode != 0:
        failures.append(f"FAIL {where}: predict exit {predict.returncode}: {predict.stderr[:300]}")
    elif not json.loads(predict.stdout)["time_us"] > 0:
        failures.append(f"FAIL {where}: predict time_us {json.loads(predict.stdout)['time_us']}")
for line in failures:
    print(line)
print(f"{'ok' if not failures else 'failed'}: {len(launches)} configs checked and predicted ({', '.join(targets)})")
