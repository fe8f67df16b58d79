"""Python API for Triton / Gluon users: check and predict a kernel launch with tlx-sim, no GPU needed.

    import tlx_sim
    r = tlx_sim.predict(ws_gemm_kernel, (4096,), a_desc, b_desc, c_desc, 8192, 8192, 8192,
                        BM=128, BN=128, BK=64, S=3, GROUP_M=8, BUG=0, num_warps=4, target="cuda:90")
    print(r.time_us, r.tflops, r.bound)
    c = tlx_sim.check(ws_gemm_kernel, (4096,), ..., max_ctas=8)
    assert c.clean, c.findings

The launch is written as ``kernel[grid](*args, **kwargs)`` would make it: the arguments go through Triton's own
binder (``create_function_from_signature``, as ``JITFunction.run`` does), so specialization (``tt.divisibility``,
integer 1 as constexpr) is the JIT's, then ``triton.compile`` for ``target`` (no GPU), and the TTGIR, metadata,
binary and a ``launch.json`` are written like ``tlx_sim.capture`` does. Arguments may be real torch tensors and
descriptors, or stand-ins where torch is absent: ``tlx_sim.desc(shape, block, dtype)`` for a host tensor descriptor,
``tlx_sim.tensor(shape, dtype)`` for a pointer argument. ``kwargs`` are the kernel's constexprs and the launch
options (``num_warps``, ``num_stages``, ...).

The ``tlx-sim`` binary is found by ``find_tlx_sim()``: $TLX_SIM, then ``tlx-sim`` on PATH, then the repository's
``build/tools/tlx-sim``.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tlx_sim import kernel_module as kmod


class ToolError(RuntimeError):
    """tlx-sim could not be run, or gave no answer (bad input: exit 2; internal error: exit 3)."""


def find_tlx_sim() -> str:
    """Path of the tlx-sim binary: $TLX_SIM, ``tlx-sim`` on PATH, or ``<repo>/build/tools/tlx-sim``."""
    env = os.environ.get("TLX_SIM")
    if env:
        if not os.access(env, os.X_OK):
            raise ToolError(f"TLX_SIM={env} is not an executable")
        return env
    on_path = shutil.which("tlx-sim")
    if on_path:
        return on_path
    for base in (Path(__file__).resolve().parents[2], Path.cwd()):
        candidate = base / "build" / "tools" / "tlx-sim"
        if os.access(candidate, os.X_OK):
            return str(candidate)
    raise ToolError("cannot find tlx-sim: set TLX_SIM, put tlx-sim on PATH, or build it (ninja -C build tlx-sim)")


@dataclass
class Result:
    """What one tlx-sim run answered.

    ``exit_code``: 0 clean, 1 findings; ``data``: its ``--json`` object (design.md output contract);
    for predict on a clean kernel ``time_us`` (microseconds), ``tflops``, ``bound``, ``cycles`` are set.
    ``capture``: the directory holding the compiled launch (TTGIR, binary, metadata, launch.json).
    """
    command: str
    exit_code: int
    data: dict
    capture: Path | None = None
    findings: list = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return self.exit_code == 0 and not self.findings

    @property
    def time_us(self) -> float | None:
        return self.data.get("time_us")

    @property
    def tflops(self) -> float | None:
        return self.data.get("tflops")

    @property
    def bound(self) -> str | None:
        return self.data.get("bound")

    @property
    def cycles(self) -> int | None:
        return self.data.get("cycles")

    @property
    def warnings(self) -> list:
        """The run's warnings (design.md output contract): unmodeled ops, a binary that spills registers."""
        return list(self.data.get("warnings", []))

    @property
    def spill_warning(self) -> str | None:
        """The warning ``predict`` gives a binary that spills registers (stack frame of 128 B or more per thread:
        tools/Simulation.h kSpillFrameBytes), else None."""
        return next((w for w in self.warnings if "binary spills registers" in w), None)

    def __getitem__(self, key):
        return self.data[key]


def run_tool(command: str, ttgir, launch=None, model=None, max_ctas=None, extra=()) -> Result:
    """Run ``tlx-sim COMMAND TTGIR --launch LAUNCH --json`` and parse its answer.

    Raises ToolError on exit 2 (bad input: the message is tlx-sim's) or 3 (internal error / unsupported).
    """
    args = [find_tlx_sim(), command, str(ttgir), "--json"]
    if launch:
        args += ["--launch", str(launch)]
    if model:
        args += ["--model", str(model)]
    if max_ctas:
        args += ["--max-ctas", str(int(max_ctas))]
    args += list(extra)
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise ToolError(f"tlx-sim {command} exited {proc.returncode}: {proc.stderr.strip()}")
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError as err:
        raise ToolError(f"tlx-sim {command} printed no JSON ({err}): {proc.stdout[:200]!r}") from None
    return Result(command, proc.returncode, data, findings=list(data.get("findings", [])))


def tensor(shape, dtype="fp16"):
    """A stand-in for a torch tensor passed as a pointer argument (no torch needed)."""
    import triton.language as tl
    return kmod.StandInTensor(tl.dtype(dtype), list(shape))


def desc(shape, block, dtype="fp16", strides=None, layout=None):
    """A stand-in host tensor descriptor over a tensor of ``shape`` (row-major unless ``strides``).

    ``layout``: a Gluon shared layout (Gluon kernels); default: ``NVMMASharedLayout.get_default_for`` for Gluon is
    the caller's choice, so without it a plain Triton ``TensorDescriptor`` is made (for ``@triton.jit`` kernels).
    """
    import triton.language as tl
    from triton.runtime.jit import MockTensor
    shape = list(shape)
    if strides is None:
        strides, acc = [], 1
        for size in reversed(shape):
            strides.insert(0, acc)
            acc *= size
    spec = {"shape": shape, "strides": list(strides), "block": list(block), "dtype": dtype}
    if layout is not None:
        spec["layout"] = layout
    return kmod._stand_in_desc(spec, MockTensor(tl.dtype(dtype), shape))


def _dtype_name(dtype) -> str:
    """Triton's type name of a torch or Triton dtype: fp16, bf16, fp32, ..."""
    text = str(dtype)
    if text.startswith("torch."):
        import triton.runtime.jit as jit
        return jit.type_canonicalisation_dict[text.split(".")[1]]
    return text


def _launch_spec(kernel, bound_args: dict) -> dict:
    """grid-less launch spec (args, descs, ptrs) of bound arguments, by Python name, as launch.json holds it."""
    args, descs, ptrs = {}, {}, {}
    constexpr_names = {p.name for p in kernel.params if p.is_constexpr}
    for name, value in bound_args.items():
        if name in constexpr_names:
            continue
        if isinstance(value, bool):
            args[name] = int(value)
        elif isinstance(value, int):
            args[name] = value
        elif hasattr(value, "block_shape") and hasattr(value, "base"):
            entry = {"shape": [int(s) for s in value.shape], "strides": [int(s) for s in value.strides],
                     "block": [int(b) for b in value.block_shape], "dtype": _dtype_name(value.base.dtype)}
            if getattr(value, "layout", None) is not None:
                entry["layout"] = repr(value.layout)
            descs[name] = entry
        elif hasattr(value, "data_ptr"):
            ptrs[name] = {"shape": [int(s) for s in value.shape], "dtype": _dtype_name(value.dtype)}
    return {"args": args, "descs": descs, "ptrs": ptrs}


def capture_launch(kernel, grid, *args, target="cuda:90", out_dir=None, **kwargs) -> Path:
    """Compile ``kernel[grid](*args, **kwargs)`` for ``target`` with no GPU; returns the capture directory.

    The directory holds ``<kernel>.ttgir``, the binary (``.cubin`` / ``.hsaco``), Triton's metadata
    ``<kernel>.json`` and ``launch.json`` (kernels/README.md). ``out_dir``: where (default: a new temporary one).
    """
    import triton
    from triton import knobs
    from triton.compiler import make_backend
    from triton.runtime.jit import JITFunction, create_function_from_signature

    tgt = kmod.parse_target(target) if isinstance(target, str) else target
    if not isinstance(kernel, JITFunction):  # autotuned / heuristics: the launch path, one folder per config
        return _capture_wrapped(kernel, grid, args, tgt, out_dir, kwargs)
    backend = make_backend(tgt)
    fn = kernel
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    kw = dict(kwargs)
    kw["debug"] = kw.get("debug", fn.debug) or knobs.runtime.debug
    kw["instrumentation_mode"] = knobs.compilation.instrumentation_mode
    with kmod._torch_free_hip_binder(tgt):
        bound_args, specialization, options = binder(*args, **kw)
    options, signature, constexprs, attrs = fn._pack_args(backend, kw, bound_args, specialization, options)
    if fn.is_gluon():
        from triton.experimental.gluon._runtime import GluonASTSource as Source
    else:
        from triton.compiler import ASTSource as Source
    with kmod.fresh_triton_cache():
        compiled = triton.compile(Source(fn, signature, constexprs, attrs), target=tgt, options=options.__dict__)

    if callable(grid):
        grid = grid(bound_args)
    grid = [int(g) for g in (grid if isinstance(grid, (tuple, list)) else (grid, ))]
    spec = _launch_spec(fn, bound_args)
    out = Path(out_dir) if out_dir else Path(tempfile.mkdtemp(prefix="tlx-sim-capture-"))
    out.mkdir(parents=True, exist_ok=True)
    name = fn.__name__
    (out / f"{name}.ttgir").write_text(compiled.asm["ttgir"])
    kind = "cubin" if tgt.backend == "cuda" else "hsaco"
    (out / f"{name}.{kind}").write_bytes(compiled.asm[kind])
    root = Path.cwd()
    (out / f"{name}.json").write_text(kmod.dump_json(kmod.metadata_json(compiled, root)))
    names = list(signature)
    launch = {
        "schema_version": kmod.LAUNCH_SCHEMA_VERSION,
        "kernel": name,
        "target": kmod.target_str(tgt),
        "num_warps": options.num_warps,
        "grid": grid + [1] * (3 - len(grid)),
        "args": spec["args"],
        "descs": spec["descs"],
        "constexprs": {names[index]: value for (index, *_), value in constexprs.items()},
        "signature": dict(signature),
        "triton_version": triton.__version__,
    }
    if spec["ptrs"]:
        launch["ptrs"] = spec["ptrs"]
    (out / "launch.json").write_text(kmod.dump_json(launch))
    return out


def _capture_wrapped(kernel, grid, args, target, out_dir, kwargs) -> Path:
    """``capture_launch`` of an ``@triton.autotune`` / ``@triton.heuristics`` kernel: each config its own pruning
    keeps is compiled under ``launch_capture.intercepting`` into ``out_dir/<config label>/``; returns ``out_dir``
    (the one config's folder when there is one)."""
    from tlx_sim import capture_folder
    from tlx_sim import launch_capture as lc
    with lc.intercepting(target) as launches:
        kernel[grid](*args, **kwargs)
    out = Path(out_dir) if out_dir else Path(tempfile.mkdtemp(prefix="tlx-sim-capture-"))
    dirs = [capture_folder.write(launch, target, out / (launch.config_name or capture_folder.config_label(
        launch.config) if launch.config is not None else launch.name)) for launch in launches]
    return dirs[0] if len(dirs) == 1 else out


def _run(command, kernel, grid, args, target, model, max_ctas, kwargs) -> Result:
    cdir = capture_launch(kernel, grid, *args, target=target, **kwargs)
    result = run_tool(command, cdir / f"{kernel.__name__}.ttgir", cdir / "launch.json", model=model, max_ctas=max_ctas)
    result.capture = cdir
    return result


def predict(kernel, grid, *args, target="cuda:90", model=None, max_ctas=None, **kwargs) -> Result:
    """Predict the time of ``kernel[grid](*args, **kwargs)`` on a modeled GPU (``model``: h200, b200, ...;
    default from the target). ``max_ctas``: simulate only the first N CTAs. Returns a Result (time_us, tflops,
    bound, the whole ``predict --json`` object in ``data``); a kernel that deadlocks has no time (exit_code 1, its
    findings in ``findings``). Races and protocol errors are ``check``'s to find: predict still times such a kernel.
    """
    return _run("predict", kernel, grid, args, target, model, max_ctas, kwargs)


def check(kernel, grid, *args, target="cuda:90", model=None, max_ctas=None, **kwargs) -> Result:
    """Check the synchronization of ``kernel[grid](*args, **kwargs)`` by simulation: ``Result.findings`` lists the
    deadlocks, races, tx-count and protocol errors (``check --json`` objects), ``clean`` says none was found."""
    return _run("check", kernel, grid, args, target, model, max_ctas, kwargs)
