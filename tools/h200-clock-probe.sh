#!/usr/bin/env bash
# For each capture folder under $2 (default clockprobe/: launch.json with the shape to run): sample the SM clock,
# power and temperature every 20 ms (nvidia-smi) while the static tlx-sim run times the kernel in long rounds.
# Usage on the GPU host: tools/h200-clock-probe.sh OUT [FOLDER]; clk_<config>.csv and run_<config>.json go to OUT.
set -u
OUT=$1
for d in "${2:-clockprobe}"/*/; do d=${d%/}
  c=$(basename $d)
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv,noheader,nounits -lms 20 > $OUT/clk_$c.csv &
  P=$!
  build/static/tlx-sim run $d --rep-ms 2000 --rounds 3 --json > $OUT/run_$c.json 2> $OUT/run_$c.err
  kill $P; sleep 3
done
