#!/usr/bin/env bash
# Kernel cycles of recorded launches, measured by Nsight Compute (issue 17: the model's cycles against the
# hardware's, with no clock in between; tools/ncu_cycles.py says why and compares).
#
#   here:    python3 tools/ncu_cycles.py stage traces/h100-sxm traces/h100-sxm/tlx -o build/ncu-stage
#   device:  tools/h200-ncu-cycles.sh build/ncu-stage "$OUT"      (carry build/static and build/ncu-stage)
#   here:    python3 tools/ncu_cycles.py compare build/ncu-stage OUT/ncu.csv --model h100-sxm
#
# Each staged launch (STAGE/plan.tsv: folder, kernel name, ...) runs once under
# `ncu --clock-control none --cache-control all` (the GPU's own clock, caches flushed, as the records) with the static
# runner's checked launch; the first launch of the kernel is profiled. Environment: FIRST / LAST (row range of
# plan.tsv, 1-based, default all), ONLY (space-separated folder prefixes, e.g. "080 084": only those rows),
# EXTRA_METRICS (comma-separated, added to the list), CHIP (ncu's chip name for the metric query, default gh100:
# H100 / H200), NCU (default: ncu on PATH or under /usr/local/cuda*). Rows of launches that did not exit 0 are dropped.
# Writes OUT/ncu.csv (folder, metric, unit, value), OUT/metrics.txt (the tensor-pipe metrics this ncu knows), OUT/log.txt.
set -uo pipefail
STAGE=$1
OUT=$2
RUN=${RUN:-build/static/tlx-sim}
NCU=${NCU:-$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)}
mkdir -p "$OUT"
{ "$NCU" --version; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv; } \
  > "$OUT/log.txt" 2>&1
# Tensor-pipe metrics differ between ncu versions and chips: take the ones this ncu lists for the GPU
"$NCU" --query-metrics --chip "${CHIP:-gh100}" 2>/dev/null | awk '{print $1}' | grep -E '^sm__pipe_tensor_op_(gmma|hmma)_cycles_active$' \
  > "$OUT/metrics.txt"
METRICS="gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,sm__cycles_active.avg"
while read -r m; do
  METRICS="$METRICS,$m.avg.pct_of_peak_sustained_elapsed"
done < "$OUT/metrics.txt"
[ -n "${EXTRA_METRICS:-}" ] && METRICS="$METRICS,$EXTRA_METRICS"
echo "metrics: $METRICS" >> "$OUT/log.txt"
echo "folder,metric,unit,value" > "$OUT/ncu.csv"
FIRST=${FIRST:-1}
LAST=${LAST:-100000}
n=0
while IFS=$'\t' read -r folder kernel _rest; do
  n=$((n + 1))
  [ "$n" -lt "$FIRST" ] || [ "$n" -gt "$LAST" ] && continue
  if [ -n "${ONLY:-}" ]; then
    keep=0
    for p in $ONLY; do [[ "$folder" == "$p"* ]] && keep=1; done
    [ "$keep" -eq 1 ] || continue
  fi
  start=$(date +%s%N)
  timeout 120 "$NCU" --clock-control none --cache-control all --launch-count 1 --kernel-name "$kernel" \
    --metrics "$METRICS" --csv --page raw \
    "$RUN" run "$STAGE/$folder" --iters 1 --rounds 1 --retries 0 --warmup-ms 0 --rep-ms 1 --timer events \
    > "$OUT/one.csv" 2> "$OUT/one.err"
  rc=$?
  # --page raw --csv: a header row of metric names, a row of units, then one row per profiled kernel
  # only a launch that ran and checked out (exit 0) is kept
  [ "$rc" -eq 0 ] && python3 - "$OUT/one.csv" "$folder" >> "$OUT/ncu.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
head = next((i for i, r in enumerate(rows) if "gpu__time_duration.sum" in r), None)
if head is not None and len(rows) > head + 2:
    names, units, vals = rows[head], rows[head + 1], rows[head + 2]
    for name, unit, val in zip(names, units, vals):
        if name.startswith(("sm__", "gpu__", "dram__", "lts__", "launch__waves")):
            print(f"{sys.argv[2]},{name},{unit},{val.replace(',', '')}")
PY
  echo "$folder rc=$rc $((($(date +%s%N) - start) / 1000000)) ms" >> "$OUT/log.txt"
  [ "$rc" -ne 0 ] && tail -5 "$OUT/one.err" >> "$OUT/log.txt"
done < "$STAGE/plan.tsv"
rm -f "$OUT/one.csv" "$OUT/one.err"
