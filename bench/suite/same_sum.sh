#!/bin/sh
# same_sum.sh [--any-sum] [--skipped WHY] "ARGS" COMMAND... — runs each
# COMMAND (a program, possibly under mpiexec, as one word list) with ARGS,
# and passes when every run exits with status 0 and prints one SUITE line
# and one SUITE_RANK line for each of its ranks (ranks= of the SUITE line),
# each with ok=1, and, unless --any-sum, every rank of every run prints the
# same sum= (the same result, to the bit, on every rank, on any rank count
# and with plain cc). With --skipped, runs that pass end with status 77
# (ctest's SKIP_RETURN_CODE) and say WHY: the runs that would check what
# the test is for were not built.
any=0 skipped=''
while :; do
  case ${1-} in
  --any-sum) any=1; shift ;;
  --skipped) skipped=$2; shift 2 ;;
  *) break ;;
  esac
done
args=$1
shift
first='' status=0
fail() { echo "FAILED: $*" >&2; status=1; }
for cmd in "$@"; do
  # shellcheck disable=SC2086 # word lists on purpose
  out=$($cmd $args)
  code=$?
  printf '%s\n' "$out" | grep '^SUITE'
  [ $code -eq 0 ] || fail "exit status $code: $cmd $args"
  lines=$(printf '%s\n' "$out" | grep -c '^SUITE ')
  if [ "$lines" -ne 1 ]; then
    fail "$lines SUITE lines, not 1: $cmd $args"
    continue
  fi
  ranks=$(printf '%s\n' "$out" | sed -n 's/^SUITE .* ranks=\([0-9]*\) .*/\1/p')
  mine=$(printf '%s\n' "$out" | grep -c '^SUITE_RANK ')
  if [ -z "$ranks" ] || [ "$mine" -ne "$ranks" ]; then
    fail "$mine SUITE_RANK lines for ranks=$ranks: $cmd $args"
    continue
  fi
  r=0
  while [ $r -lt "$ranks" ]; do
    line=$(printf '%s\n' "$out" | grep "^SUITE_RANK rank=$r ")
    case $line in
    *" ok=1") ;;
    '') fail "no line of rank $r: $cmd $args" ;;
    *) fail "check failed on rank $r: $cmd $args" ;;
    esac
    sum=$(printf '%s\n' "$line" | sed -n 's/.* sum=\([^ ]*\) .*/\1/p')
    if [ $any = 0 ]; then
      if [ -z "$first" ]; then
        first=$sum
      elif [ "$sum" != "$first" ]; then
        fail "different result on rank $r: sum=$sum, first sum=$first ($cmd)"
      fi
    fi
    r=$((r + 1))
  done
done
if [ $status = 0 ] && [ -n "$skipped" ]; then
  echo "skipped: $skipped"
  exit 77
fi
exit $status
