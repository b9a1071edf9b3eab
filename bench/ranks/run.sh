#!/bin/sh
# run.sh — copied by CMake to <build>/bench/ranks/run-ranks. Runs `ranks`
# as rank 0 of a simulated run of N ranks (DAG_SIMULATE_RANKS) for N from
# 16 to 4096, and prints per N the submission cost per task on that rank,
# in the first pass over the tiles (cold) and in the second (warm), and the
# messages it plans in both (from DAG_STATS). With --json FILE it appends JSON
# records {"bench","runtime","metric","value","unit","ranks"}.
set -eu
here=$(cd "$(dirname "$0")" && pwd) runner=run-ranks
# shellcheck source=bench/runner.sh
. "$here/../runner.sh"
tiles=48 ranks="16 64 256 1024 4096"
while [ $# -gt 0 ]; do
  case $1 in
  --json) json=${2:?--json needs a file}; shift ;;
  --tiles) tiles=${2:?--tiles needs a number}; shift ;;
  --ranks) ranks=${2:?--ranks needs a list}; shift ;;
  *) echo "usage: run-ranks [--json FILE] [--tiles N] [--ranks \"16 64 ...\"]" >&2
     exit 2 ;;
  esac
  shift
done
printf '%8s %10s %14s %14s %10s %12s\n' ranks tasks "ns/task cold" "ns/task warm" \
  sent received
for n in $ranks; do
  out=$(DAG_SIMULATE_RANKS=$n DAG_STATS=1 DAG_NUM_THREADS=1 "$here/ranks" "$tiles" 2>&1)
  line=$(printf '%s\n' "$out" | grep '^ranks=')
  ns=$(printf '%s\n' "$line" | sed 's/.*submit_ns_per_task=\([0-9.]*\).*/\1/')
  warm=$(printf '%s\n' "$line" | sed 's/.*warm_ns_per_task=\([0-9.]*\).*/\1/')
  tasks=$(printf '%s\n' "$line" | sed 's/.*tasks=\([0-9]*\).*/\1/')
  sent=$(printf '%s\n' "$out" | sed -n 's/.*sent \([0-9]*\) messages.*/\1/p')
  recv=$(printf '%s\n' "$out" | sed -n 's/.*received \([0-9]*\) (.*/\1/p')
  printf '%8s %10s %14s %14s %10s %12s\n' "$n" "$tasks" "$ns" "$warm" "$sent" \
    "$recv"
  {
    record ranks dag submit_ns_per_task "$ns" ns "\"ranks\":$n"
    record ranks dag warm_submit_ns_per_task "$warm" ns "\"ranks\":$n"
    record ranks dag messages_planned "$((sent + recv))" messages "\"ranks\":$n"
  } >>"$records"
done
runner_finish
