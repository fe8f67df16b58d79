"""Compile kernel-module configs for a GPU target with no GPU and save what tlx-sim reads.

Usage (from the repository root, ``PYTHONPATH=python:.`` or after ``pip install ./python``)::

    python3 -m tlx_sim.capture kernels/hopper/ws_gemm.py --all -o tests/inputs/hopper/ws_gemm
    python3 -m tlx_sim.capture kernels/hopper/ws_gemm.py --config s3 --shape M=4096,N=4096 -o /tmp/out
    python3 -m tlx_sim.capture kernels/amd/gemm.py --all --all-targets      # tests/inputs/amd-gfx942/gemm, ...-gfx950
    python3 -m tlx_sim.capture kernels --all --all-targets                   # every kernel module, every target
    python3 -m tlx_sim.capture --check tests/inputs/hopper/ws_gemm
    python3 -m tlx_sim.capture --check tests/inputs                          # every capture below it

A module argument may be a directory: every kernel module below it (``*.py`` not starting with ``_``).  Without
``-o`` a capture goes to ``tests/inputs/<arch>/<kernel>`` (``KernelModule.capture_dir``: cuda:90 -> hopper,
cuda:100 -> blackwell, hip:gfx942 -> amd-gfx942).

For each config, ``OUTDIR/<config>/`` receives

* ``<kernel>.ttgir``: ``CompiledKernel.asm["ttgir"]`` with location file names made machine-independent
  (repository files relative to the repository root, Triton's own files as ``triton/...``);
* ``<kernel>.cubin`` (``<kernel>.hsaco`` for hip): the binary, bytes as Triton produced them (its line tables
  still hold absolute paths, so it is not byte-identical across machines; the TTGIR is);
* ``<kernel>.json``: Triton's metadata (``num_warps``, ``shared``, ``tensordesc_meta``, ...) as JSON;
* ``launch.json``: the launch spec (kernels/README.md).

Compilation mirrors a real launch of the module's ``KERNEL`` at the given shape: see ``tlx_sim.kernel_module``.
``--check DIR`` re-captures every ``launch.json`` below ``DIR`` (``DIR/<config>/launch.json``, or deeper) into a
temporary directory, compares the TTGIR byte for byte (and the launch spec), disassembles each committed cubin
with the ``cuobjdump`` of Triton's wheel (it must hold code for the target, e.g. ``sm_100a``) and checks each
committed hsaco is an AMDGPU ELF for the target's gfx arch (``check_hsaco``); exit 0 when everything matches, 1
otherwise (2 for bad usage).
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
    cdir = Path(outdir) / config
    write_compiled(km, compiled, target, cdir)
    (cdir / "launch.json").write_text(kmod.dump_json(kmod.launch_json(km, config, shape, target, sp)))
    return cdir


def write_compiled(km: kmod.KernelModule, compiled, target, cdir: Path) -> None:
    """Write what the compiler made of a kernel under ``cdir``: ``<kernel>.ttgir`` (file names made relative,
    see ``kmod.rewrite_ttgir_paths``), the binary ``<kernel>.cubin`` / ``.hsaco`` and Triton's metadata
    ``<kernel>.json``.  ``compiled`` is a CompiledKernel from ``triton.compile`` or from a real launch."""
    name = km.kernel_name
    cdir.mkdir(parents=True, exist_ok=True)
    (cdir / f"{name}.ttgir").write_text(kmod.rewrite_ttgir_paths(compiled.asm["ttgir"], km.root))
    kind = binary_kind(target)
    (cdir / f"{name}.{kind}").write_bytes(compiled.asm[kind])
    (cdir / f"{name}.json").write_text(kmod.dump_json(kmod.metadata_json(compiled, km.root)))


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


# EF_AMDGPU_MACH_* (the low byte of e_flags) of the AMDGPU ELF ABI, for the archs we capture and their neighbours.
_AMDGPU_MACH = {"gfx90a": 0x3F, "gfx940": 0x40, "gfx941": 0x4B, "gfx942": 0x4C, "gfx950": 0x4F, "gfx1100": 0x41,
                "gfx1200": 0x48, "gfx1201": 0x4E}
_EM_AMDGPU = 224
_ELFOSABI_AMDGPU_HSA = 64


def check_hsaco(hsaco: Path, target) -> str | None:
    """None when ``hsaco`` is a 64-bit little-endian AMDGPU HSA ELF (a shared object) for ``target.arch``.

    Reads the ELF header (no elftools needed): magic, class 64, little-endian, OS ABI ``AMDGPU_HSA``,
    ``e_type`` ET_DYN, ``e_machine`` EM_AMDGPU (224), the ``EF_AMDGPU_MACH`` byte of ``e_flags`` for the gfx arch
    where we know its value, and the arch name (``amdgcn-amd-amdhsa--gfx942``) in the file.
    """
    import struct
    data = Path(hsaco).read_bytes()
    if len(data) < 64 or data[:4] != b"\x7fELF":
        return "not an ELF file"
    if data[4] != 2 or data[5] != 1:
        return "not a 64-bit little-endian ELF"
    if data[7] != _ELFOSABI_AMDGPU_HSA:
        return f"OS ABI {data[7]}, expected {_ELFOSABI_AMDGPU_HSA} (AMDGPU HSA)"
    e_type, e_machine = struct.unpack_from("<HH", data, 16)
    (e_flags, ) = struct.unpack_from("<I", data, 48)
    if e_machine != _EM_AMDGPU:
        return f"e_machine {e_machine}, expected {_EM_AMDGPU} (EM_AMDGPU)"
    if e_type != 3:
        return f"e_type {e_type}, expected 3 (ET_DYN)"
    mach = _AMDGPU_MACH.get(target.arch)
    if mach is not None and e_flags & 0xFF != mach:
        return f"EF_AMDGPU_MACH 0x{e_flags & 0xFF:02x}, expected 0x{mach:02x} ({target.arch})"
    if target.arch.encode() not in data:
        return f"no {target.arch} in the file"
    return None


def check_binary(binary: Path, target) -> str | None:
    """``check_cubin`` or ``check_hsaco`` by target."""
    return check_cubin(binary, target) if binary_kind(target) == "cubin" else check_hsaco(binary, target)


def find_module_file(module_path: str, start: Path) -> Path:
    """Resolve a repository-relative module path from launch.json by looking in ``start`` and its parents."""
    for base in [Path.cwd(), *Path(start).resolve().parents]:
        if (base / module_path).is_file():
            return base / module_path
    raise kmod.UsageError(f"cannot find {module_path} above {start}")


def check_dir(directory: Path) -> int:
    """``--check``: re-capture every config under ``directory`` and compare; returns the exit code (0 or 1)."""
    launches = sorted(Path(directory).rglob("launch.json"))
    if not launches:
        print(f"error: no launch.json under {directory}", file=sys.stderr)
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
            binary = cdir / f"{kernel}.{binary_kind(target)}"
            why = check_binary(binary, target) if binary.is_file() else "missing"
            if why:
                problems.append(f"{binary.name}: {why}")
            status = "ok" if not problems else "FAIL: " + "; ".join(problems)
            print(f"{cdir}: {status} ({seconds:.2f} s)")
            failures += bool(problems)
    return 1 if failures else 0


def module_files(spec: str) -> list[str]:
    """A module argument: a directory stands for every kernel module below it (``*.py`` not starting with ``_``)."""
    path = Path(spec)
    if not path.is_dir():
        return [spec]
    files = sorted(f for f in path.rglob("*.py") if not f.name.startswith("_"))
    if not files:
        raise kmod.UsageError(f"no kernel modules under {spec}")
    return [str(f) for f in files]


def main(argv=None) -> int:
    """Command line; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python3 -m tlx_sim.capture", description=__doc__.split("\n\n")[0])
    parser.add_argument("module", nargs="*",
                        help="kernel modules: file paths (kernels/hopper/ws_gemm.py), dotted names, or directories "
                        "(every module below)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--config", nargs="+", metavar="NAME", help="configs to capture (default: all)")
    which.add_argument("--all", action="store_true", help="capture every config of the module")
    targets = parser.add_mutually_exclusive_group()
    targets.add_argument("--target", help="cuda:90, cuda:100, hip:gfx942 (default: the module's first TARGETS entry)")
    targets.add_argument("--all-targets", action="store_true", help="capture for every entry of the module's TARGETS")
    parser.add_argument("--shape", help="problem shape overrides, e.g. M=4096,N=4096 (default: DEFAULT_SHAPE)")
    parser.add_argument("-o", "--output", type=Path,
                        help="output directory (default: tests/inputs/<arch>/<kernel>, see KernelModule.capture_dir)")
    parser.add_argument("--check", type=Path, metavar="DIR",
                        help="re-capture every config under DIR (at any depth) and compare with what is there")
    args = parser.parse_args(argv)

    if args.check:
        if args.module:
            parser.error("--check takes no module (it reads launch.json)")
        return check_dir(args.check)
    if not args.module:
        parser.error("a kernel module is required (or --check DIR)")

    files = [f for spec in args.module for f in module_files(spec)]
    jobs = []  # (module, target, configs, output directory)
    for spec in files:
        km = kmod.load_module(spec)
        names = [args.target] if args.target else km.targets if args.all_targets else km.targets[:1]
        configs = args.config or list(km.configs)
        for name in configs:
            km.config(name)  # fail early on an unknown name
        for target in map(kmod.parse_target, names):
            jobs.append((km, target, configs, args.output or km.capture_dir(target)))
    if args.output and len(jobs) > 1:
        parser.error("-o takes one module and one target (leave it out to capture to tests/inputs/<arch>/<kernel>)")
    total = time.perf_counter()
    count = 0
    for km, target, configs, outdir in jobs:
        shape = kmod.parse_shape(args.shape, km.default_shape)
        for name in configs:
            start = time.perf_counter()
            cdir = capture_config(km, name, shape, target, outdir)
            print(f"captured {name} for {kmod.target_str(target)} in {time.perf_counter() - start:.2f} s -> {cdir}")
            count += 1
    print(f"{count} config(s) in {time.perf_counter() - total:.2f} s")
    return 0


def cli() -> int:
    """Entry point: ``main`` with usage errors as exit code 2."""
    return kmod.run_cli(main)


if __name__ == "__main__":
    sys.exit(cli())
