#!/usr/bin/env bash
# Rewritten files are removed after success, errors and signals; --keep and
# DAG_KEEP_TEMPS=1 keep them and name them on stderr.
source "$(dirname "$0")/lib.sh"
cp "$SRC"/sum.c "$SRC"/bad_task.c "$SRC"/bad_pragma.c .

"$DAGCC" -o prog sum.c
tmp_empty
"$DAGCC" -c bad_task.c 2>/dev/null && fail "bad_task.c compiled"
tmp_empty
"$DAGCC" -c bad_pragma.c 2>/dev/null && fail "bad_pragma.c compiled"
tmp_empty
DAG_KEEP_TEMPS=0 "$DAGCC" -c sum.c
tmp_empty

# Kept: named on stderr, inside TMPDIR, and compilable C.
for keep in --keep DAG_KEEP_TEMPS=1; do
  if [ "$keep" = --keep ]; then
    "$DAGCC" --keep -c sum.c 2>"$ROOT/err"
  else
    DAG_KEEP_TEMPS=1 "$DAGCC" -c sum.c 2>"$ROOT/err"
  fi
  kept=$(sed -n "s/^dagcc: note: kept the rewritten 'sum\.c' in '\(.*\)'$/\1/p" "$ROOT/err")
  [ -n "$kept" ] && [ -f "$kept" ] || fail "$keep: $(cat "$ROOT/err")"
  case $kept in "$TMPDIR"/sum-*.c) ;; *) fail "$keep kept $kept" ;; esac
  rm -f "$kept"
done
tmp_empty

# A signal while the compiler runs: dagcc passes it on and cleans up.
for sig in TERM HUP; do
  rm -f "$FAKE_LOG"
  DAG_CC=$SRC/fake-cc FAKE_SLEEP=60 "$DAGCC" -c sum.c &
  pid=$!
  for _ in $(seq 200); do [ -s "$FAKE_LOG" ] && break; sleep 0.05; done
  [ -s "$FAKE_LOG" ] || fail "the compiler did not start"
  [ -n "$(ls -A "$TMPDIR")" ] || fail "no rewritten file while compiling"
  compiler=$(pgrep -P $pid)
  kill -$sig $pid
  status=0
  wait $pid || status=$?
  [ $status -gt 128 ] || fail "dagcc exited $status after SIG$sig"
  tmp_empty
  if kill -0 "$compiler" 2>/dev/null; then
    fail "the compiler outlived SIG$sig"
  fi
done
exit 0
