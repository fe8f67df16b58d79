"""ctest `report-chromium`: render `tlx-sim report` pages in headless Chromium (Debian's `chromium`).

Writes under OUT_DIR (build/tests/report/, kept as test artifacts): ws_gemm_s3.html and .png (a clean WS GEMM,
two waves), ws_gemm_bug_expect_bytes.html and .png (a deadlock: findings instead of a time). Each must render
with no console error and no request but the page itself, and a non-blank screenshot (check_report.py).
A control page with a script error in an onload handler must be rejected, so the check can fail.
Exit 77 (skipped) when Chromium is not installed.

Usage: python3 test_report_chromium.py TLX_SIM SOURCE_DIR OUT_DIR
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main(tlx_sim, source, out):
    os.makedirs(out, exist_ok=True)
    inputs = os.path.join(source, "tests", "inputs", "hopper", "ws_gemm")
    pages = [("ws_gemm_s3", "s3", ["--max-ctas", "264"], 0,
              ["predicted time", "slot 0 default", "ready: wait durations", "clock_max_mhz"]),
             ("ws_gemm_bug_expect_bytes", "s3_bug_expect_bytes", ["--max-ctas", "1"], 1,
              ["No time predicted", "tx-count", "deadlock", "(never released)"])]
    for name, config, extra, code, expects in pages:
        cdir = os.path.join(inputs, config)
        html = os.path.join(out, name + ".html")
        run = subprocess.run([tlx_sim, "report", os.path.join(cdir, "ws_gemm_kernel.ttgir"), "--launch",
                              os.path.join(cdir, "launch.json"), *extra, "-o", html], capture_output=True, text=True)
        if run.returncode != code:
            print(f"FAIL: report of {config} exited {run.returncode}, expected {code}: {run.stderr}")
            return 1
        check = [sys.executable, os.path.join(HERE, "check_report.py"), html, "--screenshot",
                 os.path.join(out, name + ".png")]
        for text in expects:
            check += ["--expect", text]
        result = subprocess.run(check, capture_output=True, text=True)
        print(f"{name}: {result.stdout.strip()}")
        if result.returncode == 77:
            return 77
        if result.returncode != 0:
            return 1
    control = os.path.join(out, "control_script_error.html")
    with open(control, "w") as f:
        f.write("<!DOCTYPE html><html><body onload=\"noSuchFunction()\"><h1>control</h1>"
                "<p>a page whose onload handler throws</p></body></html>\n")
    result = subprocess.run([sys.executable, os.path.join(HERE, "check_report.py"), control, "--screenshot",
                             os.path.join(out, "control_script_error.png")], capture_output=True, text=True)
    print(f"control: {result.stdout.strip()}")
    if result.returncode != 1 or "noSuchFunction" not in result.stdout:
        print("FAIL: the check did not reject a page with a script error")
        return 1
    print("report-chromium: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
