#!/bin/sh
# expect_clean.sh: runs a command that must succeed without saying a word
# that matches PATTERN (an extended regular expression, grep -E) on stdout
# or stderr: a run that ends well after a transport complained (Open MPI
# prints "Read -1, expected 131072, errno = 14" and goes on when its
# single copy fails) is not clean.
#
#   expect_clean.sh PATTERN -- COMMAND [ARG...]
set -u
if [ $# -lt 3 ] || [ "$2" != "--" ]; then
  echo "usage: $0 PATTERN -- COMMAND [ARG...]" >&2
  exit 2
fi
pattern=$1
shift 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
status=$?
cat "$out"
if [ $status -ne 0 ]; then
  echo "expect_clean: FAILED: the command exited with status $status" >&2
  exit 1
fi
if grep -E -q -e "$pattern" "$out"; then
  echo "expect_clean: FAILED: the output matches '$pattern'" >&2
  exit 1
fi
exit 0
