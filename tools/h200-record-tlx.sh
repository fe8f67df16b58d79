#!/usr/bin/env bash
# Records the TLX tutorial captures of tlx_sim.tlx_record_plan on the H200 with the static runner-only tlx-sim
# (no Python, Triton or LLVM needed there; the cubins were compiled by fbtriton 3.7.4 on a machine without a GPU).
#
#   here:    PYTHONPATH=python:. .venv-tlx/bin/python -m tlx_sim.tlx_record_plan -o STAGING
#            ninja -C build tlx-sim-run-static                      # -> build/static/tlx-sim
#   device:  tools/h200-record-tlx.sh STAGING OUT [RUNNER]          # carry build/static (or RUNNER's folder)
#            (TRACE_DIR=traces/<gpu>/tlx: the records' folder, default traces/h200/tlx; SPLIT=heldout overrides the
#            plan's splits, for a GPU the model was never fitted on)
#
# Each row of STAGING/plan.tsv (tutorial, capture folder, split) is run with
# `tlx-sim run FOLDER --record traces/h200/tlx/tlx_<tutorial>.json --split SPLIT` (data checked against a CPU reference,
# timed as tlx_sim/record.py times: README "Running a capture on the GPU"); OUT/summary.txt has one line per capture
# (exit code, tutorial, folder), OUT/logs/ each run's JSON and stderr.  TLXSIM_CUPTI is set to the libcupti that
# torch.profiler loads when torch is there (as tools/h200-check.sh does).
set -uo pipefail
STAGE=$1
OUT=$2
RUN=${3:-build/static/tlx-sim}
TRACE_DIR=${TRACE_DIR:-traces/h200/tlx} # another GPU's records: TRACE_DIR=traces/h100-sxm/tlx (the folder names the model)
if [ -z "${TLXSIM_CUPTI:-}" ]; then
  TLXSIM_CUPTI=$(python3 - <<'PY' 2>/dev/null
import os, torch
from torch.profiler import ProfilerActivity, profile
with profile(activities=[ProfilerActivity.CUDA]):
    torch.zeros(1, device="cuda").add_(1); torch.cuda.synchronize()
print(next((l.split()[-1] for l in open("/proc/self/maps") if "libcupti" in os.path.basename(l.split()[-1])), ""))
PY
)
  export TLXSIM_CUPTI
fi
echo "TLXSIM_CUPTI=${TLXSIM_CUPTI:-}" | tee "$OUT/summary.txt"
mkdir -p "$OUT/logs" "$TRACE_DIR"
while IFS=$'\t' read -r name folder split; do
  log="$OUT/logs/$(echo "$folder" | tr / _)"
  timeout 120 "$RUN" run "$STAGE/$folder" --record "$TRACE_DIR/tlx_$name.json" --split "${SPLIT:-$split}" --json \
    > "$log.json" 2> "$log.err"
  echo "$? $name $folder" | tee -a "$OUT/summary.txt"
done < "$STAGE/plan.tsv"
