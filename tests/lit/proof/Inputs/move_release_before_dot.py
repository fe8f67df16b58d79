"""Seeds a release-before-read bug into a TLX Hopper GEMM's TTGIR: the first consumer's release of its stage (the
memdesc_index of empty_a / empty_b and the two arrive_barrier) moved in front of its warp_group_dot, as a user who
releases the buffers before `tlx.async_dot` writes it. Usage: move_release_before_dot.py IN.ttgir OUT.ttgir"""
import sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().split("\n")
# the first consumer loop's release (two memdesc_index + two arrive_barrier) moved before its warp_group_dot
dot = next(i for i, l in enumerate(lines) if "ttng.warp_group_dot %" in l)
rel = next(i for i in range(dot, len(lines)) if "%empty_a = ttg.memdesc_index" in lines[i])
block = lines[rel:rel + 4]
assert all("empty" in l for l in block), block
del lines[rel:rel + 4]
lines[dot:dot] = block
open(dst, "w").write("\n".join(lines))
