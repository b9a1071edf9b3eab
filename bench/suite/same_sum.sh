#!/bin/sh
# same_sum.sh [--any-sum] "ARGS" COMMAND... — runs each COMMAND (a program,
# possibly under mpiexec, as one word list) with ARGS, and passes when every
# run prints a SUITE line with ok=1 and, unless --any-sum, all the lines
# carry the same sum= (the same result, to the bit, on any rank count and
# with plain cc).
any=0
if [ "$1" = --any-sum ]; then any=1; shift; fi
args=$1
shift
first='' status=0
for cmd in "$@"; do
  # shellcheck disable=SC2086 # word lists on purpose
  line=$($cmd $args | grep '^SUITE ') || { echo "FAILED: $cmd $args" >&2; status=1; continue; }
  echo "$line"
  sum=$(echo "$line" | sed -n 's/.* sum=\([^ ]*\).*/\1/p')
  case $line in *" ok=1"*) ;; *) echo "check failed: $cmd $args" >&2; status=1 ;; esac
  if [ $any = 0 ]; then
    if [ -z "$first" ]; then first=$sum
    elif [ "$sum" != "$first" ]; then
      echo "different result: sum=$sum, first run sum=$first ($cmd)" >&2
      status=1
    fi
  fi
done
exit $status
