#!/bin/sh
# run-mpi.sh — copied by CMake to <build>/bench/overhead/run-overhead-mpi.
# Runs the overhead patterns on dag_alloc memory (overhead_dag_dist) under
# mpiexec on 1 rank and on N ranks, and prints per pattern the microseconds
# per task (wall time over every task the program submits) and the ratio to
# 1 rank. No task moves data: what more ranks add is each rank planning
# every task. By default the cores are split evenly among the ranks (1 rank
# gets them all); --threads N gives every rank N workers in both runs, which
# leaves the planning as the only difference. The two runs alternate for a
# few rounds and each keeps its best: the machines this runs on drift by
# half over seconds, longer than one run. With --json FILE it appends the
# best records (JSON Lines; "config" names the rank count).
set -eu

usage() {
  cat <<EOF
usage: run-overhead-mpi [--json FILE] [--ranks N] [--cores N] [--threads N]
                        [--reps N] [--rounds N] [--pattern a|b|c|d|all]
                        [--quick]
  --ranks N    the ranks to compare with 1 (default 2)
  --cores N    cores to split among the ranks (default: nproc)
  --threads N  workers per rank in both runs (default: the split cores)
  --reps N     repetitions per pattern in one run (default 5)
  --rounds N   runs of each, alternating, the best is kept (default 5)
  --pattern P  'all' (default) or letters among abcd
  --quick      1/100 of the tasks, 1 repetition (smoke test)
EOF
}

here=$(cd "$(dirname "$0")" && pwd) runner=run-overhead-mpi
# shellcheck source=bench/runner.sh
. "$here/../runner.sh" # Open MPI as root (peers.sh)
ranks=2 cores=$(nproc) threads='' reps=5 rounds=5 pattern=all quick=''
runner_options "$@" <<'EOF'
a file: json
a number: ranks cores threads reps rounds
a value: pattern
--quick: quick=--quick rounds=1
EOF

round=0
while [ "$round" -lt "$rounds" ]; do
  round=$((round + 1))
  for n in 1 "$ranks"; do
    workers=${threads:-$((cores / n > 0 ? cores / n : 1))}
    # shellcheck disable=SC2086 # $quick is a word or none
    mpiexec --oversubscribe -n "$n" "$here/overhead_dag_dist" \
      --threads "$workers" --reps "$reps" --pattern "$pattern" $quick \
      --json "$records" >/dev/null
  done
done

# The best record of each metric and rank count (to $tmp/best), and the
# table from them.
plural=''
[ "$ranks" -gt 1 ] && plural=s
many_config="$ranks rank$plural"
awk -v many="$many_config" -v ranks="$ranks" -v rounds="$rounds" \
  -v best_file="$tmp/best" "$awklib"'
{
  k = str("config") SUBSEP str("metric")
  if (beats(num("value"), best, k, 1)) { best[k] = num("value"); line[k] = $0 }
}
END {
  for (k in line) {
    print line[k] >best_file
    split(k, key, SUBSEP)
    if (key[2] ~ /_us_per_task$/) val[key[1], substr(key[2], 1, 1)] = best[k]
  }
  split("a independent,b chain,c chains,d fanout", label, ",")
  printf "per task, best of %d alternating runs\n", rounds
  printf "%-3s %-12s %14s %14s %8s\n", "", "pattern", "1 rank us/task", ranks " ranks", "ratio"
  for (i = 1; i <= 4; i++) {
    p = substr(label[i], 1, 1)
    if (!(("1 rank", p) in val) || !((many, p) in val)) continue
    one = val["1 rank", p]; n = val[many, p]
    printf "%-3s %-12s %14.4f %14.4f %7.2fx\n", p, substr(label[i], 3), one, n, n / one
  }
}' "$records"
if [ -n "$json" ]; then sort "$tmp/best" >>"$json"; fi
