"""Load kernel modules (kernels/README.md) and turn a config into exactly what a real Triton launch compiles.

Shared by ``tlx_sim.capture`` (compiles with no GPU) and ``tlx_sim.hw_time`` (runs on a GPU and checks that
the TTGIR it ran equals the capture).  Nothing here imports torch.

Specialization mirrors ``JITFunction.run`` of Triton 3.6 (triton/runtime/jit.py) by *calling Triton's own
code* rather than re-deriving it:

* ``create_function_from_signature(fn.signature, fn.params, backend)`` builds the same binder a launch uses;
  each non-constexpr argument goes through ``native_specialize_impl`` (C++, the same logic as
  ``specialize_impl`` in triton/backends/nvidia/driver.py of older wheels):
  - ``int``: type ``i32`` (``i64`` beyond 32 bits, ``u64`` beyond 63); the value 1 becomes a ``constexpr``;
    a value with ``value % 16 == 0`` gets key ``"D"`` -> ``tt.divisibility = 16``;
  - a pointer (``data_ptr()``) gets ``"D"`` when 16-byte aligned (stand-ins here report address 0, i.e. aligned,
    as a fresh torch allocation is), so a ``*fp16`` argument gets ``tt.divisibility = 16``; on hip targets a
    tensor of at most 2**31 - 1 bytes also gets ``"S"`` -> ``tt.pointer_range = 32`` (buffer ops), which the stand-in
    decides from its byte size exactly as ``HIPBackend.is_within_2gb`` does for a torch tensor;
  - a Gluon host ``TensorDescriptor`` becomes ``tensordesc<fp16[128, 64],NVMMASharedLayout(...)>`` built from
    the block shape and the layout's repr; no divisibility is recorded for descriptors;
* ``JITFunction._pack_args`` turns that into (options, signature, constexprs keyed by ``(index,)``,
  attrs ``{(index,): [["tt.divisibility", 16]]}``), with the same launch keywords a launch adds
  (``debug``, ``instrumentation_mode`` from ``triton.knobs``) plus the config's launch options (a config key
  that is not a kernel parameter, e.g. ``num_stages``, is a keyword of the launch, as ``KERNEL[grid](**config)``
  makes it);
* ``GluonASTSource`` (or ``ASTSource`` for plain ``@triton.jit``) plus ``triton.compile(src, target,
  options=options.__dict__)``, as ``JITFunction._do_compile`` does.

Descriptors are passed as real ``TensorDescriptor`` objects over ``triton.runtime.jit.MockTensor`` bases, so the
descriptor signature string is Triton's, not a hand-formatted copy.
"""
from __future__ import annotations

import contextlib
import dataclasses
import importlib
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from tlx_sim import binder_attrs

LAUNCH_SCHEMA_VERSION = 1
BUG_MARKER = "_bug_"  # config names containing this are seeded bugs: capture them, never run them on hardware


class UsageError(ValueError):
    """A bad module path, config name, shape or target: the command lines report it and exit with code 2."""


@dataclass
class KernelModule:
    """A loaded kernel module plus where it lives.

    ``root`` is the repository root (the directory holding the module's top-level package) and ``path`` the
    module's file relative to it, in POSIX form (``kernels/hopper/ws_gemm.py``).
    """
    module: ModuleType
    root: Path
    path: str

    @property
    def kernel(self):
        return self.module.KERNEL

    @property
    def kernel_name(self) -> str:
        return self.module.KERNEL.__name__

    @property
    def configs(self) -> dict:
        return self.module.CONFIGS

    @property
    def targets(self) -> list:
        return list(self.module.TARGETS)

    @property
    def num_warps(self) -> int:
        return self.module.NUM_WARPS

    @property
    def default_shape(self) -> dict:
        return dict(self.module.DEFAULT_SHAPE)

    @property
    def preconditions(self) -> list:
        """The module's optional ``PRECONDITIONS``: launch constraints the kernel is only correct under, each
        ``"NAME OP INTEGER"`` (``"K>=1"``) on a scalar argument or ``num_programs_x``; ``tlx-sim check`` reads
        them from ``launch.json`` as default ``--assume`` constraints of its Z3 proofs."""
        return [str(p) for p in getattr(self.module, "PRECONDITIONS", [])]

    def config(self, name: str) -> dict:
        """The dict of config ``name`` (constexprs and launch options); UsageError lists the known names."""
        try:
            return self.module.CONFIGS[name]
        except KeyError:
            raise UsageError(f"{self.path}: no config {name!r} (known: {', '.join(self.module.CONFIGS)})") from None

    def constexprs(self, name: str) -> dict:
        """The entries of config ``name`` that are kernel parameters (its ``constexpr`` arguments)."""
        params = {p.name for p in self.kernel.params}
        return {k: v for k, v in self.config(name).items() if k in params}

    def launch_options(self, name: str) -> dict:
        """The entries of config ``name`` that are launch options rather than parameters (``num_stages``, ...)."""
        params = {p.name for p in self.kernel.params}
        return {k: v for k, v in self.config(name).items() if k not in params}

    def launch(self, config_name: str, shape: dict) -> dict:
        """The module's launch spec (grid, args, descs, ptrs) for one config and shape."""
        return self.module.launch(self.config(config_name), shape)

    def capture_dir(self, target=None) -> Path:
        """Where the committed capture for ``target`` (default: the first of TARGETS) lives.

        ``tests/inputs/<arch>/<kernel>`` with ``<arch>`` from the target (``arch_dir``: cuda:90 -> hopper,
        cuda:100 -> blackwell, hip:gfx942 -> amd-gfx942) and ``<kernel>`` the module's path under ``kernels/``
        less a leading architecture folder (hopper, blackwell, amd), other folders joined with ``_``:
        kernels/hopper/ws_gemm.py -> tests/inputs/hopper/ws_gemm; kernels/amd/gemm.py for hip:gfx950 ->
        tests/inputs/amd-gfx950/gemm; kernels/triton/gemm.py for cuda:90 -> tests/inputs/hopper/triton_gemm.
        """
        target = parse_target(self.targets[0]) if target is None else target
        rel = Path(self.path).with_suffix("")
        parts = list(rel.parts[1:] if rel.parts and rel.parts[0] == "kernels" else rel.parts)
        if len(parts) > 1 and parts[0] in ARCH_FOLDERS:
            parts = parts[1:]
        return self.root / "tests" / "inputs" / arch_dir(target) / "_".join(parts)


def run_cli(main) -> int:
    """Runs a command's ``main()``; a UsageError (unknown module, config, target, shape) prints and exits 2."""
    try:
        return main()
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


def load_module(spec: str) -> KernelModule:
    """Import a kernel module from a file path (``kernels/hopper/ws_gemm.py``) or a dotted name.

    A file is imported under its package name (``kernels.hopper.ws_gemm``), found by walking up through the
    directories holding ``__init__.py``; the directory above the top-level package is the repository root and
    goes on ``sys.path``.  A dotted name is imported from the current ``sys.path``.
    """
    if spec.endswith(".py") or os.sep in spec or "/" in spec:
        file = Path(spec).resolve()
        if not file.is_file():
            raise UsageError(f"no kernel module file {spec}")
        parts = [file.stem]
        pkg = file.parent
        while (pkg / "__init__.py").is_file():
            parts.insert(0, pkg.name)
            pkg = pkg.parent
        root = pkg
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
        module = importlib.import_module(".".join(parts))
    else:
        try:
            module = importlib.import_module(spec)
        except ModuleNotFoundError as err:
            raise UsageError(f"cannot import kernel module {spec}: {err}") from None
        file = Path(module.__file__).resolve()
        root = file.parent
        for _ in spec.split(".")[:-1]:
            root = root.parent
    missing = [a for a in ("KERNEL", "TARGETS", "CONFIGS", "NUM_WARPS", "DEFAULT_SHAPE", "launch")
               if not hasattr(module, a)]
    if missing:
        raise UsageError(f"{file}: kernel module lacks {', '.join(missing)} (see kernels/README.md)")
    return KernelModule(module=module, root=root, path=file.relative_to(root).as_posix())


def parse_shape(text: str | None, default: dict) -> dict:
    """``"M=4096,N=4096"`` -> the default shape with those entries replaced (values are ints)."""
    shape = dict(default)
    for item in filter(None, (text or "").split(",")):
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or key not in shape or not value.isdigit():
            raise UsageError(f"bad shape entry {item!r}: expected NAME=INT with NAME in {', '.join(shape)}")
        shape[key] = int(value)
    return shape


def parse_target(text: str):
    """``"cuda:90"`` -> GPUTarget("cuda", 90, 32); ``"hip:gfx942"`` -> GPUTarget("hip", "gfx942", 64)."""
    from triton.backends.compiler import GPUTarget
    backend, sep, arch = text.partition(":")
    if backend == "cuda" and sep and arch.isdigit():
        return GPUTarget("cuda", int(arch), 32)
    if backend == "hip" and sep and arch:
        return GPUTarget("hip", arch, 64)
    raise UsageError(f"bad target {text!r}: expected cuda:<sm> (cuda:90) or hip:<gfx> (hip:gfx942)")


def target_str(target) -> str:
    """GPUTarget -> ``"cuda:90"`` (the spelling of ``ttg.target`` and of TARGETS)."""
    return f"{target.backend}:{target.arch}"


ARCH_FOLDERS = ("hopper", "blackwell", "amd")  # kernels/<folder>/ named after an architecture
_CUDA_ARCH_DIRS = {80: "ampere", 90: "hopper", 100: "blackwell", 103: "blackwell-sm103", 120: "blackwell-sm120"}


def arch_dir(target) -> str:
    """The ``tests/inputs`` folder of a target: cuda:90 -> hopper, cuda:100 -> blackwell, hip:gfx942 -> amd-gfx942."""
    if target.backend == "cuda":
        return _CUDA_ARCH_DIRS.get(target.arch, f"sm{target.arch}")
    return f"amd-{target.arch}"


@contextlib.contextmanager
def fresh_triton_cache():
    """Point TRITON_CACHE_DIR at a new temporary directory for the duration (stale caches can't interfere)."""
    old = os.environ.get("TRITON_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="tlx-sim-triton-cache-") as tmp:
        os.environ["TRITON_CACHE_DIR"] = tmp
        try:
            yield tmp
        finally:
            if old is None:
                os.environ.pop("TRITON_CACHE_DIR", None)
            else:
                os.environ["TRITON_CACHE_DIR"] = old


@dataclass
class Specialization:
    """What ``JITFunction.run`` hands to the compiler for one launch.

    ``signature``: type string by argument name (``"i32"``, ``"constexpr"``, ``"tensordesc<...>"``);
    ``constexprs``: value by ``(index,)``; ``attrs``: ``{(index,): [["tt.divisibility", 16]]}``;
    ``options``: the backend's options object (``CUDAOptions``), ``num_warps`` included.
    """
    signature: dict
    constexprs: dict
    attrs: dict
    options: object

    def divisibility(self) -> dict:
        """``{"M": 16, ...}``: the ``tt.divisibility`` of each specialized argument, by name."""
        return self.attribute("tt.divisibility")

    def attribute(self, attr: str) -> dict:
        """One argument attribute (``tt.divisibility``, ``tt.pointer_range``) by argument name, where present."""
        return binder_attrs.attribute_by_name(self.signature, self.attrs, attr)

    def constexpr_values(self) -> dict:
        """Every constexpr by argument name: the config's and those the JIT specialized (integer value 1)."""
        return binder_attrs.constexprs_by_name(self.signature, self.constexprs)


def specialize(km: KernelModule, config_name: str, shape: dict, target) -> Specialization:
    """Run Triton's own launch binder on stand-in arguments for ``config_name`` at ``shape`` (no GPU)."""
    from triton import knobs
    from triton.compiler import make_backend
    from triton.runtime.jit import MockTensor, create_function_from_signature
    import triton.language as tl

    spec = km.launch(config_name, shape)
    fn = km.kernel
    backend = make_backend(target)
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    descs = {name: _stand_in_desc(d, MockTensor(tl.dtype(d["dtype"]), d["shape"])) for name, d in spec["descs"].items()}
    ptrs = {name: StandInTensor(tl.dtype(p["dtype"]), p["shape"]) for name, p in spec.get("ptrs", {}).items()}
    launch_options = km.launch_options(config_name)
    allowed = {f.name for f in dataclasses.fields(backend.parse_options({}))}
    unknown = sorted(set(launch_options) - allowed)
    if "num_warps" in launch_options:
        raise UsageError(f"{km.path}: config {config_name!r} sets num_warps; it is the module's NUM_WARPS")
    if unknown:
        raise UsageError(f"{km.path}: config {config_name!r} has {', '.join(unknown)}: neither a parameter of "
                         f"{km.kernel_name} nor a launch option of the {target.backend} backend")
    # The keywords JITFunction.run adds before binding (triton/runtime/jit.py), after the launch's own.
    kwargs = {"num_warps": km.num_warps, **launch_options,
              "debug": fn.debug or knobs.runtime.debug,
              "instrumentation_mode": knobs.compilation.instrumentation_mode}
    with _torch_free_hip_binder(target):
        bound_args, specialization, options = binder(**descs, **ptrs, **spec["args"], **km.constexprs(config_name),
                                                     **kwargs)
    options, signature, constexprs, attrs = fn._pack_args(backend, kwargs, bound_args, specialization, options)
    return Specialization(signature=signature, constexprs=constexprs, attrs=attrs, options=options)


class StandInTensor:
    """A stand-in for a torch tensor passed as a pointer argument: 16-byte aligned (address 0), ``nbytes`` long.

    Like ``triton.runtime.jit.MockTensor`` but its ``ptr_range()`` is the tensor's real byte size, so the hip
    backend's "fits in 2 GB" test (``tt.pointer_range = 32``) answers as it would for the real tensor.
    """

    def __init__(self, dtype, shape):
        self.dtype = dtype
        self.shape = list(shape)

    @staticmethod
    def data_ptr():
        return 0

    def ptr_range(self) -> int:
        count = 1
        for size in self.shape:
            count *= size
        return count * self.dtype.primitive_bitwidth // 8


@contextlib.contextmanager
def _torch_free_hip_binder(target):
    """On hip targets, let ``HIPBackend.is_within_2gb`` answer without importing torch.

    Triton 3.6's version imports torch before it asks the argument's ``ptr_range()``; our stand-ins always have
    ``ptr_range()``, so the answer is the same, and capture still runs where torch is absent.
    """
    if target.backend != "hip":
        yield
        return
    from triton.backends.amd.compiler import HIPBackend
    saved = HIPBackend.__dict__["is_within_2gb"]
    HIPBackend.is_within_2gb = staticmethod(lambda arg: arg.ptr_range() <= 2**31 - 1)
    try:
        yield
    finally:
        HIPBackend.is_within_2gb = saved


def _stand_in_desc(desc: dict, base):
    """A host TensorDescriptor over a stand-in base, for the binder (Gluon descriptors carry a layout)."""
    if "layout" in desc:
        from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
        return TensorDescriptor(base, desc["shape"], desc["strides"], desc["block"], desc["layout"])
    from triton.tools.tensor_descriptor import TensorDescriptor
    return TensorDescriptor(base, desc["shape"], desc["strides"], desc["block"])


def compile_config(km: KernelModule, config_name: str, shape: dict, target, extra_options: dict | None = None):
    """Compile one config for ``target`` exactly as a launch at ``shape`` would; returns (CompiledKernel, Specialization).

    Call it inside ``fresh_triton_cache()`` to be sure nothing comes from an old cache.  ``extra_options``: more
    compile options, e.g. ``instrumentation_mode`` (what the JIT adds from ``knobs.compilation``).
    """
    import triton
    sp = specialize(km, config_name, shape, target)
    if km.kernel.is_gluon():
        from triton.experimental.gluon._runtime import GluonASTSource as Source
    else:
        from triton.compiler import ASTSource as Source
    src = Source(km.kernel, sp.signature, sp.constexprs, sp.attrs)
    return triton.compile(src, target=target, options={**sp.options.__dict__, **(extra_options or {})}), sp


def _path_prefixes(root: Path) -> list[tuple[str, str]]:
    """(absolute prefix, replacement) pairs, longest first: repository root -> '', triton package -> 'triton/'."""
    import triton
    pairs = set()
    for base, repl in ((root, ""), (Path(triton.__file__).parent, "triton/")):
        for spelling in {str(base), os.path.abspath(base), os.path.realpath(base)}:
            pairs.add((spelling.rstrip("/") + "/", repl))
    return sorted(pairs, key=lambda p: -len(p[0]))


def relative_path(path: str, root: Path) -> str:
    """An absolute path under ``root`` -> repository-relative; inside the triton package -> ``triton/...``."""
    for prefix, repl in _path_prefixes(root):
        if path.startswith(prefix):
            return repl + path[len(prefix):]
    return path


_LOC_FILE = re.compile(r'loc\("(/[^"]*)"')


def rewrite_ttgir_paths(ttgir: str, root: Path) -> str:
    """Make the file names of ``loc("file":line:col)`` machine-independent (see ``relative_path``)."""
    return _LOC_FILE.sub(lambda m: f'loc("{relative_path(m.group(1), root)}"', ttgir)


def metadata_json(compiled, root: Path) -> dict:
    """Triton's metadata (``CompiledKernel.metadata``) as plain JSON values, absolute paths made relative."""
    def plain(value):
        if hasattr(value, "_asdict"):  # KernelMetadata (a namedtuple)
            return {k: plain(v) for k, v in value._asdict().items()}
        if dataclasses.is_dataclass(value):  # GPUTarget
            return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        if isinstance(value, str) and value.startswith("/"):
            return relative_path(value, root)
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        return str(value)

    return plain(compiled.metadata)


def recompile_ttgir(plain: Path, text: str, root: Path, extra_options: dict | None = None):
    """Compile the TTGIR ``text`` as the capture folder ``plain`` was compiled: its target (launch.json), the
    backend options of its metadata (``num_stages``, ``maxnreg`` ...; ``extra_options`` on top; ``num_warps`` and
    ``num_ctas`` come from the TTGIR's own attributes) and,
    since a ``.ttgir`` source does not produce it, its ``tensordesc_meta`` (without it the launcher packs host
    descriptors as device-side ones and the binary's parameters disagree). ``triton.compile`` of a ``.ttgir`` file
    starts after the TTGIR passes. Returns (CompiledKernel, metadata JSON with paths relative to ``root``); the
    compiler's exceptions propagate."""
    import triton
    from triton.compiler.compiler import make_backend
    plain = Path(plain)
    launch = json.loads((plain / "launch.json").read_text())
    kernel, target = launch["kernel"], parse_target(launch["target"])
    meta = json.loads((plain / f"{kernel}.json").read_text())
    fields = getattr(make_backend(target).parse_options({}), "__dataclass_fields__", {})
    skip = {"extern_libs", "arch", "backend_name", "num_warps", "num_ctas", "instrumentation_mode", "ir_override"}
    options = {k: tuple(v) if isinstance(v, list) else v for k, v in meta.items() if k in fields and k not in skip}
    with tempfile.TemporaryDirectory() as tmp, fresh_triton_cache():
        source = Path(tmp) / f"{kernel}.ttgir"
        source.write_text(text)
        compiled = triton.compile(str(source), target=target, options={**options, **(extra_options or {})})
    new_meta = metadata_json(compiled, root)
    if not new_meta.get("tensordesc_meta"):
        new_meta["tensordesc_meta"] = meta.get("tensordesc_meta")
    return compiled, new_meta


def launch_json(km: KernelModule, config_name: str, shape: dict, target, sp: Specialization) -> dict:
    """The launch spec the C++ tool reads (``launch.json``, schema_version 1, documented in kernels/README.md)."""
    import triton
    spec = km.launch(config_name, shape)
    descs = {}
    for name, d in spec["descs"].items():
        descs[name] = {k: d[k] for k in ("shape", "strides", "block", "dtype")}
        if "layout" in d:
            descs[name]["layout"] = repr(d["layout"])
    extra = {}
    if spec.get("ptrs"):  # pointer arguments of plain @triton.jit kernels: {"shape", "dtype"} by name
        extra["ptrs"] = {name: {"shape": list(p["shape"]), "dtype": p["dtype"]} for name, p in spec["ptrs"].items()}
    if km.preconditions:  # launch constraints the kernel needs (the prover's default assumptions)
        extra["preconditions"] = km.preconditions
    if km.launch_options(config_name):  # launch keywords of the config (num_stages, ...)
        extra["options"] = dict(km.launch_options(config_name))
    return {
        "schema_version": LAUNCH_SCHEMA_VERSION,
        "kernel": km.kernel_name,
        "module": km.path,
        "config": config_name,
        "target": target_str(target),
        "num_warps": km.num_warps,
        "grid": list(spec["grid"]) + [1] * (3 - len(spec["grid"])),
        "args": dict(spec["args"]),
        "descs": descs,
        "constexprs": sp.constexpr_values(),
        # Extra keys (allowed by the schema): the full shape and what the JIT specialized.
        "shape": dict(shape),
        "signature": dict(sp.signature),
        "divisibility": sp.divisibility(),
        **({"pointer_range": sp.attribute("tt.pointer_range")} if sp.attribute("tt.pointer_range") else {}),
        # The correctness reference `tlx-sim run` checks, where the module declares one (kernels/README.md).
        **({"reference": dict(km.module.REFERENCE)} if getattr(km.module, "REFERENCE", None) else {}),
        **extra,
        # Captures made with fbtriton (a module importing triton.language.extra.tlx) say so; absent: triton.
        **({"compiler": "fbtriton"} if hasattr(triton.language, "extra") and _has_tlx() else {}),
        "triton_version": triton.__version__,
    }


def _has_tlx() -> bool:
    """Whether the running triton is fbtriton (has ``triton.language.extra.tlx``)."""
    import importlib.util
    try:
        return importlib.util.find_spec("triton.language.extra.tlx") is not None
    except ModuleNotFoundError:
        return False


def dump_json(obj) -> str:
    """The one JSON spelling of every file we write: 2-space indent, lists of scalars on one line, final newline."""
    def fmt(value, pad):
        inner = pad + "  "
        if isinstance(value, dict) and value:
            items = (f"{inner}{json.dumps(str(k))}: {fmt(v, inner)}" for k, v in value.items())
            return "{\n" + ",\n".join(items) + "\n" + pad + "}"
        if isinstance(value, list) and any(isinstance(v, (dict, list)) and v for v in value):
            return "[\n" + ",\n".join(inner + fmt(v, inner) for v in value) + "\n" + pad + "]"
        return json.dumps(value)

    return fmt(obj, "") + "\n"
