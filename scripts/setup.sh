#!/usr/bin/env bash
# Installs what tenferro needs to build and test on Debian 12 (as root),
# idempotently: only missing packages are installed.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(
  g++ make cmake ninja-build git pkg-config ca-certificates
  libopenblas-openmp-dev liblapacke-dev        # BLAS/LAPACK (OpenMP build of OpenBLAS)
  libblis-dev                                   # ext/blis: the BLIS dot_general provider
  libgtest-dev libgmock-dev googletest          # tests
  libbenchmark-dev                              # microbenchmarks
  nlohmann-json3-dev                            # JSON: safetensors headers (tenferro::io), test/benchmark instances
  zlib1g-dev                                    # deflate members of .npz files (tenferro::io)
  libopenmpi-dev openmpi-bin                    # MPI: the distributed einsum (tenferro::dist) and its tests
  python3-pythran                               # ships pocketfft's header-only C++ FFT
  gnuplot-nox                                   # PNG plot of the flagship example
  clang libclang-rt-14-dev                      # libFuzzer for the fuzzers; clang++ for the TSan step
  libomp-dev                                    # ... with LLVM's OpenMP and its Archer TSan tool
  python3-venv python3-dev                      # the Python package: its venv and headers
  python3-numpy python3-torch                   # ... and the peers its tests compare with
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The project-local venv of the Python package's tests (.venv-py; idempotent).
bash "$(dirname "$0")/setup_python.sh"
# wgpu-native (.deps/wgpu) and lavapipe for the WebGPU backend (idempotent).
bash "$(dirname "$0")/setup_webgpu.sh"
# The PJRT CPU plugin of tenferro::xla (.deps/xla_cpu_pjrt; idempotent).
bash "$(dirname "$0")/setup_pjrt.sh"
