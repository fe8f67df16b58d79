"""Run kernel-module configs on a GPU: check the result, time it, and prove the capture matches the real launch.

For a GPU host (H200, Triton 3.6, torch with CUDA), from the repository root::

    python3 -m tlx_sim.hw_time kernels/hopper/ws_gemm.py --config s2 s3 s4 [--shape M=4096,N=4096,K=4096]

For each config, through the module's ``make_inputs`` / ``run`` / ``reference`` (kernels/README.md):

1. launch once, overwrite the output with NaN, launch again, and compare with ``reference`` on a relative basis:
   both are divided by max|reference| and must agree within rtol 1e-2 / atol 1e-2 (``torch.allclose``);
2. time ``run`` with ``triton.testing.do_bench`` (median over the repetitions; L2 is flushed before each one;
   the time includes the host side of one JIT launch, a few tens of µs);
3. read the SM clock with ``nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv,noheader,nounits``
   before and after, and sample it every 50 ms while timing;
4. rewrite the file names in the TTGIR the JIT compiled (``CompiledKernel.asm["ttgir"]``) exactly as
   ``tlx_sim.capture`` does, and compare it with the committed ``tests/inputs/.../<config>/<kernel>.ttgir``
   (with a fresh no-GPU capture instead when the committed one is for another shape or target).

Prints one JSON line per config: ``{"config", "shape", "ms", "tflops", "sm_clock_mhz", "ok",
"ttgir_matches_capture", ...}`` (ms: median
kernel time in milliseconds; tflops: 1e12 FLOP/s from the module's ``flops``; sm_clock_mhz: median of the
samples taken while timing).  Exit code 0 when every config is correct and its TTGIR equals the capture, 1
otherwise, 2 for bad usage.  Configs named ``*_bug_*`` are seeded synchronization bugs that hang the GPU: they
are refused unless ``--allow-bugs``.  Torch is imported inside functions only.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from tlx_sim import kernel_module as kmod

SMI_QUERY = ["--query-gpu=clocks.sm,clocks.max.sm", "--format=csv,noheader,nounits"]


def smi_device_id(device) -> str | None:
    """The ``nvidia-smi -i`` selector of a torch CUDA device (its UUID), or None when torch does not expose it."""
    import torch
    uuid = getattr(torch.cuda.get_device_properties(device), "uuid", None)
    if uuid is None:
        return None
    text = str(uuid)
    return text if text.startswith("GPU-") else f"GPU-{text}"


def _smi_command(device_id: str | None, *extra: str) -> list[str] | None:
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    return [smi, *SMI_QUERY, *(["-i", device_id] if device_id else []), *extra]


def read_sm_clock(device_id: str | None) -> tuple[int | None, int | None]:
    """(current SM clock, max SM clock) in MHz from nvidia-smi; (None, None) when it is unavailable."""
    cmd = _smi_command(device_id)
    if cmd is None:
        return None, None
    proc = subprocess.run(cmd, capture_output=True, text=True)
    values = _parse_clock_lines(proc.stdout)
    return values[0] if values else (None, None)


def _parse_clock_lines(text: str) -> list[tuple[int, int]]:
    """``"1980, 1980"`` lines -> [(1980, 1980)]; lines that are not two integers are skipped."""
    out = []
    for line in text.splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) == 2 and all(f.isdigit() for f in fields):
            out.append((int(fields[0]), int(fields[1])))
    return out


class ClockSampler:
    """Context manager sampling the SM clock (MHz) every ``period_ms`` with ``nvidia-smi -lms`` while it is open."""

    def __init__(self, device_id: str | None, period_ms: int = 50):
        self.cmd = _smi_command(device_id, "-lms", str(period_ms))
        self.proc = None
        self.samples: list[int] = []

    def __enter__(self):
        if self.cmd is not None:
            self.proc = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        return self

    def __exit__(self, *exc):
        if self.proc is not None:
            self.proc.terminate()
            out, _ = self.proc.communicate()
            self.samples = [sm for sm, _ in _parse_clock_lines(out)]
        return False

    def median(self) -> float | None:
        return statistics.median(self.samples) if self.samples else None


def compare(out, ref, rtol: float = 1e-2, atol: float = 1e-2) -> tuple[bool, float]:
    """(close, max relative error): ``out`` and ``ref`` divided by max|ref| must satisfy allclose(rtol, atol)."""
    import torch
    ref32, out32 = ref.float(), out.float()
    scale = ref32.abs().max().clamp_min(1e-30)
    ok = bool(torch.allclose(out32 / scale, ref32 / scale, rtol=rtol, atol=atol))
    err = ((out32 - ref32).abs().max() / scale).item()
    return ok, err


def ttgir_matches_capture(km: kmod.KernelModule, config: str, shape: dict, compiled, capture_dir: Path):
    """Compare the TTGIR the JIT compiled with a capture; returns (equal, what it was compared with).

    The committed ``capture_dir/<config>/`` is used when its launch.json has the same shape and target as this
    run; otherwise the config is captured afresh (no GPU involved) for this shape and the running target.
    """
    running = compiled.metadata.target
    committed = capture_dir / config
    launch_file = committed / "launch.json"
    if launch_file.is_file():
        spec = json.loads(launch_file.read_text())
        if spec.get("shape") == shape and spec.get("target") == kmod.target_str(running):
            expected = (committed / f"{km.kernel_name}.ttgir").read_text()
            where = kmod.relative_path(str(committed.resolve()), km.root)
            return kmod.rewrite_ttgir_paths(compiled.asm["ttgir"], km.root) == expected, where
    with kmod.fresh_triton_cache():
        fresh, _ = kmod.compile_config(km, config, shape, running)
    expected = kmod.rewrite_ttgir_paths(fresh.asm["ttgir"], km.root)
    return kmod.rewrite_ttgir_paths(compiled.asm["ttgir"], km.root) == expected, "fresh capture"


def time_config(km: kmod.KernelModule, config: str, shape: dict, inputs: dict, device, capture_dir: Path,
                warmup_ms: int, rep_ms: int) -> dict:
    """Check, time and clock one config; returns its report (the JSON line)."""
    import torch
    from triton.testing import do_bench

    mod, cfg = km.module, km.config(config)
    out, compiled = mod.run(cfg, shape, inputs)  # compiles (fresh cache) and warms up
    out.fill_(float("nan"))  # a launch that writes nothing must not pass on the first launch's result
    out, compiled = mod.run(cfg, shape, inputs)
    torch.cuda.synchronize(device)
    ok, err = compare(out, mod.reference(inputs))

    smi_id = smi_device_id(device)
    clock_before, clock_max = read_sm_clock(smi_id)
    with ClockSampler(smi_id) as sampler:
        ms = do_bench(lambda: mod.run(cfg, shape, inputs), warmup=warmup_ms, rep=rep_ms, return_mode="median")
    clock_after, _ = read_sm_clock(smi_id)

    matches, capture_used = ttgir_matches_capture(km, config, shape, compiled, capture_dir)
    flops = mod.flops(cfg, shape) if hasattr(mod, "flops") else None
    target = compiled.metadata.target
    return {
        "config": config,
        "shape": shape,
        "ms": ms,
        "tflops": flops / (ms * 1e-3) / 1e12 if flops else None,
        "sm_clock_mhz": sampler.median() if sampler.samples else clock_after,
        "ok": ok,
        "max_rel_err": err,
        "ttgir_matches_capture": matches,
        "capture": capture_used,
        "sm_clock_mhz_before": clock_before,
        "sm_clock_mhz_after": clock_after,
        "sm_clock_max_mhz": clock_max,
        "sm_clock_samples": len(sampler.samples),
        "kernel": km.kernel_name,
        "module": km.path,
        "target": kmod.target_str(target),
        "gpu": torch.cuda.get_device_name(device),
        "num_warps": compiled.metadata.num_warps,
    }


def main(argv=None) -> int:
    """Command line; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python3 -m tlx_sim.hw_time", description=__doc__.split("\n\n")[0])
    parser.add_argument("module", help="kernel module: file path (kernels/hopper/ws_gemm.py) or dotted name")
    parser.add_argument("--config", nargs="+", metavar="NAME", help="configs to run (default: all but *_bug_*)")
    parser.add_argument("--shape", help="problem shape overrides, e.g. M=4096,N=4096 (default: DEFAULT_SHAPE)")
    parser.add_argument("--device", default="cuda", help="torch device (default: cuda)")
    parser.add_argument("--warmup", type=int, default=100, metavar="MS", help="do_bench warm-up time in ms")
    parser.add_argument("--rep", type=int, default=500, metavar="MS", help="do_bench measuring time in ms")
    parser.add_argument("--inputs", type=Path, metavar="DIR",
                        help="committed capture to compare the TTGIR with (default: tests/inputs/<module path>)")
    parser.add_argument("--allow-bugs", action="store_true", help="also run *_bug_* configs (they hang)")
    args = parser.parse_args(argv)

    km = kmod.load_module(args.module)
    shape = kmod.parse_shape(args.shape, km.default_shape)
    configs = args.config or [c for c in km.configs if kmod.BUG_MARKER not in c]
    for name in configs:
        km.config(name)
        if kmod.BUG_MARKER in name and not args.allow_bugs:
            raise kmod.UsageError(f"{name} is a seeded bug that hangs the GPU; pass --allow-bugs to run it anyway")
    for needed in ("make_inputs", "run", "reference"):
        if not hasattr(km.module, needed):
            raise kmod.UsageError(f"{km.path} has no {needed}() (see kernels/README.md)")

    import torch
    device = torch.device(args.device)
    capture_dir = args.inputs or km.capture_dir()
    all_good = True
    with kmod.fresh_triton_cache():
        inputs = km.module.make_inputs(shape, device)
        for name in configs:
            report = time_config(km, name, shape, inputs, device, capture_dir, args.warmup, args.rep)
            print(json.dumps(report), flush=True)
            all_good &= report["ok"] and report["ttgir_matches_capture"]
    return 0 if all_good else 1


def cli() -> int:
    """Entry point: ``main`` with usage errors as exit code 2."""
    return kmod.run_cli(main)


if __name__ == "__main__":
    sys.exit(cli())
