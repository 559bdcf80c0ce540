#!/usr/bin/env bash
# Sets everything up and runs the whole test suite:
# 1. a Release build of the library, examples and CUDA kernels, the
#    kernels here as compute_90 PTX only (`90-virtual`: no ptxas, which took
#    a third of their compile; a GPU's driver compiles the PTX when it loads
#    it), but not the benchmarks, which nothing here runs (scripts/bench.sh
#    builds them), with the tests that need that build:
#    the libFuzzer runs (the einsum parser for 30 s, the
#    .npy/.npz/safetensors parsers for 10 s each and the random-program
#    checks for 60 s, built with clang++ and reported skipped when its
#    libFuzzer runtime is missing), the install, outside-extension, Python,
#    MPI and clone-without-shared tests, and of the gtest suites only those
#    that need Release speed or a Release-only part (TENFERRO_TESTS below:
#    the full sweeps, the pocketfft instruction-set copies, CUDA, the
#    flagship example); the other gtest suites are built and run once, in
#    stage 2;
# 2. the whole suite under AddressSanitizer + UBSan (less the checks
#    named below) + LeakSanitizer, the library built -Og (a third less
#    compile time than -O1, the tests ran as fast) and the test files
#    -O0 (they compile in half the time), with every sixth item of the long
#    sweeps (op-database samples through PJRT, the benchmark instances, the
#    random-program batches: TENFERRO_TEST_STRIDE=6, see
#    tests/support/test_support.hpp; the Release stage runs all of them),
#    except what needs the Release build or another tool (CUDA, MPI ranks,
#    the installed package and its users, the Python package, the
#    fresh-clone check, the clang fuzzers) and the AVX2/AVX-512 copies of
#    pocketfft (the baseline driver runs). The WebGPU and XLA tests run
#    here too: their outside libraries (wgpu-native with Mesa's lavapipe,
#    the PJRT CPU plugin) are uninstrumented, so ASan checks our side of
#    them, and the memory those libraries keep for the life of the process
#    is suppressed by tests/support/lsan.supp (only allocations made inside
#    them);
# 3. ThreadSanitizer, built with clang++ against LLVM's OpenMP runtime with
#    its Archer tool, which shows TSan the synchronisation of OpenMP regions
#    (GCC's libgomp is invisible to TSan): the threaded CPU kernels with two
#    OpenMP threads (every kernel's parallel path against its serial one),
#    the thread setting, the objects shared between std::threads (a
#    Runtime running programs concurrently, the einsum plan cache) and the
#    threaded linalg paths (batch loops, Note [Eigh in phases]).
#    tests/support/tsan.supp silences libomp's and OpenBLAS's own
#    uninstrumented internals.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs="${JOBS:-2}"
# New build trees use Ninja: unlike Make, it starts a target's compiles
# without waiting for the libraries it links to finish, which keeps both
# cores busy (a tree configured earlier keeps its own generator).
export CMAKE_GENERATOR="${CMAKE_GENERATOR:-Ninja}"
# Every stage is a unity build (CMAKE_UNITY_BUILD): the files of a target
# are compiled in batches of up to 8, which parses the shared headers once
# per batch (the library's compile took about 28 % less CPU time under
# ASan). scripts/main.sh and user builds compile file by file, which the
# suite does not: a file that misses an include but compiles after one
# that has it in its batch shows up there, not here.
unity=-DCMAKE_UNITY_BUILD=ON

echo "== Release build and the tests that need it"
release_tests='^(test_xla|test_einsum_instances|test_random_programs|test_ad_oracles|test_fft|test_cuda|test_cuda_no_device|test_ising_trg)$'
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTENFERRO_WERROR=ON -DTENFERRO_TEST_CXX_FLAGS=-O1 \
  -DTENFERRO_CUDA_ARCHITECTURES=90-virtual -DTENFERRO_TESTS="$release_tests" -DTENFERRO_BUILD_BENCHMARKS=OFF $unity
cmake --build build -j"$jobs"
# The fuzzers compile at -O0 (tests/support/fuzz/run_fuzz.sh): half the
# compile time, for fewer executions in their fixed 10, 30 or 60 seconds.
TENFERRO_FUZZ_CXX_FLAGS="-gline-tables-only -O0" ctest --test-dir build --output-on-failure -j"$jobs"

echo "== The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer"
# UBSan's checks that ASan covers or that cost the most compile time for the
# least: null (a null access faults and ASan reports it), object-size (ASan's
# redzones), pointer-overflow, alignment (x86-64 loads do not fault) and
# vptr. Without them the -O1 build of src/cpu/elementwise.cpp takes 46 s
# instead of 85 s (2-core AMD EPYC); TENFERRO_SANITIZE alone keeps them all.
ubsan_left_out=null,object-size,pointer-overflow,alignment,vptr
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTENFERRO_SANITIZE=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-Og -g1" -DTENFERRO_TEST_CXX_FLAGS=-O0 -DTENFERRO_FFT_AVX2=OFF \
  -DTENFERRO_UBSAN_LEAVE_OUT="$ubsan_left_out" \
  -DTENFERRO_BUILD_BENCHMARKS=OFF -DTENFERRO_BUILD_EXAMPLES=OFF \
  -DTENFERRO_SKIP_MODULES="cuda;dist;install;python;standalone" $unity
cmake --build build-asan -j"$jobs"
TENFERRO_TEST_STRIDE=6 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  LSAN_OPTIONS="suppressions=$PWD/tests/support/lsan.supp" \
  ctest --test-dir build-asan -LE '^fuzz$' --output-on-failure -j"$jobs"

echo "== Threads under ThreadSanitizer (clang++, LLVM OpenMP + Archer)"
CC=clang CXX=clang++ cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DTENFERRO_FFT_AVX2=OFF \
  -DTENFERRO_BUILD_BENCHMARKS=OFF -DTENFERRO_BUILD_EXAMPLES=OFF \
  -DTENFERRO_SKIP_MODULES="cuda;webgpu;xla;dist;install;python;standalone" $unity
tsan_tests="cpu/test_cpu_kernels cpu/test_thread_setting runtime/test_runtime einsum/test_einsum_plan linalg/test_linalg_decompositions"
cmake --build build-tsan -j"$jobs" --target $(for t in $tsan_tests; do printf '%s ' "${t#*/}"; done)
for t in $tsan_tests; do
  OMP_NUM_THREADS=2 OMP_TOOL_LIBRARIES=/usr/lib/llvm-14/lib/libarcher.so \
    TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tests/support/tsan.supp" \
    "build-tsan/tests/$t"
done

echo "== all tests passed"
