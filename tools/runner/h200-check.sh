#!/usr/bin/env bash
# tlx-sim run on an H200 (issue 9): runs every captured sm_90 kernel of tests/inputs/hopper with
# the native runner (correctness check + timing), measures the same launches with the Python
# recorder (tlx_sim.record if present, else tlx_sim.hw_time: triton.testing.do_bench), and
# prints a table of both medians and their difference.
#
# For the device machine, which has CUDA, PyTorch and Triton but no LLVM/MLIR/Z3: build the
# static runner-only tlx-sim here first (no shared LLVM at run time, ~1 MB):
#   cmake -S . -B build-static -G Ninja -DCMAKE_BUILD_TYPE=Release -DTLXSIM_RUNNER_STATIC=ON
#   ninja -C build-static tlx-sim-run-static          # -> build-static/tools/runner/static/tlx-sim
# then, from the repository root on the device (carry: build-static/tools/runner/static):
#   tools/runner/h200-check.sh "$OUT" [KERNEL ...]     # KERNEL: a folder of tests/inputs/hopper (default: all)
# Writes into the given folder: table.txt (the table), h200-check.tar.gz (every JSON output,
# logs and the trace records `--record` wrote). Configs named *_bug_* are skipped (they hang
# the GPU). Exit code: 0 when every kernel ran, passed its check and is within 3 % of Python.
set -uo pipefail
cd "$(dirname "$0")/../.."
RESULT_DIR=${1:-/tmp/h200-check-out}
TLXSIM=${TLXSIM:-build-static/tools/runner/static/tlx-sim}
[ -x "$TLXSIM" ] || TLXSIM=build/tools/tlx-sim
if [ ! -x "$TLXSIM" ]; then
  echo "h200-check: no tlx-sim binary (build build-static/tools/runner/static/tlx-sim, see the header)" >&2
  exit 2
fi
WORK=$(mktemp -d /tmp/h200-check.XXXXXX)
mkdir -p "$RESULT_DIR" "$WORK/native" "$WORK/python" "$WORK/traces/h200"
export PYTHONPATH="$PWD/python:$PWD${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1

{
  echo "tlx-sim: $TLXSIM"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv 2>&1
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' 2>&1
} | tee "$WORK/env.txt"

# Per kernel module: the native runner on each of its captures, then the Python recorder on the same launches
# (same module, configs and DEFAULT_SHAPE), close in time so that both see the GPU in a similar thermal state.
# The native run uses one timing round, as one do_bench call: 100 ms of warm-up, 500 ms of timed launches, the
# L2 flushed before each. The table is rewritten after each module, so a run cut short still reports.
FILTER=("${@:2}")
modules=()
declare -A CONFIGS DIRS
for dir in tests/inputs/hopper/*/*/; do
  dir=${dir%/}
  config=$(basename "$dir")
  case "$config" in *_bug_*) continue ;; esac
  if [ ${#FILTER[@]} -gt 0 ] && ! printf '%s\n' "${FILTER[@]}" | grep -qx "$(basename "$(dirname "$dir")")"; then
    continue
  fi
  module=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["module"])' "$dir/launch.json")
  [ -n "${CONFIGS[$module]:-}" ] || modules+=("$module")
  CONFIGS[$module]+=" $config"
  DIRS[$module]+=" $dir"
done

table() {
python3 - "$WORK" >"$WORK/table.txt" <<'PY'
import glob, json, os, sys
work = sys.argv[1]
python = {}
for path in glob.glob(os.path.join(work, "python", "*.jsonl")):
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            r = json.loads(line)
            python[(r["module"], r["config"])] = r
for path in glob.glob(os.path.join(work, "python", "traces", "**", "*.json"), recursive=True):
    try:
        doc = json.load(open(path))
        for r in doc.get("records", []):  # record.py's measurement wins over hw_time's when present
            python[(doc["module"], r["config"])] = {"ms": r["measured_us"] / 1000, "ok": r.get("correct"),
                                                    "sm_clock_mhz": r.get("sm_clock_mhz"), "source": "record.py"}
    except Exception as err:
        print("unreadable", path, err)
rows, bad = [], 0
for path in sorted(glob.glob(os.path.join(work, "native", "*.json"))):
    name = os.path.basename(path)[:-5]
    err = open(path[:-5] + ".err").read()
    try:
        n = json.load(open(path))
    except Exception:
        rows.append((name, "-", "-", "-", ("FAILED: " + err.strip().splitlines()[0])[:100] if err.strip() else "no output", "-", "-"))
        bad += 1
        continue
    launch = json.load(open(os.path.join(n["capture"], "launch.json")))
    p = python.get((launch["module"], launch["config"]))
    ref = n["reference"]
    check = "ok" if ref.get("ok") else ("no reference" if ref["kind"] == "none" else "MISMATCH")
    if n.get("kernel_failure"):
        check = "KERNEL FAILED"
    native_us = n["timing"]["median_us"]
    py_us = p["ms"] * 1000 if p and p.get("ms") else None
    diff = (native_us - py_us) / py_us * 100 if py_us else None
    clock = n["sm_clock_mhz"]
    rows.append((name, f"{native_us:.1f}", f"{py_us:.1f}" if py_us else "-", f"{diff:+.2f}" if diff is not None else "-",
                 f"{check} ({ref.get('max_rel_err', 0):.1e})" if ref.get("ok") is not None else check,
                 str(p.get("ok")) if p else "-", f"{clock['before']}->{clock['after']}"))
    if check != "ok" or diff is None or abs(diff) > 3:
        bad += 1
head = ("capture", "native us", "python us", "diff %", "native check (max rel err)", "python ok", "SM MHz")
widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
for r in [head] + rows:
    print("  ".join(str(v).ljust(w) for v, w in zip(r, widths)))
print(f"\n{len(rows)} captures, {bad} failing (check, kernel failure, or |diff| > 3 %)")
sys.exit(1 if bad else 0)
PY
}

for module in "${modules[@]}"; do
  kernel=$(basename "$module" .py)
  for dir in ${DIRS[$module]}; do
    name=$(basename "$(dirname "$dir")")-$(basename "$dir")
    echo "== tlx-sim run $dir"
    "$TLXSIM" run "$dir" --json --rounds 1 --record "$WORK/traces/h200/$kernel.json" >"$WORK/native/$name.json" \
      2>"$WORK/native/$name.err"
    echo "rc=$?" >>"$WORK/native/$name.err"
    tail -n 2 "$WORK/native/$name.err"
  done
  echo "== python: $module${CONFIGS[$module]}"
  if [ -f python/tlx_sim/record.py ]; then
    # record.py (the lead's recorder, traces/README.md); its records win over hw_time's lines in the table.
    python3 -m tlx_sim.record "$module" --config ${CONFIGS[$module]} --out "$WORK/python/traces" \
      >"$WORK/python/$kernel.record.log" 2>&1 || echo "record.py failed (see python/$kernel.record.log)"
  fi
  python3 -m tlx_sim.hw_time "$module" --config ${CONFIGS[$module]} >"$WORK/python/$kernel.jsonl" \
    2>"$WORK/python/$kernel.err" || echo "hw_time exited $? (see python/$kernel.err)"
  tail -n 2 "$WORK/python/$kernel.err"
  table >/dev/null
  cp "$WORK/table.txt" "$RESULT_DIR/table.txt"
done

table
status=$?
cat "$WORK/table.txt"
cp "$WORK/table.txt" "$RESULT_DIR/table.txt"
tar -czf "$RESULT_DIR/h200-check.tar.gz" -C "$WORK" .
exit $status
