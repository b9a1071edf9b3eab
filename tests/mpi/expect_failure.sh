#!/bin/sh
# expect_failure.sh: runs a command that must fail, and fail fast, with
# given messages. For MPI runs that must stop (a divergence, a dead rank)
# instead of hanging; with --status, for any run that must end with a given
# status and messages.
#
#   expect_failure.sh [--any-status | --status N] SECONDS SOURCE [-v] PATTERN...
#                     -- COMMAND [ARG...]
#
# Passes when COMMAND exits with a status other than 0 within SECONDS, and
# its output (stdout and stderr together) matches every PATTERN, an
# extended regular expression (grep -E). A PATTERN preceded by -v must NOT
# match. In a PATTERN, @name@ stands for the number of the first line of
# SOURCE that holds the marker "@name@" (in a comment), so a pattern can
# name a source line without hard-coding its number; SOURCE may be "-" when
# no pattern uses one. COMMAND is killed after 4 x SECONDS (a hang fails).
# --any-status accepts status 0 too: Open MPI 4.1's mpiexec exits 0 under
# orte_enable_recovery whatever its ranks do, so there the output and the
# time tell. --status N wants exactly status N, 0 included: a run that must
# succeed and print given lines (ctest's PASS_REGULAR_EXPRESSION ignores the
# exit status), or a checker that must exit with its own status.
set -u
any_status=0 want_status=''
if [ "${1:-}" = --any-status ]; then
  any_status=1
  shift
elif [ "${1:-}" = --status ] && [ $# -ge 2 ]; then
  want_status=$2
  shift 2
fi
if [ $# -lt 4 ]; then
  echo "usage: $0 [--any-status | --status N] SECONDS SOURCE [-v] PATTERN... -- COMMAND [ARG...]" >&2
  exit 2
fi
limit=$1
source=$2
shift 2

# Patterns, one a line, "+" or "-" first (must match, must not match).
patterns=$(mktemp)
out=$(mktemp)
trap 'rm -f "$patterns" "$out"' EXIT
negate=0
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  if [ "$1" = "-v" ]; then
    negate=1
    shift
    continue
  fi
  p=$1
  # Replace each @name@ by its line number in SOURCE.
  while :; do
    name=$(printf '%s\n' "$p" | sed -n 's/.*@\([A-Za-z0-9_]*\)@.*/\1/p')
    [ -n "$name" ] || break
    line=$(grep -n "@$name@" "$source" | head -n 1 | cut -d: -f1)
    if [ -z "$line" ]; then
      echo "expect_failure: no marker @$name@ in $source" >&2
      exit 2
    fi
    p=$(printf '%s\n' "$p" | sed "s/@$name@/$line/")
  done
  if [ $negate = 1 ]; then
    printf -- '-%s\n' "$p" >>"$patterns"
  else
    printf -- '+%s\n' "$p" >>"$patterns"
  fi
  negate=0
  shift
done
if [ $# -lt 2 ]; then
  echo "expect_failure: no command after --" >&2
  exit 2
fi
shift # --

start=$(date +%s.%N)
timeout -k 5 $((limit * 4)) "$@" >"$out" 2>&1
status=$?
end=$(date +%s.%N)
elapsed=$(awk "BEGIN { printf \"%.2f\", $end - $start }")

fail=0
# (mpiexec may exit with 128 + the signal that killed a rank, like
# timeout's 137: whether it hung is told by the time it took.)
if [ -n "$want_status" ]; then
  if [ $status -ne "$want_status" ]; then
    echo "expect_failure: FAILED: the command exited with status $status, not $want_status" >&2
    fail=1
  fi
elif [ $status -eq 0 ] && [ $any_status = 0 ]; then
  echo "expect_failure: FAILED: the command exited with status 0" >&2
  fail=1
fi
if awk "BEGIN { exit !($elapsed >= $limit * 4) }"; then
  echo "expect_failure: FAILED: the command hung (killed after $((limit * 4)) s)" >&2
  fail=1
elif awk "BEGIN { exit !($elapsed >= $limit) }"; then
  echo "expect_failure: FAILED: the command took $elapsed s, the limit is $limit s" >&2
  fail=1
fi
while IFS= read -r entry; do
  want=${entry%"${entry#?}"}
  p=${entry#?}
  if grep -E -q -e "$p" "$out"; then
    if [ "$want" = "-" ]; then
      echo "expect_failure: FAILED: the output matches '$p', which it must not" >&2
      fail=1
    fi
  elif [ "$want" = "+" ]; then
    echo "expect_failure: FAILED: nothing in the output matches '$p'" >&2
    fail=1
  fi
done <"$patterns"

echo "expect_failure: exit status $status after $elapsed s (limit $limit s)"
if [ $fail = 1 ]; then
  echo "---- output of: $*"
  cat "$out"
  echo "----"
  exit 1
fi
echo "---- output (as expected):"
cat "$out"
exit 0
