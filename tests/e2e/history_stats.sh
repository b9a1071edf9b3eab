#!/bin/sh
# history_stats.sh PROGRAM [ARGS...] — DAG_STATS says whether a run had
# measured times to start from, and where they are kept: a first run (no
# file yet) says so and writes the file; the next one reads it; with
# DAG_HISTORY=off it says none is kept. PROGRAM runs on a device
# (DAG_DEVICES in the environment).
set -u
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
file="$dir/times.history"
expect() { # WHAT OUTPUT
  if ! grep -q "$1" "$2"; then
    echo "history_stats: expected '$1' in:" >&2
    cat "$2" >&2
    exit 1
  fi
}
DAG_STATS=1 DAG_HISTORY="$file" "$@" >"$dir/out" 2>&1 || exit 1
expect "stats: history: a first run, with no measured times .* written to $file" "$dir/out"
test -s "$file" || { echo "history_stats: $file not written" >&2; exit 1; }
DAG_STATS=1 DAG_HISTORY="$file" "$@" >"$dir/out" 2>&1 || exit 1
expect "stats: history: [1-9][0-9]* measured times read from $file" "$dir/out"
DAG_STATS=1 DAG_HISTORY=off "$@" >"$dir/out" 2>&1 || exit 1
expect "stats: history: none kept (DAG_HISTORY=off)" "$dir/out"
