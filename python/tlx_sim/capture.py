"""Compile kernel-module configs for a GPU target with no GPU and save what tlx-sim reads.

Usage (from the repository root, ``PYTHONPATH=python:.`` or after ``pip install ./python``)::

    python3 -m tlx_sim.capture kernels/hopper/ws_gemm.py --all -o tests/inputs/hopper/ws_gemm
    python3 -m tlx_sim.capture kernels/hopper/ws_gemm.py --config s3 --shape M=4096,N=4096 -o /tmp/out
    python3 -m tlx_sim.capture kernels/amd/gemm.py --all --all-targets      # tests/inputs/amd-gfx942/gemm, ...-gfx950
    python3 -m tlx_sim.capture kernels --all --all-targets                   # every kernel module, every target
    python3 -m tlx_sim.capture --check tests/inputs/hopper/ws_gemm
    python3 -m tlx_sim.capture --check tests/inputs                          # every capture below it
    python3 -m tlx_sim.capture --tutorial hopper_gemm_ws                     # TLX's own tutorial (fbtriton)
    python3 -m tlx_sim.capture --tutorial all                                # every recipe, every target
    python3 -m tlx_sim.capture --tutorial blackwell_gemm_ws --list-configs   # its configs, kept by its pruning?
    python3 -m tlx_sim.capture --check tests/inputs/tlx                      # re-capture the TLX tutorials

Two compilers side by side: Triton 3.6.0 (``.venv``) for the project's Gluon / ``@triton.jit`` kernel modules,
fbtriton 3.7.4 (Meta's fork with TLX, ``.venv-tlx``) for TLX's tutorials and any module importing
``triton.language.extra.tlx``.  They cannot share a venv, so the command picks the compiler from what it
captures (or ``--compiler fbtriton|triton``) and, when the running Python has the other one, re-executes itself
under that venv's python (``compiler_python``: ``$TLX_SIM_PYTHON_FBTRITON`` / ``$TLX_SIM_PYTHON_TRITON``, else
``.venv-tlx/bin/python3`` / ``.venv/bin/python3`` of the repository).  ``--check`` checks every capture below
``DIR`` with the compiler its launch.json names (``"compiler"``; absent means ``triton``), the other compiler's
captures in a child process; ``--check DIR --compiler X`` checks only those of compiler X.

TLX tutorials are captured as they are, from the wheel (``tlx_sim.tlx_tutorials``, recipe table
``tlx_tutorial_recipes.py``) into ``tests/inputs/tlx/<arch>/<tutorial>/<config>/``.

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
import ast
import contextlib
import difflib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tlx_sim import kernel_module as kmod


def binary_kind(target) -> str:
    """The ``asm`` key (and file suffix) of the target's binary: ``cubin`` or ``hsaco``."""
    return "cubin" if target.backend == "cuda" else "hsaco"


def capture_config(km: kmod.KernelModule, config: str, shape: dict, target, outdir: Path,
                   proton: bool = False) -> Path:
    """Compile one config and write its four files under ``outdir/<config>/``; returns that directory.

    Uses a fresh, temporary Triton cache.  ``proton``: compile with Proton's instrumentation mode on (the
    kernel's ``pl.enter_scope`` / ``pl.scope`` become records, the metadata asks for a ``profile_scratch``
    buffer) and also write the scope table ``<kernel>.proton.json`` (``tlx_sim.proton_capture``).
    """
    from tlx_sim import proton_capture
    with kmod.fresh_triton_cache(), (proton_capture.instrumented(target) if proton
                                     else contextlib.nullcontext()) as mode:
        compiled, sp = kmod.compile_config(km, config, shape, target,
                                           {"instrumentation_mode": mode} if proton else None)
    cdir = Path(outdir) / config
    write_compiled(km, compiled, target, cdir)
    (cdir / "launch.json").write_text(kmod.dump_json(kmod.launch_json(km, config, shape, target, sp)))
    if proton:
        proton_capture.write_scope_table(cdir, km.kernel_name, compiled.asm["ttgir"], target, mode)
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


def cuobjdump_path(compiler: str | None = None) -> Path:
    """The ``cuobjdump`` shipped in the wheel of ``compiler`` (triton/backends/nvidia/bin/cuobjdump): the running
    triton's for None or the running compiler, else the one in that compiler's venv (``compiler_python``).

    fbtriton 3.7.4 ships CUDA 13.1's, triton 3.6.0 CUDA 12.8's, which shows an sm_100a cubin of CUDA 13 as
    ``sm_100``: each capture is disassembled with its own compiler's."""
    if compiler is None or compiler == current_compiler():
        import triton
        return Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    venv = compiler_python(compiler).parent.parent
    found = sorted(venv.glob("lib/python*/site-packages/triton/backends/nvidia/bin/cuobjdump"))
    if not found:
        raise MissingCompiler(f"no cuobjdump in the {compiler} venv {venv}")
    return found[0]


def check_cubin(cubin: Path, target, compiler: str | None = None) -> str | None:
    """Disassemble ``cubin`` with ``cuobjdump -sass`` (of ``compiler``'s wheel, see ``cuobjdump_path``); None when it
    is code for the target's arch, else why not."""
    arch = f"sm_{target.arch}a" if target.arch >= 90 else f"sm_{target.arch}"
    proc = subprocess.run([str(cuobjdump_path(compiler)), "-sass", str(cubin)], capture_output=True, text=True)
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


def check_binary(binary: Path, target, compiler: str | None = None) -> str | None:
    """``check_cubin`` (with ``compiler``'s cuobjdump) or ``check_hsaco`` by target."""
    return check_cubin(binary, target, compiler) if binary_kind(target) == "cubin" else check_hsaco(binary, target)


def find_module_file(module_path: str, start: Path) -> Path:
    """Resolve a repository-relative module path from launch.json by looking in ``start`` and its parents."""
    for base in [Path.cwd(), *Path(start).resolve().parents]:
        if (base / module_path).is_file():
            return base / module_path
    raise kmod.UsageError(f"cannot find {module_path} above {start}")


COMPILERS = ("triton", "fbtriton")
REPO_ROOT = Path(__file__).resolve().parents[2]


def current_compiler() -> str:
    """``fbtriton`` when the running Python's triton has TLX (``triton.language.extra.tlx``), else ``triton``."""
    try:
        return "fbtriton" if importlib.util.find_spec("triton.language.extra.tlx") else "triton"
    except ModuleNotFoundError:
        return "triton"


_SKIP_MISSING = False  # --skip-missing-compiler


class MissingCompiler(kmod.UsageError):
    """The venv of a needed compiler is absent (exit 2, or 77 with ``--skip-missing-compiler``)."""


def compiler_python(compiler: str) -> Path:
    """The python of the venv holding ``compiler``: ``$TLX_SIM_PYTHON_FBTRITON`` / ``$TLX_SIM_PYTHON_TRITON``, else
    ``.venv-tlx/bin/python3`` / ``.venv/bin/python3`` in the repository (or the current directory).

    UsageError when there is none (tools/setup.sh creates both venvs)."""
    env = os.environ.get(f"TLX_SIM_PYTHON_{compiler.upper()}")
    if env and Path(env).exists():
        return Path(env)
    venv = ".venv-tlx" if compiler == "fbtriton" else ".venv"
    for base in (REPO_ROOT, Path.cwd()):
        python = base / venv / "bin" / "python3"
        if python.exists():
            return python
    raise MissingCompiler(f"capturing with {compiler} needs {venv}/bin/python3 in {REPO_ROOT} (tools/setup.sh makes "
                          f"it) or $TLX_SIM_PYTHON_{compiler.upper()}")


def _imports_tlx(path: Path, seen: set, depth: int = 4) -> bool:
    """Whether the Python file ``path`` imports TLX (``triton.language.extra.tlx``, also as ``from
    triton.language.extra import tlx``), itself or through a module of its own folder (or of ``PYTHONPATH``) that it
    imports: a user's driver script imports their copy of a tutorial, and that copy imports TLX."""
    if path in seen or depth < 0:
        return False
    seen.add(path)
    text = path.read_text(errors="replace")
    if "triton.language.extra.tlx" in text:
        return True
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False  # the script's own run reports it
    names = []  # (module path, the folder a relative import starts from or None)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.module == "triton.language.extra" and any(a.name == "tlx" for a in node.names):
                return True
            base = None
            if node.level > 0:  # from . import kern / from .pkg import kern: relative to this file's package
                base = path.parent
                for _ in range(node.level - 1):
                    base = base.parent
            prefix = f"{node.module}." if node.module else ""
            if node.module:
                names.append((node.module, base))
            names += [(prefix + a.name, base) for a in node.names]  # `from pkg import kern`: maybe a module
    env_roots = [Path(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    for name, base in names:
        rel = Path(*name.split("."))
        for root in ([base] if base is not None else [path.parent] + env_roots):
            for cand in (root / rel.with_suffix(".py"), root / rel / "__init__.py"):
                if cand.is_file() and _imports_tlx(cand.resolve(), seen, depth - 1):
                    return True
    return False


def module_compiler(spec: str) -> str:
    """The compiler a kernel module or script needs: ``fbtriton`` when it imports TLX, directly or through a local
    module it imports (``_imports_tlx``); else ``triton``."""
    path = Path(spec)
    if path.is_file():
        return "fbtriton" if _imports_tlx(path.resolve(), set()) else "triton"
    return "triton"


def launch_compiler(launch: dict) -> str:
    """The compiler a committed capture was made with (launch.json ``"compiler"``, absent: ``triton``)."""
    return launch.get("compiler", "triton")


def run_under(compiler: str, argv: list[str]) -> int:
    """Run ``python -m tlx_sim.capture ARGV`` under ``compiler``'s venv; returns its exit code."""
    python = compiler_python(compiler)
    env = dict(os.environ)
    paths = [str(REPO_ROOT / "python"), str(REPO_ROOT)]
    env["PYTHONPATH"] = os.pathsep.join(paths + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    sys.stdout.flush()
    return subprocess.run([str(python), "-m", "tlx_sim.capture", *argv], env=env).returncode


def reexec_under(compiler: str, argv: list[str], module: str = "tlx_sim.capture"):
    """Replace this process by ``python -m MODULE ARGV`` under ``compiler``'s venv (never returns)."""
    python = compiler_python(compiler)
    env = dict(os.environ)
    paths = [str(REPO_ROOT / "python"), str(REPO_ROOT)]
    env["PYTHONPATH"] = os.pathsep.join(paths + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["TLX_SIM_CAPTURE_REEXEC"] = compiler  # guard: never loop between the venvs
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(str(python), [str(python), "-m", module, *argv], env)


def _compare(cdir: Path, fresh_dir: Path, kernel: str, committed: dict, target) -> list[str]:
    """What differs between a committed capture and a fresh one (TTGIR byte for byte, launch.json, binary)."""
    problems = []
    old = (cdir / f"{kernel}.ttgir").read_text()
    new = (fresh_dir / f"{kernel}.ttgir").read_text()
    if old != new:
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                   str(cdir / f"{kernel}.ttgir"), "fresh capture"))
        problems.append("TTGIR differs")
    fresh = json.loads((fresh_dir / "launch.json").read_text())
    if fresh != committed:
        keys = sorted(k for k in set(fresh) | set(committed) if fresh.get(k) != committed.get(k))
        problems.append(f"launch.json differs ({', '.join(keys)})")
    binary = cdir / f"{kernel}.{binary_kind(target)}"
    why = check_binary(binary, target, launch_compiler(committed)) if binary.is_file() else "missing"
    if why:
        problems.append(f"{binary.name}: {why}")
    return problems


def check_tutorials(launches: list[Path], tmp: Path) -> int:
    """Re-capture committed TLX tutorial captures (one run of each tutorial per target for all its configs)."""
    from tlx_sim import tlx_tutorials as tt
    groups: dict = {}
    for launch_file in launches:
        committed = json.loads(launch_file.read_text())
        key = (committed["tutorial"], committed["target"], json.dumps(committed.get("shape"), sort_keys=True))
        groups.setdefault(key, []).append((launch_file, committed))
    failures = 0
    for (name, target_name, _), items in groups.items():
        target = kmod.parse_target(target_name)
        out = tmp / kmod.arch_dir(target) / name
        start = time.perf_counter()
        try:
            proton = (items[0][0].parent / f"{items[0][1]['kernel']}.proton.json").is_file()  # --proton capture
            tt.capture(name, [c["config"] for _, c in items], target, out, shape=items[0][1].get("shape"),
                       proton=proton)
            error = None
        except Exception as err:  # a tutorial that no longer runs: report, keep checking the others
            error = f"{type(err).__name__}: {err}"
        seconds = (time.perf_counter() - start) / len(items)
        for launch_file, committed in items:
            cdir = launch_file.parent
            problems = [f"re-capture failed: {error}"] if error else _compare(
                cdir, out / committed["config"], committed["kernel"], committed, target)
            status = "ok" if not problems else "FAIL: " + "; ".join(problems)
            print(f"{cdir}: {status} ({seconds:.2f} s)")
            failures += bool(problems)
    return failures


def waits_source(launch_file: Path) -> str | None:
    """The plain capture a ``--proton-waits`` capture was instrumented from (its scope table's ``waits_from``,
    relative to the repository root), or None."""
    launch = json.loads(launch_file.read_text())
    table = launch_file.parent / f"{launch['kernel']}.proton.json"
    return json.loads(table.read_text()).get("waits_from") if table.is_file() else None


def check_waits(launches: list[Path], tmp: Path) -> int:
    """Re-instrument each ``--proton-waits`` capture from its plain capture and compare; returns the failures."""
    from tlx_sim import proton_capture
    failures = 0
    for i, launch_file in enumerate(launches):
        committed = json.loads(launch_file.read_text())
        cdir, start = launch_file.parent, time.perf_counter()
        try:
            fresh = proton_capture.capture_waits(REPO_ROOT / waits_source(launch_file), tmp / str(i), REPO_ROOT)
            problems = _compare(cdir, fresh, committed["kernel"], committed, kmod.parse_target(committed["target"]))
        except Exception as err:  # a plain capture that no longer compiles: report, keep checking
            problems = [f"re-instrumenting failed: {type(err).__name__}: {err}"]
        status = "ok" if not problems else "FAIL: " + "; ".join(problems)
        print(f"{cdir}: {status} ({time.perf_counter() - start:.2f} s)")
        failures += bool(problems)
    return failures


def check_dir(directory: Path, only: str | None = None) -> int:
    """``--check``: re-capture every config under ``directory`` and compare; returns the exit code (0 or 1).

    Each capture is checked with the compiler that made it (``launch_compiler``); those of the compiler this
    Python lacks are checked by a child process under that compiler's venv (``run_under``).  ``only``: check
    just the captures of that compiler."""
    all_launches = sorted(Path(directory).rglob("launch.json"))
    if not all_launches:
        print(f"error: no launch.json under {directory}", file=sys.stderr)
        return 2
    by_compiler: dict = {}
    for launch_file in all_launches:
        by_compiler.setdefault(launch_compiler(json.loads(launch_file.read_text())), []).append(launch_file)
    if only is not None:
        by_compiler = {only: by_compiler.get(only, [])}
        if not by_compiler[only]:
            print(f"error: no {only} capture under {directory}", file=sys.stderr)
            return 2
    here = current_compiler()
    failures = 0
    for compiler in by_compiler:
        if compiler != here:
            if os.environ.get("TLX_SIM_CAPTURE_REEXEC"):
                raise kmod.UsageError(f"{compiler_python(compiler)} does not have {compiler}")
            rc = run_under(compiler, ["--check", str(directory), "--compiler", compiler]
                           + (["--skip-missing-compiler"] if _SKIP_MISSING else []))
            if rc in (2, 77):
                return rc
            failures += rc != 0
    launches = by_compiler.get(here, [])
    waits = [f for f in launches if waits_source(f)]
    launches = [f for f in launches if f not in waits]
    with tempfile.TemporaryDirectory(prefix="tlx-sim-check-") as tmp:
        failures += check_waits(waits, Path(tmp) / "waits")
        tutorial_launches = [f for f in launches if "tutorial" in json.loads(f.read_text())]
        if tutorial_launches:
            failures += check_tutorials(tutorial_launches, Path(tmp) / "tlx")
        for launch_file in launches:
            if launch_file in tutorial_launches:
                continue
            committed = json.loads(launch_file.read_text())
            cdir = launch_file.parent
            config, kernel = committed["config"], committed["kernel"]
            target = kmod.parse_target(committed["target"])
            km = kmod.load_module(str(find_module_file(committed["module"], cdir)))
            shape = committed.get("shape") or kmod.parse_shape(None, km.default_shape)
            start = time.perf_counter()
            proton = (cdir / f"{kernel}.proton.json").is_file()  # an instrumented capture (--proton)
            fresh_dir = capture_config(km, config, shape, target, Path(tmp), proton)
            seconds = time.perf_counter() - start
            problems = _compare(cdir, fresh_dir, kernel, committed, target)
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


def tutorial_names(specs: list[str]) -> list[str]:
    """``--tutorial`` arguments -> recipe names: ``all``, a recipe name, or a tutorial file path (its stem)."""
    from tlx_sim.tlx_tutorial_recipes import RECIPES
    names = []
    for spec in specs:
        if spec == "all":
            names.extend(RECIPES)
            continue
        name = Path(spec).stem if spec.endswith(".py") else spec
        if name not in RECIPES:
            raise kmod.UsageError(f"no TLX tutorial recipe {name!r} (known: {', '.join(RECIPES)})")
        names.append(name)
    return list(dict.fromkeys(names))


def is_tutorial_path(spec: str) -> bool:
    """A module argument naming a file of TLX's tutorials folder (``.../tlx/tutorials/x.py``)."""
    return "/tlx/tutorials/" in Path(spec).resolve().as_posix()


def capture_tutorials(args, parser) -> int:
    """``--tutorial``: capture recipes (every target of each unless ``--target``) or list a tutorial's configs."""
    from tlx_sim import tlx_tutorials as tt
    names = tutorial_names(args.tutorial)
    if args.output and len(names) == 1 and not args.target and len(tt.recipe(names[0]).targets) == 1:
        args.target = tt.recipe(names[0]).targets[0]  # -o names one folder: a one-target recipe needs no --target
    if args.output and (len(names) > 1 or not args.target):
        parser.error("-o with --tutorial takes one tutorial and, for a tutorial of several targets, --target")
    total, count = time.perf_counter(), 0
    for name in names:
        rcp = tt.recipe(name)
        targets = [args.target] if args.target else rcp.targets
        shape = kmod.parse_shape(args.shape, rcp.shape) if args.shape else None
        for target in map(kmod.parse_target, targets):
            if args.list_configs:
                for kept, config in tt.list_configs(name, target):
                    print(f"{'kept   ' if kept else 'pruned '}{config.all_kwargs()}")
                continue
            configs = args.config or list(rcp.configs)
            start = time.perf_counter()
            dirs = tt.capture(name, configs, target, args.output, shape=shape, proton=args.proton)
            seconds = time.perf_counter() - start
            for cdir in dirs:
                print(f"captured {name} {cdir.name} for {kmod.target_str(target)} -> {cdir}")
            print(f"  {len(dirs)} config(s) of {name} in {seconds:.2f} s")
            count += len(dirs)
    if not args.list_configs:
        print(f"{count} config(s) in {time.perf_counter() - total:.2f} s")
    return 0


def capture_waits_cli(args, parser, argv) -> int:
    """``--proton-waits CAPTURE -o DIR``: under the compiler the capture names (re-executing if needed)."""
    from tlx_sim import proton_capture
    if args.module or args.tutorial or not args.output:
        parser.error("--proton-waits takes one capture folder and -o (the instrumented capture's folder)")
    launch_file = args.proton_waits / "launch.json"
    if not launch_file.is_file():
        raise kmod.UsageError(f"{launch_file}: no such file")
    needed = launch_compiler(json.loads(launch_file.read_text()))
    if needed != current_compiler():
        if os.environ.get("TLX_SIM_CAPTURE_REEXEC"):
            raise kmod.UsageError(f"{sys.executable} does not have {needed}")
        reexec_under(needed, argv)
    start = time.perf_counter()
    cdir = proton_capture.capture_waits(args.proton_waits, args.output, REPO_ROOT)
    print(f"instrumented the waits of {args.proton_waits} -> {cdir} in {time.perf_counter() - start:.2f} s")
    return 0


def main(argv=None) -> int:
    """Command line; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python3 -m tlx_sim.capture", description=__doc__.split("\n\n")[0])
    parser.add_argument("module", nargs="*",
                        help="kernel modules: file paths (kernels/hopper/ws_gemm.py), dotted names, or directories "
                        "(every module below); a file of TLX's tutorials folder means --tutorial")
    parser.add_argument("--tutorial", nargs="+", metavar="NAME",
                        help="TLX tutorials to capture as they are (recipe names of tlx_tutorial_recipes.py, file "
                        "stems: hopper_gemm_ws; 'all'), for every target of the recipe unless --target")
    parser.add_argument("--list-configs", action="store_true",
                        help="with --tutorial: print the tutorial's autotune configs and whether its pruning keeps them")
    parser.add_argument("--compiler", choices=COMPILERS,
                        help="fbtriton (TLX, .venv-tlx) or triton (3.6.0, .venv); default: by what is captured; "
                        "with --check: check only that compiler's captures")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--config", nargs="+", metavar="NAME", help="configs to capture (default: all)")
    which.add_argument("--all", action="store_true", help="capture every config of the module")
    targets = parser.add_mutually_exclusive_group()
    targets.add_argument("--target", help="cuda:90, cuda:100, hip:gfx942 (default: the module's first TARGETS entry)")
    targets.add_argument("--all-targets", action="store_true", help="capture for every entry of the module's TARGETS")
    parser.add_argument("--shape", help="problem shape overrides, e.g. M=4096,N=4096 (default: DEFAULT_SHAPE)")
    parser.add_argument("-o", "--output", type=Path,
                        help="output directory (default: tests/inputs/<arch>/<kernel>, see KernelModule.capture_dir)")
    parser.add_argument("--proton", action="store_true",
                        help="compile with Proton's instrumentation mode on (mode default: warp granularity, "
                        "circular shared buffer) and write the scope table <kernel>.proton.json next to the capture, "
                        "for `tlx-sim run --proton` (needs -o: instrumented captures never go to tests/inputs)")
    parser.add_argument("--proton-waits", type=Path, metavar="CAPTURE",
                        help="instrument an existing capture (a <config> folder) for Proton with a scope around every "
                        "mbarrier wait and wgmma wait of its TTGIR, compiled from that TTGIR, into -o (the new "
                        "<config> folder); for kernels that declare no scopes, such as TLX's tutorials")
    parser.add_argument("--check", type=Path, metavar="DIR", nargs="+",
                        help="re-capture every config under DIR (at any depth; several DIRs: each) and compare with "
                        "what is there")
    parser.add_argument("--skip-missing-compiler", action="store_true",
                        help="exit 77 (a skipped test) instead of 2 when the venv of a needed compiler is missing")
    args = parser.parse_args(argv)
    if args.skip_missing_compiler:
        global _SKIP_MISSING
        _SKIP_MISSING = True

    if args.check:
        if args.module or args.tutorial:
            parser.error("--check takes no module (it reads launch.json)")
        codes = [check_dir(directory, args.compiler) for directory in args.check]
        return next((code for code in (2, 77) if code in codes), max(codes))
    if args.proton_waits:
        return capture_waits_cli(args, parser, argv)
    tutorial_args = [m for m in args.module if is_tutorial_path(m)]
    if tutorial_args:
        if len(tutorial_args) != len(args.module):
            parser.error("capture TLX tutorials and kernel modules in separate runs")
        args.tutorial = (args.tutorial or []) + tutorial_args
        args.module = []
    if args.tutorial and args.module:
        parser.error("capture TLX tutorials and kernel modules in separate runs")
    if not args.module and not args.tutorial:
        parser.error("a kernel module is required (or --tutorial NAME, or --check DIR)")
    if args.proton and not args.output:
        parser.error("--proton needs -o (instrumented captures are kept apart from tests/inputs)")
    if args.list_configs and not args.tutorial:
        parser.error("--list-configs goes with --tutorial")

    files = [f for spec in args.module for f in module_files(spec)]
    needed = args.compiler or ("fbtriton" if args.tutorial else None)
    if needed is None:
        wanted = {module_compiler(f) for f in files}
        if len(wanted) > 1:
            parser.error("these modules need different compilers (fbtriton for TLX ones): capture them separately")
        needed = wanted.pop()
    if needed != current_compiler():
        if os.environ.get("TLX_SIM_CAPTURE_REEXEC"):
            raise kmod.UsageError(f"{sys.executable} does not have {needed}")
        reexec_under(needed, argv)
    if args.tutorial:
        return capture_tutorials(args, parser)

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
            cdir = capture_config(km, name, shape, target, outdir, args.proton)
            print(f"captured {name} for {kmod.target_str(target)} in {time.perf_counter() - start:.2f} s -> {cdir}")
            count += 1
    print(f"{count} config(s) in {time.perf_counter() - total:.2f} s")
    return 0


def cli() -> int:
    """Entry point: ``main`` with usage errors as exit code 2 (a missing compiler venv: 77 with
    ``--skip-missing-compiler``)."""
    try:
        return main()
    except MissingCompiler as err:
        print(f"error: {err}", file=sys.stderr)
        return 77 if _SKIP_MISSING else 2
    except kmod.UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(cli())
