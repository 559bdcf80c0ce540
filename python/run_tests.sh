#!/usr/bin/env bash
# Builds and installs the Python package (the repository root's
# pyproject.toml) into the project-local venv .venv-py and runs its pytest
# suite (CTest: python_package, label python).
#   python/run_tests.sh [PREFIX]
# PREFIX: an installed tenferro (what tests/install installs); the extension
# is then built against it and no library source is compiled again. Without
# it the library is built from source (as `pip install .` does). The venv is
# made by scripts/setup_python.sh (called by scripts/setup.sh); without it
# this exits 77 (CTest: skipped). Environment: PYTHON (interpreter, default
# .venv-py/bin/python), TENFERRO_PY_BUILD_DIR (scikit-build-core's build
# directory, default build-python/test), JOBS (parallel compile jobs, 2),
# TENFERRO_PY_CXX_FLAGS (optimisation flags of the extension's compile in
# place of Release's -O3: the suite passes its test files' flags, -O1).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
py="${PYTHON:-$root/.venv-py/bin/python}"
prefix="${1:-}"
if [ ! -x "$py" ]; then
  echo "python_package skipped: no interpreter at $py (run scripts/setup_python.sh)"
  exit 77
fi
if ! "$py" -c "import scikit_build_core, nanobind, numpy, pytest" > /dev/null 2>&1; then
  echo "python_package skipped: $py lacks scikit-build-core, nanobind, numpy or pytest (run scripts/setup_python.sh)"
  exit 77
fi
build_dir="${TENFERRO_PY_BUILD_DIR:-$root/build-python/test}"
args=(--config-settings "build-dir=$build_dir")
if [ -n "$prefix" ]; then
  config="$(ls -d "$prefix"/lib*/cmake/tenferro 2> /dev/null | head -n 1)"
  if [ -z "$config" ]; then
    echo "python_package: no installed tenferro package under $prefix" >&2
    exit 1
  fi
  args+=(--config-settings "cmake.define.tenferro_DIR=$config")
fi
if [ -n "${TENFERRO_PY_CXX_FLAGS:-}" ]; then
  args+=(--config-settings "cmake.define.CMAKE_CXX_FLAGS_RELEASE=$TENFERRO_PY_CXX_FLAGS -DNDEBUG")
fi
if command -v ccache > /dev/null 2>&1; then
  # A cache of its own inside the build tree unless the caller set one.
  export CCACHE_DIR="${CCACHE_DIR:-$build_dir/ccache}"
  args+=(--config-settings cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
export CMAKE_BUILD_PARALLEL_LEVEL="${JOBS:-2}"
start=$(date +%s)
"$py" -m pip install --no-build-isolation --no-deps --disable-pip-version-check -q "$root" "${args[@]}"
echo "python_package: built and installed in $(($(date +%s) - start)) s"
cd "$root/python/tests"
"$py" -m pytest -q -p no:cacheprovider .
