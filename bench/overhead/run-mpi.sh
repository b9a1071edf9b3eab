#!/bin/sh
# run-mpi.sh — copied by CMake to <build>/bench/overhead/run-overhead-mpi.
# Runs the overhead patterns on dag_alloc memory (overhead_dag_dist) under
# mpiexec on 1 rank and on N ranks, and prints per pattern the microseconds
# per task (wall time over every task the program submits) and the ratio to
# 1 rank. No task moves data: what more ranks add is each rank planning
# every task. By default the cores are split evenly among the ranks (1 rank
# gets them all); --threads N gives every rank N workers in both runs, which
# leaves the planning as the only difference. With --json FILE it appends
# the records (JSON Lines; "config" names the rank count).
set -eu

usage() {
  cat <<EOF
usage: run-overhead-mpi [--json FILE] [--ranks N] [--cores N] [--threads N]
                        [--reps N] [--pattern a|b|c|d|all] [--quick]
  --ranks N    the ranks to compare with 1 (default 2)
  --cores N    cores to split among the ranks (default: nproc)
  --threads N  workers per rank in both runs (default: the split cores)
  --reps N     repetitions per pattern, the best is kept (default 5)
  --pattern P  'all' (default) or letters among abcd
  --quick      1/100 of the tasks, 1 repetition (smoke test)
EOF
}

here=$(cd "$(dirname "$0")" && pwd)
json='' ranks=2 cores=$(nproc) per_rank='' reps=5 pattern=all quick=''
while [ $# -gt 0 ]; do
  case $1 in
  --json) json=${2:?--json needs a file}; shift ;;
  --ranks) ranks=${2:?--ranks needs a number}; shift ;;
  --cores) cores=${2:?--cores needs a number}; shift ;;
  --threads) per_rank=${2:?--threads needs a number}; shift ;;
  --reps) reps=${2:?--reps needs a number}; shift ;;
  --pattern) pattern=${2:?--pattern needs a value}; shift ;;
  --quick) quick=--quick ;;
  -h | --help) usage; exit 0 ;;
  *) echo "run-overhead-mpi: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in 1 "$ranks"; do
  threads=${per_rank:-$((cores / n > 0 ? cores / n : 1))}
  set -- --threads "$threads" --reps "$reps" --pattern "$pattern" $quick
  if [ -n "$json" ]; then set -- "$@" --json "$json"; fi
  mpiexec --oversubscribe -n "$n" "$here/overhead_dag_dist" "$@" >"$tmp/$n"
done

printf '%-3s %-12s %14s %14s %8s\n' '' pattern "1 rank us/task" \
  "$ranks ranks" ratio
grep 'us/task' "$tmp/1" | while read -r _ letter what _ _ us _; do
  many=$(grep " $letter $what .*us/task" "$tmp/$ranks" | awk '{print $6}')
  ratio=$(awk -v a="$many" -v b="$us" 'BEGIN { printf "%.2f", a / b }')
  printf '%-3s %-12s %14s %14s %7sx\n' "$letter" "$what" "$us" "$many" "$ratio"
done
