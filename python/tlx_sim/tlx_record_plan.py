"""Captures of TLX's Hopper tutorials for hardware records (traces/h200/tlx_*.json), made with no GPU.

What is recorded on the H200 is fixed here: per tutorial, its configs (selectors over the tutorial's own
``triton.Config`` list, as in ``tlx_tutorial_recipes``), the shapes, and the split of each shape (``fit``: the
model may be calibrated on it; ``heldout``: never fitted on, gated by ``tlx-sim xcheck``).  ``hopper_gemm_ws`` is
swept over the part of its own config space that its ``preprocess_configs`` keeps at 4096^3 (with
``NUM_CTAS=1``, no warp barrier), at two shapes, so that the autotuning validation (issue 19) can rank them.

Usage (repository root, fbtriton's venv)::

    PYTHONPATH=python:. .venv-tlx/bin/python -m tlx_sim.tlx_record_plan -o /tmp/rec [--tutorial NAME]

writes ``OUT/<tutorial>/<config>-<shape>/`` capture folders (the four files of ``tlx_sim.capture``) and
``OUT/plan.tsv`` (tutorial, folder, split); on the GPU host each folder is run with
``tlx-sim run FOLDER --record traces/h200/tlx_<tutorial>.json --split SPLIT``.
"""
from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

from tlx_sim import kernel_module as kmod
from tlx_sim import tlx_tutorials as tt
from tlx_sim.tlx_tutorial_recipes import RECIPES

GEMM_SHAPES = [({"M": 4096, "N": 4096, "K": 4096}, "fit"), ({"M": 8192, "N": 8192, "K": 8192}, "heldout"),
               ({"M": 8192, "N": 8192, "K": 2048}, "heldout")]
ATTN_SHAPES = [({"Z": 4, "H": 32, "N_CTX": 4096, "D": 128}, "fit"), ({"Z": 8, "H": 16, "N_CTX": 2048, "D": 128}, "heldout"),
               ({"Z": 2, "H": 32, "N_CTX": 8192, "D": 128}, "heldout")]


def gemm_ws_configs() -> dict:
    """hopper_gemm_ws: BM x BN in {128x128, 128x256, 256x128}, NUM_STAGES 2-4, EPILOGUE_SUBTILE off/on, plus
    256x256 at 2 stages; the tutorial's other knobs at the values its pruning keeps (GROUP_SIZE_M 8, 8 MMA warps
    in 2 groups, one CTA, no warp barrier)."""
    base = dict(BK=64, GROUP_SIZE_M=8, NUM_MMA_WARPS=8, NUM_MMA_GROUPS=2, NUM_CTAS=1, USE_WARP_BARRIER=False)
    out = {}
    tiles = [(128, 128), (128, 256), (256, 128)]
    for (bm, bn), s, sub in itertools.product(tiles, (2, 3, 4), (False, True)):
        out[f"bm{bm}_bn{bn}_s{s}{'_sub' if sub else ''}"] = dict(base, BM=bm, BN=bn, NUM_STAGES=s, EPILOGUE_SUBTILE=sub)
    for sub in (False, True):
        out[f"bm256_bn256_s2{'_sub' if sub else ''}"] = dict(base, BM=256, BN=256, NUM_STAGES=2, EPILOGUE_SUBTILE=sub)
    return out


# tutorial -> (configs or None for the recipe's own, shapes with splits)
PLAN = {
    "hopper_gemm_ws": (gemm_ws_configs(), GEMM_SHAPES[:2]),
    "hopper_gemm_pipelined": (None, GEMM_SHAPES),
    # all four of the tutorial's own configs (BM x BN in {128x256, 256x128}, 3 or 4 stages)
    "hopper-persistent-gemm-ws-cooperative": ({f"bm{bm}_bn{bn}_s{s}": dict(BM=bm, BN=bn, NUM_STAGES=s)
                                                for bm, bn in ((128, 256), (256, 128)) for s in (3, 4)}, GEMM_SHAPES),
    "hopper-persistent-gemm-ws-pingpong": (None, GEMM_SHAPES),
    "hopper_fa_ws": (None, ATTN_SHAPES),
    "hopper_fa_ws_pipelined": (None, ATTN_SHAPES),
    "hopper_fa_ws_pipelined_pingpong": (None, ATTN_SHAPES),
    "hopper_fa_ws_pipelined_pingpong_persistent": (None, ATTN_SHAPES),
}


def shape_tag(shape: dict) -> str:
    """``M4096_N4096_K4096``: the shape in a folder name."""
    return "_".join(f"{k}{v}" for k, v in shape.items())


def capture_plan(out: Path, names: list[str]) -> list[tuple[str, Path, str]]:
    """Capture every (config, shape) of the plan's tutorials ``names`` under ``out``; returns (tutorial, folder,
    split) rows.  A config the compiler rejects is reported on stderr and skipped."""
    target = kmod.parse_target("cuda:90")
    rows = []
    for name in names:
        configs, shapes = PLAN[name]
        rcp = RECIPES[name]
        if configs is not None:
            rcp.configs = dict(configs)
        for shape, split in shapes:
            tmp = out / name / "_tmp"
            try:  # all configs of one shape in one run of the tutorial (one import, one pruning pass)
                tt.capture(name, list(rcp.configs), target, tmp, shape)
                done = list(rcp.configs)
            except Exception as err:  # noqa: BLE001 - retry one by one to skip only the configs that fail
                print(f"{name} {shape_tag(shape)}: {type(err).__name__}: {err}; one config at a time", file=sys.stderr)
                done = []
                for config in rcp.configs:
                    try:
                        tt.capture(name, [config], target, tmp, shape)
                        done.append(config)
                    except Exception as err1:  # noqa: BLE001 - a config that does not compile is skipped
                        print(f"skip {name} {config} {shape_tag(shape)}: {type(err1).__name__}: {err1}", file=sys.stderr)
            for config in done:
                dest = out / name / f"{config}-{shape_tag(shape)}"
                (tmp / config).rename(dest)
                rows.append((name, dest, split))
                print(f"captured {dest}", file=sys.stderr, flush=True)
            if tmp.exists() and not any(tmp.iterdir()):
                tmp.rmdir()
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--tutorial", nargs="+", choices=list(PLAN), default=list(PLAN))
    args = parser.parse_args(argv)
    rows = capture_plan(args.output, args.tutorial)
    with open(args.output / "plan.tsv", "a") as f:
        for name, folder, split in rows:
            f.write(f"{name}\t{folder.relative_to(args.output)}\t{split}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
