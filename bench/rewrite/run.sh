#!/bin/sh
# run.sh — the rewriter's benchmark, copied by CMake to
# <build>/bench/rewrite/run-rewrite. It generates a C file of about --lines
# lines with --pragmas task pragmas (gen_source), then times, side by side
# in one run and best of --reps each:
#   syntax    clang -fsyntax-only on the file (the issue's yardstick)
#   rewrite   dagcc --rewrite-only: the rewriter alone (libclang parse,
#             analysis, emission)
#   cc        $CC -c on the file, pragmas ignored (what a plain build costs)
#   dagcc     dagcc -c on the file: rewrite, then the same compiler on the
#             rewritten file
# and prints each time with its ratio to syntax and to cc. With --json FILE
# it appends JSON records {"bench","runtime","metric","value","unit"}.
set -eu

usage() {
  cat <<EOF
usage: run-rewrite [--json FILE] [--lines N] [--pragmas N] [--reps N] [--cc CC]
  --json FILE   append one JSON object per line per result to FILE
  --lines N     lines of the generated file (default 5000)
  --pragmas N   task pragmas in it (default 200)
  --reps N      runs of each command, the best counts (default 5)
  --cc CC       the compiler for cc and under dagcc (default gcc)
EOF
}

here=$(cd "$(dirname "$0")" && pwd) runner=run-rewrite
# shellcheck source=bench/runner.sh
. "$here/../runner.sh"
lines=5000 pragmas=200 reps=5 cc=gcc
runner_options "$@" <<'EOF'
a file: json
a number: lines pragmas reps
a compiler: cc
EOF

dagcc=$here/../../tool/dagcc
src=$tmp/generated.c
"$here/gen_source" "$lines" "$pragmas" >"$src"
export DAG_CC="$cc"

# best NAME CMD...: runs CMD reps times, prints the best wall time (s).
best() {
  name=$1
  shift
  b=''
  i=0
  while [ $i -lt "$reps" ]; do
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>"$tmp/err" || {
      echo "$runner: $name failed:" >&2
      cat "$tmp/err" >&2
      exit 1
    }
    t1=$(date +%s.%N)
    b=$(echo "$t0 $t1 $b" |
      awk '{ t = $2 - $1; if ($3 != "" && $3 < t) t = $3; printf "%.4f", t }')
    i=$((i + 1))
  done
  echo "$b"
}

syntax=$(best syntax clang -fsyntax-only -w "$src")
rewrite=$(best rewrite "$dagcc" --rewrite-only -o "$tmp/rewritten.c" "$src")
plain=$(best cc "$cc" -c -w -o "$tmp/plain.o" "$src")
driver=$(best dagcc "$dagcc" -c -w -o "$tmp/dagcc.o" "$src")

printf 'file: %s lines, %s pragmas; best of %s; compiler %s\n' \
  "$(wc -l <"$src")" "$(grep -c '#pragma dag' "$src")" "$reps" "$cc"
printf '%-10s %8s %10s %10s\n' what seconds /syntax /cc
for row in "syntax $syntax" "rewrite $rewrite" "cc $plain" "dagcc $driver"; do
  # shellcheck disable=SC2086 # a row is words
  set -- $row
  echo "$1 $2 $syntax $plain" |
    awk '{ printf "%-10s %8.4f %10.2f %10.2f\n", $1, $2, $2 / $3, $2 / $4 }'
  record rewrite "$1" seconds "$2" s \
    "\"lines\":$lines,\"pragmas\":$pragmas,\"cc\":\"$cc\"" >>"$records"
done
runner_finish
