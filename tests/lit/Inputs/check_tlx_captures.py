"""Every TLX tutorial capture under the given roots is clean and gets a time (issue 15).

usage: check_tlx_captures.py TLX_SIM ROOT... [--min N] [--skip REL]... [--max-ctas N] [-- CHECK_OPTIONS...]
For each ROOT/<tutorial>/<config>/launch.json: `tlx-sim check KERNEL.ttgir --launch launch.json --schedules 4`
(--max-ctas and CHECK_OPTIONS appended; lit sets TLXSIM_NO_PROOFS=1, so pass `-- --proofs` for the Z3 proofs) must exit 0 with "no findings", and `tlx-sim predict ... --json`
must exit 0 with a positive time; neither may print a "has no simulator semantics" or "unsupported" warning. --skip
leaves out a capture (ROOT's last folder / tutorial / config, e.g. blackwell/blackwell_gemm_ws/default) that another
op family still lacks; it is printed. Prints one FAIL line per problem, then "ok: N captures" or "failed: N
captures". Captures run in parallel, one per core.
"""
import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys


def parse(argv):
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    valued = {"--min", "--skip", "--max-ctas"}
    positional = [a for i, a in enumerate(argv) if not a.startswith("--") and (i == 0 or argv[i - 1] not in valued)]
    options = {}
    for i, a in enumerate(argv[:-1]):
        if a in valued:
            options.setdefault(a, []).append(argv[i + 1])
    if "--max-ctas" in options:
        extra = ["--max-ctas", options["--max-ctas"][-1], *extra]
    return positional[0], [pathlib.Path(p) for p in positional[1:]], options, extra


def check_one(tlx_sim, root, launch, extra):
    """The FAIL lines of one capture (empty when it is clean and predicted)."""
    rel = f"{root.name}/{launch.parent.relative_to(root)}"
    kernels = sorted(launch.parent.glob("*.ttgir"))
    if len(kernels) != 1:
        return [f"FAIL {rel}: expected one .ttgir, found {len(kernels)}"]
    base = [str(kernels[0]), "--launch", str(launch)]
    check = subprocess.run([tlx_sim, "check", *base, "--schedules", "4", *extra], capture_output=True, text=True)
    predict = subprocess.run([tlx_sim, "predict", *base, "--json"], capture_output=True, text=True)
    failures = []
    for name, run in (("check", check), ("predict", predict)):
        out = run.stdout + run.stderr
        bad = [l for l in out.splitlines() if "has no simulator semantics" in l or "unsupported" in l.lower()]
        if bad:
            failures.append(f"FAIL {rel}: {name}: {bad[0][:300]}")
        if run.returncode != 0:
            first = next((l for l in out.splitlines() if "error" in l), out[:300])
            failures.append(f"FAIL {rel}: {name} exit {run.returncode}: {first[:300]}")
    if predict.returncode == 0 and not json.loads(predict.stdout)["time_us"] > 0:
        failures.append(f"FAIL {rel}: time_us {json.loads(predict.stdout)['time_us']}")
    if check.returncode == 0 and "no findings" not in check.stdout:
        failures.append(f"FAIL {rel}: check: {check.stdout[:200]}")
    return failures


def main():
    tlx_sim, roots, options, extra = parse(sys.argv[1:])
    minimum = int(options.get("--min", ["1"])[-1])
    skipped = set(options.get("--skip", []))
    launches = [(root, p) for root in roots for p in sorted(root.glob("*/*/launch.json"))]
    failures = []
    if len(launches) < minimum:
        failures.append(f"FAIL: {len(launches)} captures under {[str(r) for r in roots]}, expected at least {minimum}")
    todo = []
    for root, launch in launches:
        rel = f"{root.name}/{launch.parent.relative_to(root)}"
        if rel in skipped:
            print(f"skipped: {rel}")
        else:
            todo.append((root, launch))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for lines in pool.map(lambda item: check_one(tlx_sim, item[0], item[1], extra), todo):
            failures.extend(lines)
    for line in failures:
        print(line)
    print(f"{'ok' if not failures else 'failed'}: {len(todo)} captures")


main()
