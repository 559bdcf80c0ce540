#!/usr/bin/env bash
# Builds the einsum parser fuzzer with clang++ and runs it for SECONDS
# (default 60). Exits 77 (CTest's "skipped") when clang++ or its libFuzzer
# runtime is missing, 0 when the run found nothing, 1 otherwise.
#   tests/einsum/fuzz/run_fuzz.sh [SECONDS] [WORK_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
seconds="${1:-60}"
work="${2:-$root/build-einsum-fuzz}"
cxx="${CLANGXX:-clang++}"
if ! command -v "$cxx" > /dev/null 2>&1; then
  echo "einsum fuzzer skipped: $cxx not found"
  exit 77
fi
mkdir -p "$work"
probe="$work/probe.cpp"
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' > "$probe"
if ! "$cxx" -fsanitize=fuzzer "$probe" -o "$work/probe" > /dev/null 2>&1; then
  echo "einsum fuzzer skipped: $cxx has no libFuzzer runtime (-fsanitize=fuzzer)"
  exit 77
fi
cmake -S "$here" -B "$work/build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Debug \
  -DTENFERRO_SOURCE_DIR="$root" > "$work/configure.log"
cmake --build "$work/build" -j2 > "$work/build.log"
# Seeds: header (operand count, ranks, extent seed) + subscripts.
corpus="$work/corpus"
mkdir -p "$corpus"
seed() { printf "$1" > "$corpus/$2"; }
seed '\x01\x02\x02\x00\x00\x07\x00\x00ij,jk->ik' matmul
seed '\x02\x02\x02\x02\x00\x03\x00\x00ab,bc,ca' ring
seed '\x00\x03\x00\x00\x00\x01\x00\x00...ii->...i' diag
seed '\x01\x04\x01\x00\x00\x05\x00\x00\xce\xb1\xce\xb2...,\xce\xb2->\xce\xb1...' greek
seed '\x03\x01\x01\x01\x01\x09\x00\x00i,i,i,i->' hyper
"$work/build/fuzz_einsum_parser" -max_total_time="$seconds" -max_len=64 -timeout=10 \
  -artifact_prefix="$work/" "$corpus" > "$work/fuzz.log" 2>&1 || {
  echo "einsum fuzzer FAILED; see $work/fuzz.log and the crash-* artifact in $work"
  tail -40 "$work/fuzz.log"
  exit 1
}
echo "einsum fuzzer: $(grep -c . "$work/fuzz.log") log lines, no findings in ${seconds}s"
tail -2 "$work/fuzz.log"
