#!/usr/bin/env bash
# Runs sparse_bench and the SciPy peer on the same inputs, each pinned to
# CPU $CPU (default 0) with one thread.
#   bench/run_peer.sh BUILD_DIR [sparse_bench options...]
set -euo pipefail
build=$1
shift
cpu=${CPU:-0}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
taskset -c "$cpu" "$build/sparse_bench" --threads 1 --dump "$dir" "$@"
taskset -c "$cpu" /usr/bin/python3 "$here/scipy_peer.py" "$dir"
