#!/usr/bin/env bash
# The repository is self-contained: a fresh clone of its committed HEAD, in a
# temporary folder with nothing beside it (no sibling shared/), configures,
# refers to no file outside itself, and its data runs the data tests.
# CTest `standalone_clone` (tests/standalone/CMakeLists.txt) runs it; a full
# rebuild of the clone would cost ~15 min on 2 cores, so it checks cheaply:
#
#  1. `git clone` of the source's HEAD into mktemp -d (only the clone there);
#  2. no tracked file of the clone names the sibling folder of the
#     development checkout (the `..`/`shared` path, in shell/CMake/C++ form
#     or as Python's os.path.join pieces);
#  3. the clone configures with tests, benchmarks and examples ON, so every
#     CMake-time path is resolved;
#  4. every path that the clone's build files (compile_commands.json, the
#     CTest files, the Makefiles or build.ninja) name inside the temporary
#     folder lies inside the clone once normalised, none names the source
#     checkout, and every path-valued compile definition (-DNAME="/...")
#     exists inside the clone;
#  5. the data tests already built in this build tree run on the clone's
#     copies: test_einsum_instances (data-list check and the small instances)
#     and test_ad_oracles (all of it), with TENFERRO_INSTANCES_DIR,
#     TENFERRO_EINSUM_REFERENCE and TENFERRO_AD_ORACLES_DIR set to the values
#     the clone's build compiles in.
#
# Exit 0 on success, 1 on a failure (with the offending paths), 77 (skipped)
# when the source is not a git work tree or git is missing. Nothing outside
# the tree or the network is needed; the temporary folder is removed.
#
#   check_standalone.sh --source DIR --cmake CMAKE [--generator G]
#       [--skip-modules=a,b] [--einsum-test BIN] [--oracle-test BIN]
set -euo pipefail

src="" cmake_bin="cmake" generator="" skip_modules="" einsum_test="" oracle_test=""
while [ $# -gt 0 ]; do
  case "$1" in
    --source) src="$2"; shift 2 ;;
    --cmake) cmake_bin="$2"; shift 2 ;;
    --generator) generator="$2"; shift 2 ;;
    --skip-modules=*) skip_modules="${1#*=}"; skip_modules="${skip_modules//,/;}"; shift ;;
    --einsum-test) einsum_test="$2"; shift 2 ;;
    --oracle-test) oracle_test="$2"; shift 2 ;;
    *) echo "check_standalone: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$src" ] || { echo "check_standalone: --source DIR is required" >&2; exit 2; }

if ! command -v git >/dev/null 2>&1; then
  echo "check_standalone: skipped: git is not installed"
  exit 77
fi
# A checkout owned by another user (CI containers) is still read: git's
# safe.directory check would otherwise make it look like no repository, and
# the clone's upload-pack honours it only from a global configuration file.
gcfg="$(mktemp "${TMPDIR:-/tmp}/tenferro-standalone-gitconfig.XXXXXX")"
trap 'rm -f "$gcfg"' EXIT
printf '[safe]\n\tdirectory = *\n' >"$gcfg"
gsrc=(env "GIT_CONFIG_GLOBAL=$gcfg" git -C "$src")
if ! "${gsrc[@]}" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "check_standalone: skipped: $src is not a git work tree (nothing to clone)"
  exit 77
fi
src="$(realpath "$src")"
gsrc=(env "GIT_CONFIG_GLOBAL=$gcfg" git -C "$src")
if [ -n "$("${gsrc[@]}" status --porcelain --untracked-files=no)" ]; then
  echo "note: $src has uncommitted changes; this checks its committed HEAD"
fi

tmp="$(realpath "$(mktemp -d "${TMPDIR:-/tmp}/tenferro-standalone.XXXXXX")")"
trap 'rm -rf "$tmp"; rm -f "$gcfg"' EXIT
clone="$tmp/repo"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# 1. The clone, alone in its folder.
env "GIT_CONFIG_GLOBAL=$gcfg" git clone --quiet "$src" "$clone"
# Exactly the source's HEAD, whatever the clone's default branch is.
git -C "$clone" checkout --quiet --detach "$("${gsrc[@]}" rev-parse HEAD)"
echo "cloned $(git -C "$clone" rev-parse --short HEAD) of $src into $clone"
[ "$(ls -A "$tmp")" = "repo" ] || fail "the temporary folder holds more than the clone: $(ls -A "$tmp")"
[ ! -e "$tmp/shared" ] || fail "$tmp/shared exists beside the clone"

# 2. No tracked file names the sibling folder. The patterns are written so
# that this file does not match them itself.
dots='\.\.'
hits="$(git -C "$clone" grep -n -I -E \
  -e "${dots}/shared" \
  -e "[\"']${dots}[\"'][[:space:]]*,[[:space:]]*[\"']shared[\"']" || true)"
if [ -n "$hits" ]; then
  fail "tracked files refer to the sibling folder outside the repository:"
  printf '%s\n' "$hits" | sed 's/^/  /'
else
  echo "ok: no tracked file ($(git -C "$clone" ls-files | wc -l) files) refers to a sibling folder"
fi

# 3. Configure the clone (tests, benchmarks, examples on).
args=(-S "$clone" -B "$clone/build" -DCMAKE_BUILD_TYPE=Release
      -DTENFERRO_BUILD_TESTS=ON -DTENFERRO_BUILD_BENCHMARKS=ON -DTENFERRO_BUILD_EXAMPLES=ON
      "-DTENFERRO_SKIP_MODULES=$skip_modules")
[ -n "$generator" ] && args+=(-G "$generator")
if ! "$cmake_bin" "${args[@]}" >"$tmp/configure.log" 2>&1; then
  fail "the clone does not configure; the end of the log:"
  tail -n 40 "$tmp/configure.log" | sed 's/^/  /'
  echo "standalone check: $failures failure(s)"
  exit 1
fi
echo "ok: the clone configures (tests, benchmarks and examples on)"

# 4. Paths named by the clone's build files.
build_files=()
while IFS= read -r -d '' f; do build_files+=("$f"); done < <(
  find "$clone/build" \( -name compile_commands.json -o -name CTestTestfile.cmake \
    -o -name Makefile -o -name build.ninja -o -name '*.make' \) -type f -print0)
[ ${#build_files[@]} -gt 0 ] || fail "no build files found under $clone/build"
before=$failures checked=0
while IFS= read -r p; do
  checked=$((checked + 1))
  n="$(realpath -m "$p")"
  case "$n" in
    "$clone" | "$clone"/*) ;;
    *) fail "a build file names $p (= $n), outside the clone" ;;
  esac
done < <(grep -ohE "$tmp/[^\"' ;:)\\]*" "${build_files[@]}" | sort -u)
if grep -lF "$src/" "${build_files[@]}" >/dev/null 2>&1; then
  fail "the clone's build files name the source checkout $src:"
  grep -lF "$src/" "${build_files[@]}" | sed 's/^/  /'
fi
[ "$failures" -ne "$before" ] ||
  echo "ok: the $checked distinct paths of the clone's build files under $tmp stay inside the clone"

# Path-valued compile definitions: -DNAME=\"/abs/path\" in compile_commands.json.
declare -A defs=()
while IFS= read -r d; do
  name="${d%%=*}"
  value="${d#*=}"
  defs["$name"]="$value"
done < <(grep -ohE -- '-D[A-Za-z0-9_]+=\\+"/[^\\"]*' "$clone/build/compile_commands.json" |
         sed -E 's/^-D//; s/=\\+"/=/' | sort -u)
# Each exists, and lies inside the clone or is a system file (an installed
# dependency such as Debian's pocketfft header) outside the folder that
# holds the source checkout (where the development checkout's siblings are).
[ ${#defs[@]} -gt 0 ] || fail "no path-valued compile definitions found in the clone's compile_commands.json"
src_parent="$(dirname "$src")"
before=$failures inside=() system=()
for name in $(printf '%s\n' "${!defs[@]}" | sort); do
  value="${defs[$name]}"
  n="$(realpath -m "$value")"
  if [ ! -e "$value" ]; then
    fail "$name=$value does not exist"
  elif [[ "$n" == "$clone"/* ]]; then
    inside+=("$name")
  elif [[ "$n" == "$tmp"/* ]] || { [ "$src_parent" != / ] && [[ "$n" == "$src_parent"/* ]]; }; then
    fail "$name=$value lies outside the clone, beside it or beside the source checkout"
  else
    system+=("$name=$value")
  fi
done
if [ "$failures" -eq "$before" ]; then
  echo "ok: path-valued compile definitions inside the clone: ${inside[*]}"
  [ ${#system[@]} -eq 0 ] || echo "ok: system files outside $src_parent: ${system[*]}"
fi

# 5. This build's data tests on the clone's data.
run_on_clone() {  # label, binary, gtest filter, variables...
  local label="$1" bin="$2" filter="$3"
  shift 3
  [ -x "$bin" ] || { fail "$bin is not built (build $label in this tree first)"; return; }
  local env=()
  for v in "$@"; do
    [ -n "${defs[$v]:-}" ] || { fail "the clone's build defines no $v"; return; }
    env+=("$v=${defs[$v]}")
  done
  echo "running $label on the clone's data: ${env[*]}"
  if env "${env[@]}" "$bin" --gtest_filter="$filter" --gtest_brief=1 >"$tmp/$label.log" 2>&1; then
    echo "ok: $label passes on the clone's data ($(grep -oE '[0-9]+ tests? from [0-9]+ test suites? ran' "$tmp/$label.log" | tail -n 1))"
  else
    fail "$label fails on the clone's data; the end of its output:"
    tail -n 30 "$tmp/$label.log" | sed 's/^/  /'
  fi
}
if [ -n "$einsum_test" ]; then
  run_on_clone test_einsum_instances "$einsum_test" \
    'EinsumInstanceData.*:Instances/*bin_*:Instances/*nary_*' \
    TENFERRO_INSTANCES_DIR TENFERRO_EINSUM_REFERENCE
fi
if [ -n "$oracle_test" ]; then
  run_on_clone test_ad_oracles "$oracle_test" '*' TENFERRO_AD_ORACLES_DIR
fi

if [ "$failures" -gt 0 ]; then
  echo "standalone check: $failures failure(s)"
  exit 1
fi
echo "standalone check passed"
