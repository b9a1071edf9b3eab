#!/usr/bin/env bash
# Output names as gcc chooses them, for rewritten files too: -c, -S, -o,
# several files, a mix of .c and .o, -E; quoted includes next to the source.
source "$(dirname "$0")/lib.sh"
cp "$SRC"/sum.c "$SRC"/twice.c "$SRC"/main_twice.c .
mkdir sub && cp "$SRC"/sum.c sub/other.c

"$DAGCC" -c sum.c
[ -f sum.o ] || fail "-c sum.c wrote $(ls)"
"$DAGCC" -c sub/other.c
[ -f other.o ] || fail "-c sub/other.c wrote $(ls)"
"$DAGCC" -c sum.c -o custom.o
[ -f custom.o ] || fail "-o custom.o not written"
rm -f ./*.o
"$DAGCC" -c sum.c twice.c main_twice.c
for o in sum.o twice.o main_twice.o; do [ -f $o ] || fail "$o missing"; done
"$DAGCC" -S sum.c
[ -f sum.s ] || fail "-S sum.c wrote $(ls)"

# Link objects, then a mix of a rewritten source and objects.
"$DAGCC" -o from-objects sum.o twice.o
[ "$(./from-objects)" = 55 ] || fail "from-objects printed $(./from-objects)"
"$DAGCC" -o mixed sum.c twice.o
[ "$(./mixed)" = 55 ] || fail "mixed printed $(./mixed)"
"$DAGCC" sum.c
[ "$(./a.out)" = 55 ] || fail "a.out printed $(./a.out)"

# -o with -c and several files is an error, as with gcc.
expect_status 1 "$DAGCC" -c -o x.o sum.c twice.c
grep -q "cannot specify '-o'" "$ROOT/err" || fail "$(cat "$ROOT/err")"

# -E prints the rewritten, preprocessed source, with the user's file name.
"$DAGCC" -E sum.c >sum.i
grep -q '^# [0-9]* "sum\.c"' sum.i || fail "-E has no line marker for sum.c"
if grep -q 'pragma dag' sum.i; then fail "-E kept the dag pragmas"; fi
"$DAGCC" -E sum.c -o sum2.i
cmp -s sum.i sum2.i || [ -s sum2.i ] || fail "-E -o wrote nothing"

# `#include "local.h"` next to the source, compiled from elsewhere.
"$DAGCC" -o quote "$SRC/quote/task.c"
[ "$(./quote)" = 10 ] || fail "quote printed $(./quote)"
"$DAGCC" -c "$SRC/quote/task.c"
[ -f task.o ] || fail "-c quote/task.c wrote $(ls)"
tmp_empty
