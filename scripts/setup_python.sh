#!/usr/bin/env bash
# Creates the project-local, git-ignored venv .venv-py for the Python
# package's tests (python/run_tests.sh, CTest python_package), idempotently:
# nothing happens when it is already complete. It is made from Debian's
# /usr/bin/python3 (3.11) with --system-site-packages, so that Debian's
# python3-numpy and python3-torch (scripts/setup.sh installs them) are seen,
# and pip adds the build tools, pytest, jax (CPU) and safetensors (the
# io interop tests) from PyPI. The
# constraint keeps pip from replacing Debian's numpy 1.24 in the venv: jax
# 0.4.30 is the newest jax whose requirements numpy 1.24 meets (and torch
# 1.13 is built against numpy 1.x).
#   scripts/setup_python.sh            (called by scripts/setup.sh)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-py"
py="$venv/bin/python"
check='import scikit_build_core, nanobind, pytest, numpy, torch, jax, safetensors'
if [ -x "$py" ] && "$py" -c "$check" > /dev/null 2>&1; then
  exit 0
fi
if [ -x "$py" ] && ! "$py" -c 'import sys; sys.exit(sys.base_prefix != "/usr")' 2> /dev/null; then
  echo "setup_python: $venv is not a venv of /usr/bin/python3; recreating it"
  rm -rf "$venv"
fi
if [ ! -x "$py" ]; then
  echo "setup_python: creating $venv (Debian python3, system site packages)"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
echo "setup_python: installing scikit-build-core, nanobind, pytest, jax[cpu], safetensors into $venv"
"$py" -m pip install -q --disable-pip-version-check \
  "scikit-build-core>=0.10" "nanobind>=2.0" pytest "jax[cpu]==0.4.30" "safetensors==0.8.0" "numpy==$("$py" -c 'import numpy; print(numpy.__version__)')"
"$py" -c "$check"
