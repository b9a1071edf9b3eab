#!/usr/bin/env bash
# --rewrite-only writes the rewritten source, not preprocessed: a file
# without pragmas comes out as it was, under a #line naming it (after the
# definition of _DAG that every output starts with); with -MD the
# dependencies of the output.
source "$(dirname "$0")/lib.sh"
cp "$SRC"/sum.c "$SRC"/twice.c "$SRC"/main_twice.c "$SRC"/bad_pragma.c .
inc=$("$DAGCC" --showme:compile)
read -r -a link < <("$DAGCC" --showme:link)

"$DAGCC" --rewrite-only -o twice.out.c twice.c
{ echo '#define _DAG 202612'; echo '#line 1 "twice.c"'; cat twice.c; } |
  cmp - twice.out.c || fail "twice.c was not copied as it is"
"$DAGCC" --rewrite-only twice.c | cmp - twice.out.c ||
  fail "standard output differs from -o"

"$DAGCC" --rewrite-only -o sum.out.c sum.c
cc "$inc" -o sum sum.out.c "${link[@]}"
[ "$(./sum)" = 55 ] || fail "the rewritten sum.c printed $(./sum)"

"$DAGCC" --rewrite-only -MD -o dep.out.c sum.c
grep -q '^dep\.out\.c: sum\.c' dep.out.d || fail "dep.out.d: $(cat dep.out.d)"

expect_status 1 "$DAGCC" --rewrite-only -o bad.out.c bad_pragma.c
[ ! -e bad.out.c ] || fail "a failed rewrite left its output"
expect_status 1 "$DAGCC" --rewrite-only sum.c twice.c

# An output that is not a regular file (think /dev/null) is never removed.
mkfifo pipe
cat pipe >/dev/null &
expect_status 1 "$DAGCC" --rewrite-only -o pipe bad_pragma.c
wait
[ -p pipe ] || fail "a failed rewrite removed the pipe it wrote to"
tmp_empty
