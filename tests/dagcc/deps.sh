#!/usr/bin/env bash
# Dependency output (-M, -MD, -MMD, -MF, -MT) names the user's file and the
# object named after it, never the temporary.
source "$(dirname "$0")/lib.sh"
cp "$SRC"/sum.c .
spaced_copy

no_tmp() { # file
  if grep -qF "$TMPDIR" "$1"; then fail "$1 names a temporary: $(cat "$1")"; fi
}

"$DAGCC" -MD -c sum.c
grep -q '^sum\.o: sum\.c' sum.d || fail "sum.d: $(cat sum.d)"
no_tmp sum.d

mkdir out
"$DAGCC" -MMD -MT obj -MF out/deps.d -c sum.c -o out/sum.o
grep -q '^obj: sum\.c' out/deps.d || fail "deps.d: $(cat out/deps.d)"
no_tmp out/deps.d

"$DAGCC" -M sum.c >stdout.d
grep -q '^sum\.o: sum\.c' stdout.d || fail "-M: $(cat stdout.d)"
no_tmp stdout.d
"$DAGCC" -MM sum.c -o mm.d
grep -q '^sum\.o: sum\.c' mm.d || fail "-MM -o: $(cat mm.d)"
no_tmp mm.d

"$DAGCC" -D'MSG="x"' -MD -c "space dir/my file.c"
grep -qF 'my\ file.o: space\ dir/my\ file.c' "my file.d" ||
  fail "my file.d: $(cat "my file.d")"
no_tmp "my file.d"
tmp_empty
