# lib.sh: what the dagcc tests share. A test sources it with the dagcc under
# test as its first argument; it then runs in an empty work folder, with a
# private TMPDIR so that the test can see every temporary dagcc leaves, and
# both are removed when the test ends.
set -euo pipefail
DAGCC=$1
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/src
ROOT=$(mktemp -d "${TMPDIR:-/tmp}/dagcc-test.XXXXXX")
trap 'rm -rf "$ROOT"' EXIT
export TMPDIR=$ROOT/tmp
mkdir -p "$TMPDIR" "$ROOT/work"
cd "$ROOT/work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# libdag built with ASan is linked here by programs that are not.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
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
