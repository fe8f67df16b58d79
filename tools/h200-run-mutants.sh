#!/usr/bin/env bash
# The seeded bugs of tests/mutation on the H200 (issue 16): what the hardware does with each mutant that
# `tlx-sim check` classifies. The capture folders are compiled here by fbtriton (no GPU needed):
#
#   here:    PYTHONPATH=python .venv-tlx/bin/python tests/mutation/hw_mutants.py build/hwm --only tlx/hopper/
#            ninja -C build tlx-sim-run-static                        # -> build/static/tlx-sim
#   device:  tools/h200-run-mutants.sh build/hwm OUT [RUNNER]         # carry build/static and build/hwm
# (and the same for `hw_mutants.py build/hwm_store --tma-store-exit` under .venv: a CTA exiting with its TMA store
# still reading shared memory, run 3 times with HANG=10)
#
# Every row of STAGING/plan.tsv with a folder is run once with
#   tlx-sim run FOLDER --hang-timeout $HANG --rounds 1 --timer events --rep-ms 10 --warmup-ms 2 --json
# (HANG seconds, default 3: the unmutated kernels finish in under a millisecond), the data checked against the
# capture's CPU reference. OUT/summary.tsv: folder, runner exit code, the outcome (ok | hang | wrong-result |
# ran-unchecked (no reference for the kernel) | error), median us, then the plan's columns (mutant id, kind, tlx-sim check's classes); OUT/logs/ each run's
# JSON and stderr. Outcome from the runner's exit code and stderr: "has not finished" is a hang, "check:" with
# "MISMATCH" (or "ok": false in the JSON) a wrong result. FROM=FOLDER starts at that row (a second call resuming a
# first one that ran out of time).
set -uo pipefail
STAGE=$1
OUT=$2
RUN=${3:-build/static/tlx-sim}
HANG=${HANG:-3}
mkdir -p "$OUT/logs"
: > "$OUT/summary.tsv"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader > "$OUT/gpu.txt" 2>&1
while IFS=$'\t' read -r folder id kind verdict _; do
  [ "$folder" = "-" ] && continue
  if [ -n "${FROM:-}" ]; then [ "$folder" = "$FROM" ] && FROM= || continue; fi
  log="$OUT/logs/$folder"
  timeout 120 "$RUN" run "$STAGE/$folder" --hang-timeout "$HANG" --rounds 1 --timer events --rep-ms 10 \
    --warmup-ms 2 --json > "$log.json" 2> "$log.err"
  rc=$?
  if grep -q "has not finished" "$log.err" "$log.json" 2>/dev/null; then outcome=hang
  elif grep -qE '"ok": *false' "$log.json" 2>/dev/null || grep -q "MISMATCH" "$log.err" 2>/dev/null; then
    outcome=wrong-result
  elif [ $rc -eq 0 ] && grep -qE '"ok": *true' "$log.json" 2>/dev/null; then outcome=ok
  elif [ $rc -eq 0 ]; then outcome=ran-unchecked
  else outcome=error
  fi
  us=$(grep -oE '"median_us": *[0-9.]+' "$log.json" | head -1 | grep -oE '[0-9.]+$')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$folder" "$rc" "$outcome" "${us:--}" "$id" "$kind" "$verdict" \
    | tee -a "$OUT/summary.tsv"
done < "$STAGE/plan.tsv"
