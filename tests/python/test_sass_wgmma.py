#!/usr/bin/env python3
"""The cubin's wgmma pipeline read by tlx-sim (sim/Binary.cpp cubinWgmmaIssue) equals what NVIDIA's disassembler shows.

For every committed `*.cubin` under tests/inputs and traces/ with sm_90a code (one `.ttgir` next to it), runs
`cuobjdump -sass` (Triton's wheel) and counts HGMMA instructions and those serialized by ptxas (an HGMMA that
carries the gsb0 scoreboard and whose next warp-group instruction is `WARPGROUP.DEPBAR.LE gsb0, 0x0`), then
`tlx-sim predict --max-ctas 1 --json` and compares with its `binary_wgmma` counts. It also checks that the kernels
ptxas serialized whole (every HGMMA) are the ones predict simulates so when some dot is several wgmmas, and the
list of serialized captures against the one committed here (ptxas's decision changes with a compiler version: a
new entry must be looked at). Exit 0 when every count matches.

Usage: test_sass_wgmma.py TLX_SIM SOURCE_DIR CUOBJDUMP
"""
import glob
import json
import os
import re
import subprocess
import sys

# Captures whose every HGMMA ptxas serialized (cuobjdump -sass, CUDA 13 / Triton 3.6 and fbtriton 3.7.4 wheels):
# Proton instrumentation (records inside the wgmma pipeline, spills) and kernels that spill.
SERIALIZED = {
    "tests/inputs/bugs/acc_before_wait/t64_bug_acc_before_wait",
    "tests/inputs/bugs/shared_operand_two_wg/fixed",
    "tests/inputs/bugs/shared_operand_two_wg/t64_bug_no_loopback_barrier",
    "tests/inputs/tlx/hopper/hopper_fa_ws/g1",
    "tests/inputs/tlx/hopper/hopper_fa_ws_pipelined/g1",
    "traces/h200/proton-captures/tlx_hopper_fa_ws-Z4_H32_N_CTX4096_D128/g1",
    "traces/h200/proton-captures/ws_gemm-M2048_N2048_K8192/s2",
    "traces/h200/proton-captures/ws_gemm-M2048_N2048_K8192/s3",
    "traces/h200/proton-captures/ws_gemm-M2048_N2048_K8192/s4",
    "traces/h200/proton-captures/ws_gemm-M8192_N8192_K8192/s2",
    "traces/h200/proton-captures/ws_gemm-M8192_N8192_K8192/s3",
    "traces/h200/proton-captures/ws_gemm-M8192_N8192_K8192/s4",
    "traces/h200/tlx/captures/tlx_hopper_fa_ws/g1-9246e953",
    "traces/h200/tlx/captures/tlx_hopper_fa_ws_pipelined/g1-c4eacf4d",
    "traces/h200/tlx/captures/tlx_hopper_gemm_ws/bm256_bn256_s2_sub-0e892cc8",
    "traces/h100-sxm/tlx/captures/tlx_hopper_fa_ws/g1-6fffc827",
    "traces/h100-sxm/tlx/captures/tlx_hopper_fa_ws_pipelined/g1-bbc1de17",
    "traces/h100-sxm/tlx/captures/tlx_hopper_gemm_ws/bm256_bn256_s2_sub-bae61f88",
}

INSTR = re.compile(r"\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*(.*?);")


def disassembled_counts(cuobjdump, cubin):
    """(HGMMA instructions, serialized ones) from `cuobjdump -sass`, or None without sm_90 code."""
    sass = subprocess.run([cuobjdump, "-sass", cubin], capture_output=True, text=True, check=True).stdout
    if "code for sm_90" not in sass:
        return None
    count = serialized = 0
    awaiting = False
    for line in sass.splitlines():
        m = INSTR.search(line)
        if not m:
            continue
        op, rest = m.group(1), m.group(2)
        if op.startswith("HGMMA"):
            count += 1
            awaiting = "gsb0" in rest
        elif op.startswith("WARPGROUP"):
            serialized += awaiting and op.startswith("WARPGROUP.DEPBAR") and re.search(r"gsb0,\s*0x0\b", rest) is not None
            awaiting = False
    return count, serialized


def main():
    tlx_sim, source, cuobjdump = sys.argv[1:4]
    failures, checked, whole = [], 0, set()
    for cubin in sorted(glob.glob(os.path.join(source, "tests/inputs/**/*.cubin"), recursive=True) +
                        glob.glob(os.path.join(source, "traces/**/*.cubin"), recursive=True)):
        folder = os.path.dirname(cubin)
        ttgirs = glob.glob(os.path.join(folder, "*.ttgir"))
        launch = os.path.join(folder, "launch.json")
        if len(ttgirs) != 1 or not os.path.exists(launch):
            continue
        expected = disassembled_counts(cuobjdump, cubin)
        if expected is None or expected[0] == 0:
            continue
        rel = os.path.relpath(folder, source)
        proc = subprocess.run([tlx_sim, "predict", ttgirs[0], "--launch", launch, "--binary", cubin, "--max-ctas", "1",
                               "--json"], capture_output=True, text=True)
        try:
            got = json.loads(proc.stdout).get("binary_wgmma", {})
        except json.JSONDecodeError:
            failures.append(f"{rel}: predict exit {proc.returncode}: {proc.stderr.strip()[:300]}")
            continue
        checked += 1
        if (got.get("instructions"), got.get("serialized")) != expected:
            failures.append(f"{rel}: tlx-sim reads {got}, cuobjdump shows {expected[0]} HGMMA, {expected[1]} serialized")
        if expected[0] == expected[1]:
            whole.add(rel)
            warned = any("serialized the wgmma pipeline" in w for w in json.loads(proc.stdout).get("warnings", []))
            if warned != got.get("simulated_serialized"):
                failures.append(f"{rel}: warning {warned} but simulated_serialized {got.get('simulated_serialized')}")
    if whole != SERIALIZED:
        failures.append(f"serialized captures changed: new {sorted(whole - SERIALIZED)}, gone {sorted(SERIALIZED - whole)}")
    for f in failures:
        print("FAIL", f)
    print(f"{checked} sm_90 cubins with HGMMA compared with cuobjdump; {len(whole)} serialized whole; "
          f"{len(failures)} failures")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
