#!/usr/bin/env bash
# Golden test of one rewrite case: tests/rewrite/<case>.c with
#   <case>.out  the expected rewritten source (the rewrite must succeed, and
#               the result must compile with the runtime's header and _DAG
#               defined, as dagcc compiles it), and/or
#   <case>.err  the expected diagnostics (without .out: the rewrite must fail);
#   <case>.flags  optional: more flags for the rewriter, on one line.
# Usage: check.sh REWRITE_FILE INCLUDE_DIR CASE_DIR CASE [--update]
set -u
tool=$1 include=$2 dir=$3 case=$4 update=${5:-}
cd "$dir" || exit 1
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
# dag.h on the include path, as dagcc gives it: the parse includes it.
# <case>.flags, if there is one, holds more flags (such as -Wdag-mpi).
flags=()
[[ -f $case.flags ]] && read -r -a flags <"$case.flags"
"$tool" "$case.c" -I. -I"$include" "${flags[@]}" >"$out" 2>"$err"
status=$?
if [[ $update == --update ]]; then
  if ((status == 0)); then cp "$out" "$case.out"; else rm -f "$case.out"; fi
  if [[ -s $err ]]; then cp "$err" "$case.err"; else rm -f "$case.err"; fi
  exit 0
fi
fail=0
if [[ -f $case.out ]]; then
  ((status == 0)) || { echo "$case: the rewrite failed (status $status)"; fail=1; }
  diff -u "$case.out" "$out" || fail=1
  [[ $(cat "$out") == "(unchanged)" ]] ||
  cc -std=c17 -fsyntax-only -Wall -Werror -Wno-unknown-pragmas -Wno-unused-function \
    -D_DAG=202612 -I"$include" -I. -x c "$out" || { echo "$case: the rewritten file does not compile"; fail=1; }
else
  ((status == 1)) || { echo "$case: expected the rewrite to fail, status $status"; fail=1; }
fi
if [[ -f $case.err ]]; then
  diff -u "$case.err" "$err" || fail=1
elif [[ -s $err ]]; then
  echo "$case: unexpected diagnostics:"; cat "$err"; fail=1
fi
exit $fail
