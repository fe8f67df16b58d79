"""tlx-sim's Python side: capture kernels for a target without a GPU (``tlx_sim.capture``), time them on real
hardware (``tlx_sim.hw_time``); both load kernels through ``tlx_sim.kernel_module`` (see kernels/README.md)."""
