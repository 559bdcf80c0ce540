#!/usr/bin/env bash
# Installs what the WebGPU backend (tenferro::webgpu) needs, idempotently:
#  - wgpu-native: the PyPI wheel `wgpu` (pinned below) ships
#    libwgpu_native-release.so with webgpu.h and wgpu.h; it is downloaded
#    with pip (no install, no dependencies) and unpacked into the
#    project-local, git-ignored .deps/wgpu/, where CMake finds it
#    (src/webgpu/CMakeLists.txt, TENFERRO_WITH_WEBGPU=AUTO).
#  - a WebGPU device on machines without a GPU: Mesa's lavapipe (Debian
#    mesa-vulkan-drivers, a software Vulkan driver) and the Vulkan loader.
#   scripts/setup_webgpu.sh            (called by scripts/setup.sh, as root)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
root="$(cd "$(dirname "$0")/.." && pwd)"
version=0.32.0
dest="$root/.deps/wgpu"
res="$dest/wgpu/resources"

packages=(mesa-vulkan-drivers libvulkan1)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup_webgpu: installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ -f "$dest/VERSION" ] && [ "$(cat "$dest/VERSION")" = "$version" ] \
   && [ -f "$res/libwgpu_native-release.so" ] && [ -f "$res/webgpu.h" ] && [ -f "$res/wgpu.h" ]; then
  exit 0
fi
echo "setup_webgpu: downloading wgpu==$version (wgpu-native) into $dest"
# pip only downloads the wheel (nothing is installed): the project venv's
# pip when scripts/setup_python.sh made it, else Debian's python3-pip.
py=python3
if [ -x "$root/.venv-py/bin/python" ] && "$root/.venv-py/bin/python" -m pip --version > /dev/null 2>&1; then
  py="$root/.venv-py/bin/python"
elif ! python3 -m pip --version > /dev/null 2>&1; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends python3-pip
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$py" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
  --platform manylinux_2_28_x86_64 --python-version 3.11 -d "$tmp" "wgpu==$version"
wheel="$(ls "$tmp"/wgpu-"$version"-*.whl)"
rm -rf "$dest"
mkdir -p "$dest"
python3 -m zipfile -e "$wheel" "$dest"
for f in libwgpu_native-release.so webgpu.h wgpu.h; do
  [ -f "$res/$f" ] || { echo "setup_webgpu: $f missing from $wheel" >&2; exit 1; }
done
echo "$version" > "$dest/VERSION"
