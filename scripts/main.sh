#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job (the flagship example).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs="${JOBS:-2}"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$jobs" --target tenferro_examples
build/examples/ising_trg --csv build/ising_trg.csv --plot build/ising_trg.png "$@"
echo "table: build/ising_trg.csv  plot: build/ising_trg.png"
