#!/usr/bin/env bash
# The peer benchmark report in one command (as root on Debian 12):
#   bash scripts/bench.sh [report.py options, e.g. --budget 0.3 --cap 10]
# Installs the build dependencies (scripts/setup.sh) and the peers
# (scripts/setup_peers.sh: Debian's torch/numpy/matplotlib, a Python 3.12
# venv with jax and opt_einsum), builds the C++ drivers in build-bench, runs
# tenferro, PyTorch, JAX and NumPy at 1 and 2 threads on the same inputs, and
# writes bench/results/REPORT.md with PNG charts of the ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/setup_peers.sh
jobs="${BENCH_BUILD_JOBS:-$(nproc)}"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DTENFERRO_SKIP_MODULES=cuda \
  -DTENFERRO_BUILD_BENCHMARKS=ON -DTENFERRO_BUILD_TESTS=OFF >/dev/null
cmake --build build-bench -j"$jobs" --target bench_peer bench_peer_ad bench_core ising_trg
/usr/bin/python3 bench/peer/report.py --build build-bench "$@"
echo "report: bench/results/REPORT.md"
