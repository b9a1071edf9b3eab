#!/usr/bin/env bash
# compare.sh — end-to-end check of a pragma program: the build with dagcc
# must print exactly what the build with plain cc (pragmas ignored, so the
# sequential program) prints, whatever the number of threads.
#
#   compare.sh [--drop FIELD]... [--threads "1 2 4"] [--repeat N]
#              SERIAL DAG [ARG...]
#
# Runs `SERIAL ARG...` once, then `DAG ARG...` with DAG_NUM_THREADS set to
# each count in --threads (default "1 2"), N times each (default 1; more
# runs give a missing dependency more chances to show). Each run must exit
# 0 and print something. Before comparing, lines that start with "time:" are dropped,
# and so is every `FIELD=value` word named by --drop (e.g. --drop time
# removes " time=0.123"). Any difference fails the test, with a diff.
set -u

drops=()
threads="1 2"
repeat=1
while [ $# -gt 0 ]; do
  case "$1" in
  --drop) drops+=("$2"); shift 2 ;;
  --threads) threads="$2"; shift 2 ;;
  --repeat) repeat="$2"; shift 2 ;;
  --) shift; break ;;
  -*) echo "compare.sh: unknown option '$1'" >&2; exit 2 ;;
  *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "usage: compare.sh [--drop FIELD]... [--threads LIST] [--repeat N]" \
    "SERIAL DAG [ARG...]" >&2
  exit 2
fi
serial="$1" dag="$2"
shift 2
for exe in "$serial" "$dag"; do
  if [ ! -x "$exe" ]; then
    echo "compare.sh: FAIL: '$exe' is not built (build the samples first)" >&2
    exit 1
  fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/dag-e2e.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# The comparable part of an output: no time: lines, no dropped fields.
filter() {
  local sed_args=(-e '/^time:/d')
  local f
  for f in "${drops[@]+"${drops[@]}"}"; do
    sed_args+=(-E -e "s/(^|[[:space:]])${f}=[^[:space:]]*//g")
  done
  sed "${sed_args[@]}" "$1"
}

# run NAME EXE env [VAR=value]: runs EXE with the arguments under env,
# leaves its output in $work/NAME.raw and the comparable part in
# $work/NAME.out, and says how long it took.
run() {
  local name="$1" exe="$2"
  shift 2
  local start end rc
  start=$(date +%s.%N)
  "$@" "$exe" "${args[@]+"${args[@]}"}" >"$work/$name.raw" 2>"$work/$name.err"
  rc=$?
  end=$(date +%s.%N)
  if [ $rc -ne 0 ]; then
    echo "compare.sh: FAIL: $name exited with status $rc: $exe ${args[*]-}"
    sed 's/^/  stdout: /' "$work/$name.raw"
    sed 's/^/  stderr: /' "$work/$name.err"
    exit 1
  fi
  filter "$work/$name.raw" >"$work/$name.out"
  if [ ! -s "$work/$name.out" ]; then
    echo "compare.sh: FAIL: $name printed no result: $exe ${args[*]-}"
    exit 1
  fi
  printf 'compare.sh: %-22s %5.2f s  %s\n' "$name" \
    "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" \
    "$(grep -m1 '^time:' "$work/$name.raw")"
}

args=("$@")
run serial "$serial" env
echo "compare.sh: expected output (serial build, pragmas ignored):"
sed 's/^/  | /' "$work/serial.out"
status=0
for t in $threads; do
  for ((r = 1; r <= repeat; r++)); do
    name="dag-threads-$t"
    [ "$repeat" -gt 1 ] && name="$name-run-$r"
    run "$name" "$dag" env DAG_NUM_THREADS="$t"
    if ! cmp -s "$work/serial.out" "$work/$name.out"; then
      echo "compare.sh: FAIL: with DAG_NUM_THREADS=$t (run $r) the dagcc" \
        "build prints something else than the serial build:"
      diff -u --label "serial: $serial" --label "dagcc, $t threads: $dag" \
        "$work/serial.out" "$work/$name.out"
      status=1
    fi
  done
done
if [ $status -eq 0 ]; then
  echo "compare.sh: ok: identical output with DAG_NUM_THREADS in {$threads}," \
    "$repeat run(s) each"
fi
exit $status
