#!/usr/bin/env bash
# The GPU benchmark report (issue 8), for a machine with an NVIDIA GPU:
# builds bench_gpu, runs it (dot_general vs cuBLAS, permutations vs memcpy,
# einsum instances) and torch.einsum on CUDA on the same instances, and
# prints markdown tables. Under 8 minutes on an H200 (build included).
#
#   bench/gpu/run.sh [--build-dir DIR] [--no-build] [--out DIR] [--quick]
#   bench/gpu/run.sh --prepare DIR     # build here, bundle for another machine
#
# --prepare builds on this machine (in --build-dir, default build-gpu-bench)
# and copies into DIR the binary and what the GPU machine may lack (the
# non-CUDA shared libraries it needs): a few MiB, so a task with a GPU can
# carry DIR (e.g. DIR=build-gpu-carry, ignored by git as build*) and run
#   bench/gpu/run.sh --build-dir DIR --no-build
# The instances come with the working tree (tests/data/instances).
# Environment: INSTANCES (default tests/data/instances), PYTHON (default
# python3: the one with CUDA PyTorch).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build-gpu-bench"
out=""
build_it=1
prepare=0
min_time=0.3
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="$(realpath -m "$2")"; shift 2 ;;
    --no-build) build_it=0; shift ;;
    --out) out="$2"; shift 2 ;;
    --quick) min_time=0.05; shift ;;
    --prepare) prepare="$(realpath -m "$2")"; shift 2 ;;
    *) echo "usage: $0 [--build-dir DIR] [--no-build] [--out DIR] [--quick] | --prepare DIR" >&2; exit 2 ;;
  esac
done
instances="${INSTANCES:-$root/tests/data/instances}"
jobs="${JOBS:-$(nproc)}"

if [ "$build_it" = 1 ]; then
  # sm_90 only for the benchmark (the library's default adds sm_80).
  archs="${CUDA_ARCHS:-90}"
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTENFERRO_CUDA_ARCHITECTURES="$archs" >/dev/null
  cmake --build "$build" -j"$jobs" --target bench_gpu
fi

if [ "$prepare" != 0 ]; then
  rm -rf "$prepare"
  mkdir -p "$prepare/lib"
  cp "$build/bench_gpu" "$prepare/"
  # Non-CUDA, non-libc shared libraries the binary needs (OpenBLAS, gfortran, gomp).
  ldd "$build/bench_gpu" | awk '/=> \//{print $3}' |
    { grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux|libstdc\+\+|libgcc_s)[.-]|cuda|cublas|cufft|cusolver|cusparse|nvJitLink' || true; } |
    while read -r lib; do cp -L "$lib" "$prepare/lib/"; done
  strip "$prepare/bench_gpu" || true
  du -sh "$prepare"
  echo "prepared $prepare: carry it and run  bench/gpu/run.sh --build-dir $prepare --no-build"
  exit 0
fi

[ -n "$out" ] || out="$(mktemp -d)"
mkdir -p "$out"
export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"$build/bench_gpu" --instances="$instances" --json="$out/tenferro.json" --min-time="$min_time" | tee "$out/tenferro.md"
"${PYTHON:-python3}" "$here/torch_peer.py" --instances "$instances" --ours "$out/tenferro.json" \
  --min-time "$min_time" | tee "$out/torch.md"
