#!/usr/bin/env bash
# Hardware timelines without Python (issue 17): every instrumented capture under traces/h200/proton-captures
# (python -m tlx_sim.capture --proton: Proton's instrumentation mode, scope table <kernel>.proton.json) run by the
# static runner with `tlx-sim run DIR --proton OUT.json`: checked launch, one profiled launch over a zeroed
# profile buffer, decoded on the host (Chrome trace of 2 CTAs, per-partition summary of all CTAs as record.py's
# proton_summary), then the usual timing of the instrumented kernel (record.py's protocol, CUPTI where libcupti
# loads). Needs no Python, torch or Triton on the GPU host (python3, if present, only prints the comparison).
#
# Build here: ninja -C build tlx-sim-run-static (-> build/static/tlx-sim; part of the default build). On the
# device, from the repository root (carry: build/static):
#   tools/h200-proton.sh "$OUT"
# Environment: CAPTURES (default traces/h200/proton-captures), TLXSIM (default build/static/tlx-sim), DRY_RUN=1
# (check every capture's layout, scope table and TTGIR partitions; launch nothing), RUN_ARGS (more `run` options,
# e.g. "--proton-only" to skip the timing).
# Writes into "$OUT" (4 files): log.txt (progress, each run's stderr), table.txt (tools/proton_compare.py: native
# fractions against record.py's committed ones), env.txt, and h200-proton.tar.gz (per capture NAME.json Chrome
# trace, NAME.summary.json summary, NAME.run.json `run --json` report, NAME.log stderr, NAME.bin the raw profile
# buffer of the first RAW_CTAS (32) CTAs: re-decode with no GPU by
# `tlx-sim run DIR --proton X.json --proton-raw-in NAME.bin`).
# About 5-10 s per capture (12 captures). Exit code: 0 when every capture ran and decoded, 1 otherwise, 2 bad usage.
set -uo pipefail
cd "$(dirname "$0")/.."
RESULT_DIR=${1:-/tmp/h200-proton-out}
CAPTURES=${CAPTURES:-traces/h200/proton-captures}
TLXSIM=${TLXSIM:-build/static/tlx-sim}
[ -x "$TLXSIM" ] || TLXSIM=build/tools/tlx-sim
if [ ! -x "$TLXSIM" ]; then
  echo "h200-proton: no tlx-sim binary (build build/static/tlx-sim, see the header)" >&2
  exit 2
fi
mkdir -p "$RESULT_DIR"
# CUPTI for the timing: the libcupti torch.profiler loads (as tools/h200-record-tlx.sh); without torch, run's own
# search (libcupti.so*, $CUDA_HOME) or events.
if [ -z "${TLXSIM_CUPTI:-}" ] && [ "${DRY_RUN:-0}" != 1 ] && command -v python3 >/dev/null; then
  TLXSIM_CUPTI=$(python3 - <<'PY' 2>/dev/null
import os, torch
from torch.profiler import ProfilerActivity, profile
with profile(activities=[ProfilerActivity.CUDA]):
    torch.zeros(1, device="cuda").add_(1); torch.cuda.synchronize()
print(next((l.split()[-1] for l in open("/proc/self/maps") if "libcupti" in os.path.basename(l.split()[-1])), ""))
PY
)
  [ -n "$TLXSIM_CUPTI" ] && export TLXSIM_CUPTI || unset TLXSIM_CUPTI
fi
WORK=$(mktemp -d /tmp/h200-proton.XXXXXX)
LOG="$RESULT_DIR/log.txt"
: >"$LOG"
{
  echo "tlx-sim: $TLXSIM"
  echo "TLXSIM_CUPTI=${TLXSIM_CUPTI:-}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv 2>&1
  date -u
} >"$WORK/env.txt"
cp "$WORK/env.txt" "$RESULT_DIR/env.txt"

status=0
count=0
dry=()
[ "${DRY_RUN:-0}" = 1 ] && dry=(--dry-run)
while IFS= read -r launch; do
  dir=$(dirname "$launch")
  name=$(echo "${dir#"$CAPTURES"/}" | tr / _)
  start=$(date +%s)
  # shellcheck disable=SC2086
  timeout 300 "$TLXSIM" run "$dir" --proton "$WORK/$name.json" --proton-raw-out "$WORK/$name.bin" \
    --proton-raw-ctas "${RAW_CTAS:-32}" --json "${dry[@]}" ${RUN_ARGS:-} \
    >"$WORK/$name.run.json" 2>"$WORK/$name.log"
  rc=$?
  count=$((count + 1))
  echo "== $name: exit $rc in $(($(date +%s) - start)) s" | tee -a "$LOG"
  sed 's/^/   /' "$WORK/$name.log" | tee -a "$LOG"
  if [ "$rc" -ne 0 ] || { [ ${#dry[@]} -eq 0 ] && [ ! -s "$WORK/$name.summary.json" ]; }; then
    status=1
  fi
done < <(find "$CAPTURES" -name launch.json | sort)
if [ "$count" -eq 0 ]; then
  echo "h200-proton: no launch.json under $CAPTURES" >&2
  exit 2
fi
if [ ${#dry[@]} -eq 0 ] && command -v python3 >/dev/null; then
  python3 tools/proton_compare.py "$WORK" >"$RESULT_DIR/table.txt" 2>&1
  cat "$RESULT_DIR/table.txt"
fi
cp "$LOG" "$WORK/log.txt"
tar -czf "$RESULT_DIR/h200-proton.tar.gz" -C "$WORK" .
rm -rf "$WORK"
echo "h200-proton: $count capture(s), exit $status; outputs in $RESULT_DIR" | tee -a "$LOG"
exit "$status"
