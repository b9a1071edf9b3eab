#!/usr/bin/env bash
# -### and --showme print the commands and run nothing; --showme:compile and
# --showme:link print dag's flags.
source "$(dirname "$0")/lib.sh"
cp "$SRC"/sum.c "$SRC"/twice.c .

for opt in -### --showme; do
  fake_dagcc "$opt" -O2 -c sum.c twice.c >"$ROOT/out"
  [ ! -e "$FAKE_LOG" ] || fail "$opt ran the compiler"
  [ "$(ls)" = "$(printf 'sum.c\ntwice.c')" ] || fail "$opt wrote files: $(ls)"
  tmp_empty
  grep -q -- '--rewrite-only -O2 -o .*/sum-XXXXXX\.c sum\.c$' "$ROOT/out" ||
    fail "$opt shows no rewrite of sum.c: $(cat "$ROOT/out")"
  grep -q -- '-c .*/sum-XXXXXX\.c -o sum\.o$' "$ROOT/out" ||
    fail "$opt shows no compilation of sum.c: $(cat "$ROOT/out")"
done

# Linking shows libdag after the inputs.
fake_dagcc --showme -o 'my prog' sum.c twice.o -lm >"$ROOT/out"
[ ! -e "$FAKE_LOG" ] || fail "--showme ran the compiler"
grep -q -- "twice\.o -lm -o 'my prog' -L.* -ldag -Wl,-rpath," "$ROOT/out" ||
  fail "--showme link line: $(cat "$ROOT/out")"

# The flags point at dag.h and libdag.
inc=$("$DAGCC" --showme:compile)
[ -f "${inc#-I}/dag.h" ] || fail "--showme:compile: $inc"
read -r libflag ldag rpath < <("$DAGCC" --showme:link)
lib=${libflag#-L}
[ "$ldag" = -ldag ] && [ "$rpath" = "-Wl,-rpath,$lib" ] ||
  fail "--showme:link: $libflag $ldag $rpath"
ls "$lib"/libdag.* >/dev/null || fail "no libdag in $lib"
tmp_empty
