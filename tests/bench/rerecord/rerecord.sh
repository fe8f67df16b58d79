#!/usr/bin/env bash
# two interleaved passes over stage-s15/plan.tsv, each into its own record file
set -uo pipefail
OUT=$1; RUN=build/static/tlx-sim
export TLXSIM_CUPTI=$(python3 - <<'PY' 2>/dev/null
import os, torch
from torch.profiler import ProfilerActivity, profile
with profile(activities=[ProfilerActivity.CUDA]):
    torch.zeros(1, device="cuda").add_(1); torch.cuda.synchronize()
print(next((l.split()[-1] for l in open("/proc/self/maps") if "libcupti" in os.path.basename(l.split()[-1])), ""))
PY
)
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv > $OUT/smi.txt
for p in 1 2; do
  mkdir -p $OUT/pass$p/logs
  while IFS=$'\t' read -r name folder split; do
    log=$OUT/pass$p/logs/$(echo $folder | tr / _)
    timeout 60 $RUN run stage-s15/$folder --record $OUT/pass$p/tlx_$name.json --split $split --json > $log.json 2> $log.err
    echo "$p $? $folder $(date +%s)" >> $OUT/summary.txt
  done < stage-s15/plan.tsv
done
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv >> $OUT/smi.txt
cd $OUT && tar czf logs.tgz pass1/logs pass2/logs && rm -rf pass1/logs pass2/logs
