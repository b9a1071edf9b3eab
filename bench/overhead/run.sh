#!/bin/sh
# run.sh — the overhead benchmark's driver, copied by CMake to
# <build>/bench/overhead/run-overhead. It runs each overhead_<runtime> binary
# found next to it in a process of its own, all with the same thread count
# (OMP_NUM_THREADS = DAG_NUM_THREADS = STARPU_NCPU = --threads), then prints
# one table: microseconds per task per pattern and runtime, the ratio
# runtime/dag, and the peak RSS growth per task of pattern (a). With
# --json FILE it appends the binaries' records (JSON Lines) to FILE.
set -eu

usage() {
  cat <<EOF
usage: run-overhead [--json FILE] [--threads N] [--pattern a|b|c|d|all]
                    [--reps N] [--quick]
                    [--runtimes "dag dag-noinline gomp libomp starpu"]
  --json FILE   append one JSON object per line per result to FILE
  --threads N   threads that run tasks in every runtime (default 2)
  --pattern P   'all' (default) or letters among abcd
  --reps N      repetitions per pattern, the best is kept (default 5)
  --quick       1/100 of the tasks, 1 repetition (smoke test)
  --runtimes L  the runtimes to run, in this order (default: all five;
                dag-noinline is dag with DAG_INLINE=0: no task runs in the
                submitting thread). A peer runs as each of its variants
                (../peers.sh: OpenMP at its default wait policy and
                active, StarPU under
                each scheduler), its cell the best of them; a variant
                named (starpu_lws) runs alone
Environment: OMP_*, DAG_* or STARPU_* settings pass through to the
runtimes; OpenMP binds its threads (OMP_PROC_BIND=close OMP_PLACES=cores,
../peers.sh) unless they say.
EOF
}

here=$(cd "$(dirname "$0")" && pwd) runner=run-overhead
# shellcheck source=bench/runner.sh
. "$here/../runner.sh"
threads=2 pattern=all reps='' quick=''
runtimes="dag dag-noinline gomp libomp starpu"
runner_options "$@" <<'EOF'
a file: json
a number: threads reps
a value: pattern
a list: runtimes
--quick: quick=--quick
EOF

# StarPU keeps what it learns under $STARPU_HOME: the temporary directory,
# not $HOME.
runner_threads "$threads"
export STARPU_HOME="$tmp"
one=$tmp/one
bin_of() { echo "$here/overhead_${1%-noinline}"; }
ran=$(runner_variants bin_of "$runtimes")
for v in $ran; do
  # dag-noinline: dag with every task deferred (DAG_INLINE=0), beside dag
  # running tiny ready tasks in the submitting thread, which its peers do
  # not do in these patterns. A peer's variant: its settings (peers.sh).
  peer_variant "$v"
  rt=$variant_base inline=1
  [ "$rt" = dag-noinline ] && inline=0
  : >"$one"
  # shellcheck disable=SC2086 # settings and $quick are words
  env $variant_env DAG_INLINE=$inline "$(bin_of "$rt")" --pattern "$pattern" \
    --threads "$threads" --json "$one" ${reps:+--reps "$reps"} $quick ||
    echo "$runner: $v failed (exit $?)" >&2
  sed "s/\"runtime\":\"${rt%-noinline}\"/\"runtime\":\"$rt\",\"variant\":\"$v\"/" \
    "$one" >>"$records"
done
echo

# The table, from the records: one row per metric, one column per runtime.
awk -v order="$runtimes" "$awklib"'
{
  rt = str("runtime"); m = str("metric"); v = str("variant")
  tasks[m] = num("tasks"); seen[rt] = 1; tried[rt, v] = 1
  if (beats(num("value"), val, rt SUBSEP m, 1)) { # the best variant
    val[rt, m] = num("value"); won[rt, m] = v
  }
  reps = num("reps"); threads = num("threads")
  if (str("config") != "") config[rt] = str("config")
}
END {
  if (!NR) { print "run-overhead: no results"; exit 1 }
  n = columns(order, seen, col)
  nm = split("a_us_per_task b_us_per_task c_us_per_task d_us_per_task " \
             "a_rss_bytes_per_task", metrics, " ")
  label["a_us_per_task"] = "a independent"
  label["b_us_per_task"] = "b chain"
  label["c_us_per_task"] = "c chains"
  label["d_us_per_task"] = "d fanout"
  label["a_rss_bytes_per_task"] = "a RSS growth"
  printf "overhead: per task, best of %d, %d threads; " \
         "(x) = time / dag time\n", reps, threads
  printf "%-15s %8s %-5s", "pattern", "tasks", "unit"
  for (j = 1; j <= n; j++) printf " %17s", col[j]
  printf "\n"
  for (i = 1; i <= nm; i++) {
    m = metrics[i]
    if (!(m in tasks)) continue
    printf "%-15s %8d %-5s", label[m], tasks[m], m ~ /rss/ ? "B" : "us"
    for (j = 1; j <= n; j++) {
      rt = col[j]
      if (!((rt, m) in val)) { printf " %17s", "-"; continue }
      ref = rt != "dag" && m !~ /rss/ && ("dag", m) in val ? val["dag", m] : 0
      printf " %17s", cell_of(val[rt, m], ref, m ~ /rss/ ? "%.1f" : "%.3f")
    }
    printf "\n"
  }
  say_variants(col, n)
}' "$records"
peers_config "$ran"
runner_finish
