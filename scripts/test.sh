#!/usr/bin/env bash
# Sets everything up and runs the whole test suite: a Release build with all
# tests, then the core tests again under AddressSanitizer + UBSan. The
# fuzzers (libFuzzer, run by tests/support/fuzz/run_fuzz.sh: the einsum
# parser for 60 s, the .npy/.npz/safetensors parsers for 20 s each) are
# Release tests (CTest label fuzz); they report themselves skipped when
# clang's libFuzzer runtime is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs="${JOBS:-2}"

echo "== Release build and full test suite"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTENFERRO_WERROR=ON
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== Core tests under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTENFERRO_SANITIZE=ON \
  -DTENFERRO_BUILD_BENCHMARKS=OFF -DTENFERRO_BUILD_EXAMPLES=OFF
cmake --build build-asan -j"$jobs" --target tenferro_core_tests
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan -L core --output-on-failure -j"$jobs"

echo "== all tests passed"
