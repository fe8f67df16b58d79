#!/usr/bin/env bash
# Sets up tlx-sim on a fresh Debian 12 machine and builds it:
#   apt packages (LLVM/MLIR 22, Z3, Boost.Graph, doctest, lit/FileCheck, CMake, Ninja; the HIP headers
#   of libamdhip64-dev for `tlx-sim run` on AMD GPUs; python3-dev for the runner's packing test, which
#   compiles Triton's driver.c),
#   a Python virtual environment .venv with triton==3.6.0 (compiles kernels with no GPU)
#   and jsonschema (tests), a second one .venv-tlx with fbtriton==3.7.4 (Meta's Triton fork with TLX, which
#   captures TLX's tutorials; it installs as the same `triton` package, so the two never share a venv), Chromium (renders the HTML report in its test), then a CMake + Ninja build in build/
# Run as root (or with sudo available). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  ca-certificates g++ cmake ninja-build pkg-config \
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools \
  libz3-dev libboost-graph-dev doctest-dev \
  python3 python3-venv python3-pip python3-dev libamdhip64-dev \
  chromium > /dev/null

if [ ! -x .venv/bin/python3 ]; then python3 -m venv .venv; fi
.venv/bin/python3 -m pip install -q --upgrade pip
.venv/bin/python3 -m pip install -q triton==3.6.0 jsonschema
if [ ! -x .venv-tlx/bin/python3 ]; then python3 -m venv .venv-tlx; fi
.venv-tlx/bin/python3 -m pip install -q --upgrade pip
.venv-tlx/bin/python3 -m pip install -q fbtriton==3.7.4 ray==2.60.0  # ray: tlx-sim-tune sweeps (tests/python/test_autotune.py)

# -g1: line tables only (backtraces and perf still name file:line; objects and the binary are smaller than with -g).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DPython3_EXECUTABLE="$PWD/.venv/bin/python3" > /dev/null
ninja -C build
