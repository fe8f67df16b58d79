"""End-to-end physics of `predict` on the warp-specialized GEMMs.

usage: check_physics.py TLX_SIM INPUT_ROOT
1. More stages are never slower where the producer limits: ws_gemm and persistent_ws_gemm,
   s2 >= s3 >= s4 in predicted time at 8192^3 (full grid).
2. Time grows linearly with K for large K: ws_gemm s3 on the first 264 CTAs (two waves) at
   K = 4096, 8192, 16384: the increment from 8192 to 16384 is twice the one from 4096 to 8192
   within 10 %.
3. Determinism: the same prediction twice gives byte-identical JSON.
Prints one "ok: ..." line per check or "FAIL: ..." lines.
"""
import json
import pathlib
import subprocess
import sys

tlx_sim, root = sys.argv[1], pathlib.Path(sys.argv[2])


def predict(kernel, config, *extra):
    d = root / "hopper" / kernel / config
    ttgir = next(d.glob("*.ttgir"))
    run = subprocess.run([tlx_sim, "predict", str(ttgir), "--launch", str(d / "launch.json"), "--json", *extra],
                         capture_output=True, text=True)
    if run.returncode != 0:
        print(f"FAIL: {kernel}/{config} {extra}: exit {run.returncode}: {run.stderr[:300]}")
        sys.exit(1)
    return run.stdout


failed = False
for kernel in ("ws_gemm", "persistent_ws_gemm"):
    times = [json.loads(predict(kernel, c))["time_us"] for c in ("s2", "s3", "s4")]
    if not times[0] >= times[1] >= times[2]:
        print(f"FAIL: {kernel}: more stages slower: s2/s3/s4 = {times}")
        failed = True
    else:
        print(f"ok: {kernel} s2 >= s3 >= s4 ({times[0]:.0f} >= {times[1]:.0f} >= {times[2]:.0f} us)")

cycles = []
for k in (4096, 8192, 16384):
    out = predict("ws_gemm", "s3", "--max-ctas", "264", "--arg", f"K={k}", "--desc", f"a_desc=8192x{k}",
                  "--desc", f"b_desc={k}x8192")
    cycles.append(json.loads(out)["cycles"])
ratio = (cycles[2] - cycles[1]) / max(1, cycles[1] - cycles[0])
if abs(ratio - 2) > 0.2:
    print(f"FAIL: time is not linear in K: cycles {cycles}, increment ratio {ratio:.3f} (expected 2)")
    failed = True
else:
    print(f"ok: linear in K (increment ratio {ratio:.2f})")

for kernel, config in (("ws_gemm", "s3"), ("triton_gemm", "s3")):
    a, b = predict(kernel, config, "--max-ctas", "528"), predict(kernel, config, "--max-ctas", "528")
    if a != b:
        print(f"FAIL: {kernel}/{config}: two runs differ")
        failed = True
    else:
        print(f"ok: {kernel}/{config} deterministic")
sys.exit(1 if failed else 0)
