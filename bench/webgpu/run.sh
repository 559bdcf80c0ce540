#!/usr/bin/env bash
# GEMM throughput of the WebGPU backend against the CPU backend on the same
# machine (docs/webgpu.md, "GEMM throughput"). Builds bench_webgpu_gemm in
# the build folder (configured like the test build) and runs it pinned to
# the CPUs in $CPUS (default: CPU 0) with $THREADS OpenMP/BLAS threads
# (default 1), so that the CPU backend and lavapipe's threads share the same
# cores. On a machine with a real GPU the same script measures that GPU
# (wgpu-native picks the high-performance adapter).
#   bench/webgpu/run.sh [n ...]        (default sizes 128 256 512)
# Environment: BUILD (default build), CPUS, THREADS.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD:-$root/build}"
cpus="${CPUS:-0}"
threads="${THREADS:-1}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build" -j2 --target bench_webgpu_gemm
bin="$build/bench/webgpu/bench_webgpu_gemm"
xdg="$(mktemp -d)"
trap 'rm -rf "$xdg"' EXIT
pin=()
if command -v taskset > /dev/null; then pin=(taskset -c "$cpus"); fi
echo "pinned: ${pin[*]:-no taskset}; OMP_NUM_THREADS=$threads; LP_NUM_THREADS=$threads (lavapipe)"
XDG_RUNTIME_DIR="$xdg" OMP_NUM_THREADS="$threads" LP_NUM_THREADS="$threads" "${pin[@]}" "$bin" "$@"
