"""Hardware CI: on a machine with a CUDA GPU, record the plan's launches afresh and cross-check them in one run.

    python3 -m tlx_sim.hwci traces/h200/plan.json [--kernel ws_gemm ...] [--keep DIR]

With a GPU: ``tlx_sim.record`` writes the records into a fresh folder (``--keep`` to keep it), then
``tlx-sim xcheck`` predicts them with the same thresholds as the committed-trace check; the exit code is
xcheck's (0 pass, 1 a threshold failed), or record's when a kernel was wrong.  Without a CUDA GPU (no torch, or
``torch.cuda.is_available()`` false) it prints that hardware CI is skipped and exits 0: the committed traces are
still checked by ``tlx-sim xcheck traces/<gpu>`` in the ordinary test suite.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tlx_sim import kernel_module as kmod
from tlx_sim import record

REPO = Path(__file__).resolve().parents[2]


def cuda_available() -> bool:
    """True when torch imports and sees a CUDA device."""
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def main(argv=None) -> int:
    """Command line; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python3 -m tlx_sim.hwci", description=__doc__.split("\n\n")[0])
    parser.add_argument("plan", type=Path, help="recording plan (traces/<gpu>/plan.json)")
    parser.add_argument("--kernel", nargs="+", metavar="NAME", help="plan entries (default: all)")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="write the records here and keep them")
    parser.add_argument("--tlx-sim", default=os.environ.get("TLX_SIM", str(REPO / "build" / "tools" / "tlx-sim")))
    args = parser.parse_args(argv)
    record.load_plan(args.plan)  # bad plans fail the same way with or without a GPU
    if not cuda_available():
        print("hwci: no CUDA GPU here (torch missing or torch.cuda.is_available() is false): hardware CI skipped; "
              "the committed traces are checked by `tlx-sim xcheck`")
        return 0
    with tempfile.TemporaryDirectory(prefix="tlx-sim-hwci-") as tmp:
        out = args.keep or Path(tmp)
        rec_args = ["--plan", str(args.plan), "--out", str(out)] + (["--kernel", *args.kernel] if args.kernel else [])
        status = record.main(rec_args)
        xcheck = subprocess.run([args.tlx_sim, "xcheck", str(out)])
        return status or xcheck.returncode


def cli() -> int:
    """Entry point: ``main`` with usage errors as exit code 2."""
    return kmod.run_cli(main)


if __name__ == "__main__":
    sys.exit(cli())
