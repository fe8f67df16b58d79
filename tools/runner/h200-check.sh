#!/usr/bin/env bash
# tlx-sim run on an H200 (issue 9): runs every captured sm_90 kernel of tests/inputs/hopper with
# the native runner (correctness check + timing), measures the same launches with the Python
# recorder (tlx_sim.record with a plan of just those (shape, config) pairs; tlx_sim.hw_time where
# record.py is absent), and prints a table of the native median, the Python measurement of this
# run and the one committed in traces/h200/, with their differences. PYTHON=0 skips the Python
# recorder (the table then compares with the committed records only).
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


def records(pattern):
    """{(module, config, shape as JSON): measured_us} of record.py trace files."""
    out = {}
    for path in glob.glob(pattern):
        try:
            doc = json.load(open(path))
        except Exception as err:
            print("unreadable", path, err)
            continue
        for r in doc.get("records", []) if isinstance(doc, dict) else []:
            if r.get("recorder") == "tlx-sim run":
                continue
            out[(doc.get("module"), r["config"], json.dumps(r["shape"], sort_keys=True))] = r["measured_us"]
    return out


fresh = records(os.path.join(work, "python", "traces", "*.json"))
committed = records("traces/h200/*.json")
for path in glob.glob(os.path.join(work, "python", "*.jsonl")):  # hw_time lines (no record.py)
    for line in open(path):
        if line.startswith("{"):
            r = json.loads(line)
            fresh[(r["module"], r["config"], json.dumps(r["shape"], sort_keys=True))] = r["ms"] * 1000


def diff(a, b):
    return f"{(a - b) / b * 100:+.2f}" if a and b else "-"


rows, bad = [], 0
for path in sorted(glob.glob(os.path.join(work, "native", "*.json"))):
    name = os.path.basename(path)[:-5]
    err = open(path[:-5] + ".err").read().strip()
    try:
        n = json.load(open(path))
    except Exception:
        rows.append((name, ("FAILED: " + err.splitlines()[0])[:100] if err else "no output", *["-"] * 6))
        bad += 1
        continue
    launch = json.load(open(os.path.join(n["capture"], "launch.json")))
    key = (launch["module"], launch["config"], json.dumps(launch["shape"], sort_keys=True))
    ref = n["reference"]
    check = "ok" if ref.get("ok") else ("no reference" if ref["kind"] == "none" else "MISMATCH")
    if n.get("kernel_failure"):
        check = "KERNEL FAILED"
    us = n["timing"]["median_us"]
    now, old = fresh.get(key), committed.get(key)
    clock = n["sm_clock_mhz"]
    rows.append((name, f"{check} ({ref.get('max_rel_err', 0):.1e})" if ref.get("ok") is not None else check,
                 f"{us:.1f}", f"{now:.1f}" if now else "-", diff(us, now), f"{old:.1f}" if old else "-", diff(us, old),
                 f"{clock['before']}->{clock['after']}"))
    basis = now or old
    if check != "ok" or not basis or abs(us - basis) / basis > 0.03:
        bad += 1
head = ("capture", "native check (max rel err)", "native us", "python us", "diff %", "committed us", "diff %",
        "SM MHz")
widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
for r in [head] + rows:
    print("  ".join(str(v).ljust(w) for v, w in zip(r, widths)))
print(f"\n{len(rows)} captures, {bad} failing (check, kernel failure, or more than 3 % from Python: this run's "
      "measurement, else the committed one)")
sys.exit(1 if bad else 0)
PY
}

for module in "${modules[@]}"; do
  first=(${DIRS[$module]})
  trace=$(basename "$(dirname "${first[0]}")") # the trace file's kernel name: tests/inputs/hopper/<trace>/<config>
  for dir in ${DIRS[$module]}; do
    name=$(basename "$(dirname "$dir")")-$(basename "$dir")
    echo "== tlx-sim run $dir"
    "$TLXSIM" run "$dir" --json --rounds 1 --record "$WORK/traces/h200/$trace.json" >"$WORK/native/$name.json" \
      2>"$WORK/native/$name.err"
    echo "rc=$?" >>"$WORK/native/$name.err"
    tail -n 2 "$WORK/native/$name.err"
  done
  echo "== python: $module${CONFIGS[$module]}"
  if [ "${PYTHON:-1}" = 0 ]; then
    :
  elif [ -f python/tlx_sim/record.py ]; then
    # record.py (traces/README.md: CUPTI kernel durations, L2 flushed) on exactly the captured launches.
    python3 - "$module" "$trace" "$WORK/plan-$trace.json" ${CONFIGS[$module]} <<'PY'
import json, sys
module, kernel, out, *configs = sys.argv[1:]
shape = json.load(open(f"tests/inputs/hopper/{kernel}/{configs[0]}/launch.json"))["shape"]
json.dump({"gpu": "h200", "kernels": {kernel: {"module": module, "configs": configs,
                                               "shapes": [{"shape": shape, "split": "fit"}]}}}, open(out, "w"))
PY
    python3 -m tlx_sim.record --plan "$WORK/plan-$trace.json" --out "$WORK/python/traces" --no-ttgir-check \
      >"$WORK/python/$trace.record.log" 2>&1 || echo "record.py exited $? (see python/$trace.record.log)"
    tail -n 2 "$WORK/python/$trace.record.log"
  else
    python3 -m tlx_sim.hw_time "$module" --config ${CONFIGS[$module]} >"$WORK/python/$trace.jsonl" \
      2>"$WORK/python/$trace.err" || echo "hw_time exited $? (see python/$trace.err)"
    tail -n 2 "$WORK/python/$trace.err"
  fi
  table >/dev/null
  cp "$WORK/table.txt" "$RESULT_DIR/table.txt"
done

table
status=$?
cat "$WORK/table.txt"
cp "$WORK/table.txt" "$RESULT_DIR/table.txt"
tar -czf "$RESULT_DIR/h200-check.tar.gz" -C "$WORK" .
exit $status
