"""Reader speed benchmark: a ~10 MB TTGIR made by repeating a captured kernel's function.

usage: reader_bench.py TLX_SIM INPUT.ttgir [--mb 10] [--runs 5]
Builds one module holding copies of the input's tt.func (renamed @k0, @k1, ...) until the
text reaches --mb megabytes, then times `tlx-sim ir --stats` on it (read + verify + op
counting; one core) --runs times and prints the median, min and max wall time in seconds.
"""
import argparse
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

parser = argparse.ArgumentParser()
parser.add_argument("tlx_sim")
parser.add_argument("input")
parser.add_argument("--mb", type=float, default=10)
parser.add_argument("--runs", type=int, default=5)
args = parser.parse_args()

text = pathlib.Path(args.input).read_text()
start = text.index("  tt.func ")
end = text.index("\n  } loc(", start)
end = text.index("\n", end + 1) + 1
func = text[start:end]
name = func.split("@", 1)[1].split("(", 1)[0]
copies, body = [], 0
while body < args.mb * 1e6:
    copy = func.replace("@" + name + "(", f"@k{len(copies)}(", 1)
    copies.append(copy)
    body += len(copy)
big = text[:start] + "".join(copies) + text[end:]
with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
    f.write(big)
    path = f.name
times = []
for _ in range(args.runs):
    t0 = time.perf_counter()
    proc = subprocess.run([args.tlx_sim, "ir", "--stats", path], capture_output=True, text=True)
    times.append(time.perf_counter() - t0)
    if proc.returncode != 0:
        sys.exit(f"tlx-sim failed: {proc.stderr[:500]}")
pathlib.Path(path).unlink()
print(f"{len(big) / 1e6:.1f} MB, {len(copies)} functions, {proc.stdout.splitlines()[0]}")
print(f"read time over {args.runs} runs: median {statistics.median(times):.2f} s, "
      f"min {min(times):.2f} s, max {max(times):.2f} s")
