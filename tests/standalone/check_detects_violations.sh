#!/usr/bin/env bash
# check_standalone.sh must fail on a repository that is not self-contained
# and pass on one that is. Two tiny git repositories in a temporary folder:
#
#  clean: a CMake project whose compile definition points at its own data;
#  leaky: the same with a definition pointing at the sibling folder of the
#         checkout (PROJECT_SOURCE_DIR/<up>/shared/...), a shell line and a
#         Python os.path.join reading it.
#
# The leaky one must exit 1 and report each of the three; the clean one
# must exit 0. CTest `standalone_detects_violations` (about 2 s).
#
#   check_detects_violations.sh CHECK_SCRIPT CMAKE [GENERATOR]
set -euo pipefail
check="$1" cmake_bin="$2" generator="${3:-}"
command -v git >/dev/null 2>&1 || { echo "skipped: git is not installed"; exit 77; }

tmp="$(realpath "$(mktemp -d "${TMPDIR:-/tmp}/tenferro-standalone-fixture.XXXXXX")")"
trap 'rm -rf "$tmp"' EXIT
up='..'

make_repo() {  # dir, leaky (0/1)
  local dir="$1" leaky="$2"
  mkdir -p "$dir/data"
  echo 42 >"$dir/data/value.txt"
  printf 'int main() { return 0; }\n' >"$dir/main.cpp"
  {
    echo 'cmake_minimum_required(VERSION 3.22)'
    echo 'project(fixture LANGUAGES CXX)'
    echo 'set(CMAKE_EXPORT_COMPILE_COMMANDS ON)'
    echo 'add_executable(fixture main.cpp)'
    echo 'target_compile_definitions(fixture PRIVATE FIXTURE_DATA="${PROJECT_SOURCE_DIR}/data/value.txt")'
    if [ "$leaky" = 1 ]; then
      echo "target_compile_definitions(fixture PRIVATE FIXTURE_OUTSIDE=\"\${PROJECT_SOURCE_DIR}/$up/shared/bench\")"
    fi
  } >"$dir/CMakeLists.txt"
  if [ "$leaky" = 1 ]; then
    echo "cat \"\$root/$up/shared/notes.txt\"" >"$dir/run.sh"
    echo "DATA = os.path.join(ROOT, \"$up\", \"shared\", \"bench\")" >"$dir/peers.py"
  fi
  git -C "$dir" init -q
  git -C "$dir" add -A
  git -C "$dir" -c user.name=fixture -c user.email=fixture@example.invalid commit -q -m fixture
}

gen_args=()
[ -n "$generator" ] && gen_args=(--generator "$generator")
failures=0

make_repo "$tmp/clean" 0
if "$check" --source "$tmp/clean" --cmake "$cmake_bin" "${gen_args[@]}" >"$tmp/clean.log" 2>&1; then
  echo "ok: the clean fixture passes"
else
  echo "FAIL: the clean fixture does not pass:"
  sed 's/^/  /' "$tmp/clean.log"
  failures=$((failures + 1))
fi

make_repo "$tmp/leaky" 1
rc=0
"$check" --source "$tmp/leaky" --cmake "$cmake_bin" "${gen_args[@]}" >"$tmp/leaky.log" 2>&1 || rc=$?
if [ "$rc" -ne 1 ]; then
  echo "FAIL: the leaky fixture exits $rc, not 1:"
  sed 's/^/  /' "$tmp/leaky.log"
  failures=$((failures + 1))
fi
expect() {  # description, fixed string the report must contain
  if grep -qF -- "$2" "$tmp/leaky.log"; then
    echo "ok: the leaky fixture's report names $1"
  else
    echo "FAIL: the leaky fixture's report does not name $1 ('$2'); it reads:"
    sed 's/^/  /' "$tmp/leaky.log"
    failures=$((failures + 1))
  fi
}
expect "the shell line" "run.sh:1:"
expect "the Python join" "peers.py:1:"
expect "the CMake line" "CMakeLists.txt:6:"
expect "the resolved build path" "shared/bench), outside the clone"
expect "the compile definition" "FIXTURE_OUTSIDE="

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "check_standalone.sh tells the leaky fixture from the clean one"
