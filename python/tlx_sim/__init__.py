"""tlx-sim's Python side: capture kernels for a target without a GPU (``tlx_sim.capture``), time them on real
hardware (``tlx_sim.hw_time``), sweep configs (``tlx_sim.sweep``), and check / predict a Triton or Gluon launch
from Python (``tlx_sim.check``, ``tlx_sim.predict``; see ``tlx_sim.api``). Modules load kernels through
``tlx_sim.kernel_module`` (see kernels/README.md); importing this package imports neither triton nor torch."""
from tlx_sim.api import Result, ToolError, capture_launch, check, desc, find_tlx_sim, predict, tensor

__all__ = ["Result", "ToolError", "capture_launch", "check", "desc", "find_tlx_sim", "predict", "tensor"]
