"""Report and diff on every captured kernel under tests/inputs (the project's kernels).

For each `<arch>/<kernel>/<config>/launch.json` (first CTAs only, --max-ctas, to stay fast):
  * `tlx-sim report` exits 0 (clean) or 1 (findings: the seeded-bug configs) and writes a page that has the
    summary or the findings, the timeline SVG and the model, and references nothing outside itself;
  * `tlx-sim diff` of each clean config against the kernel's first clean config exits 0.
Prints one line per input and `ok: N inputs, M diffs`; FAIL lines otherwise (exit 1).

Usage: python3 check_all_kernels.py TLX_SIM INPUTS_DIR OUT_DIR
"""
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main(tlx_sim, inputs, out, excluded=()):
    """``excluded``: top-level folders of ``inputs`` left out (``--exclude tlx``: TLX's tutorials, captured with
    fbtriton, until the TTGIR reader covers them; issue 15)."""
    os.makedirs(out, exist_ok=True)
    failures, count, diffs = [], 0, 0
    first_clean = {}
    for root, _, files in sorted(os.walk(inputs)):
        if "launch.json" not in files:
            continue
        if os.path.relpath(root, inputs).split(os.sep)[0] in excluded:
            continue
        ttgir = [f for f in files if f.endswith(".ttgir")]
        if len(ttgir) != 1:
            continue
        count += 1
        start = time.time()
        name = os.path.relpath(root, inputs).replace(os.sep, "_")
        launch = ["--launch", os.path.join(root, "launch.json"), "--max-ctas", "2"]
        src = os.path.join(root, ttgir[0])
        html, pred = (os.path.join(out, f"{name}.{ext}") for ext in ("html", "predict.json"))
        report = subprocess.run([tlx_sim, "report", src, *launch, "-o", html], capture_output=True, text=True)
        if report.returncode not in (0, 1):
            failures.append(f"{name}: report exited {report.returncode}: {report.stderr.strip()[:300]}")
            continue
        page = open(html, encoding="utf-8").read()
        for needed in ("<h2>Summary</h2>", "<svg class=\"timeline\"", "<h2>Model</h2>", "</html>"):
            if needed not in page:
                failures.append(f"{name}: the report lacks {needed}")
        if report.returncode == 0 and "predicted time" not in page:
            failures.append(f"{name}: a clean report without the predicted time")
        if report.returncode == 1 and "class=\"cls\"" not in page:
            failures.append(f"{name}: exit 1 without a finding on the page")
        if re.search(r"<script|<link|<img|src=|href=|url\(|@import", page, re.I):
            failures.append(f"{name}: the report references something outside itself")
        if report.returncode == 0:
            with open(pred, "w") as f:
                p = subprocess.run([tlx_sim, "predict", src, *launch, "--json"], stdout=f, stderr=subprocess.PIPE)
            kernel = os.path.relpath(os.path.dirname(root), inputs)
            if p.returncode == 0:
                base = first_clean.setdefault(kernel, pred)
                d = subprocess.run([tlx_sim, "diff", base, pred], capture_output=True, text=True)
                if d.returncode != 0 or "bound:" not in d.stdout:
                    failures.append(f"{name}: diff exited {d.returncode}: {d.stderr.strip()[:200]}")
                diffs += 1
        print(f"{name}: exit {report.returncode} ({time.time() - start:.1f} s)")
    for f in failures:
        print(f"FAIL: {f}")
    print(f"ok: {count} inputs, {diffs} diffs" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4], excluded={a for i, a in enumerate(sys.argv) if i and sys.argv[i - 1] == "--exclude"}))
