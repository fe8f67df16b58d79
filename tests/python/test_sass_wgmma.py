#!/usr/bin/env python3
"""The cubin's wgmma pipeline read by tlx-sim (sim/Sass.cpp cubinWgmmaIssue) equals what NVIDIA's disassembler shows.

For every committed `*.cubin` under tests/inputs and traces/ with sm_90a code (one `.ttgir` next to it), runs
`cuobjdump -sass` (Triton's wheel) and counts HGMMA instructions and those serialized by ptxas (an HGMMA that
carries the gsb0 scoreboard and whose next warp-group instruction is `WARPGROUP.DEPBAR.LE gsb0, 0x0`), then
`tlx-sim predict --max-ctas 1 --json` and compares with its `binary_wgmma` counts. It also checks that the kernels
ptxas serialized whole (every HGMMA) are the ones predict simulates so when some dot is several wgmmas, and the
list of serialized captures against the one committed here (ptxas's decision changes with a compiler version: a
new entry must be looked at). The same run compares `binary_tma` (sim/Sass.cpp cubinTmaIssue: UTMALDG and all
instructions in the innermost natural loops that issue TMA loads and run no HGMMA) with the disassembly's. Exit 0
when every count matches.

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

# One disassembled instruction: address, predicate (if any), mnemonic, operands.
INSTR = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*(.*?);")


def disassemble(cuobjdump, cubin):
    """`cuobjdump -sass` of the cubin, or None without sm_90 code."""
    sass = subprocess.run([cuobjdump, "-sass", cubin], capture_output=True, text=True, check=True).stdout
    return sass if "code for sm_90" in sass else None


def tma_loop_counts(sass):
    """(UTMALDG, instructions) in the innermost natural loops that contain a UTMALDG and no HGMMA, from the
    disassembly's mnemonics, predicates and printed branch targets (basic blocks, dominators, back edges)."""
    code = []  # (address, mnemonic, predicated, branch target)
    for line in sass.splitlines():
        m = INSTR.search(line)
        if m:
            target = re.match(r"(0x[0-9a-f]+)", m.group(4)) if m.group(3) == "BRA" else None
            code.append((int(m.group(1), 16), m.group(3), m.group(2) is not None,
                         int(target.group(1), 16) if target else None))
    index = {c[0]: i for i, c in enumerate(code)}
    ends = lambda op: op.split(".")[0] in ("BRA", "EXIT", "RET", "BRX", "JMX")
    leaders = sorted({0} | {index[c[3]] for c in code if c[3] in index} |
                     {i + 1 for i, c in enumerate(code) if ends(c[1]) and i + 1 < len(code)})
    blocks = [range(a, b) for a, b in zip(leaders, leaders[1:] + [len(code)])]
    block_of = {i: n for n, r in enumerate(blocks) for i in r}
    succ = []
    for r in blocks:
        last = code[r[-1]]
        s = [block_of[index[last[3]]]] if last[3] in index else []
        if (not ends(last[1]) or last[2]) and r[-1] + 1 < len(code):
            s.append(block_of[r[-1] + 1])
        succ.append(s)
    pred = [[b for b in range(len(blocks)) if n in succ[b]] for n in range(len(blocks))]
    roots = {0} | {b for b in range(len(blocks)) if not pred[b]}  # the BRX dispatch's targets are unknown
    reach, work = set(), list(roots)
    while work:
        b = work.pop()
        if b not in reach:
            reach.add(b)
            work += succ[b]
    dom = {b: {b} if b in roots else set(reach) for b in reach}
    changed = True
    while changed:
        changed = False
        for b in sorted(reach - roots):
            new = set.intersection(*[dom[p] for p in pred[b] if p in reach]) | {b}
            changed, dom[b] = changed or new != dom[b], new
    loops = {}
    for u in reach:
        for h in succ[u]:
            if h in dom[u]:
                body, work = loops.setdefault(h, {h}), [u]
                while work:
                    b = work.pop()
                    if b not in body and b in reach:
                        body.add(b)
                        work += pred[b]
    ops = lambda body: [code[i][1] for b in body for i in blocks[b]]
    copies = {h: sum(op.startswith("UTMALDG") for op in ops(body)) for h, body in loops.items()}
    inner = [h for h in loops if copies[h] and not any(g != h and g in loops[h] and copies[g] for g in loops)]
    body = [op for h in inner if not any(op.startswith("HGMMA") for op in ops(loops[h])) for op in ops(loops[h])]
    return sum(op.startswith("UTMALDG") for op in body), len(body)


def disassembled_counts(sass):
    """(HGMMA instructions, serialized ones) from `cuobjdump -sass`."""
    count = serialized = 0
    awaiting = False
    for line in sass.splitlines():
        m = INSTR.search(line)
        if not m:
            continue
        op, rest = m.group(3), m.group(4)
        if op.startswith("HGMMA"):
            count += 1
            awaiting = "gsb0" in rest
        elif op.startswith("WARPGROUP"):
            serialized += awaiting and op.startswith("WARPGROUP.DEPBAR") and re.search(r"gsb0,\s*0x0\b", rest) is not None
            awaiting = False
    return count, serialized


def main():
    tlx_sim, source, cuobjdump = sys.argv[1:4]
    failures, checked, whole, tma_loops = [], 0, set(), 0
    for cubin in sorted(glob.glob(os.path.join(source, "tests/inputs/**/*.cubin"), recursive=True) +
                        glob.glob(os.path.join(source, "traces/**/*.cubin"), recursive=True)):
        folder = os.path.dirname(cubin)
        ttgirs = glob.glob(os.path.join(folder, "*.ttgir"))
        launch = os.path.join(folder, "launch.json")
        if len(ttgirs) != 1 or not os.path.exists(launch):
            continue
        sass = disassemble(cuobjdump, cubin)
        expected = disassembled_counts(sass) if sass else None
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
        tma = json.loads(proc.stdout).get("binary_tma", {})
        got_tma, shown_tma = (tma.get("loop_copies", 0), tma.get("loop_instructions", 0)), tma_loop_counts(sass)
        if got_tma != shown_tma:
            failures.append(f"{rel}: tlx-sim reads TMA loops {got_tma}, cuobjdump shows {shown_tma}")
        tma_loops += got_tma[0] > 0
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
    print(f"{checked} sm_90 cubins with HGMMA compared with cuobjdump ({tma_loops} with TMA loads in producer loops); "
          f"{len(whole)} serialized whole; {len(failures)} failures")
    return 1 if failures or checked == 0 or tma_loops == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
