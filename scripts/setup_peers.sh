#!/usr/bin/env bash
# Sets up the peer libraries used only by benchmarks and reference generators
# (never by the library or its tests): Debian's python3-torch/numpy/scipy for
# /usr/bin/python3 (plus python3-matplotlib for the report charts), and a Python 3.12 venv (.venv-peers) with jax, opt_einsum,
# numpy and scipy from PyPI. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
need=()
for p in python3-torch python3-numpy python3-scipy python3-venv python3-matplotlib; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq "${need[@]}"
fi
PY312=""
for cand in "${PYTHON312:-}" "$HOME/.pyenv/versions/3.12.1/bin/python3" "$(command -v python3.12 || true)"; do
  if [ -n "$cand" ] && [ -x "$cand" ]; then PY312="$cand"; break; fi
done
if [ -z "$PY312" ]; then
  echo "setup_peers: no Python 3.12 found (set PYTHON312=/path/to/python3.12)" >&2
  exit 1
fi
if [ ! -x .venv-peers/bin/python ]; then
  "$PY312" -m venv .venv-peers
fi
if ! .venv-peers/bin/python -c "import jax, opt_einsum, numpy, scipy" 2>/dev/null; then
  .venv-peers/bin/pip install -q --upgrade pip
  .venv-peers/bin/pip install -q "jax[cpu]" opt_einsum numpy scipy
fi
.venv-peers/bin/python -c "import jax, opt_einsum, numpy; print('peers: jax', jax.__version__, 'opt_einsum', opt_einsum.__version__, 'numpy', numpy.__version__)"
/usr/bin/python3 -c "import torch, numpy, scipy; print('peers: torch', torch.__version__, 'numpy', numpy.__version__, 'scipy', scipy.__version__)"
