"""Every TLX tutorial capture under a root is clean and gets a time (issue 15).

usage: check_tlx_captures.py TLX_SIM ROOT [--min N] [--skip REL]... [-- CHECK_OPTIONS...]
For each ROOT/<tutorial>/<config>/launch.json: `tlx-sim check KERNEL.ttgir --launch launch.json --schedules 4`
(proofs on; CHECK_OPTIONS appended) must exit 0 with "no findings", and `tlx-sim predict ... --json` must exit 0 with
a positive time; neither may print a "has no simulator semantics" or "unsupported" warning. --skip leaves out a
capture (path relative to ROOT) that another op family still lacks; it is printed. Prints "ok: N captures" or one
FAIL line per problem.
"""
import json
import pathlib
import subprocess
import sys

argv = sys.argv[1:]
extra = argv[argv.index("--") + 1:] if "--" in argv else []
argv = argv[:argv.index("--")] if "--" in argv else argv
tlx_sim, root = argv[0], pathlib.Path(argv[1])
minimum = int(argv[argv.index("--min") + 1]) if "--min" in argv else 1
skipped = {a for i, a in enumerate(argv) if i and argv[i - 1] == "--skip"}
launches = sorted(root.rglob("launch.json"))
failures, done = [], 0
if len(launches) < minimum:
    failures.append(f"FAIL: {len(launches)} captures under {root}, expected at least {minimum}")
for launch in launches:
    rel = str(launch.parent.relative_to(root))
    if rel in skipped:
        print(f"skipped: {rel}")
        continue
    kernels = sorted(launch.parent.glob("*.ttgir"))
    if len(kernels) != 1:
        failures.append(f"FAIL {rel}: expected one .ttgir, found {len(kernels)}")
        continue
    base = [str(kernels[0]), "--launch", str(launch)]
    check = subprocess.run([tlx_sim, "check", *base, "--schedules", "4", *extra], capture_output=True, text=True)
    predict = subprocess.run([tlx_sim, "predict", *base, "--json"], capture_output=True, text=True)
    for name, run in (("check", check), ("predict", predict)):
        out = run.stdout + run.stderr
        bad = [l for l in out.splitlines() if "has no simulator semantics" in l or "unsupported" in l.lower()]
        if bad:
            failures.append(f"FAIL {rel}: {name}: {bad[0]}")
        if run.returncode != 0:
            first = next((l for l in out.splitlines() if "error" in l), out[:300])
            failures.append(f"FAIL {rel}: {name} exit {run.returncode}: {first}")
    if predict.returncode == 0 and not json.loads(predict.stdout)["time_us"] > 0:
        failures.append(f"FAIL {rel}: time_us {json.loads(predict.stdout)['time_us']}")
    if check.returncode == 0 and "no findings" not in check.stdout:
        failures.append(f"FAIL {rel}: check: {check.stdout[:200]}")
    done += 1
for line in failures:
    print(line)
print(f"{'ok' if not failures else 'failed'}: {done} captures")
