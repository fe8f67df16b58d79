#!/bin/bash
# one-off: per-SASS-instruction warp stall samples of two Proton-instrumented captures (session 23)
set -x
OUT=${OUT:-/tmp/out}; mkdir -p $OUT/w
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
$NCU --version > $OUT/w/ncu_version.txt 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $OUT/w/smi.txt 2>&1
i=0
for D in traces/h200/proton-captures/tlx_hopper_gemm_ws-M8192_N8192_K8192/bm256_bn128_s3 traces/h200/proton-captures/attention_fwd-Z4_H32_N_CTX4096/bn64_s2 traces/h200/proton-captures/attention_fwd-Z4_H32_N_CTX4096/bn128_s2; do
  i=$((i+1))
  timeout 200 $NCU --section SourceCounters --section WarpStateStats --section SpeedOfLight --launch-count 1 --import-source no -o $OUT/w/rep$i build/static/tlx-sim run $D --iters 1 --proton $OUT/w/p$i.json --proton-only > $OUT/w/run$i.log 2>&1
  $NCU -i $OUT/w/rep$i.ncu-rep --page source --csv --print-source sass > $OUT/w/sass$i.csv 2> $OUT/w/sass$i.err
  $NCU -i $OUT/w/rep$i.ncu-rep --page details --csv > $OUT/w/details$i.csv 2>&1
  rm -f $OUT/w/rep$i.ncu-rep
done
ls -la $OUT/w
tar czf $OUT/ncu.tar.gz -C $OUT w && rm -rf $OUT/w
