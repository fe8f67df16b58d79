"""Checks a `tlx-sim predict --json` time against the roofline of an M x N x K fp16 GEMM.

roofline = max(2 M N K / peak_flops, (M K + K N + M N) * 2 bytes / hbm_bytes_per_s).
Exits 1 (printing why) if the prediction is below the roofline or, with --max-ratio, above
ratio x roofline; prints "ok: ..." otherwise.
"""
import argparse
import json
import sys

parser = argparse.ArgumentParser()
parser.add_argument("prediction")
parser.add_argument("--mnk", required=True)
parser.add_argument("--peak-flops", type=float, required=True)
parser.add_argument("--hbm", type=float, required=True)
parser.add_argument("--max-ratio", type=float)
args = parser.parse_args()

m, n, k = (int(x) for x in args.mnk.split(","))
with open(args.prediction) as f:
    predicted_us = json.load(f)["time_us"]
roofline_us = max(2 * m * n * k / args.peak_flops, (m * k + k * n + m * n) * 2 / args.hbm) * 1e6
if predicted_us < roofline_us:
    sys.exit(f"FAIL: predicted {predicted_us:.1f} us is below the roofline {roofline_us:.1f} us")
if args.max_ratio and predicted_us > args.max_ratio * roofline_us:
    sys.exit(f"FAIL: predicted {predicted_us:.1f} us exceeds {args.max_ratio:g} x roofline {roofline_us:.1f} us")
bound = f" and <= {args.max_ratio:g} x roofline" if args.max_ratio else ""
print(f"ok: predicted {predicted_us:.1f} us >= roofline {roofline_us:.3f} us{bound}")
