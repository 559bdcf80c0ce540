#!/usr/bin/env bash
# Installs the PJRT CPU plugin of tenferro::xla (docs/xla.md) into the
# project-local, git-ignored folder .deps/xla_cpu_pjrt/, idempotently:
# nothing happens when the plugin and its header are already there.
# Source: the PyPI wheel xla-cpu-pjrt (OpenXLA), pinned below; it carries
# both xla_cpu_pjrt.so (exports GetPjrtApi) and pjrt_c_api.h. The wheel is
# downloaded with pip (no install into any Python) and unpacked with
# Python's zipfile module.
#   scripts/setup_pjrt.sh            (called by scripts/setup.sh)
set -euo pipefail
version="0.0.1"
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/.deps/xla_cpu_pjrt"
plugin="$dest/xla_plugins/xla_cpu_pjrt/xla_cpu_pjrt.so"
header="$dest/xla_plugins/xla_cpu_pjrt/include/pjrt_c_api.h"
if [ -f "$plugin" ] && [ -f "$header" ] && [ "$(cat "$dest/VERSION" 2>/dev/null)" = "$version" ]; then
  exit 0
fi
echo "setup_pjrt: downloading xla-cpu-pjrt==$version into $dest"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# Debian's python3 has pip only with python3-pip; otherwise a throwaway
# venv (python3-venv bundles pip) downloads the wheel. Nothing is installed.
pip=(python3 -m pip)
if ! python3 -m pip --version > /dev/null 2>&1; then
  python3 -m venv "$tmp/venv"
  pip=("$tmp/venv/bin/python" -m pip)
fi
"${pip[@]}" download -q --disable-pip-version-check --no-deps \
  "xla-cpu-pjrt==$version" -d "$tmp/wheel"
wheel="$(ls "$tmp"/wheel/xla_cpu_pjrt-"$version"-*.whl)"
rm -rf "$dest"
mkdir -p "$dest"
python3 -m zipfile -e "$wheel" "$dest"
if [ ! -f "$plugin" ] || [ ! -f "$header" ]; then
  echo "setup_pjrt: the wheel did not contain $plugin and $header" >&2
  exit 1
fi
echo "$version" > "$dest/VERSION"
