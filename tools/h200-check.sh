#!/usr/bin/env bash
# tlx-sim run on an H200 (issue 9): every captured sm_90 kernel of tests/inputs/hopper measured by the native
# runner and by the Python recorder, back to back per capture (native, python, native: A-B-A), and a table of the
# mean of the two native medians against the Python measurement of this run and the one committed in traces/h200/.
# The measuring is tools/h200_check.py (one Python process, torch imported once); PYTHON=0 skips the
# Python recorder (the table then compares with the committed records only).
#
# Both recorders follow tlx_sim/record.py's protocol: 3 do_bench rounds (25 ms warm-up, 200 ms of event-timed
# launches, re-timed up to twice while their CV exceeds 3 %), then 30 launches timed by CUPTI kernel records
# (device durations; L2 flushed before every timed launch); the measurement is the median of the 3 group medians.
# The native runner loads the libcupti that torch.profiler loads (exported as TLXSIM_CUPTI; set it to override).
#
# For the device machine, which has CUDA, PyTorch and Triton but no LLVM/MLIR/Z3: build the static runner-only
# tlx-sim here first (no shared LLVM at run time, ~1 MB; part of the default build, tools/CMakeLists.txt):
#   ninja -C build tlx-sim-run-static                 # -> build/static/tlx-sim
# then, from the repository root on the device (carry: build/static):
#   tools/h200-check.sh "$OUT" [KERNEL ...]           # KERNEL: a folder of tests/inputs/hopper (default: all)
# Writes into the given folder: table.txt (rewritten after every capture), results.jsonl (one line per capture),
# log.txt (progress) and h200-check.tar.gz (every native JSON output and log, the trace records both recorders
# wrote). Configs named *_bug_* are skipped (they hang the GPU). About 15 s per capture (4-5 min for all 17).
# Exit code: 0 when every capture ran, passed its check and is within 3 % of Python; 1 otherwise; 2 bad usage.
set -uo pipefail
cd "$(dirname "$0")/.."
RESULT_DIR=${1:-/tmp/h200-check-out}
TLXSIM=${TLXSIM:-build/static/tlx-sim}
[ -x "$TLXSIM" ] || TLXSIM=build/tools/tlx-sim
if [ ! -x "$TLXSIM" ]; then
  echo "h200-check: no tlx-sim binary (build build/static/tlx-sim, see the header)" >&2
  exit 2
fi
export TLXSIM
WORK=$(mktemp -d /tmp/h200-check.XXXXXX)
mkdir -p "$RESULT_DIR"
export PYTHONPATH="$PWD/python:$PWD${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1

{
  echo "tlx-sim: $TLXSIM"
  nvidia-smi --query-gpu=name,driver_version,compute_mode,clocks.sm,clocks.max.sm,power.limit --format=csv 2>&1
  python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)' 2>&1
} | tee "$WORK/env.txt"

# SM clock, power and temperature every 100 ms (the log lines carry wall-clock times to match them).
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv,noheader -lms 100 \
  >"$RESULT_DIR/smi.csv" 2>/dev/null &
smi=$!
python3 tools/h200_check.py "$RESULT_DIR" "$WORK" "${@:2}" 2>&1 | tee "$RESULT_DIR/log.txt"
status=${PIPESTATUS[0]}
kill "$smi" 2>/dev/null
cp "$WORK/env.txt" "$RESULT_DIR/env.txt"
tar -czf "$RESULT_DIR/h200-check.tar.gz" -C "$WORK" .
exit "$status"
