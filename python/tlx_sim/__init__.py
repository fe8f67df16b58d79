"""tlx-sim's Python side: capture kernels for a target without a GPU (``tlx_sim.capture``), time them on real
hardware (``tlx_sim.hw_time``), sweep configs (``tlx_sim.sweep``), and check / predict a Triton or Gluon launch
from Python (``tlx_sim.check``, ``tlx_sim.predict``; see ``tlx_sim.api``). Modules load kernels through
``tlx_sim.kernel_module`` (see kernels/README.md); importing this package imports neither triton nor torch.
``tlx_sim.FakeTensor(shape, dtype, strides)`` stands in for a torch tensor; ``tlx_sim.autotune.prune`` is an
``early_config_prune`` for ``@triton.autotune``; ``tlx_sim.run_script`` / ``tlx_sim.tune`` are commands."""
from tlx_sim.api import Result, ToolError, capture_launch, check, desc, find_tlx_sim, predict, tensor
from tlx_sim.fake_torch import FakeTensor

__all__ = ["FakeTensor", "Result", "ToolError", "capture_launch", "check", "desc", "find_tlx_sim", "predict",
           "tensor"]
