#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job (the flagship example).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export OPENBLAS_CORETYPE=Haswell
jobs="${JOBS:-2}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$jobs" --target tenferro_examples
for ex in build/examples/quickstart_*; do
  echo "== $ex"
  "$ex"
done
