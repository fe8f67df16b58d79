#!/usr/bin/env python3
"""Runs the installed Triton's own shared-memory allocation on a captured TTGIR and prints what it writes: the module's
`ttg.shared` and each op's `allocation.offset`. The reference that sim/SharedAllocation.cpp reproduces, for finding
which buffer differs when `tlx-sim predict --ir-only` and the metadata's `shared` disagree (issue 17).

usage: .venv/bin/python3     tests/occupancy/triton_allocation.py [-v] FILE.ttgir...   (Triton 3.6.0)
       .venv-tlx/bin/python3 tests/occupancy/triton_allocation.py [-v] FILE.ttgir...   (fbtriton: TLX captures)
It runs the passes that make_llir runs before the allocation (combine-tensor-select-and-if, allocate-warp-groups,
scf-to-cf, the inliner; fbtriton's TMEM allocation, which inserts a ttng.tcgen5_global_alloc), then the backend's
allocate-shared-memory (NVIDIA: allocate_shared_memory_nv for the module's cuda:CC; AMD: allocate_shared_memory).
Proton's profile buffer is not added (sim/ProtonBuffer.cpp computes it). Needs no GPU. -v prints every op that got
an offset.
"""
import re
import sys

import triton
from triton._C.libtriton import ir, passes


def load_dialects(ctx, amd):
    ir.load_dialects(ctx)
    if amd:
        from triton._C.libtriton import amd as backend
    else:
        from triton._C.libtriton import nvidia as backend
    backend.load_dialects(ctx)
    for optional in ("proton", "tlx"):
        module = getattr(__import__("triton._C.libtriton", fromlist=[optional]), optional, None)
        if module is not None and hasattr(module, "load_dialects"):
            module.load_dialects(ctx)
    return backend


def allocate(path):
    """The module text after Triton's allocation of the TTGIR at `path`."""
    text = open(path).read()
    target = re.search(r'"?ttg\.target"? = "(cuda|hip):(\w+)"', text)
    if not target:
        raise SystemExit(path + ": no ttg.target")
    amd = target.group(1) == "hip"
    ctx = ir.context()
    backend = load_dialects(ctx, amd)
    mod = ir.parse_mlir_module(path, ctx)
    mod.context = ctx
    pm = ir.pass_manager(ctx)
    passes.ttgpuir.add_combine_tensor_select_and_if(pm)
    if not amd:
        passes.ttgpuir.add_allocate_warp_groups(pm)
    passes.convert.add_scf_to_cf(pm)
    passes.gluon.add_inliner(pm)
    if amd:
        backend.passes.ttgpuir.add_allocate_shared_memory(pm)
    else:
        capability = int(target.group(2))
        if "fb" in triton.__version__:
            backend.passes.ttnvgpuir.add_allocate_tensor_memory(pm)
        backend.passes.ttgpuir.add_allocate_shared_memory_nv(pm, capability, 87 if capability < 100 else 88)
    pm.run(mod, "triton_allocation")
    return str(mod)


def main():
    verbose = "-v" in sys.argv
    for path in [a for a in sys.argv[1:] if a != "-v"]:
        out = allocate(path)
        shared = re.search(r'"?ttg\.shared"? = (\d+)', out)
        print("%s: ttg.shared = %s (triton %s)" % (path, shared.group(1) if shared else "?", triton.__version__))
        if not verbose:
            continue
        for line in out.splitlines():
            offset = re.search(r"allocation\.offset = (\d+)", line)
            if not offset:
                continue
            line = re.sub(r" loc\([^)]*\)", "", line.strip())
            if line.startswith("tt.func"):
                line = "tt.func (warp indices)"
            print("  %8s  %s" % (offset.group(1), line[:160]))


if __name__ == "__main__":
    main()
