#!/usr/bin/env bash
# The compiler's exit status is dagcc's; its messages name the user's file;
# rewriter errors stop dagcc before the compiler runs.
source "$(dirname "$0")/lib.sh"
cp "$SRC"/bad.c "$SRC"/bad_task.c "$SRC"/bad_pragma.c "$SRC"/sum.c \
  "$SRC"/twice.c .

# A C error in a file without pragmas: the compiler's failure and message.
expect_status 1 "$DAGCC" -c bad.c
grep -q '^bad\.c:4:' "$ROOT/err" || fail "no message on bad.c:4: $(cat "$ROOT/err")"
[ ! -e bad.o ] || fail "bad.o was written"

# A C error in a rewritten file: reported on the user's file, not on the
# temporary, whether the rewriter or the compiler finds it.
got=0
"$DAGCC" -c bad_task.c 2>"$ROOT/err" || got=$?
[ "$got" != 0 ] || fail "bad_task.c compiled"
grep -q '^bad_task\.c:8:' "$ROOT/err" ||
  fail "no message on bad_task.c:8: $(cat "$ROOT/err")"
if grep -qF "$TMPDIR" "$ROOT/err"; then
  fail "a message names the temporary: $(cat "$ROOT/err")"
fi

# Whatever the compiler returns, dagcc returns, rewritten or not.
FAKE_STATUS=7 expect_status 7 fake_dagcc -c twice.c
FAKE_STATUS=7 expect_status 7 fake_dagcc -c sum.c
FAKE_STATUS=0 expect_status 0 fake_dagcc -c sum.c

# A rewriter error: exit 1, a message on the user's file, no compiler.
expect_status 1 fake_dagcc -c bad_pragma.c
grep -q '^bad_pragma\.c:6:' "$ROOT/err" ||
  fail "no message on bad_pragma.c:6: $(cat "$ROOT/err")"
[ ! -e "$FAKE_LOG" ] || fail "the compiler ran after a rewriter error"

# Several files: like gcc, the others are still compiled after an error.
expect_status 1 "$DAGCC" -c bad.c twice.c
[ -e twice.o ] || fail "twice.o not compiled after bad.c failed"

# A compiler that cannot be run.
DAG_CC=/nonexistent/cc expect_status 127 "$DAGCC" -c twice.c
grep -q "cannot run '/nonexistent/cc'" "$ROOT/err" || fail "$(cat "$ROOT/err")"
tmp_empty
