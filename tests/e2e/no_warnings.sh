#!/usr/bin/env bash
# no_warnings.sh — a sample must go through dagcc without a single warning,
# the rewriter's -Wdag-... ones or the compiler's on the rewritten code.
#
#   no_warnings.sh DAGCC FILE.c [FLAG...]
#
# Runs `DAGCC -c -O2 -Wall -Wextra FLAG... -o /dev/null FILE.c` and fails
# if it exits non-zero or prints anything: a compile, not -fsyntax-only,
# since gcc finds uninitialised reads (in generated code too) only when it
# optimises.
set -u
if [ $# -lt 2 ]; then
  echo "usage: no_warnings.sh DAGCC FILE.c [FLAG...]" >&2
  exit 2
fi
dagcc="$1" file="$2"
shift 2
out=$("$dagcc" -c -O2 -Wall -Wextra "$@" -o /dev/null "$file" 2>&1)
rc=$?
if [ $rc -ne 0 ] || [ -n "$out" ]; then
  echo "no_warnings.sh: FAIL: dagcc -c -O2 -Wall -Wextra $* -o /dev/null $file" \
    "(exit $rc) says:"
  printf '%s\n' "$out"
  exit 1
fi
echo "no_warnings.sh: ok: $file: no diagnostics"
