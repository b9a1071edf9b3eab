#!/bin/sh
# commutative_hops.sh GROUPS FLUSHES COMMAND [ARG...]: runs COMMAND
# (mpiexec ... mpi_commutative) with DAG_STATS on and passes when it exits 0
# and the ranks sent at most (GROUPS + FLUSHES) * (R - 1) messages in all
# (R ranks): R - 1 hops for each of the GROUPS groups of commutative tasks
# (one per rank, starting on a rank that holds the data), and R - 1 copies
# for each of the FLUSHES items a taskwait brings back to every rank.
# Planned task by task, a group's data made one hop per task.
groups=$1 flushes=$2
shift 2
out=$(DAG_STATS=1 "$@" 2>&1)
status=$?
echo "$out"
if [ "$status" -ne 0 ]; then
  echo "commutative_hops.sh: exit status $status"
  exit 1
fi
echo "$out" | awk -v groups="$groups" -v flushes="$flushes" '
  / stats: rank [0-9]+ of [0-9]+: / {
    for (i = 1; i < NF; i++) {
      if ($i == "of" && $(i - 2) == "rank") ranks = $(i + 1) + 0
      if ($i == "sent") sent += $(i + 1)
    }
    lines++
  }
  / of 1: / { alone = 1 } # one rank prints no stats: nothing moves
  END {
    if (alone && lines == 0) exit 0
    if (lines == 0) { print "commutative_hops.sh: no stats"; exit 1 }
    most = (groups + flushes) * (ranks - 1)
    printf "commutative_hops.sh: %d messages on %d ranks, at most %d\n",
           sent, ranks, most
    exit sent <= most ? 0 : 1
  }'
