#!/usr/bin/env bash
# The main job on the bundled real kernel: compile the Hopper warp-specialized GEMM
# (kernels/hopper/ws_gemm.py, Gluon) for sm_90a with no GPU, then `tlx-sim check` and
# `tlx-sim predict` it; finally `check` a seeded-bug variant to show a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/capture/hopper/ws_gemm
PYTHONPATH=python:. .venv/bin/python3 -m tlx_sim.capture kernels/hopper/ws_gemm.py \
  --config s3 s3_bug_expect_bytes -o "$out"

echo "--- tlx-sim check (S=3, correct kernel)"
build/tools/tlx-sim check "$out/s3/ws_gemm_kernel.ttgir" --launch "$out/s3/launch.json"
echo "--- tlx-sim predict --model h200 (S=3, 8192^3)"
build/tools/tlx-sim predict "$out/s3/ws_gemm_kernel.ttgir" --launch "$out/s3/launch.json" --model h200
echo "--- tlx-sim check (S=3, seeded bug: expect-bytes too large; exit 1 expected)"
status=0
build/tools/tlx-sim check "$out/s3_bug_expect_bytes/ws_gemm_kernel.ttgir" \
  --launch "$out/s3_bug_expect_bytes/launch.json" || status=$?
if [ "$status" -ne 1 ]; then
  echo "expected exit code 1 (findings), got $status" >&2
  exit 1
fi
