"""Seeds a wrong-parity bug into a TLX Hopper GEMM's TTGIR: both consumers (the replicated MMA task) wait on full_b
with their phase's parity flipped (`tlx.barrier_wait(full_b, p ^ 1)`), so their first wait passes at once on the
fresh barrier. Usage: flip_consumer_parity.py IN.ttgir OUT.ttgir"""
import sys

lines = open(sys.argv[1]).read().split("\n")
out = []
for line in lines:
    if "ttng.wait_barrier %full_b, %phase_43" in line:
        indent = line[: len(line) - len(line.lstrip())]
        out.append(indent + "%flipped = arith.xori %phase_43, %c1_i32_30 : i32")
        line = line.replace("%full_b, %phase_43", "%full_b, %flipped")
    out.append(line)
assert sum("%flipped = " in l for l in out) == 2
open(sys.argv[2], "w").write("\n".join(out))
