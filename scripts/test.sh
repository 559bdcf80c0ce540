#!/usr/bin/env bash
# Sets everything up and runs the whole test suite: a Release build with all
# tests, then the core tests again under AddressSanitizer + UBSan. The einsum
# parser fuzzer (60 s of libFuzzer, tests/einsum/fuzz/run_fuzz.sh) is one of
# the Release tests (CTest einsum_fuzz_parser, label fuzz); it reports itself
# skipped when clang's libFuzzer runtime is missing.
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
