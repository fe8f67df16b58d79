"""Record hardware runs of the project's kernels into ``traces/<gpu>/<kernel>.json`` (format: traces/README.md).

For a GPU host (H200, Triton 3.6, torch with CUDA), from the repository root::

    python3 -m tlx_sim.record --plan traces/h200/plan.json [--kernel ws_gemm ...] [--out DIR]

The plan names, per kernel, its module, the configs and the shapes to run, each shape with its split (``fit``:
calibration may use it; ``heldout``: never fitted on).  For every (shape, config):

1. launch once, fill the output with NaN, launch again, and compare with the module's ``reference``
   (``hw_time.compare``: relative to max|reference|, rtol = atol = 1e-2); a wrong result is recorded with
   ``correct: false`` and makes the exit code 1 (a timing of a wrong kernel is worthless);
2. time it ``--reps`` times with ``triton.testing.do_bench`` (each the median of its repetitions, L2 flushed
   before each); when the coefficient of variation of those medians exceeds ``--max-cv`` (3 %), time it again,
   up to ``--retries`` times, and keep the attempt with the lowest CV (``do_bench_us``); then read the device
   duration of ``--iters`` more launches from CUPTI (torch.profiler, L2 flushed before each; ``cupti_us``), which
   excludes the host side of the launch that do_bench's events include for short kernels. The record's
   ``measured_us`` is the median of the medians of ``--reps`` groups of the CUPTI durations (``timing:
   "cupti"``) for kernels under 250 µs, do_bench's (``timing: "do_bench"``) for longer ones, where torch.profiler
   perturbs power-capped clocks; ``cv`` is the coefficient of variation of the medians used (see
   ``choose_timing``);
3. sample the SM clock with nvidia-smi while timing (``hw_time.ClockSampler``);
4. store what actually ran (TTGIR with relative file names, the cubin, Triton's metadata) under
   ``captures/<kernel>/<config>-<sha8>/`` beside the JSON (deduplicated by content), the launch spec the C++ tool
   reads inline, and whether a no-GPU capture (``tlx_sim.capture``) produces the same TTGIR.

With ``--proton``, the (shape, config) pairs a plan shape lists under ``"proton"`` are also run once under
Proton's instrumentation mode (warp granularity; the kernel declares its scopes with
``triton.profiler.language``): the record gets ``proton.summary`` (per tlx-sim partition, the fraction of the
CTA's lifetime each scope took, and their ``wait_frac``) and a two-CTA timeline excerpt under ``proton/``.

Records are merged into an existing file by (config, shape); the file is rewritten after every record, so an
interrupted run keeps what it measured.  Exit code 0 when every record is correct and its TTGIR equals the
capture, 1 otherwise, 2 for bad usage.  Torch is imported inside functions only.
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tlx_sim import capture
from tlx_sim import hw_time
from tlx_sim import kernel_module as kmod

SCHEMA_VERSION = 1


def load_plan(path: Path) -> dict:
    """The recording plan: ``{"gpu", "kernels": {name: {"module", "configs", "shapes": [{"shape", "split"}]}}}``."""
    try:
        plan = json.loads(path.read_text())
    except OSError as err:
        raise kmod.UsageError(f"{path}: cannot read the plan: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise kmod.UsageError(f"{path}: invalid JSON: {err}") from None
    if not isinstance(plan, dict) or "gpu" not in plan or not isinstance(plan.get("kernels"), dict):
        raise kmod.UsageError(f"{path}: a plan is an object with \"gpu\" and \"kernels\" (traces/README.md)")
    for name, entry in plan.get("kernels", {}).items():
        for key in ("module", "configs", "shapes"):
            if key not in entry:
                raise kmod.UsageError(f"{path}: kernel {name!r} lacks {key!r}")
        for s in entry["shapes"]:
            if s.get("split") not in ("fit", "heldout"):
                raise kmod.UsageError(f"{path}: kernel {name!r}: shape {s.get('shape')} needs split fit|heldout")
    return plan


def environment(device) -> dict:
    """Driver, CUDA, Triton and torch versions, the max SM clock and the power limit of ``device``."""
    import torch
    import triton
    env = {"triton": triton.__version__, "torch": torch.__version__, "cuda": torch.version.cuda,
           "recorded": datetime.date.today().isoformat()}
    smi = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm,power.limit",
                          "--format=csv,noheader,nounits", "-i", str(device.index or 0)],
                         capture_output=True, text=True)
    fields = [f.strip() for f in smi.stdout.strip().split(",")]
    if len(fields) == 3:
        env["driver"] = fields[0]
        env["sm_clock_max_mhz"] = float(fields[1])
        env["power_limit_w"] = float(fields[2])
    return env


def store_capture(km: kmod.KernelModule, kernel: str, config: str, compiled, target, out: Path) -> str:
    """Write the compiled kernel under ``out/captures/<kernel>/<config>-<sha8>/``; returns that path relative to
    ``out``.  sha8 hashes the TTGIR and the binary, so identical compilations share one folder."""
    with tempfile.TemporaryDirectory() as tmp:
        capture.write_compiled(km, compiled, target, Path(tmp))
        files = sorted(Path(tmp).iterdir())
        digest = hashlib.sha256(b"".join(f.name.encode() + f.read_bytes() for f in files)).hexdigest()[:8]
        rel = Path("captures") / kernel / f"{config}-{digest}"
        dest = out / rel
        dest.mkdir(parents=True, exist_ok=True)
        for f in files:
            (dest / f.name).write_bytes(f.read_bytes())
    return rel.as_posix()


def coefficient_of_variation(values: list[float]) -> float:
    """Sample standard deviation over mean (0 for fewer than two values)."""
    if len(values) < 2:
        return 0.0
    return statistics.stdev(values) / statistics.mean(values)


def time_kernel(fn, reps: int, warmup_ms: int, rep_ms: int, max_cv: float, retries: int) -> tuple[list, float]:
    """``reps`` do_bench medians (µs) of ``fn``; re-timed up to ``retries`` times while their CV exceeds
    ``max_cv``; returns (the attempt with the lowest CV, its CV)."""
    from triton.testing import do_bench
    best = None
    for _ in range(1 + retries):
        times = [1e3 * do_bench(fn, warmup=warmup_ms, rep=rep_ms, return_mode="median") for _ in range(reps)]
        cv = coefficient_of_variation(times)
        if best is None or cv < best[1]:
            best = (times, cv)
        if cv <= max_cv:
            break
    return best


def kernel_durations_us(fn, kernel_name: str, iters: int) -> list[float]:
    """Device durations (µs) of the kernel ``kernel_name`` over ``iters`` launches of ``fn``, read from CUPTI
    through torch.profiler, with L2 flushed (a 256 MB buffer zeroed) before each launch.

    do_bench's events also time the host side of a JIT launch (tens of µs) whenever the GPU runs dry, which
    dominates kernels shorter than ~100 µs; the simulator predicts device time, so records use this one."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            flush.zero_()
            fn()
        torch.cuda.synchronize()
    return [e.time_range.elapsed_us() for e in prof.events() if kernel_name in e.name and "fill" not in e.name]


CUPTI_BELOW_US = 250.0


def choose_timing(bench: list, bench_cv: float, cupti: list | None) -> tuple[list, float, str]:
    """The record's kernel time: (group medians in µs, their CV, ``"do_bench"`` or ``"cupti"``).

    Kernels whose CUPTI device duration is under ``CUPTI_BELOW_US`` are timed by CUPTI: Triton's Python launch
    takes ~100-150 µs of host time, comparable to such a kernel plus the ~80 µs L2 flush before it, so the GPU
    runs dry between do_bench's launches and its events also time the host (measured on the H200: 18 µs
    kernels timed at 25-84 µs by do_bench, 68 µs kernels 5 % high). Longer kernels are timed by do_bench's
    back-to-back events: torch.profiler perturbs power-capped kernels (on the H200 the 8192^3 GEMMs' CUPTI
    durations ran 3-7 % fast right after the profiler started and up to 40 % slow after ~100 ms under it),
    while do_bench agreed with the native runner (``tlx-sim run``, CUPTI read directly) within 1 %
    (tools/runner/h200-check.sh, 2026-11-29). Without CUPTI durations, do_bench."""
    if cupti and statistics.median(cupti) < CUPTI_BELOW_US:
        return cupti, coefficient_of_variation(cupti), "cupti"
    return bench, bench_cv, "do_bench"


def record_one(km: kmod.KernelModule, kernel: str, config: str, shape: dict, split: str, inputs: dict, ref,
               device, out: Path, args) -> dict:
    """Check, time, clock and store one (config, shape); returns its record (traces/README.md)."""
    import torch
    mod, cfg = km.module, km.config(config)
    result, compiled = mod.run(cfg, shape, inputs)  # compiles and warms up
    result.fill_(float("nan"))  # a launch that writes nothing must not pass on the first launch's result
    result, compiled = mod.run(cfg, shape, inputs)
    torch.cuda.synchronize(device)
    correct, err = hw_time.compare(result, ref)

    smi_id = hw_time.smi_device_id(device)
    before, _ = hw_time.read_sm_clock(smi_id)
    with hw_time.ClockSampler(smi_id) as sampler:
        bench, bench_cv = time_kernel(lambda: mod.run(cfg, shape, inputs), args.reps, args.warmup, args.rep,
                                      args.max_cv, args.retries)
        durations = kernel_durations_us(lambda: mod.run(cfg, shape, inputs), km.kernel_name, args.iters)
    after, _ = hw_time.read_sm_clock(smi_id)
    cupti = None
    if len(durations) >= args.reps:  # CUPTI durations in ``reps`` groups whose medians give the CV
        size = len(durations) // args.reps
        cupti = [statistics.median(durations[i * size:(i + 1) * size]) for i in range(args.reps)]
    times, cv, source = choose_timing(bench, bench_cv, cupti)

    target = compiled.metadata.target
    matches = None
    if not args.no_ttgir_check:
        matches, _ = hw_time.ttgir_matches_capture(km, config, shape, compiled, km.capture_dir(target))
    sp = kmod.specialize(km, config, shape, target)
    rec = {
        "config": config,
        "shape": dict(shape),
        "split": split,
        "launch": kmod.launch_json(km, config, shape, target, sp),
        "capture": store_capture(km, kernel, config, compiled, target, out),
        "measured_us": statistics.median(times),
        "times_us": times,
        "min_us": min(times),
        "max_us": max(times),
        "cv": cv,
        "timing": source,
        "do_bench_us": statistics.median(bench),
        "cupti_us": statistics.median(cupti) if cupti else None,
        "cupti_times_us": cupti,
        "do_bench_cv": bench_cv,
        "sm_clock_mhz": {"before": before, "after": after, "mean": statistics.fmean(sampler.samples)
                         if sampler.samples else None, "samples": len(sampler.samples)},
        "correct": correct,
        "max_rel_err": err,
        "ttgir_matches_capture": matches,
    }
    if hasattr(mod, "flops"):
        rec["flops"] = mod.flops(cfg, shape)
    if hasattr(mod, "bytes_moved"):
        rec["bytes"] = mod.bytes_moved(cfg, shape)
    return rec


def proton_summary(trace: dict, num_warps: int, worker_warps: list[int]) -> dict:
    """Per-partition time fractions from a Proton instrumentation trace (Chrome trace format, one ``pid`` per
    CTA, one ``tid`` "warp N" per warp, ``X`` events per scope).

    A CTA's lifetime runs from its first scope's start to its last scope's end; for each warp, the summed
    duration of each scope divided by that lifetime, averaged over the warps of a partition, gives
    ``scopes[name]``; scopes named ``wait_*`` or ``*_wait`` are waits, and their sum is ``wait_frac``.  Warps
    ``0 .. num_warps-1`` are tlx-sim's ``default`` partition; the other warps, in increasing id, fill the
    worker partitions ``partition0, partition1, ...`` with ``worker_warps`` warps each (``ttg.warp_specialize``
    order)."""
    import collections
    per_cta = collections.defaultdict(lambda: collections.defaultdict(list))
    for e in trace.get("traceEvents", []):
        if e.get("ph") == "X":
            per_cta[e["pid"]][int(str(e["tid"]).split()[1])].append(e)
    sums = collections.defaultdict(lambda: collections.defaultdict(float))
    warps = collections.Counter()
    lifetimes = []
    for warps_of_cta in per_cta.values():
        events = [e for es in warps_of_cta.values() for e in es]
        start = min(e["ts"] for e in events)
        life = max(e["ts"] + e["dur"] for e in events) - start
        lifetimes.append(life)
        workers = sorted(w for w in warps_of_cta if w >= num_warps)
        for warp, es in warps_of_cta.items():
            if warp < num_warps:
                part = "default"
            else:
                index, rank = 0, workers.index(warp)
                while index < len(worker_warps) and rank >= worker_warps[index]:
                    rank -= worker_warps[index]
                    index += 1
                part = f"partition{index}"
            warps[part] += 1
            for e in es:
                sums[part][e["name"]] += e["dur"] / life
    out = {}
    for part, scopes in sorted(sums.items()):
        fracs = {name: total / warps[part] for name, total in sorted(scopes.items())}
        waits = sum(v for k, v in fracs.items() if k.startswith("wait_") or k.endswith("_wait"))
        out[part] = {"warps_per_cta": warps[part] // max(1, len(per_cta)), "wait_frac": waits, "scopes": fracs}
    return {"ctas": len(per_cta), "lifetime_us_mean": statistics.fmean(lifetimes) if lifetimes else None,
            "partitions": out}


def proton_excerpt(trace: dict, ctas: int = 2) -> dict:
    """The events of the first ``ctas`` CTAs (by name) of a Proton trace, a timeline small enough to commit."""
    keep = sorted({e["pid"] for e in trace.get("traceEvents", [])})[:ctas]
    fields = ("name", "ph", "pid", "tid", "ts", "dur")
    return {"traceEvents": [{k: e[k] for k in fields if k in e} for e in trace["traceEvents"] if e["pid"] in keep]}


def record_proton(km: kmod.KernelModule, kernel: str, config: str, shape: dict, inputs: dict, out: Path) -> dict:
    """Run one launch under Proton's instrumentation mode (scopes the kernel declares with
    ``triton.profiler.language``; warp granularity) and return ``{"summary", "timeline"}`` for the record:
    the per-partition summary (``proton_summary``) and the path (relative to ``out``) of a two-CTA excerpt."""
    import torch
    import triton.profiler as proton
    cfg = km.config(config)
    with tempfile.TemporaryDirectory() as tmp:
        proton.start(f"{tmp}/trace", data="trace", backend="instrumentation", mode=proton.mode.Default())
        km.module.run(cfg, shape, inputs)
        torch.cuda.synchronize()
        proton.finalize()
        trace = json.loads(Path(f"{tmp}/trace.chrome_trace").read_text())
    tag = "_".join(f"{k}{v}" for k, v in shape.items())
    rel = Path("proton") / f"{kernel}-{config}-{tag}.json"
    (out / rel).parent.mkdir(parents=True, exist_ok=True)
    (out / rel).write_text(json.dumps(proton_excerpt(trace)))
    worker_warps = list(getattr(km.module, "WORKER_WARPS", []))
    return {"summary": proton_summary(trace, km.num_warps, worker_warps), "timeline": rel.as_posix()}


def write_trace(path: Path, doc: dict) -> None:
    """Rewrite the trace file (records sorted by kernel config, then shape) atomically."""
    doc["records"].sort(key=lambda r: (r["config"], sorted(r["shape"].items())))
    tmp = path.with_suffix(".tmp")
    tmp.write_text(kmod.dump_json(doc))
    tmp.replace(path)


def record_kernel(name: str, entry: dict, gpu: str, out: Path, device, args) -> bool:
    """Record every (shape, config) of one plan entry into ``out/<name>.json``; True when all are good."""
    import torch
    km = kmod.load_module(entry["module"])
    path = out / f"{name}.json"
    doc = json.loads(path.read_text()) if path.is_file() else {}
    doc.update({"schema_version": SCHEMA_VERSION, "gpu": gpu, "device_name": torch.cuda.get_device_name(device),
                "kernel": name, "module": km.path, "env": environment(device)})
    doc.setdefault("records", [])
    all_good = True
    for item in entry["shapes"]:
        shape = {**km.default_shape, **item["shape"]}
        inputs = km.module.make_inputs(shape, device)
        ref = km.module.reference(inputs)
        for config in entry["configs"]:
            if kmod.BUG_MARKER in config:
                raise kmod.UsageError(f"{name}: {config} is a seeded bug that hangs the GPU")
            rec = record_one(km, name, config, shape, item["split"], inputs, ref, device, out, args)
            if args.proton and config in item.get("proton", []):
                rec["proton"] = record_proton(km, name, config, shape, inputs, out)
            doc["target"] = rec["launch"]["target"]
            doc["records"] = [r for r in doc["records"] if (r["config"], r["shape"]) != (config, shape)] + [rec]
            write_trace(path, doc)
            good = rec["correct"] and rec["ttgir_matches_capture"] is not False
            all_good &= good
            print(f"{name} {config} {shape}: {rec['measured_us']:.1f} us (cv {100 * rec['cv']:.1f} %, "
                  f"clock {rec['sm_clock_mhz']['mean']}) {'ok' if good else 'FAIL'}", flush=True)
        del inputs, ref
        torch.cuda.empty_cache()
    prune_captures(out, name, doc)
    return all_good


def prune_captures(out: Path, kernel: str, doc: dict) -> None:
    """Remove ``captures/<kernel>/*`` folders no record of ``doc`` refers to (left by an older compilation)."""
    import shutil
    used = {r["capture"] for r in doc["records"]}
    for folder in sorted((out / "captures" / kernel).glob("*")):
        if folder.relative_to(out).as_posix() not in used:
            shutil.rmtree(folder)


def main(argv=None) -> int:
    """Command line; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python3 -m tlx_sim.record", description=__doc__.split("\n\n")[0])
    parser.add_argument("--plan", type=Path, required=True, help="recording plan (e.g. traces/h200/plan.json)")
    parser.add_argument("--kernel", nargs="+", metavar="NAME", help="plan entries to record (default: all)")
    parser.add_argument("--out", type=Path, help="trace folder (default: the plan's folder)")
    parser.add_argument("--device", default="cuda", help="torch device (default: cuda)")
    parser.add_argument("--reps", type=int, default=3, help="do_bench runs per record (default 3)")
    parser.add_argument("--warmup", type=int, default=25, metavar="MS", help="do_bench warm-up time in ms")
    parser.add_argument("--rep", type=int, default=200, metavar="MS", help="do_bench measuring time in ms")
    parser.add_argument("--iters", type=int, default=30, help="profiled launches per record (default 30)")
    parser.add_argument("--max-cv", type=float, default=0.03, help="re-time above this CV (default 0.03)")
    parser.add_argument("--retries", type=int, default=2, help="re-timings allowed per record (default 2)")
    parser.add_argument("--proton", action="store_true",
                        help="also record Proton timelines for the (shape, config) pairs the plan marks with \"proton\"")
    parser.add_argument("--no-ttgir-check", action="store_true", help="skip the capture == real launch check")
    args = parser.parse_args(argv)

    plan = load_plan(args.plan)
    out = args.out or args.plan.parent
    out.mkdir(parents=True, exist_ok=True)
    names = args.kernel or list(plan["kernels"])
    for name in names:
        if name not in plan["kernels"]:
            raise kmod.UsageError(f"{args.plan}: no kernel {name!r} (known: {', '.join(plan['kernels'])})")

    import torch
    device = torch.device(args.device)
    all_good = True
    with kmod.fresh_triton_cache():
        for name in names:
            all_good &= record_kernel(name, plan["kernels"][name], plan["gpu"], out, device, args)
    return 0 if all_good else 1


def cli() -> int:
    """Entry point: ``main`` with usage errors as exit code 2."""
    return kmod.run_cli(main)


if __name__ == "__main__":
    sys.exit(cli())
