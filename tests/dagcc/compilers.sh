#!/usr/bin/env bash
# DAG_CC picks the compiler (words split at blanks); without mpicc on PATH
# dagcc uses cc, saying so only under -v; -v prints the commands. The
# rewriter sees the compiler's own headers and is spared its own options.
source "$(dirname "$0")/lib.sh"
cp "$SRC"/sum.c "$SRC"/omp.c .

DAG_CC=gcc "$DAGCC" -o with-gcc sum.c
[ "$(./with-gcc)" = 55 ] || fail "with-gcc printed $(./with-gcc)"
DAG_CC="gcc -O1" "$DAGCC" -v -o with-flags sum.c 2>"$ROOT/err"
grep -q '^gcc -O1 .* -ldag' "$ROOT/err" || fail "-v: $(cat "$ROOT/err")"
[ "$(./with-flags)" = 55 ] || fail "with-flags printed $(./with-flags)"

# gcc's omp.h, and an optimisation option that only gcc knows.
"$DAGCC" -fopenmp -fipa-pta -o omp omp.c
[ "$(./omp)" = 1 ] || fail "omp printed $(./omp)"

# The default is mpicc.
fake_out=$("$DAGCC" --showme -c sum.c)
grep -q '^mpicc ' <<<"$fake_out" || fail "default compiler: $fake_out"

# A PATH with cc and the tools it needs, but no mpicc.
mkdir bin
for tool in cc as ld; do ln -s "$(command -v $tool)" bin/$tool; done
PATH=$PWD/bin "$DAGCC" -o fallback sum.c 2>"$ROOT/err"
if grep -q '^dagcc:' "$ROOT/err"; then
  fail "fallback said something without -v: $(cat "$ROOT/err")"
fi
[ "$(./fallback)" = 55 ] || fail "fallback printed $(./fallback)"
PATH=$PWD/bin "$DAGCC" -v -c sum.c 2>"$ROOT/err"
grep -q "'mpicc' is not on PATH, using 'cc'" "$ROOT/err" ||
  fail "no note under -v: $(cat "$ROOT/err")"
tmp_empty
