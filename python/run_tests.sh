#!/usr/bin/env bash
# Builds and installs the Python package into a project-local venv and runs
# its pytest suite (CTest: python_package, label python).
#   python/run_tests.sh [PYTHON]
# PYTHON defaults to .venv-py/bin/python at the repository root (make it with
# `python3.12 -m venv .venv-py && .venv-py/bin/pip install scikit-build-core
# nanobind numpy pytest`). Exits 77 (CTest: skipped) when that interpreter is
# missing or lacks one of those packages.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
py="${1:-$root/.venv-py/bin/python}"
if [ ! -x "$py" ]; then
  echo "python_package skipped: no interpreter at $py"
  exit 77
fi
if ! "$py" -c "import scikit_build_core, nanobind, numpy, pytest" > /dev/null 2>&1; then
  echo "python_package skipped: $py lacks scikit-build-core, nanobind, numpy or pytest"
  exit 77
fi
launcher=()
if command -v ccache > /dev/null 2>&1; then
  launcher=(-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
"$py" -m pip install --no-build-isolation -q "$root/python" "${launcher[@]}" \
  -C cmake.define.TENFERRO_SKIP_MODULES=cuda
cd "$root/python/tests"
"$py" -m pytest -q .
