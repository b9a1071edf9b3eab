# lib.sh: what the dagcc tests share. A test sources it with the dagcc under
# test as its first argument and the build's DAG_SANITIZE as its second; it
# then runs in an empty work folder, with a private TMPDIR so that the test
# can see every temporary dagcc leaves, and both are removed when the test
# ends.
set -euo pipefail
DAGCC=$1
SANITIZE=${2:-}
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/src
ROOT=$(mktemp -d "${TMPDIR:-/tmp}/dagcc-test.XXXXXX")
trap 'rm -rf "$ROOT"' EXIT
export TMPDIR=$ROOT/tmp
mkdir -p "$TMPDIR" "$ROOT/work"
cd "$ROOT/work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# gcc as installed, for reference programs that do not link libdag (an
# OpenMP build under ThreadSanitizer reports libgomp's own synchronisation).
PLAIN_GCC=$(command -v gcc)
# A libdag built with a sanitizer needs programs built with it: the
# compilers on PATH add it.
sanitize_compilers() { # flags
  local bin=$ROOT/sanitize-bin cc real
  mkdir -p "$bin"
  for cc in mpicc cc gcc; do
    real=$(command -v $cc) || continue
    printf '#!/bin/sh\nexec %s "$@" %s\n' "$real" "$1" >"$bin/$cc"
    chmod +x "$bin/$cc"
  done
  PATH=$bin:$PATH
}
case $SANITIZE in
address) sanitize_compilers -fsanitize=address,undefined ;;
thread) sanitize_compilers -fsanitize=thread ;;
esac
unset DAG_CC DAG_KEEP_TEMPS DAG_HOME
# The stand-in compiler logs its arguments here, one a line.
export FAKE_LOG=$ROOT/fake.log

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Fails unless dagcc left TMPDIR empty.
tmp_empty() {
  local left
  left=$(ls -A "$TMPDIR")
  [ -z "$left" ] || fail "temporaries left in TMPDIR: $left"
}

# Makes "space dir/my file.c" and the "my header.h" it includes (names with
# spaces are made here: the repository keeps plain names).
spaced_copy() {
  mkdir -p "space dir"
  cp "$SRC/spaced.c" "space dir/my file.c"
  cp "$SRC/spaced.h" "space dir/my header.h"
}

# Runs dagcc with the stand-in compiler; its arguments land in $FAKE_LOG.
fake_dagcc() {
  rm -f "$FAKE_LOG"
  DAG_CC=$SRC/fake-cc "$DAGCC" "$@"
}

# Fails unless `file` holds a line equal to `line`.
has_line() { # file line
  grep -qxF -- "$2" "$1" || fail "no line '$2' in $1: $(cat "$1")"
}

# Runs `cmd...` expecting exit status `want`; its stderr is in $ROOT/err.
expect_status() { # want cmd...
  local want=$1 got=0
  shift
  "$@" 2>"$ROOT/err" || got=$?
  [ "$got" = "$want" ] || fail "'$*' exited $got, not $want: $(cat "$ROOT/err")"
}
