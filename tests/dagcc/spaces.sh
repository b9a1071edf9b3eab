#!/usr/bin/env bash
# Arguments with spaces and quotes reach the compiler as they were given.
source "$(dirname "$0")/lib.sh"
spaced_copy

"$DAGCC" -D'MSG="hello world"' -o "my prog" "space dir/my file.c"
[ "$(./"my prog")" = "hello world 55 7" ] || fail "my prog printed $(./"my prog")"
"$DAGCC" -D'MSG="hi"' -c "space dir/my file.c"
[ -f "my file.o" ] || fail "-c wrote $(ls)"
tmp_empty

fake_dagcc -D'MSG="a  b"' -I "inc dir" -c "space dir/my file.c" -o "out file.o"
has_line "$FAKE_LOG" '-DMSG="a  b"'
has_line "$FAKE_LOG" "inc dir"
has_line "$FAKE_LOG" "out file.o"
has_line "$FAKE_LOG" "space dir"
