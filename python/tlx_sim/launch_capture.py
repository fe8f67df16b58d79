"""Run host code that launches Triton kernels with no GPU: intercept each launch and compile it instead.

Used by ``tlx_sim.tlx_tutorials`` (capture TLX's tutorials as they are) and meant for any host script
(``run_script``, an autotuner prune hook).  Three pieces:

* ``FakeDriver(target)``: an active Triton driver that reports the target (``GPUTarget("cuda", 90, 32)``,
  ``GPUTarget("hip", "gfx942", 64)``), device 0 and stream 0, and the target's device properties
  (``fake_torch.DEVICE_PROPS``) -- what Triton's launch path asks the driver before it compiles;
* ``intercepting(target, select=None)``: a context that installs the fake driver and the stand-in
  ``torch``/``pytest`` (``fake_torch.installed``) and patches ``JITFunction.run`` and ``Autotuner.run``:
  - ``Autotuner.run`` does what Triton's does up to the benchmark -- ``prune_configs`` (the kernel's own
    ``early_config_prune`` / ``perf_model``) -- then, for each config ``select(autotuner, pruned)`` returns
    (default: every pruned config), runs the config's ``pre_hook`` on the full argument dict (descriptor block
    shapes set by a pre-hook land on the descriptor objects, as in a real launch) and calls
    ``fn.run(*args, **kwargs, **config.all_kwargs())`` exactly as Triton's does for the chosen config;
  - ``JITFunction.run`` (for a launch with ``warmup=False``) runs Triton's own ``run`` with ``warmup=True``:
    the same binder, specialization (``native_specialize_impl``: ``tt.divisibility``, ``tt.pointer_range``),
    ``_pack_args`` and ``compile``, minus the launch; the grid is evaluated as ``run`` would (a callable
    grid gets the bound arguments) and the launch is recorded as a ``Launch``;
* ``capture_launch(kernel, grid, *args, **kwargs)``: one launch ``kernel[grid](*args, **kwargs)`` under
  ``intercepting``; returns the ``Launch`` list.

Every compile gets a fresh JIT cache (``device_caches`` cleared), so each launch compiles.  ``FakeTensor``
(``fake_torch``) is the tensor stand-in: ``FakeTensor(shape, dtype, strides)``.
"""
from __future__ import annotations

import contextlib
import types
from dataclasses import dataclass, field

from tlx_sim import binder_attrs
from tlx_sim import fake_torch
from tlx_sim.fake_torch import FakeTensor  # noqa: F401  (re-exported: the stand-in tensor of host code)


class FakeDriver:
    """A Triton driver for ``target`` with no GPU behind it (``triton.runtime.driver.set_active``).

    Answers what ``JITFunction.run`` / ``create_binder`` and host code ask: current target, device (0), stream
    (0), torch device, device properties (``utils.get_device_properties``, the dict Triton's CUDA/HIP drivers
    return).  ``launch`` entry points are absent: nothing can run.
    """

    def __init__(self, target):
        self.target = target
        props = fake_torch.device_props(target)
        self.utils = types.SimpleNamespace(get_device_properties=lambda device=0: {
            "multiprocessor_count": props.multi_processor_count, "warpSize": props.warp_size,
            "max_shared_mem": 232448 if target.backend == "cuda" else 160 * 1024, "max_num_regs": 65536,
            "sm_clock_rate": 0, "mem_clock_rate": 0, "mem_bus_width": 0, "arch": str(target.arch)})
        self.backend = target.backend

    @staticmethod
    def is_active() -> bool:
        return True

    def get_current_target(self):
        return self.target

    def get_active_torch_device(self):
        return fake_torch.device("cuda", 0)

    @staticmethod
    def get_current_device() -> int:
        return 0

    @staticmethod
    def set_current_device(device) -> None:
        pass

    @staticmethod
    def get_current_stream(device=None) -> int:
        return 0

    def get_device_capability(self, device=0):
        props = fake_torch.device_props(self.target)
        return props.major, props.minor

    @staticmethod
    def get_device_interface():
        import torch
        return torch.cuda

    def get_empty_cache_for_benchmark(self):
        return FakeTensor([256 * 2**20 // 4], "int32")

    @staticmethod
    def clear_cache(cache) -> None:
        pass


def _desc_snapshot(desc) -> dict:
    """A host TensorDescriptor as launch.json records it: shape, strides, block (at compile time), dtype."""
    from triton._utils import canonicalize_dtype
    out = {"shape": [int(s) for s in desc.shape], "strides": [int(s) for s in desc.strides],
           "block": [int(b) for b in desc.block_shape], "dtype": canonicalize_dtype(desc.base.dtype)}
    if getattr(desc, "layout", None) is not None:
        out["layout"] = repr(desc.layout)
    if getattr(desc, "padding", "zero") != "zero":
        out["padding"] = desc.padding
    return out


def _is_desc(value) -> bool:
    return hasattr(value, "block_shape") and hasattr(value, "base") and hasattr(value, "strides")


@dataclass
class Launch:
    """One intercepted kernel launch, compiled (never run).

    ``kernel``: the JITFunction; ``compiled``: Triton's CompiledKernel (``asm["ttgir"]``, ``asm["cubin"]``,
    ``metadata``); ``grid``: the evaluated grid (x, y, z); ``bound_args``: every argument by parameter name
    (constexprs included, as the binder bound them); ``signature`` / ``constexprs`` / ``attrs`` / ``options``:
    what ``_pack_args`` handed the compiler; ``launch_options``: the launch's keywords that are not kernel
    parameters (``num_warps``, ``num_stages``, ``num_ctas``, ``ctas_per_cga``, ``matrix_instr_nonkdim``, ...); ``descs``: each descriptor argument as at compile time (block
    shape after the config's pre_hook); ``config``: the autotune ``triton.Config`` (None for a direct launch),
    ``config_name`` the name ``select`` gave it, ``kept_by_prune`` whether the kernel's own pruning kept it; ``shape``: the problem shape, where the caller
    records it.
    """
    kernel: object
    compiled: object
    grid: tuple
    bound_args: dict
    signature: dict
    constexprs: dict
    attrs: dict
    options: object
    descs: dict = field(default_factory=dict)
    config: object = None
    config_name: str | None = None
    kept_by_prune: bool | None = None
    launch_options: dict = field(default_factory=dict)  # launch keywords that are not parameters (num_stages, ...)
    shape: dict | None = None  # the problem shape the host code was called with, where the caller knows it

    @property
    def name(self) -> str:
        return self.kernel.__name__

    def attribute(self, attr: str) -> dict:
        """One argument attribute (``tt.divisibility``, ``tt.pointer_range``) by argument name, where present."""
        return binder_attrs.attribute_by_name(self.signature, self.attrs, attr)

    def constexpr_values(self) -> dict:
        """Every constexpr by argument name (the config's, defaults, and what the JIT specialized)."""
        return binder_attrs.constexprs_by_name(self.signature, self.constexprs)

    def scalar_args(self) -> dict:
        """Non-constexpr scalar arguments (int, float, bool) by name: what launch.json calls ``args``."""
        return {k: v for k, v in self.bound_args.items()
                if self.signature.get(k) not in (None, "constexpr") and isinstance(v, (bool, int, float))}

    def ptrs(self) -> dict:
        """Tensor (pointer) arguments by name: ``{"shape", "dtype"}`` and, for a small integer tensor the host code
        made from Python data, its row-major ``values`` (FakeTensor.values: what the kernel's scalar loads of it
        read; launch.json ``ptrs``)."""
        from triton._utils import canonicalize_dtype
        out = {}
        for k, v in self.bound_args.items():
            if hasattr(v, "data_ptr") and hasattr(v, "dtype") and str(self.signature.get(k, "")).startswith("*"):
                out[k] = {"shape": [int(s) for s in v.shape], "dtype": canonicalize_dtype(v.dtype)}
                if getattr(v, "values", None) is not None:
                    out[k]["values"] = list(v.values)
        return out


class _Session:
    def __init__(self, select):
        self.select = select
        self.launches: list[Launch] = []
        self.current = None  # (config, name, kept) while Autotuner.run compiles one config


_SESSION: _Session | None = None


def _innermost_jit(runner):
    """The JITFunction under an autotuner / heuristics wrapper (``.fn`` links)."""
    from triton.runtime.jit import JITFunction
    fn = runner
    while not isinstance(fn, JITFunction):
        fn = fn.fn
    return fn


def compile_launch(runner, args, grid, kwargs, run=None) -> Launch:
    """Compile ``runner[grid](*args, **kwargs)`` without launching it and return the ``Launch``.

    ``runner``: a JITFunction or a Heuristics wrapper of one (not an Autotuner: pass the config's keywords in
    ``kwargs``).  Triton's own ``run`` with ``warmup=True`` does the binding, specialization, ``_pack_args`` and
    compile (Triton's on-disk cache makes a repeated compile cheap); the JIT's in-memory kernel cache is swapped
    for a fresh one for the duration so this call compiles and records even when the kernel ran before.  Works
    with the fake driver (under ``intercepting``) and with a real one (the current GPU's target).
    """
    fn = _innermost_jit(runner)
    packed = {}
    pack = fn._pack_args
    options = {k: v for k, v in kwargs.items() if k not in fn.arg_names}

    def recording_pack(backend, kw, bound_args, specialization, options):
        result = pack(backend, kw, bound_args, specialization, options)
        packed.update(bound_args=dict(bound_args), result=result)
        return result

    saved_caches = fn.device_caches
    fn.device_caches = type(saved_caches)(saved_caches.default_factory) if hasattr(saved_caches, "default_factory") \
        else {}
    fn._pack_args = recording_pack
    try:
        if run is not None and runner is fn:
            kernel = run(fn, *args, grid=grid, warmup=True, **kwargs)
        else:
            kernel = runner.run(*args, grid=grid, warmup=True, **kwargs)
    finally:
        del fn._pack_args
        fn.device_caches = saved_caches
    if hasattr(kernel, "result"):  # an async-compile future
        kernel = kernel.result()
    bound = packed["bound_args"]
    compile_options, signature, constexprs, attrs = packed["result"]
    g = grid(bound) if callable(grid) else grid
    g = tuple(int(x) for x in (tuple(g) if isinstance(g, (tuple, list)) else (g, )) + (1, 1, 1))[:3]
    return Launch(kernel=fn, compiled=kernel, grid=g, bound_args=bound, signature=signature, constexprs=constexprs,
                  attrs=attrs, options=compile_options,
                  descs={k: _desc_snapshot(v) for k, v in bound.items() if _is_desc(v)}, launch_options=options)


def _jit_run(original):
    def run(self, *args, grid, warmup, **kwargs):
        session = _SESSION
        if session is None or warmup:
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)
        launch = compile_launch(self, args, grid, kwargs, run=original)
        launch.config, launch.config_name, launch.kept_by_prune = session.current or (None, None, None)
        session.launches.append(launch)
        return launch.compiled
    return run


def _autotuner_run(original):
    def run(self, *args, **kwargs):
        session = _SESSION
        if session is None or kwargs.get("warmup"):
            return original(self, *args, **kwargs)
        self.nargs = dict(zip(self.arg_names, args))
        self.tlx_sim_call = (args, dict(kwargs))  # the launch as select() may need it (tlx_sim.tune)
        pruned = self.prune_configs(kwargs) if len(self.configs) > 1 else list(self.configs)
        chosen = session.select(self, pruned) if session.select else [(None, c) for c in pruned]
        ret = None
        try:
            for name, config in chosen:
                if config.pre_hook is not None:
                    config.pre_hook({**self.nargs, **kwargs, **config.all_kwargs()})
                session.current = (config, name, any(config is p for p in pruned))
                self.best_config = config  # host code after the launch may read it (as after a real tuning)
                ret = self.fn.run(*args, **kwargs, **config.all_kwargs())
        finally:
            session.current = None
            self.nargs = None
        return ret
    return run


@contextlib.contextmanager
def intercepting(target, select=None):
    """Within: launches compile for ``target`` (no GPU) and are recorded; yields the list of ``Launch``es.

    ``select(autotuner, pruned_configs) -> [(name, triton.Config), ...]`` picks which configs of an autotuned
    kernel to compile (default: every config its own pruning keeps).  Installs ``FakeDriver`` and the stand-in
    ``torch``/``pytest`` for the duration and restores everything afterwards.
    """
    global _SESSION
    from triton.runtime import driver
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction
    if _SESSION is not None:
        raise RuntimeError("intercepting() does not nest")
    session = _Session(select)
    saved_driver = driver._active
    saved_runs = JITFunction.run, Autotuner.run
    with fake_torch.installed(target):
        driver.set_active(FakeDriver(target))
        JITFunction.run = _jit_run(saved_runs[0])
        Autotuner.run = _autotuner_run(saved_runs[1])
        _SESSION = session
        try:
            yield session.launches
        finally:
            _SESSION = None
            JITFunction.run, Autotuner.run = saved_runs
            driver._active = saved_driver


def capture_launch(kernel, grid, *args, target, select=None, **kwargs) -> list[Launch]:
    """Compile ``kernel[grid](*args, **kwargs)`` for ``target`` as that launch would, without running it.

    ``kernel`` may be a JITFunction or an autotuned/heuristics wrapper (then ``select`` picks the configs, see
    ``intercepting``); tensors are ``FakeTensor``s, descriptors ``triton.tools.tensor_descriptor``
    ``TensorDescriptor``s over them.  Returns the recorded launches (one per compiled config).
    """
    with intercepting(target, select) as launches:
        kernel[grid](*args, **kwargs)
    return list(launches)
