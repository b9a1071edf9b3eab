#!/usr/bin/env bash
# _DAG: dagcc defines it (202612) in the rewriter's parse and in the
# compile, so both see the same branches; the user's -D_DAG or -U_DAG wins
# in both. The flags that choose branches reach the rewriter however they
# are given: -D, -Wp,-D, -Xpreprocessor -D, or DAG_CC's own flags.
source "$(dirname "$0")/lib.sh"
cp "$SRC"/dag_macro.c "$SRC"/use_tasks.c .

"$DAGCC" -o prog dag_macro.c
[ "$(./prog)" = "dag 202612 2" ] || fail "the dagcc build printed $(./prog)"
"$DAGCC" -U_DAG -o plain dag_macro.c
[ "$(./plain)" = "plain 1" ] || fail "the -U_DAG build printed $(./plain)"
"$DAGCC" -D_DAG=1 -o old dag_macro.c
[ "$(./old)" = "plain 1" ] || fail "the -D_DAG=1 build printed $(./old)"

# --rewrite-only hands its output to another compiler: it defines _DAG
# itself, and leaves it to the flags that set it.
"$DAGCC" --rewrite-only -o out.c dag_macro.c
head -n 1 out.c | grep -qx '#define _DAG 202612' ||
  fail "--rewrite-only does not define _DAG: $(head -n 3 out.c)"
grep -q __dag_body out.c || fail "the pragma under _DAG was not rewritten"
"$DAGCC" --rewrite-only -U_DAG -o out-plain.c dag_macro.c
if grep -q '_DAG 202612\|__dag_body' out-plain.c; then
  fail "-U_DAG: $(cat out-plain.c)"
fi

# -D by every road.
for flags in -DUSE_TASKS -Wp,-DUSE_TASKS "-Xpreprocessor -DUSE_TASKS"; do
  # shellcheck disable=SC2086 # the flags are words
  "$DAGCC" --rewrite-only $flags -o tasks.c use_tasks.c
  grep -q __dag_body tasks.c || fail "$flags did not reach the rewriter"
done
DAG_CC="cc -DUSE_TASKS" "$DAGCC" --rewrite-only -o tasks.c use_tasks.c
grep -q __dag_body tasks.c || fail "DAG_CC's -D did not reach the rewriter"

# The compile command carries -D_DAG=202612 before the user's flags.
fake_dagcc -c -O2 use_tasks.c
has_line "$FAKE_LOG" -D_DAG=202612
fake_dagcc -c -U_DAG use_tasks.c
if grep -q -- -D_DAG "$FAKE_LOG"; then fail "-U_DAG, and dagcc defined it"; fi
tmp_empty
