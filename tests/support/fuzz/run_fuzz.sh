#!/usr/bin/env bash
# Builds one libFuzzer target of a small stand-alone CMake project with
# clang++ and runs it for SECONDS, starting from the seed files in SEED_DIR.
# Used by CTest for every fuzzer of the suite (einsum parser, io parsers).
#   tests/support/fuzz/run_fuzz.sh PROJECT_DIR TARGET SECONDS WORK_DIR [SEED_DIR] [LIBFUZZER_FLAG...]
# The project gets -DTENFERRO_SOURCE_DIR=<repository root>. Fuzzers of one
# project share WORK_DIR/build; each target has its own corpus, log and
# crash artifacts (WORK_DIR/corpus-TARGET, TARGET.log, TARGET-crash-*).
# Exits 77 (CTest's "skipped") when clang++ or its libFuzzer runtime is
# missing, 0 when the run found nothing, 1 otherwise.
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 PROJECT_DIR TARGET SECONDS WORK_DIR [SEED_DIR] [LIBFUZZER_FLAG...]" >&2
  exit 2
fi
project="$(cd "$1" && pwd)"
target="$2"
seconds="$3"
work="$4"
shift 4
seeds=""
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  seeds="$1"
  shift
fi
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cxx="${CLANGXX:-clang++}"
if ! command -v "$cxx" > /dev/null 2>&1; then
  echo "$target skipped: $cxx not found"
  exit 77
fi
mkdir -p "$work"
probe="$work/probe.cpp"
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' > "$probe"
if ! "$cxx" -fsanitize=fuzzer "$probe" -o "$work/probe" > /dev/null 2>&1; then
  echo "$target skipped: $cxx has no libFuzzer runtime (-fsanitize=fuzzer)"
  exit 77
fi
# TENFERRO_FUZZ_CMAKE_ARGS: more configure arguments (e.g. the prefix of an
# installed tenferro for a fuzzer that links it), split at spaces.
read -r -a extra <<< "${TENFERRO_FUZZ_CMAKE_ARGS:-}"
# A unity build (batches of files per target), since the suite compiles these
# projects afresh on every run. TENFERRO_FUZZ_CXX_FLAGS: the optimisation and
# debug flags of the fuzzers and the code they instrument (default -g -O1;
# scripts/test.sh compiles its 60-second runs at -O0, in half the time, for
# fewer executions per second).
cmake -S "$project" -B "$work/build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_CXX_FLAGS_DEBUG="${TENFERRO_FUZZ_CXX_FLAGS:--g -O1}" \
  -DTENFERRO_SOURCE_DIR="$root" "${extra[@]}" > "$work/configure.log"
cmake --build "$work/build" -j2 --target "$target" > "$work/build-$target.log"
corpus="$work/corpus-$target"
mkdir -p "$corpus"
if [ -n "$seeds" ]; then
  cp "$seeds"/* "$corpus"/
fi
log="$work/$target.log"
"$work/build/$target" -max_total_time="$seconds" -timeout=10 -artifact_prefix="$work/$target-" \
  "$@" "$corpus" > "$log" 2>&1 || {
  echo "$target FAILED; see $log and the $target-crash-* artifact in $work"
  tail -40 "$log"
  exit 1
}
echo "$target: $(grep -c . "$log") log lines, no findings in ${seconds}s"
tail -2 "$log"
