#!/usr/bin/env bash
# The rewriter's parse takes libclang's own headers (stdatomic.h, stddef.h,
# ...), and the compiler's only where libclang has none (gcc's quadmath.h,
# omp.h): gcc's <stdatomic.h>, which clang rejects, stays out, so C11
# atomics build whatever the compiler. The folder that holds the
# compiler's headers for the parse leaves nothing in TMPDIR.
source "$(dirname "$0")/lib.sh"
cp "$SRC"/../../e2e/atomic_tasks.c "$SRC"/quad.c .

gcc -Wno-unknown-pragmas -o atomic-serial atomic_tasks.c
want=$(./atomic-serial)
compilers=(mpicc gcc)
# clang is not wrapped with the sanitizer that libdag needs (lib.sh).
[ -z "$SANITIZE" ] && compilers+=(clang)
for cc in "${compilers[@]}"; do
  command -v "$cc" >/dev/null || continue
  DAG_CC=$cc "$DAGCC" -Wall -o "atomic-$cc" atomic_tasks.c 2>"$ROOT/err" ||
    fail "DAG_CC=$cc: $(cat "$ROOT/err")"
  [ ! -s "$ROOT/err" ] || fail "DAG_CC=$cc said: $(cat "$ROOT/err")"
  [ "$(./"atomic-$cc")" = "$want" ] ||
    fail "atomic-$cc printed $(./"atomic-$cc"), not $want"
done
tmp_empty

# A header only gcc has, found after libclang's own; also when TMPDIR
# cannot take the folder of links (--rewrite-only needs no temporary).
if [ -e "$(gcc -print-file-name=include)/quadmath.h" ]; then
  DAG_CC=gcc "$DAGCC" -fsyntax-only quad.c
  TMPDIR=$ROOT/missing DAG_CC=gcc "$DAGCC" --rewrite-only -o quad-rw.c quad.c
  grep -q __dag_body_0 quad-rw.c || fail "quad.c not rewritten: $(cat quad-rw.c)"
fi
tmp_empty
