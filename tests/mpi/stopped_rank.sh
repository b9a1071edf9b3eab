#!/bin/sh
# stopped_rank.sh: a rank stopped (SIGSTOP) in the middle of a distributed
# Cholesky must not hang the run. With DAG_WATCHDOG=1,END the other ranks
# end it, non-zero, within END + 5 seconds of the stop, naming the stopped
# rank.
#
#   stopped_rank.sh END LAUNCHER... -- PROGRAM [ARG...]
#
# PROGRAM must print "factors" (on any stream) on each rank when its
# distributed part begins; rank 1 is stopped then. Passes when the launcher
# exits non-zero within the limit and the output names rank 1 as the one
# that does not answer.
set -u
end=$1
shift
launcher=''
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  launcher="$launcher $1"
  shift
done
shift
prog=$1
out=$(mktemp)
victim=''
cleanup() {
  [ -n "$victim" ] && kill -KILL "$victim" 2>/dev/null
  rm -f "$out"
}
trap cleanup EXIT

DAG_WATCHDOG=1,$end $launcher "$@" >"$out" 2>&1 &
job=$!

# Rank 1's process, once the ranks factor.
tries=0
while [ -z "$victim" ] && [ $tries -lt 600 ]; do
  tries=$((tries + 1))
  sleep 0.1
  grep -q factors "$out" || continue
  for pid in $(pgrep -f "$prog"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null |
      grep -qx 'OMPI_COMM_WORLD_RANK=1'; then
      victim=$pid
    fi
  done
done
if [ -z "$victim" ]; then
  echo "stopped_rank: FAILED: rank 1 never started factoring"
  cat "$out"
  kill -KILL $job 2>/dev/null
  exit 1
fi
kill -STOP "$victim"
stopped=$(date +%s.%N)

# The run must end by itself; after twice the limit it hangs.
limit=$((end + 5))
waited=0
while kill -0 $job 2>/dev/null && [ $waited -lt $((20 * limit)) ]; do
  sleep 0.1
  waited=$((waited + 1))
done
if kill -0 $job 2>/dev/null; then
  echo "stopped_rank: FAILED: the run hung ($((2 * limit)) s after the stop)"
  kill -KILL $job
  cat "$out"
  exit 1
fi
wait $job
status=$?
took=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $stopped }")

fail=0
if [ $status -eq 0 ]; then
  echo "stopped_rank: FAILED: the run exited with status 0"
  fail=1
fi
if awk "BEGIN { exit !($took > $limit) }"; then
  echo "stopped_rank: FAILED: the run ended $took s after the stop (limit $limit s)"
  fail=1
fi
if ! grep -q "watchdog: rank 1 does not answer" "$out"; then
  echo "stopped_rank: FAILED: no message names rank 1 as stopped"
  fail=1
fi
echo "stopped_rank: rank 1 (pid $victim) stopped; the run ended $took s later with status $status"
cat "$out"
exit $fail
