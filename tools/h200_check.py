"""The measuring half of tools/h200-check.sh (issue 9): `tlx-sim run` against tlx_sim/record.py on a GPU.

For every captured sm_90 kernel of tests/inputs/hopper (``*_bug_*`` configs skipped; KERNEL arguments select
folders), in one Python process that imports torch once, back to back (A-B-A, so both recorders see the GPU in
the same thermal state on average):

  A1  ``tlx-sim run CAPTURE --json`` (native: correctness check, then record.py's protocol: 3 do_bench rounds of
      25 ms warm-up + 200 ms of event-timed launches, re-timed up to twice while their CV exceeds 3 %, then
      30 launches timed by CUPTI, L2 flushed before each; ``measured``: median of 3 group medians, us);
  B   ``tlx_sim.record.record_one`` on the same (module, config, shape) (``measured_us``, us);
  A2  the native run again.

The native measurement is the mean of A1 and A2; a capture fails when it did not run, its check did not pass, or
that mean is more than 3 % from B (from the committed traces/h200 record when B is missing or PYTHON=0).
Writes OUT/table.txt (rewritten after every capture, so a run cut short still reports), OUT/results.jsonl (one
line per capture) and the native JSON outputs and logs under WORK. Exit code 0 when every capture passes, 1 when
one fails, 2 for bad usage. No capture is started after H200_CHECK_BUDGET_S (480) seconds; those left are
reported as not run (failing).

Usage (from the repository root; h200-check.sh sets TLXSIM, TLXSIM_CUPTI and PYTHONPATH)::

    python3 tools/h200_check.py OUT WORK [KERNEL ...]
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

NATIVE_ARGS = ["--rounds", "3", "--warmup-ms", "25", "--rep-ms", "200", "--retries", "2", "--max-cv", "0.03",
               "--timer-iters", "30"]
LIMIT = 0.03
BUDGET_S = float(os.environ.get("H200_CHECK_BUDGET_S", "480"))  # no capture is started after this many seconds
T0 = time.time()


def log(msg: str) -> None:
    """A progress line with the seconds since the start."""
    print(f"[{time.time() - T0:6.1f} s] {time.strftime('%H:%M:%S')} {msg}", flush=True)


def captures(filters: list[str]) -> list[Path]:
    """The capture folders tests/inputs/hopper/<kernel>/<config> to run, in order."""
    out = []
    for d in sorted(Path("tests/inputs/hopper").glob("*/*")):
        if "_bug_" in d.name or not (d / "launch.json").is_file():
            continue
        if filters and d.parent.name not in filters:
            continue
        out.append(d)
    return out


def committed_records() -> dict:
    """{(module, config, shape as JSON): measured_us} of the record.py records committed under traces/h200."""
    out = {}
    for path in glob.glob("traces/h200/*.json"):
        try:
            doc = json.load(open(path))
        except (OSError, ValueError):
            continue
        for r in doc.get("records", []) if isinstance(doc, dict) else []:
            if r.get("recorder") != "tlx-sim run" and "measured_us" in r:
                out[(doc.get("module"), r["config"], json.dumps(r["shape"], sort_keys=True))] = r["measured_us"]
    return out


def native(tlxsim: str, capture: Path, work: Path, tag: str, trace: Path) -> dict:
    """One `tlx-sim run --json` of `capture`; {"rc", "out" (parsed JSON or None), "err"}."""
    name = f"{capture.parent.name}-{capture.name}-{tag}"
    cmd = [tlxsim, "run", str(capture), "--json", *NATIVE_ARGS, "--record", str(trace)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=150)
        rc, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as err:
        rc, stdout, stderr = 124, err.stdout or "", f"timed out after 150 s\n{err.stderr or ''}"
        stdout = stdout.decode() if isinstance(stdout, bytes) else stdout
    (work / "native" / f"{name}.json").write_text(stdout)
    (work / "native" / f"{name}.err").write_text(f"{stderr}\nrc={rc}\n")
    try:
        out = json.loads(stdout)
    except ValueError:
        out = None
    return {"rc": rc, "out": out, "err": stderr.strip()}


def cupti_library() -> str | None:
    """The libcupti torch.profiler loads in this process (from /proc/self/maps), else one shipped with the
    Python packages (nvidia cupti wheels, torch/lib, Triton's backend), else None."""
    try:
        import torch
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]):
            torch.zeros(1, device="cuda").add_(1)
            torch.cuda.synchronize()
        for line in open("/proc/self/maps"):
            path = line.split()[-1]
            if "libcupti" in os.path.basename(path) and os.path.isfile(path):
                return path
    except Exception as err:  # noqa: BLE001 (any failure: look on disk)
        log(f"torch.profiler did not show its libcupti ({err}); searching the packages")
    roots = [p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)]
    for root in roots:
        for pattern in ("nvidia/**/libcupti.so*", "torch/lib/libcupti*.so*", "triton/backends/nvidia/lib/cupti/libcupti.so*"):
            found = sorted(glob.glob(os.path.join(root, pattern), recursive=True))
            if found:
                return found[0]
    return None


def fmt(v, spec=".1f") -> str:
    return format(v, spec) if isinstance(v, (int, float)) else "-"


def diff(a, b) -> str:
    return f"{(a - b) / b * 100:+.2f}" if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b else "-"


def write_table(rows: list[dict], out: Path) -> int:
    """Writes out/table.txt; returns the number of failing captures."""
    head = ("capture", "native check (max rel err)", "timer", "native A1", "python", "native A2", "native mean",
            "diff %", "committed", "diff %", "SM MHz (A1, A2)")
    lines, bad = [], 0
    for r in rows:
        lines.append((r["capture"], r["check"], r["timer"], fmt(r["a1"]), fmt(r["python"]), fmt(r["a2"]),
                      fmt(r["native"]), diff(r["native"], r["python"]), fmt(r["committed"]),
                      diff(r["native"], r["committed"]), r["clock"]))
        bad += not r["pass"]
    widths = [max(len(str(x[i])) for x in lines + [head]) for i in range(len(head))]
    text = "\n".join("  ".join(str(v).ljust(w) for v, w in zip(x, widths)).rstrip() for x in [head] + lines)
    text += (f"\n\n{len(rows)} captures, {bad} failing (not run, check not passed, or the mean of the two native "
             f"runs more than {LIMIT:.0%} from Python: this run's record.py measurement, else the committed one)\n")
    (out / "table.txt").write_text(text)
    return bad


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("work", type=Path)
    parser.add_argument("kernels", nargs="*")
    args = parser.parse_args()
    tlxsim = os.environ.get("TLXSIM", "build/static/tlx-sim")
    python_on = os.environ.get("PYTHON", "1") != "0"
    for sub in ("native", "python/traces", "traces/h200"):
        (args.work / sub).mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    todo = captures(args.kernels)
    if not todo:
        print("h200-check: no captures selected", file=sys.stderr)
        return 2

    import torch
    from tlx_sim import kernel_module as kmod
    from tlx_sim import record
    device = torch.device("cuda")
    if not os.environ.get("TLXSIM_CUPTI"):
        lib = cupti_library()
        if lib:
            os.environ["TLXSIM_CUPTI"] = lib
    log(f"TLXSIM_CUPTI={os.environ.get('TLXSIM_CUPTI', '(unset: the runner searches)')}; {len(todo)} captures")
    rec_args = argparse.Namespace(reps=3, warmup=25, rep=200, iters=30, max_cv=LIMIT, retries=2,
                                  no_ttgir_check=True, proton=False)
    committed = committed_records()
    rows, results = [], open(args.out / "results.jsonl", "w")
    inputs_key, inputs, ref = None, None, None
    with kmod.fresh_triton_cache():
        for capture in todo:
            if time.time() - T0 > BUDGET_S:
                name = f"{capture.parent.name}-{capture.name}"
                log(f"{name}: not run (past the {BUDGET_S:.0f} s budget, H200_CHECK_BUDGET_S)")
                rows.append({"capture": name, "check": "not run (time budget)", "timer": "-", "a1": None, "a2": None,
                             "native": None, "python": None, "committed": None, "clock": "-", "pass": False})
                continue
            launch = json.loads((capture / "launch.json").read_text())
            module, config, shape = launch["module"], launch["config"], launch["shape"]
            key = (module, config, json.dumps(shape, sort_keys=True))
            trace = args.work / "traces" / "h200" / f"{capture.parent.name}.json"
            name = f"{capture.parent.name}-{capture.name}"
            log(f"{name}: native A1")
            a1 = native(tlxsim, capture, args.work, "a1", trace)
            py, py_err, py_detail = None, None, None
            if python_on:
                log(f"{name}: python (record.py record_one)")
                try:
                    km = kmod.load_module(module)
                    if inputs_key != (module, key[2]):
                        inputs = ref = None
                        torch.cuda.empty_cache()
                        inputs = km.module.make_inputs(shape, device)
                        ref = km.module.reference(inputs)
                        inputs_key = (module, key[2])
                    rec = record.record_one(km, capture.parent.name, config, shape, "fit", inputs, ref, device,
                                            args.work / "python" / "traces", rec_args)
                    py = rec["measured_us"] if rec["correct"] else None
                    py_detail = {k: rec.get(k) for k in ("times_us", "do_bench_us", "do_bench_cv", "sm_clock_mhz")}
                    py_err = None if rec["correct"] else f"record.py: wrong result (max rel err {rec['max_rel_err']})"
                except Exception as err:  # noqa: BLE001 (reported in the table, the run goes on)
                    py_err = f"record.py failed: {type(err).__name__}: {err}"
                    log(py_err)
            log(f"{name}: native A2")
            a2 = native(tlxsim, capture, args.work, "a2", trace)

            outs = [r["out"] for r in (a1, a2)]
            ok_runs = [o for o in outs if o and not o.get("kernel_failure") and o["timing"]["median_us"] > 0]
            first = next((o for o in outs if o), None)
            if first is None:
                check = "FAILED: " + ((a1["err"] or a2["err"] or "no output").splitlines() or ["?"])[-1][:90]
            elif first.get("kernel_failure"):
                check = "KERNEL FAILED"
            else:
                ref_json = first["reference"]
                check = (f"ok ({ref_json['max_rel_err']:.1e})" if ref_json.get("ok") else
                         "no reference" if ref_json["kind"] == "none" else "MISMATCH")
            times = [o["timing"]["median_us"] for o in ok_runs]
            native_us = statistics.fmean(times) if len(times) == 2 else None
            basis = py or committed.get(key)
            passed = bool(check.startswith("ok") and native_us and basis and abs(native_us - basis) / basis <= LIMIT)
            timers = sorted({o["timing"]["timer"] for o in ok_runs}) or ["-"]
            clock = ", ".join(f"{o['sm_clock_mhz']['before']}->{o['sm_clock_mhz']['after']}" for o in ok_runs) or "-"
            row = {"capture": name, "check": check, "timer": "/".join(timers), "a1": times[0] if times else None,
                   "a2": times[1] if len(times) > 1 else None, "native": native_us, "python": py,
                   "python_error": py_err, "python_detail": py_detail, "committed": committed.get(key), "clock": clock, "pass": passed,
                   "timer_notes": [o["timing"].get("timer_note") for o in ok_runs]}
            rows.append(row)
            results.write(json.dumps(row) + "\n")
            results.flush()
            bad = write_table(rows, args.out)
            log(f"{name}: {check}, native {fmt(row['a1'])} / {fmt(row['a2'])} us, python {fmt(py)} us "
                f"({diff(native_us, basis)} %) {'pass' if passed else 'FAIL'}")
    results.close()
    bad = write_table(rows, args.out)
    print((args.out / "table.txt").read_text())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
