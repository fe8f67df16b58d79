#!/usr/bin/env python3
"""Predict TLX's own tutorials (tests/inputs/tlx captures) at the shapes Meta / AMD published numbers for, and
print the rows of traces/published.md section 5 (same-kernel rows, issue 17).

Each row: a capture dir (one tutorial config), the published shape, the launch overrides the tutorial's own host
code computes at that shape (grid, scalar args, descriptor shapes; constexprs stay as captured), the published
TFLOP/s and its source. The prediction is

    tlx-sim predict <capture>/<kernel>.ttgir --launch <capture>/launch.json [--grid ...] [--arg ...] [--desc ...]
            --model <m> --json

and pred TFLOP/s = useful FLOPs / time_us (GEMM 2MNK, attention forward 4*Z*H*N^2*D, non-causal).
error = pred/pub - 1.  Run from the repository root, one prediction at a time:

    python3 traces/published_tlx.py [--tlx-sim PATH] [--md] [--only SUBSTRING]
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAPS = "tests/inputs/tlx"

# Sources (URLs read for this page; see traces/published.md section 5 for what each states).
SRC = {
    "fb854": "https://github.com/facebookexperimental/triton/pull/854",
    "fb814": "https://github.com/facebookexperimental/triton/pull/814",
    "fb407": "https://github.com/facebookexperimental/triton/pull/407",
    "gfx9readme": "https://github.com/facebookexperimental/triton/blob/main/third_party/tlx/tutorials/gfx9_gemm/a16w16/README.md",
    "fb1807": "https://github.com/facebookexperimental/triton/pull/1807",
    "amdfaperf": "https://github.com/facebookexperimental/triton/blob/main/third_party/tlx/tutorials/testing/test_amd_fa_perf.py",
    "fb1782": "https://github.com/facebookexperimental/triton/pull/1782",
    "fb1548": "https://github.com/facebookexperimental/triton/pull/1548",
    "fb1874": "https://github.com/facebookexperimental/triton/pull/1874",
    "fb1165": "https://github.com/facebookexperimental/triton/pull/1165",
    "fb2005": "https://github.com/facebookexperimental/triton/pull/2005",
}


def cdiv(a, b):
    return -(-a // b)


def load_launch(cap):
    with open(os.path.join(ROOT, CAPS, cap, "launch.json")) as f:
        return json.load(f)


# ---- launch overrides, as each tutorial's host code computes them -------------------------------------------

def bw_gemm(cap, kind, M, N, K):
    """blackwell_gemm_{ws,clc,pipelined}: a[M,K] @ b[K,N] row-major."""
    L = load_launch(cap)
    c = L["constexprs"]
    BM, BN = c["BLOCK_SIZE_M"], c["BLOCK_SIZE_N"]
    if kind == "ws":  # grid = min(NUM_SMS, pad(cdiv(M,BM), NUM_CTAS) * cdiv(N,BN) * SPLIT_K)
        pm = cdiv(M, BM)
        pm = cdiv(pm, c["NUM_CTAS"]) * c["NUM_CTAS"]
        grid = [min(c["NUM_SMS"], pm * cdiv(N, BN) * c["SPLIT_K"]), 1, 1]
    else:  # clc, pipelined: one program per output tile
        grid = [cdiv(M, BM) * cdiv(N, BN), 1, 1]
    args = {"M": M, "N": N, "K": K}
    if "stride_am" in L["args"]:
        args.update(stride_am=K, stride_bk=N, stride_cm=N)
    descs = {}
    for d in L.get("descs", {}):
        descs[d] = {"a_desc": (M, K), "b_desc": (K, N)}.get(d, (M, N))  # c_desc, workspace_desc: [M, N]
    return grid, args, descs, 2.0 * M * N * K


def bw_fa(cap, kind, Z, H, N, D=128):
    """blackwell_fa_*: q, k, v, o as [Z*H*N, D] descriptors, BLOCK_M from the config."""
    L = load_launch(cap)
    assert L["constexprs"]["HEAD_DIM"] == D
    BM = L["constexprs"]["BLOCK_M"]
    tiles = cdiv(N, BM)
    if kind in ("ws", "ws_pipelined"):
        grid = [tiles, Z * H, 1]
    elif kind == "ws_persistent":
        grid = [min(148, tiles * Z * H), 1, 1]
    else:  # ws_pipelined_persistent, clc: one program per (m-tile, head)
        grid = [tiles * Z * H, 1, 1]
    descs = {d: (Z * H * N, D) for d in L["descs"]}
    return grid, {"Z": Z, "H": H, "N_CTX": N}, descs, 4.0 * Z * H * N * N * D


def amd_strides(Z, H, N, D):
    s = {}
    for t, m in (("q", "m"), ("k", "n"), ("v", "n"), ("o", "m")):
        s[f"stride_{t}z"], s[f"stride_{t}h"], s[f"stride_{t}{m}"] = H * N * D, N * D, D
    return s


def amd_fa(cap, kind, Z, H, N, D=128):
    L = load_launch(cap)
    c = L["constexprs"]
    assert c["HEAD_DIM"] == D
    BM = c["BLOCK_M"]
    args = amd_strides(Z, H, N, D)
    if kind == "pipelined":  # grid = (cdiv(N_CTX, BLOCK_M), B * H)
        grid = [cdiv(N, BM), Z * H, 1]
        args.update(Z=Z, H=H, N_CTX=N)
    elif kind == "persistent":  # grid = (NUM_SMS,), NUM_M_BLOCKS = cdiv(N, BM) is a constexpr
        assert c["NUM_M_BLOCKS"] == cdiv(N, BM), "NUM_M_BLOCKS is a compile-time constant of the capture"
        grid = list(L["grid"])
        args.update(Z=Z, H=H, N_CTX_Q=N, N_CTX_K=N)
    elif kind == "cluster":  # non-causal grid = (m_blocks, H, B)
        grid = [cdiv(N, BM), H, Z]
        args.update(N_CTX=N)
    return grid, args, {}, 4.0 * Z * H * N * N * D


def amd_gemm(cap, M, N, K):
    """amd_gemm_warp_pipeline: grid = cdiv(M,BM)*cdiv(N,BN), row-major a[M,K], b[K,N], c[M,N]."""
    c = load_launch(cap)["constexprs"]
    grid = [cdiv(M, c["BLOCK_M"]) * cdiv(N, c["BLOCK_N"]), 1, 1]
    return grid, {"M": M, "N": N, "K": K, "stride_am": K, "stride_bk": N, "stride_cm": N}, {}, 2.0 * M * N * K


def as_captured(cap):
    L = load_launch(cap)
    s = L["shape"]
    return None, {}, {}, 2.0 * s["M"] * s["N"] * s["K"]


# ---- the rows ---------------------------------------------------------------------------------------------------
# (id, gpu, model, capture, override thunk, published TF/s, source, config note)
B = "blackwell/"
A = "amd-gfx950/"
ROWS = []


def row(rid, gpu, model, cap, ov, pub, src, note=""):
    ROWS.append(dict(id=rid, gpu=gpu, model=model, cap=cap, ov=ov, pub=pub, src=src, note=note))


# B200, PR #854: test_blackwell_gemm_perf.py, fp16, M=N=K, 750 W cap, clock locked 1965 MHz (autotuned configs)
GEMM854 = {"ws": {2048: 734.433554, 4096: 1040.447562, 8192: 1012.934134},
           "clc": {2048: 700.875853, 4096: 978.352482, 8192: 983.265968},
           "pipelined": {2048: 646.832443, 4096: 913.045776, 8192: 839.557735}}
GEMM_CFGS = {"ws": ["bm256_bn128_s4_t2_sub2", "bm256_bn128_s5_t2_sub4_cta2"],
             "clc": ["bn256_bk64_s4_t2", "bn128_bk64_s3_t3"],
             "pipelined": ["bn256_bk64_s4", "bn128_bk128_s2"]}
for kind, pubs in GEMM854.items():
    for n, pub in pubs.items():
        for cfg in GEMM_CFGS[kind]:
            cap = f"{B}blackwell_gemm_{kind}/{cfg}"
            row(f"gemm_{kind} {n}^3 {cfg}", "B200", "b200", cap,
                (lambda cap=cap, kind=kind, n=n: bw_gemm(cap, kind, n, n, n)), pub, "fb854")
# blackwell_gemm_2cta: M, N, K are constexprs of the kernel (host: fixed 128x128x128 tiles, 4x2 clusters), so
# only the captured 4096^3 can be predicted.
row("gemm_2cta 4096^3 default", "B200", "b200", f"{B}blackwell_gemm_2cta/default",
    (lambda: (None, {}, {}, 2.0 * 4096**3)), 732.679520, "fb854")

# B200, PR #854: test_blackwell_fa_perf.py, fp16, BATCH=4, H=32, HEAD_DIM=128, non-causal, same lock
FA854 = {"ws_pipelined_persistent": {1024: 1030.462385, 2048: 1420.293429, 4096: 1619.291108, 8192: 1770.481665},
         "ws_pipelined": {1024: 638.751831, 2048: 990.536748, 4096: 1307.995673, 8192: 1530.517608},
         "ws_persistent": {1024: 515.354868, 2048: 885.925574, 4096: 1173.267913, 8192: 1341.7},
         "ws": {1024: 574.347047, 2048: 717.681888, 4096: 770.812501}}
FA_CAPS = {"ws_pipelined_persistent": ["blackwell_fa_ws_pipelined_persistent/kv3",
                                       "blackwell_fa_ws_pipelined_persistent/kv3_rescale_where"],
           "ws_pipelined": ["blackwell_fa_ws_pipelined/bm256_kv3"],
           "ws_persistent": ["blackwell_fa_ws_persistent/bm256_kv3"],
           "ws": ["blackwell_fa_ws/bm256_kv3"]}
for kind, pubs in FA854.items():
    for n, pub in pubs.items():
        for c in FA_CAPS[kind]:
            cap = B + c
            row(f"fa_{kind} N={n} {c.split('/')[1]}", "B200", "b200", cap,
                (lambda cap=cap, kind=kind, n=n: bw_fa(cap, kind, 4, 32, n)), pub, "fb854")
# PR #407: the persistent WS FA when it was added (an older version of blackwell_fa_ws_persistent), 750 W B200
row("fa_ws_persistent N=4096 bm256_kv3 (#407)", "B200 (750 W)", "b200", B + "blackwell_fa_ws_persistent/bm256_kv3",
    (lambda: bw_fa(B + "blackwell_fa_ws_persistent/bm256_kv3", "ws_persistent", 4, 32, 4096)), 775.679572, "fb407",
    "older kernel version")

# MI355X (gfx950), gfx9_gemm/a16w16/README.md: M=N=4096, K=8192 fp16, do_bench steady state (the captured shape)
GFX9 = {"v0_naive": 614, "v1_buffer_load": 608, "v4_global_prefetch": 836, "v5_local_prefetch": 836,
        "v6_loop_unroll": 859, "v7_slice": 913, "v8_warp_pipeline": 1005, "v9_beyond_hotloop": 1026}
for v, pub in GFX9.items():
    cap = f"{A}gfx9_gemm_a16w16_{v}/default"
    row(f"gfx9_gemm {v} 4096x4096x8192", "MI355X", "mi355x", cap, (lambda cap=cap: as_captured(cap)), pub,
        "gfx9readme")

# gfx950 "MI350" (test_amd_fa_perf.py baselines: bf16, H=64, D=128, non-causal; B=1 at N=4096, B=2 at N=8192,
# B=1 at N=16384). prefetch: the perf script runs BLOCK_M=256, BLOCK_N=64, num_warps=8 (capture: num_warps=4).
AMDFA = {("simple", 4096, 1): 646, ("simple", 8192, 2): 704, ("simple", 16384, 1): 724,
         ("prefetch", 4096, 1): 782, ("prefetch", 8192, 2): 833, ("prefetch", 16384, 1): 861,
         ("persistent", 4096, 1): 828}
for (k, n, z), pub in AMDFA.items():
    cap = A + ("amd_fa_persistent/default" if k == "persistent" else f"amd_fa_pipelined/{k}")
    kind = "persistent" if k == "persistent" else "pipelined"
    row(f"amd_fa {k} Z={z} H=64 N={n}", "MI350 (gfx950)", "mi355x", cap,
        (lambda cap=cap, kind=kind, n=n, z=z: amd_fa(cap, kind, z, 64, n)), pub, "amdfaperf",
        "nearest config (num_warps 4 vs 8)" if k == "prefetch" else "")

# MI355X, PR #1782: amd_fa_cluster, fp16, D=128, H=64, non-causal, BATCH scaled with 1/N_CTX
for z, n, pub in ((32, 512, 554.9), (16, 1024, 697.1), (8, 2048, 800.8), (4, 4096, 915.7)):
    cap = A + "amd_fa_cluster/default"
    row(f"amd_fa_cluster Z={z} H=64 N={n}", "MI355X", "mi355x", cap,
        (lambda cap=cap, n=n, z=z: amd_fa(cap, "cluster", z, 64, n)), pub, "fb1782")

# PR #1782, a comment of the same day with a second, lower fp16 table (same shapes; what changed is not said)
for z, n, pub in ((32, 512, 444.4), (16, 1024, 557.9), (8, 2048, 639.1), (4, 4096, 711.0), (2, 8192, 734.2),
                  (1, 16384, 720.7)):
    cap = A + "amd_fa_cluster/default"
    row(f"amd_fa_cluster Z={z} H=64 N={n} (#1782 comment)", "gfx950", "mi355x", cap,
        (lambda cap=cap, n=n, z=z: amd_fa(cap, "cluster", z, 64, n)), pub, "fb1782", "second table of the PR")
# PR #1874 (MI355X): cluster at D=128 non-causal; H and BATCH are not in the text read: H=64 and BATCH scaled with
# 1/N_CTX as in #1782 are assumed (flagged, not in the summary)
for z, n, pub in ((2, 8192, 1003.3), (1, 16384, 1020.8)):
    cap = A + "amd_fa_cluster/default"
    row(f"amd_fa_cluster Z={z} H=64 N={n} (#1874)", "MI355X", "mi355x", cap,
        (lambda cap=cap, n=n, z=z: amd_fa(cap, "cluster", z, 64, n)), pub, "fb1874", "FLAG: Z, H assumed")
# PR #1165 (blackwell_fa_clc when added): GPU and shape not stated ("our scripts": test_blackwell_fa_perf.py,
# whose shape is BATCH=4, H=32, HEAD_DIM=128 in 3.7.4) -> flagged, not in the summary
for n, pub in ((1024, 678.724264), (2048, 737.460030), (4096, 766.411032), (8192, 798.617947)):
    for c in ("kv3", "kv3_rescale_where"):
        cap = f"{B}blackwell_fa_clc/{c}"
        row(f"fa_clc N={n} {c} (#1165)", "Blackwell (not named)", "b200", cap,
            (lambda cap=cap, n=n: bw_fa(cap, "clc", 4, 32, n)), pub, "fb1165", "FLAG: GPU, shape assumed")

# PR #2005: the hand-written fused_attention_ws_device_tma forward as baseline, B200, Z=4 H=32 N_CTX=4096 D=128 fp16
# (the captured shape), variant ws "~831" TF/s
row("fused_attention_ws_device_tma ws N=4096 bm256_dp2 (#2005)", "B200", "b200",
    B + "fused_attention_ws_device_tma/bm256_dp2", (lambda: (None, {}, {}, 4.0 * 4 * 32 * 4096**2 * 128)), 831,
    "fb2005", "captured launch as is")

# gfx950, PR #1548: amd_gemm_warp_pipeline tuned config BM=BN=256, BK=32, NUM_BUFFERS=2, 8 warps, GROUP_M=16,
# XCD_CHUNK=4 (capture: BK=64, XCD_CHUNK=8 -> nearest config)
for n, pub in ((4096, 955), (8192, 833)):
    cap = A + "amd_gemm_warp_pipeline/default"
    row(f"amd_gemm_warp_pipeline {n}^3", "MI355X (gfx950)", "mi355x", cap,
        (lambda cap=cap, n=n: amd_gemm(cap, n, n, n)), pub, "fb1548", "nearest config (BK 64 vs 32, XCD_CHUNK 8 vs 4)")


def command(tlx_sim, r):
    grid, args, descs, flops = r["ov"]()
    cap = r["cap"]
    ttgir = sorted(glob.glob(os.path.join(ROOT, CAPS, cap, "*.ttgir")))
    assert len(ttgir) == 1, cap
    cmd = [tlx_sim, "predict", os.path.relpath(ttgir[0], ROOT), "--launch", f"{CAPS}/{cap}/launch.json"]
    L = load_launch(cap)
    if grid is not None and list(grid) != list(L["grid"]):
        cmd.append("--grid=" + ",".join(str(g) for g in grid))
    for k, v in args.items():
        if L["args"].get(k) != v:
            cmd.append(f"--arg={k}={v}")
    for k, (d0, d1) in descs.items():
        if L["descs"][k]["shape"] != [d0, d1]:
            cmd.append(f"--desc={k}={d0}x{d1}")
    cmd += ["--model", r["model"], "--json"]
    return cmd, flops


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tlx-sim", default="/work/main/build/tools/tlx-sim")
    ap.add_argument("--only", default="")
    ap.add_argument("--md", action="store_true", help="print markdown table rows")
    ap.add_argument("--commands", action="store_true", help="print the commands only")
    a = ap.parse_args()
    os.chdir(ROOT)
    out = []
    for r in ROWS:
        if a.only not in r["id"]:
            continue
        cmd, flops = command(a.tlx_sim, r)
        shown = " ".join(["$T"] + cmd[1:])
        if a.commands:
            print(shown)
            continue
        p = subprocess.run(cmd, capture_output=True, text=True)
        res = dict(id=r["id"], gpu=r["gpu"], pub=r["pub"], src=r["src"], note=r["note"], cmd=shown, rc=p.returncode)
        try:
            j = json.loads(p.stdout)
            if "time_us" not in j:
                raise ValueError("no time: findings " + ", ".join(sorted({f.get("class", "?") for f in
                                                                           j.get("findings", [])})))
            res.update(time_us=j["time_us"], tflops=flops / (j["time_us"] * 1e-6) / 1e12, bound=j.get("bound"),
                       clock=j.get("clock_mhz"), warnings=j.get("warnings", []),
                       findings=sorted({f.get("class", "?") for f in j.get("findings", [])}))
            res["err"] = res["tflops"] / r["pub"] - 1
        except ValueError as e:
            res.update(error=str(e) if "findings" in str(e) else
                       ((p.stderr or p.stdout).strip().splitlines()[-1] if (p.stderr or p.stdout) else ""))
        out.append(res)
        if a.md:
            if "err" in res:
                w = ", ".join(sorted({(x if isinstance(x, str) else json.dumps(x))[:60] for x in res["warnings"]}))
                print(f"| {res['id']} | {res['gpu']} | {r['pub']:.1f} | {res['time_us']:.1f} | {res['tflops']:.1f} "
                      f"| {res['err']:+.1%} | {res['bound']} | {res['clock']:.0f} | {r['src']} | {r['note']} "
                      f"| {w or 'none'} |", flush=True)
            else:
                print(f"| {res['id']} | {res['gpu']} | {r['pub']:.1f} | rc {p.returncode}: {res.get('error')} "
                      f"| | | | | {r['src']} | {r['note']} | |", flush=True)
        else:
            print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
