#!/usr/bin/env bash
# run.sh: installs a dag build into a temporary prefix and builds the small
# project in project/ against it both ways: CMake's find_package(dag), and
# pkg-config with plain cc (dagcc --rewrite-only for the pragma file); then
# the installed dagcc itself. Every program must print its answer.
# usage: run.sh <dag build folder> [address|thread]
# The second argument is the build's DAG_SANITIZE: the programs are then
# built with the same sanitizer, as libdag.a needs its runtime.
set -euo pipefail
build=$(cd "$1" && pwd)
case ${2:-} in
address) san=(-fsanitize=address,undefined) ;;
thread) san=(-fsanitize=thread) ;;
*) san=() ;;
esac
project=$(cd "$(dirname "$0")" && pwd)/project
root=$(mktemp -d "${TMPDIR:-/tmp}/dag-install.XXXXXX")
trap 'rm -rf "$root"' EXIT
prefix=$root/prefix
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

expect() { # program answer
  local got
  got=$("$1") || fail "$1 failed"
  [ "$got" = "$2" ] || fail "$1 printed '$got', not '$2'"
}

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name 'libdag.so' -print -quit)")

echo "== find_package(dag)"
cmake -S "$project" -B "$root/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_FLAGS="${san[*]}" >"$root/configure.log" ||
  fail "configure: $(cat "$root/configure.log")"
cmake --build "$root/cmake" >"$root/build.log" ||
  fail "build: $(cat "$root/build.log")"
expect "$root/cmake/hand" 2000
expect "$root/cmake/hand_static" 2000
expect "$root/cmake/tasks" 55
# Nothing to do the second time: the rewrite's dependencies are right.
cmake --build "$root/cmake" | grep -q 'no work to do' ||
  fail "the second build did work"

echo "== pkg-config and cc"
export PKG_CONFIG_PATH=$libdir/pkgconfig
read -r -a cflags < <(pkg-config --cflags dag)
read -r -a libs < <(pkg-config --libs dag)
out=$root/pc
mkdir "$out"
cc "${san[@]}" "${cflags[@]}" -o "$out/hand" "$project/hand.c" "${libs[@]}" \
  -Wl,-rpath,"$libdir"
expect "$out/hand" 2000
dagcc=$(pkg-config --variable=dagcc dag)
[ -x "$dagcc" ] || fail "pkg-config names no dagcc: $dagcc"
"$dagcc" --rewrite-only -I"$project/include" -DTERMS=10 \
  -o "$out/tasks.c" "$project/tasks.c"
cc "${san[@]}" "${cflags[@]}" -I"$project/include" -iquote "$project" -DTERMS=10 \
  -o "$out/tasks" "$out/tasks.c" "${libs[@]}" -Wl,-rpath,"$libdir"
expect "$out/tasks" 55

echo "== the installed dagcc"
[ "$("$dagcc" --showme:compile)" = "-I$prefix/include" ] ||
  fail "installed dagcc uses $("$dagcc" --showme:compile)"
DAG_CC=cc "$dagcc" "${san[@]}" -I"$project/include" -DTERMS=10 -o "$out/direct" \
  "$project/tasks.c"
expect "$out/direct" 55
