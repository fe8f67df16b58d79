"""The Python API (tlx_sim.check / tlx_sim.predict / tlx_sim.capture_launch) on the project's kernels, no GPU.

Asserts:
  * a Gluon launch with stand-in descriptors compiles to the same TTGIR (locations made repository-relative) and
    the same launch spec as the committed capture tests/inputs/hopper/ws_gemm/s3, i.e. the JIT's specialization;
  * predict on it gives the same cycles as `tlx-sim predict` on the committed capture;
  * check on the seeded expect-bytes bug reports tx-count and deadlock at the seeded Python line;
  * plain @triton.jit kernels over host TMA descriptors and over pointers (stand-in tensors) predict cleanly;
  * TLX_SIM selects the binary, a bad one is a ToolError;
  * `pip install ./python` into a fresh virtual environment gives a working `import tlx_sim` and
    `tlx-sim-sweep` entry point (skipped with --no-pip).
Prints one line per check and `N passed, M failed`.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "python"), str(ROOT)]

import tlx_sim  # noqa: E402
from tlx_sim import api  # noqa: E402
from tlx_sim import kernel_module as kmod  # noqa: E402

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'ok' if ok else 'FAIL'}: {name}" + ("" if ok else f": {detail}"))


def positional(kernel, spec, stand_ins):
    """The kernel's non-constexpr arguments in order, from a module launch spec (descs, ptrs, args)."""
    out = []
    for p in kernel.params:
        if p.is_constexpr:
            continue
        out.append(stand_ins[p.name] if p.name in stand_ins else spec["args"][p.name])
    return out


def stand_ins_of(spec):
    values = {}
    for name, d in spec["descs"].items():
        values[name] = tlx_sim.desc(d["shape"], d["block"], d["dtype"], d["strides"], d.get("layout"))
    for name, p in spec.get("ptrs", {}).items():
        values[name] = tlx_sim.tensor(p["shape"], p["dtype"])
    return values


def main():
    km = kmod.load_module(str(ROOT / "kernels/hopper/ws_gemm.py"))
    shape = km.default_shape
    spec = km.launch("s3", shape)
    args = positional(km.kernel, spec, stand_ins_of(spec))
    constexprs = km.constexprs("s3")

    cdir = tlx_sim.capture_launch(km.kernel, tuple(spec["grid"]), *args, num_warps=km.num_warps, **constexprs)
    committed = ROOT / "tests/inputs/hopper/ws_gemm/s3"
    ours = kmod.rewrite_ttgir_paths((cdir / "ws_gemm_kernel.ttgir").read_text(), ROOT)
    check("capture_launch: the TTGIR equals the committed capture", ours == (committed / "ws_gemm_kernel.ttgir").read_text())
    mine, theirs = json.loads((cdir / "launch.json").read_text()), json.loads((committed / "launch.json").read_text())
    same = all(mine[k] == theirs[k] for k in ("grid", "args", "constexprs", "signature", "num_warps")) and \
        {n: {k: d[k] for k in ("shape", "strides", "block", "dtype")} for n, d in mine["descs"].items()} == \
        {n: {k: d[k] for k in ("shape", "strides", "block", "dtype")} for n, d in theirs["descs"].items()}
    check("capture_launch: launch.json equals the committed one", same, f"{mine} vs {theirs}")

    r = tlx_sim.predict(km.kernel, tuple(spec["grid"]), *args, num_warps=km.num_warps, max_ctas=132, **constexprs)
    direct = api.run_tool("predict", committed / "ws_gemm_kernel.ttgir", committed / "launch.json", max_ctas=132)
    check("predict: same cycles as tlx-sim on the committed capture",
          r.exit_code == 0 and r.cycles == direct.cycles and r.time_us > 0 and r.bound == direct.bound,
          f"{r.cycles} vs {direct.cycles}")
    check("predict: Result fields", r.clean and r["kernel"] == "ws_gemm_kernel" and 0 < r.tflops < 1000 and
          r.capture is not None and (r.capture / "launch.json").is_file())

    bug = dict(constexprs, BUG=1)
    c = tlx_sim.check(km.kernel, tuple(spec["grid"]), *args, num_warps=km.num_warps, max_ctas=1, **bug)
    line = next(i for i, text in enumerate((ROOT / "kernels/hopper/ws_gemm.py").read_text().splitlines(), 1)
                if "# BUG: expect-bytes:" in text)
    classes = [f["class"] for f in c.findings]
    check("check: the seeded expect-bytes bug", c.exit_code == 1 and not c.clean and classes == ["tx-count", "deadlock"]
          and c.findings[0]["location"]["line"] == line and c.findings[0]["location"]["file"].endswith(
              "kernels/hopper/ws_gemm.py"), f"{classes} {c.findings[:1]}")
    ok = tlx_sim.check(km.kernel, tuple(spec["grid"]), *args, num_warps=km.num_warps, max_ctas=2, **constexprs)
    check("check: the correct kernel is clean", ok.clean and ok.findings == [], ok.findings)

    for module, config in (("kernels/triton/tma_gemm.py", "s3"), ("kernels/triton/gemm.py", "s3")):
        tk = kmod.load_module(str(ROOT / module))
        tspec = tk.launch(config, {**tk.default_shape, "M": 1024, "N": 1024, "K": 1024})
        targs = positional(tk.kernel, tspec, stand_ins_of(tspec))
        tr = tlx_sim.predict(tk.kernel, tuple(tspec["grid"]), *targs, num_warps=tk.num_warps, max_ctas=8,
                             **tk.constexprs(config), **tk.launch_options(config))
        check(f"predict: {module} ({'pointers' if tspec.get('ptrs') else 'TMA descriptors'})",
              tr.clean and tr.time_us > 0, tr.data)

    os.environ["TLX_SIM"] = "/nonexistent/tlx-sim"
    try:
        tlx_sim.find_tlx_sim()
        check("TLX_SIM: a bad path is an error", False)
    except tlx_sim.ToolError as err:
        check("TLX_SIM: a bad path is an error", "TLX_SIM" in str(err))
    os.environ["TLX_SIM"] = str(ROOT / "build/tools/tlx-sim")
    check("TLX_SIM: selects the binary", tlx_sim.find_tlx_sim() == str(ROOT / "build/tools/tlx-sim"))

    if "--no-pip" not in sys.argv:
        with tempfile.TemporaryDirectory(prefix="tlx-sim-venv-") as tmp:
            venv = Path(tmp) / "venv"
            steps = [[sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                     [str(venv / "bin/python"), "-m", "pip", "install", "-q", "--no-deps",
                      str(ROOT / "python")]]
            log = ""
            for step in steps:
                proc = subprocess.run(step, capture_output=True, text=True)
                log += proc.stdout + proc.stderr
                if proc.returncode:
                    break
            probe = subprocess.run([str(venv / "bin/python"), "-c",
                                    "import tlx_sim, tlx_sim.sweep, tlx_sim.capture; print(tlx_sim.__file__)"],
                                   capture_output=True, text=True, cwd=tmp, env={**os.environ, "PYTHONPATH": ""})
            check("pip install ./python: import tlx_sim from the venv", probe.returncode == 0 and
                  str(venv) in probe.stdout, log + probe.stdout + probe.stderr)
            entry = subprocess.run([str(venv / "bin/tlx-sim-sweep"), "--help"], capture_output=True, text=True)
            check("pip install ./python: the tlx-sim-sweep entry point", entry.returncode == 0 and
                  "--param" in entry.stdout, entry.stderr)

    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
