"""Seeds a wrong-parity bug into a TTGIR: each `ttng.wait_barrier BAR, PHASE, ...` whose location is one of the
given `#locN` tags waits on `PHASE ^ 1` instead (a constant 1 and the xor are inserted before it).
Usage: flip_wait_parity.py IN.ttgir OUT.ttgir LOCTAG... (e.g. loc71)"""
import re
import sys

tags = {"#" + t for t in sys.argv[3:]}
out, n = [], 0
for line in open(sys.argv[1]).read().split("\n"):
    m = re.match(r"(\s*)ttng\.wait_barrier (%[\w.]+), (%[\w.]+),", line)
    tag = re.search(r"loc\((#loc\d+)\)\s*$", line)
    if m and tag and tag.group(1) in tags:
        indent, phase = m.group(1), m.group(3)
        out.append(f"{indent}%flip_one{n} = arith.constant 1 : i32")
        out.append(f"{indent}%flip{n} = arith.xori {phase}, %flip_one{n} : i32")
        line = line.replace(f"{m.group(2)}, {phase},", f"{m.group(2)}, %flip{n},", 1)
        n += 1
    out.append(line)
assert n > 0, "no wait at the given locations"
open(sys.argv[2], "w").write("\n".join(out))
