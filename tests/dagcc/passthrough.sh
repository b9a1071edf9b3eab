#!/usr/bin/env bash
# A file without pragmas reaches the compiler untouched: its own name, the
# same object as plain gcc's.
source "$(dirname "$0")/lib.sh"
cp "$SRC"/twice.c "$SRC"/main_twice.c .

fake_dagcc -O2 -c twice.c
has_line "$FAKE_LOG" twice.c
has_line "$FAKE_LOG" -O2
if grep -qF "$TMPDIR" "$FAKE_LOG"; then fail "twice.c went through a temporary"; fi

DAG_CC=gcc "$DAGCC" -O2 -c twice.c -o via-dagcc.o
gcc -O2 -c twice.c -o via-gcc.o
cmp via-dagcc.o via-gcc.o || fail "dagcc's object differs from gcc's"

"$DAGCC" -O2 -o prog main_twice.c twice.c
[ "$(./prog)" = 42 ] || fail "prog printed $(./prog)"
tmp_empty
