"""Stand-ins for ``torch`` (and ``pytest``) so host code written for a GPU runs with neither installed.

A TLX tutorial imports torch at import time, allocates its inputs and outputs with ``torch.empty``/``randn``,
reads ``torch.cuda.get_device_properties(...).multi_processor_count`` and hands tensors to a kernel launch.
To capture such a launch with no GPU (``tlx_sim.launch_capture``) we only need what the launch binder reads
from a tensor -- ``dtype`` (its ``str`` is ``"torch.float16"``, which Triton canonicalizes to ``fp16``),
``data_ptr()`` (0: 16-byte aligned, as a fresh allocation is), ``shape``/``stride()`` for descriptors and
host-side grid logic, and ``ptr_range()`` (the byte size, for the hip backend's 2 GB test) -- plus the device
properties of the target GPU (``DEVICE_PROPS``).

``FakeTensor`` holds shape, strides and dtype and no data; arithmetic and reductions return a FakeTensor of
the result's shape.  ``installed(target)`` puts a ``torch`` module (and a ``pytest`` whose decorators are
no-ops, for tutorials that define tests at module level, and, where numpy is absent, a ``numpy`` with the two
names ``triton._internal_testing`` needs at import) into ``sys.modules`` for the duration.  Nothing here touches a GPU.
"""
from __future__ import annotations

import contextlib
import math
import sys
import types


class dtype:
    """A torch dtype stand-in: ``str()`` is ``torch.<name>``; ``itemsize`` in bytes."""

    __module__ = "torch"  # triton.runtime.jit.MockTensor.wrap_dtype tests this

    def __init__(self, name: str, itemsize: int, is_floating_point: bool, is_signed: bool = True):
        self.name = name
        self.itemsize = itemsize
        self.is_floating_point = is_floating_point
        self.is_signed = is_signed

    def __repr__(self):
        return f"torch.{self.name}"

    __str__ = __repr__


_DTYPES = [
    dtype("float16", 2, True), dtype("bfloat16", 2, True), dtype("float32", 4, True), dtype("float64", 8, True),
    dtype("float8_e4m3fn", 1, True), dtype("float8_e5m2", 1, True), dtype("float8_e4m3fnuz", 1, True),
    dtype("float8_e5m2fnuz", 1, True), dtype("float8_e8m0fnu", 1, True), dtype("float4_e2m1fn_x2", 1, True),
    dtype("int8", 1, False), dtype("int16", 2, False), dtype("int32", 4, False), dtype("int64", 8, False),
    dtype("uint8", 1, False, False), dtype("uint16", 2, False, False), dtype("uint32", 4, False, False),
    dtype("uint64", 8, False, False), dtype("bool", 1, False, False),
]
DTYPES = {d.name: d for d in _DTYPES}
_ALIASES = {"half": "float16", "float": "float32", "double": "float64", "int": "int32", "long": "int64"}


class device:
    """A torch.device stand-in (``device("cuda")``, ``device("cuda", 0)``)."""

    def __init__(self, kind="cuda", index=None):
        if isinstance(kind, device):
            kind, index = kind.type, kind.index
        kind = str(kind)
        if ":" in kind:
            kind, _, idx = kind.partition(":")
            index = int(idx)
        self.type = kind
        self.index = index

    def __repr__(self):
        return f"device(type='{self.type}'" + (f", index={self.index})" if self.index is not None else ")")

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return str(self) == str(device(other)) if isinstance(other, (str, device)) else NotImplemented

    def __hash__(self):
        return hash(str(self))


class Size(tuple):
    """torch.Size: a tuple of ints."""

    def numel(self) -> int:
        return math.prod(self)


def _contiguous_strides(shape) -> tuple:
    strides, acc = [], 1
    for size in reversed(shape):
        strides.insert(0, acc)
        acc *= max(int(size), 1)
    return tuple(strides)


def _to_dtype(value):
    if isinstance(value, dtype):
        return value
    if isinstance(value, str):
        name = value.removeprefix("torch.")
        return DTYPES[_ALIASES.get(name, name)]
    return None


class _Values:
    """The storage a FakeTensor and its views share: its row-major integer values, or None (not known)."""

    def __init__(self):
        self.values = None


def _fits(value: int, dt) -> bool:
    """Whether the integer ``value`` is representable in the integer dtype ``dt`` (bool: 0 or 1)."""
    if dt.name == "bool":
        return value in (0, 1)
    bits = 8 * dt.itemsize
    return (-(1 << (bits - 1)) <= value < (1 << (bits - 1))) if dt.is_signed else (0 <= value < (1 << bits))


class FakeTensor:
    """A tensor with shape, strides, dtype and device but no data (what a launch binder reads from a tensor).

    ``data_ptr()`` is 0 (16-byte aligned); ``ptr_range()`` the byte size of the strided extent.  Operations the
    host code of tutorials uses (``T``, ``view``, ``reshape``, ``permute``, ``sum``, arithmetic, ...) return a
    FakeTensor of the right shape; values are never computed.  ``values``: the row-major integers of a small integer
    tensor made from Python data (``torch.tensor([...])``, at most MAX_VALUES elements), else None: a grouped GEMM's
    per-problem sizes, which the kernel loads as scalars that steer its loops (launch.json ``ptrs.NAME.values``).
    Views of one storage share them (``_storage``): a write through any of them (``x[i] = v``, an in-place op)
    leaves all of them unknown.
    """

    MAX_VALUES = 65536

    def __init__(self, shape, dtype_=None, strides=None, device_=None):
        if isinstance(dtype_, str) or dtype_ is None:
            dtype_ = _to_dtype(dtype_ or "float32")
        self.shape = Size(int(s) for s in shape)
        self.dtype = dtype_
        self._strides = tuple(int(s) for s in strides) if strides is not None else _contiguous_strides(self.shape)
        self.device = device(device_ or "cuda")
        if self.device.type == "cuda" and self.device.index is None:  # as torch: "cuda" allocates on cuda:0
            self.device.index = 0
        self.requires_grad = False
        self.grad = None
        self._storage = _Values()
        self._ordered = True

    # --- what Triton's binder and descriptors read ---------------------------------------------------------
    @staticmethod
    def data_ptr() -> int:
        return 0

    def ptr_range(self) -> int:
        """Bytes spanned by the tensor (the hip backend's ``tt.pointer_range`` test compares this with 2**31-1)."""
        if not self.shape or 0 in self.shape:
            return self.dtype.itemsize
        return (1 + sum((s - 1) * st for s, st in zip(self.shape, self._strides))) * self.dtype.itemsize

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def dim(self) -> int:
        return len(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def numel(self) -> int:
        return math.prod(self.shape)

    def element_size(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self.dtype.itemsize

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def is_contiguous(self, memory_format=None) -> bool:
        return self._strides == _contiguous_strides(self.shape)

    def get_device(self) -> int:
        return 0

    def untyped_storage(self):
        return types.SimpleNamespace(size=lambda: self.ptr_range(), data_ptr=lambda: 0)

    # --- shape-only operations ------------------------------------------------------------------------------
    @property
    def values(self):
        """The row-major integers of this tensor where known (see the class docstring), else None."""
        return self._storage.values if self._ordered else None

    @values.setter
    def values(self, new):
        self._storage.values = new
        self._ordered = True

    def _like(self, shape=None, dtype_=None, strides=None, view=False):
        """A FakeTensor of another shape / dtype / strides: a ``view`` of this tensor's storage (reshape, transpose,
        .cuda()), else a copy (contiguous, clone, a dtype conversion). A view reads the storage's values while its own
        row-major order is the storage's (contiguous, the same element size, integers); a copy takes this tensor's
        values where each fits its dtype."""
        out = FakeTensor(self.shape if shape is None else shape, dtype_ or self.dtype, strides, self.device)
        integers = not out.dtype.is_floating_point and not self.dtype.is_floating_point
        if view:
            out._storage = self._storage
            out._ordered = (self._ordered and integers and out.is_contiguous() and out.numel() == self.numel()
                            and out.dtype.itemsize == self.dtype.itemsize)
        elif self.values is not None and integers and out.is_contiguous() and out.numel() == self.numel() \
                and all(_fits(v, out.dtype) for v in self.values):
            out.values = list(self.values)
        return out

    def _computed(self, shape=None):
        """A FakeTensor of this tensor's dtype whose values are not known (the result of arithmetic)."""
        return FakeTensor(self.shape if shape is None else shape, self.dtype, None, self.device)

    def _written(self, *args, **kwargs):
        """In place (``x[i] = v``, ``x += 1``, ``x.zero_()``): the storage's values are no longer known, through any
        view of it; returns this tensor, as torch's in-place operations do."""
        self._storage.values = None
        return self

    @property
    def T(self):
        return self._like(self.shape[::-1], strides=self._strides[::-1], view=True)

    def t(self):
        return self.T

    def transpose(self, a, b):
        shape, strides = list(self.shape), list(self._strides)
        shape[a], shape[b] = shape[b], shape[a]
        strides[a], strides[b] = strides[b], strides[a]
        return self._like(shape, strides=strides, view=True)

    def permute(self, *dims):
        dims = dims[0] if len(dims) == 1 and isinstance(dims[0], (list, tuple)) else dims
        return self._like([self.shape[d] for d in dims], strides=[self._strides[d] for d in dims], view=True)

    def _resolve(self, shape):
        shape = list(shape[0] if len(shape) == 1 and isinstance(shape[0], (list, tuple)) else shape)
        if -1 in shape:
            known = math.prod(s for s in shape if s != -1)
            shape[shape.index(-1)] = self.numel() // max(known, 1)
        return shape

    def view(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], dtype):
            return self._like(dtype_=shape[0], view=True)
        return self._like(self._resolve(shape), view=True)

    reshape = view

    def flatten(self, *args):
        return self._like([self.numel()], view=True)

    def contiguous(self, *args, **kwargs):
        return self._like()

    def clone(self, *args, **kwargs):
        return self._like()

    def to(self, *args, **kwargs):
        for value in (*args, kwargs.get("dtype")):
            if isinstance(value, dtype):
                return self._like(dtype_=value)
        return self

    def __getattr__(self, name):
        if name in ("half", "float", "bfloat16", "double", "int", "long"):
            return lambda *a, **k: self._like(dtype_=_to_dtype(name))
        if name in ("cuda", "detach", "cpu", "requires_grad_", "zero_", "fill_", "normal_", "uniform_",
                    "copy_", "abs", "exp", "neg", "sigmoid", "relu", "squeeze", "unsqueeze", "expand", "repeat",
                    "masked_fill", "random_", "add_", "mul_", "sub_", "div_"):
            if name in ("cuda", "detach", "cpu", "requires_grad_"):
                return lambda *a, **k: self._like(view=True)
            if name.endswith("_"):  # in place
                return self._written
            return lambda *a, **k: self._computed()
        raise AttributeError(f"FakeTensor has no attribute {name!r}")

    def sum(self, dim=None, *args, **kwargs):
        if dim is None:
            return self._computed([])
        return self._computed([s for i, s in enumerate(self.shape) if i != dim % max(self.ndim, 1)])

    mean = amax = sum

    def __getitem__(self, index):
        return self._computed()

    __setitem__ = _written

    def _binary(self, other, *rest):
        return self._computed()

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _binary
    __matmul__ = __neg__ = _binary
    __iadd__ = __isub__ = __imul__ = __itruediv__ = _written

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        return f"FakeTensor(shape={list(self.shape)}, dtype={self.dtype}, strides={list(self._strides)})"


# Device properties of the GPUs we capture for (what torch.cuda.get_device_properties reports on them).
DEVICE_PROPS = {
    ("cuda", 90): dict(name="NVIDIA H200", multi_processor_count=132, major=9, minor=0,
                       total_memory=141 * 2**30, L2_cache_size=50 * 2**20, warp_size=32),
    ("cuda", 100): dict(name="NVIDIA B200", multi_processor_count=148, major=10, minor=0,
                        total_memory=180 * 2**30, L2_cache_size=126 * 2**20, warp_size=32),
    ("hip", "gfx942"): dict(name="AMD Instinct MI300X", gcnArchName="gfx942:sramecc+:xnack-",
                            multi_processor_count=304, major=9, minor=4, total_memory=192 * 2**30,
                            L2_cache_size=4 * 2**20, warp_size=64),
    ("hip", "gfx950"): dict(name="AMD Instinct MI355X", gcnArchName="gfx950:sramecc+:xnack-",
                            multi_processor_count=256, major=9, minor=5, total_memory=288 * 2**30,
                            L2_cache_size=4 * 2**20, warp_size=64),
}


def device_props(target) -> types.SimpleNamespace:
    """``torch.cuda.get_device_properties`` of the target's GPU (DEVICE_PROPS); ValueError for an unknown one."""
    try:
        return types.SimpleNamespace(**DEVICE_PROPS[(target.backend, target.arch)])
    except KeyError:
        raise ValueError(f"no device properties for {target.backend}:{target.arch} (known: "
                         f"{', '.join(f'{b}:{a}' for b, a in DEVICE_PROPS)})") from None


def _factory(*size, dtype=None, device=None, **kwargs):
    shape = size[0] if len(size) == 1 and isinstance(size[0], (list, tuple)) else size
    return FakeTensor(shape, dtype or DTYPES["float32"], None, device)


def _like_factory(t, dtype=None, device=None, **kwargs):
    return FakeTensor(t.shape, dtype or t.dtype, None, device or t.device)


def _empty_strided(size, stride, dtype=None, device=None, **kwargs):
    return FakeTensor(size, dtype or DTYPES["float32"], stride, device)


def _arange(*args, dtype=None, device=None, **kwargs):
    start, end, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    return FakeTensor([max(0, math.ceil((end - start) / step))], dtype or DTYPES["int64"], None, device)


def _tensor(data, dtype=None, device=None, **kwargs):
    """torch.tensor(data): shape from nested lists; dtype inferred as torch does (ints -> int64, bools -> bool)."""
    shape, first = [], data
    while isinstance(first, (list, tuple)):
        shape.append(len(first))
        first = first[0] if first else 0.0
    if dtype is None:
        dtype = DTYPES["bool" if isinstance(first, bool) else "int64" if isinstance(first, int) else "float32"]
    out = FakeTensor(shape, dtype, None, device)
    dt = _to_dtype(dtype)
    if dt is not None and not dt.is_floating_point and out.shape.numel() <= FakeTensor.MAX_VALUES:
        flat = _flatten(data)
        if all(isinstance(v, int) for v in flat):  # (bool is an int)
            out.values = [int(v) for v in flat]
    return out


def _flatten(data) -> list:
    """The leaves of nested lists / tuples, row-major."""
    if isinstance(data, (list, tuple)):
        return [leaf for item in data for leaf in _flatten(item)]
    return [data]


class _AutogradFunction:
    """torch.autograd.Function: ``apply`` runs ``forward(ctx, *args)`` with a plain context object."""

    @classmethod
    def apply(cls, *args):
        ctx = types.SimpleNamespace(save_for_backward=lambda *a: None, saved_tensors=())
        return cls.forward(ctx, *args)


_STATE = {"props": None, "target": None, "torch": None}


def _props():
    return _STATE["props"]


def set_target(target) -> None:
    """Make the stand-in ``torch.cuda`` (and ``torch.version``) report ``target``'s GPU from now on."""
    _STATE["props"], _STATE["target"] = device_props(target), target
    torch = _STATE["torch"]
    if torch is not None:
        torch.version.cuda = "12.8" if target.backend == "cuda" else None
        torch.version.hip = "7.0" if target.backend == "hip" else None


def make_torch(target) -> types.ModuleType:
    """The ``torch`` module stand-in (one per process: modules that imported it keep seeing the current
    target) with ``cuda`` reporting ``target``'s GPU (``device_props``)."""
    if _STATE["torch"] is not None:
        set_target(target)
        return _STATE["torch"]
    torch = types.ModuleType("torch")
    torch.__dict__.update(DTYPES)
    for alias, name in _ALIASES.items():
        setattr(torch, alias, DTYPES[name])
    torch.__version__ = "0.0.0+tlx-sim-stand-in"
    torch.__path__ = []  # a package, so `import torch.x` fails cleanly with ModuleNotFoundError
    torch.dtype, torch.device, torch.Size, torch.Tensor = dtype, device, Size, FakeTensor
    for name in ("empty", "zeros", "ones", "randn", "rand", "randint_like", "full"):
        setattr(torch, name, _factory)
    torch.full = lambda size, value, dtype=None, device=None, **k: FakeTensor(size, dtype, None, device)
    torch.randint = lambda low, high=None, size=(), dtype=None, device=None, **k: FakeTensor(
        size, dtype or DTYPES["int64"], None, device)
    for name in ("empty_like", "zeros_like", "ones_like", "randn_like", "rand_like", "full_like"):
        setattr(torch, name, _like_factory)
    torch.empty_strided, torch.arange, torch.tensor = _empty_strided, _arange, _tensor
    torch.manual_seed = lambda *a, **k: None
    torch.is_tensor = lambda x: isinstance(x, FakeTensor)
    torch.finfo = lambda d: types.SimpleNamespace(max=float("inf"), min=float("-inf"), bits=8 * d.itemsize)
    torch.float8_e4m3fn = DTYPES["float8_e4m3fn"]
    torch.no_grad = contextlib.nullcontext
    torch.inference_mode = contextlib.nullcontext
    torch.matmul = lambda a, b, **k: FakeTensor([*a.shape[:-1], b.shape[-1]], a.dtype)
    version = types.ModuleType("torch.version")
    torch.version = version
    cuda = types.ModuleType("torch.cuda")
    cuda.is_available = lambda: True
    cuda.device_count = lambda: 1
    cuda.current_device = lambda: 0
    cuda.set_device = lambda *a: None
    cuda.synchronize = lambda *a: None
    cuda.get_device_properties = lambda *a: _props()
    cuda.get_device_capability = lambda *a: (_props().major, _props().minor)
    cuda.get_device_name = lambda *a: _props().name
    cuda.current_stream = lambda *a: types.SimpleNamespace(cuda_stream=0)
    cuda.Stream = lambda *a, **k: types.SimpleNamespace(cuda_stream=0)
    cuda.Event = lambda *a, **k: types.SimpleNamespace(record=lambda *x: None, elapsed_time=lambda *x: 0.0)
    torch.cuda = cuda
    autograd = types.ModuleType("torch.autograd")
    autograd.Function = _AutogradFunction
    torch.autograd = autograd
    _STATE["torch"] = torch
    set_target(target)
    return torch


class _Mark:
    """pytest.mark: every marker is a decorator that returns its function."""

    def __getattr__(self, name):
        def marker(*args, **kwargs):
            if len(args) == 1 and callable(args[0]) and not kwargs:
                return args[0]
            return lambda fn: fn
        return marker


def make_pytest() -> types.ModuleType:
    """A ``pytest`` stand-in: ``mark.*`` and ``fixture`` decorate as no-ops; ``skip`` raises."""
    pytest = types.ModuleType("pytest")
    pytest.mark = _Mark()

    def fixture(*args, **kwargs):
        return args[0] if len(args) == 1 and callable(args[0]) else (lambda fn: fn)

    class Skipped(Exception):
        pass

    def skip(reason="", **kwargs):
        raise Skipped(reason)

    pytest.fixture, pytest.skip, pytest.Skipped = fixture, skip, Skipped
    pytest.param = lambda *values, **kwargs: values
    pytest.raises = lambda *a, **k: contextlib.nullcontext()
    return pytest


def make_numpy() -> types.ModuleType:
    """A ``numpy`` stand-in with just the names ``triton._internal_testing`` binds at import (``ndarray``,
    ``random.RandomState``): tutorials import ``is_blackwell`` from there; nothing computes with it."""
    numpy = types.ModuleType("numpy")
    numpy.__path__ = []
    numpy.ndarray = type("ndarray", (), {})
    random = types.ModuleType("numpy.random")
    random.RandomState = type("RandomState", (), {"__init__": lambda self, *a, **k: None})
    numpy.random = random
    return numpy


@contextlib.contextmanager
def installed(target):
    """Put the stand-in ``torch`` (for ``target``) and ``pytest`` into ``sys.modules`` for the duration.

    Replaces whatever torch/pytest is there (a real torch would try to find a GPU); restores it afterwards.
    """
    import importlib.util
    saved = {name: sys.modules.get(name) for name in ("torch", "torch.cuda", "torch.autograd", "torch.version",
                                                       "pytest", "numpy", "numpy.random")}
    torch = make_torch(target)
    sys.modules.update({"torch": torch, "torch.cuda": torch.cuda, "torch.autograd": torch.autograd,
                        "torch.version": torch.version, "pytest": make_pytest()})
    if saved["numpy"] is None and importlib.util.find_spec("numpy") is None:
        numpy = make_numpy()
        sys.modules.update({"numpy": numpy, "numpy.random": numpy.random})
    try:
        yield torch
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
