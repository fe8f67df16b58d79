"""Compile kernel-module configs for a GPU target with no GPU and save what tlx-sim reads.

Usage (from the repository root, ``PYTHONPATH=python:.`` or after ``pip install ./python``)::

    python3 -m tlx_sim.capture kernels/hopper/ws_gemm.py --all -o tests/inputs/hopper/ws_gemm
    python3 -m tlx_sim.capture kernels/hopper/ws_gemm.py --config s3 --shape M=4096,N=4096 -o /tmp/out
    python3 -m tlx_sim.capture --check tests/inputs/hopper/ws_gemm

For each config, ``OUTDIR/<config>/`` receives

* ``<kernel>.ttgir``: ``CompiledKernel.asm["ttgir"]`` with location file names made machine-independent
  (repository files relative to the repository root, Triton's own files as ``triton/...``);
* ``<kernel>.cubin`` (``<kernel>.hsaco`` for hip): the binary, bytes as Triton produced them (its line tables
  still hold absolute paths, so it is not byte-identical across machines; the TTGIR is);
* ``<kernel>.json``: Triton's metadata (``num_warps``, ``shared``, ``tensordesc_meta``, ...) as JSON;
* ``launch.json``: the launch spec (kernels/README.md).

Compilation mirrors a real launch of the module's ``KERNEL`` at the given shape: see ``tlx_sim.kernel_module``.
``--check DIR`` re-captures every ``DIR/<config>/launch.json`` into a temporary directory, compares the TTGIR
byte for byte (and the launch spec), and disassembles each committed cubin with the ``cuobjdump`` of Triton's
wheel; exit 0 when everything matches, 1 otherwise (2 for bad usage).
"""
from __future__ import annotations

import argparse
import difflib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tlx_sim import kernel_module as kmod


def binary_kind(target) -> str:
    """The ``asm`` key (and file suffix) of the target's binary: ``cubin`` or ``hsaco``."""
    return "cubin" if target.backend == "cuda" else "hsaco"


def capture_config(km: kmod.KernelModule, config: str, shape: dict, target, outdir: Path) -> Path:
    """Compile one config and write its four files under ``outdir/<config>/``; returns that directory.

    Uses a fresh, temporary Triton cache.
    """
    with kmod.fresh_triton_cache():
        compiled, sp = kmod.compile_config(km, config, shape, target)
    name = km.kernel_name
    cdir = Path(outdir) / config
    cdir.mkdir(parents=True, exist_ok=True)
    (cdir / f"{name}.ttgir").write_text(kmod.rewrite_ttgir_paths(compiled.asm["ttgir"], km.root))
    kind = binary_kind(target)
    (cdir / f"{name}.{kind}").write_bytes(compiled.asm[kind])
    (cdir / f"{name}.json").write_text(kmod.dump_json(kmod.metadata_json(compiled, km.root)))
    (cdir / "launch.json").write_text(kmod.dump_json(kmod.launch_json(km, config, shape, target, sp)))
    return cdir


def cuobjdump_path() -> Path:
    """The ``cuobjdump`` shipped in Triton's wheel (triton/backends/nvidia/bin/cuobjdump)."""
    import triton
    return Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"


def check_cubin(cubin: Path, target) -> str | None:
    """Disassemble ``cubin`` with ``cuobjdump -sass``; None when it is code for the target's arch, else why not."""
    arch = f"sm_{target.arch}a" if target.arch >= 90 else f"sm_{target.arch}"
    proc = subprocess.run([str(cuobjdump_path()), "-sass", str(cubin)], capture_output=True, text=True)
    if proc.returncode != 0:
        return f"cuobjdump -sass failed (exit {proc.returncode}): {proc.stderr.strip()}"
    if f"code for {arch}" not in proc.stdout:
        return f"cuobjdump -sass shows no 'code for {arch}'"
    return None


def find_module_file(module_path: str, start: Path) -> Path:
    """Resolve a repository-relative module path from launch.json by looking in ``start`` and its parents."""
    for base in [Path.cwd(), *Path(start).resolve().parents]:
        if (base / module_path).is_file():
            return base / module_path
    raise kmod.UsageError(f"cannot find {module_path} above {start}")


def check_dir(directory: Path) -> int:
    """``--check``: re-capture every config under ``directory`` and compare; returns the exit code (0 or 1)."""
    launches = sorted(Path(directory).glob("*/launch.json"))
    if not launches:
        print(f"error: no */launch.json under {directory}", file=sys.stderr)
        return 2
    failures = 0
    with tempfile.TemporaryDirectory(prefix="tlx-sim-check-") as tmp:
        for launch_file in launches:
            committed = json.loads(launch_file.read_text())
            cdir = launch_file.parent
            config, kernel = committed["config"], committed["kernel"]
            target = kmod.parse_target(committed["target"])
            km = kmod.load_module(str(find_module_file(committed["module"], cdir)))
            shape = committed.get("shape") or kmod.parse_shape(None, km.default_shape)
            start = time.perf_counter()
            fresh_dir = capture_config(km, config, shape, target, Path(tmp))
            seconds = time.perf_counter() - start
            problems = []
            old = (cdir / f"{kernel}.ttgir").read_text()
            new = (fresh_dir / f"{kernel}.ttgir").read_text()
            if old != new:
                sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                           str(cdir / f"{kernel}.ttgir"), "fresh capture"))
                problems.append("TTGIR differs")
            if json.loads((fresh_dir / "launch.json").read_text()) != committed:
                problems.append("launch.json differs")
            if binary_kind(target) == "cubin":
                why = check_cubin(cdir / f"{kernel}.cubin", target)
                if why:
                    problems.append(f"{kernel}.cubin: {why}")
            status = "ok" if not problems else "FAIL: " + "; ".join(problems)
            print(f"{cdir}: {status} ({seconds:.2f} s)")
            failures += bool(problems)
    return 1 if failures else 0


def main(argv=None) -> int:
    """Command line; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python3 -m tlx_sim.capture", description=__doc__.split("\n\n")[0])
    parser.add_argument("module", nargs="?", help="kernel module: file path (kernels/hopper/ws_gemm.py) or dotted name")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--config", nargs="+", metavar="NAME", help="configs to capture (default: all)")
    which.add_argument("--all", action="store_true", help="capture every config of the module")
    parser.add_argument("--target", help="cuda:90, cuda:100, hip:gfx942 (default: the module's first TARGETS entry)")
    parser.add_argument("--shape", help="problem shape overrides, e.g. M=4096,N=4096 (default: DEFAULT_SHAPE)")
    parser.add_argument("-o", "--output", type=Path,
                        help="output directory (default: tests/inputs/<path under kernels/> of the module)")
    parser.add_argument("--check", type=Path, metavar="DIR",
                        help="re-capture every config under DIR and compare with what is there")
    args = parser.parse_args(argv)

    if args.check:
        if args.module:
            parser.error("--check takes no module (it reads launch.json)")
        return check_dir(args.check)
    if not args.module:
        parser.error("a kernel module is required (or --check DIR)")

    km = kmod.load_module(args.module)
    shape = kmod.parse_shape(args.shape, km.default_shape)
    target = kmod.parse_target(args.target or km.targets[0])
    configs = args.config or list(km.configs)
    for name in configs:
        km.config(name)  # fail early on an unknown name
    outdir = args.output or km.capture_dir()
    total = time.perf_counter()
    for name in configs:
        start = time.perf_counter()
        cdir = capture_config(km, name, shape, target, outdir)
        print(f"captured {name} for {kmod.target_str(target)} in {time.perf_counter() - start:.2f} s -> {cdir}")
    print(f"{len(configs)} config(s) in {time.perf_counter() - total:.2f} s")
    return 0


def cli() -> int:
    """Entry point: ``main`` with usage errors as exit code 2."""
    return kmod.run_cli(main)


if __name__ == "__main__":
    sys.exit(cli())
