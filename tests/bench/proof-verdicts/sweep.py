"""Issue 16 sweep: every correct kernel of the project under `check --schedules 16 --max-ctas 2 --proofs --json`.

usage: sweep.py TLX_SIM OUT.json [--jobs N] [--only SUBSTRING]...
Correct kernels: every tests/inputs/**/launch.json capture (one .ttgir) whose config name has no `_bug_`, less
KNOWN_BUGS (captures with a real, documented kernel bug, asserted in the lit tests named there). Runs from the
repository root with the accepted-findings baseline (tests/lit/bugs/accepted_findings.json), as
tests/lit/Inputs/check_schedules.py does. Per kernel it records the exit code, the findings (class, schedule,
location), the proof verdicts (property, barrier, verdict, bound, seconds, the counterexample's params), the Z3
time (the sum of the verdicts' seconds, which is what text mode's "s of Z3" reports) and the wall time. Prints one
line per kernel as it finishes, then a summary; OUT.json holds everything (summary.py reads it).
"""
import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[3]
# capture folder (relative to tests/inputs) -> where its real bug is asserted
KNOWN_BUGS = {
    "tlx/amd-gfx950/gfx9_gemm_a16w16_v5_local_prefetch/default": "tests/lit/bugs/tlx_amd_local_prefetch.test",
    "tlx/amd-gfx950/gfx9_gemm_a16w16_v6_loop_unroll/default": "tests/lit/bugs/tlx_amd_local_prefetch.test",
    "tlx/blackwell/blackwell_gemm_pipelined/bn128_bk128_s2": "tests/lit/tlx_blackwell.test (K = 0)",
    "tlx/blackwell/blackwell_gemm_pipelined/bn256_bk64_s4": "tests/lit/tlx_blackwell.test (K = 0)",
    "tlx/blackwell/blackwell-grouped-gemm_test/bn256_bk128_s3_sub4": "tests/lit/tlx_blackwell.test (smem refused)",
    "tlx/blackwell/blackwell-triton-addmm-2cta_test/default": "tests/lit/tlx_blackwell.test (undecided 2-CTA race)",
    "tlx/hopper/hopper_gemm_ws/bn128_s3_cta2": "tests/lit/bugs/tlx_cluster_tile_count.test (uneven cluster tiles)",
}


def kernels(only):
    inputs = REPO / "tests/inputs"
    out = []
    for launch in sorted(inputs.rglob("launch.json")):
        rel = str(launch.parent.relative_to(inputs))
        ttgir = sorted(launch.parent.glob("*.ttgir"))
        if "_bug_" in launch.parent.name or rel in KNOWN_BUGS or len(ttgir) != 1:
            continue
        if only and not any(s in rel for s in only):
            continue
        out.append((rel, ttgir[0], launch))
    return out


def run_one(tlx_sim, item):
    rel, ttgir, launch = item
    cmd = ["nice", "-n", "10", tlx_sim, "check", str(ttgir), "--launch", str(launch), "--schedules", "16",
           "--max-ctas", "2", "--proofs", "--json", "--baseline", str(REPO / "tests/lit/bugs/accepted_findings.json")]
    t0 = time.time()
    run = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    wall = time.time() - t0
    rec = {"exit": run.returncode, "wall_s": round(wall, 2)}
    try:
        j = json.loads(run.stdout)
    except ValueError:
        rec["error"] = (run.stderr or run.stdout)[:400]
        return rel, rec
    rec["findings"] = [{"class": f.get("class"), "schedule": f.get("schedule"), "location": f.get("location"),
                        "message": f.get("message", "")[:300]} for f in j.get("findings", [])]
    proofs = []
    for p in j.get("proofs", []):
        e = {k: p.get(k) for k in ("property", "barrier", "verdict", "bound", "seconds", "location")}
        if isinstance(p.get("witness"), dict):
            e["params"] = p["witness"].get("params")
            e["replay"] = str(p["witness"].get("replay", ""))[:300]
        elif p.get("verdict") in ("bounded", "timeout"):  # why it is not proved
            e.update({k: p[k] for k in ("limit", "reason") if p.get(k)})
            e["witness"] = str(p.get("witness", ""))[:400]
        proofs.append(e)
    rec["proofs"] = proofs
    rec["proof_notes"] = j.get("proof_notes", [])
    rec["rlimit_units"] = j.get("proof_rlimit_units")
    # the kernel's Z3 time (the per-property seconds leave out the shared BMC); older binaries: their sum
    rec["z3_s"] = j.get("proof_z3_seconds", round(sum(p.get("seconds") or 0 for p in proofs), 3))
    return rel, rec


def main():
    tlx_sim, out = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    jobs = int(args[args.index("--jobs") + 1]) if "--jobs" in args else 2
    only = [args[i + 1] for i, a in enumerate(args) if a == "--only"]
    todo = kernels(only)
    results = {}
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for rel, rec in pool.map(lambda item: run_one(tlx_sim, item), todo):
            results[rel] = rec
            verdicts = {}
            for p in rec.get("proofs", []):
                verdicts[p["verdict"]] = verdicts.get(p["verdict"], 0) + 1
            print(f"{rel}: exit {rec['exit']} findings {len(rec.get('findings', []))} verdicts {verdicts} "
                  f"z3 {rec.get('z3_s')} s wall {rec['wall_s']} s {rec.get('error', '')[:200]}", flush=True)
    json.dump({"command": "check --schedules 16 --max-ctas 2 --proofs --json --baseline accepted_findings.json",
               "known_bugs_skipped": KNOWN_BUGS, "total_wall_s": round(time.time() - t0, 1), "kernels": results},
              open(out, "w"), indent=1, sort_keys=True)
    dirty = [r for r, rec in results.items() if rec["exit"] != 0]
    print(f"{len(results)} kernels, {len(dirty)} not clean: {dirty}")


if __name__ == "__main__":
    main()
