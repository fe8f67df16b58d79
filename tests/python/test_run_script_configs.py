"""run_script's GPU path names each launch's ``triton.Config`` from the real ``@triton.autotune`` (issue 19).

``run_script._AutotunerConfigs`` wraps Triton's own ``Autotuner._bench`` / ``Autotuner.run``; on a GPU host each
launch asks it which config it runs under.  This test drives the real ``triton.runtime.autotuner.Autotuner`` of the
installed Triton with no GPU: its benchmark (``do_bench``) is a stand-in that times each config by a fixed table, and
the tuned function records what ``config()`` says at every launch.  Expected: each benchmark launch sees the config
being timed, the launch after tuning sees the fastest one, a second call (cache hit) sees it again, and a launch
outside any autotuner sees None.  Exit 0 on success.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "python"), str(ROOT)]

import triton  # noqa: E402
from triton.runtime.autotuner import Autotuner  # noqa: E402

from tlx_sim.run_script import _AutotunerConfigs  # noqa: E402


def kernel(x, N, BM):  # the Python function behind the stand-in JIT function (Autotuner reads its name)
    pass


class StandInJit:
    """What Autotuner calls: ``run(*args, **config kwargs)``; records the config the launch is said to run under."""

    def __init__(self, tuning):
        self.fn, self.arg_names, self.tuning, self.seen = kernel, ["x", "N"], tuning, []

    def run(self, *args, **kwargs):
        self.seen.append((kwargs.get("BM"), self.tuning.config()))


def main() -> int:
    configs = [triton.Config({"BM": bm}, num_warps=4, num_stages=s) for bm, s in ((64, 2), (128, 3), (256, 4))]
    times = {64: 3.0, 128: 1.0, 256: 2.0}  # BM=128 is the fastest

    tuning = _AutotunerConfigs()
    jit = StandInJit(tuning)

    def bench(kernel_call, quantiles):
        kernel_call()
        return [times[jit.seen[-1][0]]] * 3

    tuner = Autotuner(jit, ["x", "N"], configs, key=["N"], reset_to_zero=None, restore_value=None, do_bench=bench)
    with tuning:
        tuner.run(None, 1024)
        tuner.run(None, 1024)  # cached: no benchmark
        jit.run(None, 1024, BM=32)  # a launch outside the autotuner
    seen = jit.seen + [(None, "missing")] * 6
    checks = [(f"benchmark launch {i} (BM={seen[i][0]}) named {seen[i][1]}",
               seen[i][1] is configs[i] and seen[i][0] == configs[i].kwargs["BM"]) for i in range(3)]
    checks += [(f"launch after tuning {i} (BM={seen[3 + i][0]}) named {seen[3 + i][1]}, expected BM=128",
                seen[3 + i][1] is configs[1] and seen[3 + i][0] == 128) for i in range(2)]
    checks.append((f"launch outside the autotuner named {seen[5][1]}", seen[5] == (32, None)))
    checks.append((f"{len(jit.seen)} launches, expected 6", len(jit.seen) == 6))
    checks.append(("Autotuner._bench / run restored",
                   Autotuner._bench is tuning.saved[0] and Autotuner.run is tuning.saved[1]))
    failed = [name for name, ok in checks if not ok]
    for name in failed:
        print("FAIL:", name)
    print(f"{len(checks) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
