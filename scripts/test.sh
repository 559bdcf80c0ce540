#!/usr/bin/env bash
# Sets everything up and runs the whole test suite:
# 1. a Release build with every test (the fuzzers among them: libFuzzer runs
#    of the einsum parser for 60 s, of the .npy/.npz/safetensors parsers for
#    20 s each and of the random-program checks for 60 s, built with clang++
#    and reported skipped when its libFuzzer runtime is missing; the install,
#    outside-extension, Python, MPI and clone-without-shared tests);
# 2. the whole suite again under AddressSanitizer + UBSan + LeakSanitizer,
#    built -O1, except what needs the Release build or another tool (CUDA,
#    MPI ranks, the installed package and its users, the Python package, the
#    fresh-clone check, the clang fuzzers) and the AVX2/AVX-512 copies of
#    pocketfft (the baseline driver runs); tenferro::xla is left out too: its
#    tests dlopen the 259 MB PJRT CPU plugin, an uninstrumented binary with
#    its own allocator, thread pools and process-lifetime allocations that
#    LeakSanitizer would report as ours (docs/xla.md);
# 3. the tests that share objects between std::threads (a Runtime, the
#    einsum plan cache) under ThreadSanitizer, one OpenMP thread each: GCC's
#    libgomp is invisible to TSan, so the OpenMP kernels are checked instead
#    by the thread-count tests of step 1 (Note [Pairwise reductions]).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs="${JOBS:-2}"

echo "== Release build and full test suite"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTENFERRO_WERROR=ON
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTENFERRO_SANITIZE=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DTENFERRO_FFT_AVX2=OFF \
  -DTENFERRO_BUILD_BENCHMARKS=OFF -DTENFERRO_BUILD_EXAMPLES=OFF \
  -DTENFERRO_SKIP_MODULES="cuda;dist;install;python;standalone;xla"
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan -LE '^fuzz$' --output-on-failure -j"$jobs"

echo "== Threads under ThreadSanitizer"
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DTENFERRO_FFT_AVX2=OFF \
  -DTENFERRO_BUILD_BENCHMARKS=OFF -DTENFERRO_BUILD_EXAMPLES=OFF \
  -DTENFERRO_SKIP_MODULES="cuda;dist;install;python;standalone;xla"
cmake --build build-tsan -j"$jobs" --target test_runtime test_einsum_plan
OMP_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 build-tsan/tests/runtime/test_runtime
OMP_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 build-tsan/tests/einsum/test_einsum_plan

echo "== all tests passed"
