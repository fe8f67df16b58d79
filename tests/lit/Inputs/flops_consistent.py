"""Checks that a `predict --json` result's TFLOP/s is the problem's FLOPs over its predicted time.

Usage: ``python flops_consistent.py FLOPS [MIN_TENSOR_UTIL] < predict.json``: exit 0 and print ``ok`` when
``tflops`` equals FLOPS / ``time_us`` within 0.5 % (and the tensor-core utilization is at least MIN_TENSOR_UTIL,
when given), else print what differs and exit 1. Standard library only.
"""
import json
import sys


def main(argv) -> int:
    flops = float(argv[0])
    d = json.load(sys.stdin)
    expected = flops / (d["time_us"] * 1e-6) / 1e12
    if abs(d["tflops"] - expected) > 0.005 * expected:
        print(f"tflops {d['tflops']:.1f} but {flops:.4g} FLOP over {d['time_us']:.2f} us is {expected:.1f}")
        return 1
    if len(argv) > 1:
        util = {u["name"]: u["utilization"] for u in d["units"]}["tensor core"]
        if util < float(argv[1]):
            print(f"tensor core {util:.3f} busy, below {argv[1]}")
            return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
