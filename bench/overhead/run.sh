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

here=$(cd "$(dirname "$0")" && pwd)
awklib=$(cat "$here/../runner.awk") # str(), num(), say_variants()
# shellcheck source=bench/peers.sh
. "$here/../peers.sh"
json='' threads=2 pattern=all reps='' quick=''
runtimes="dag dag-noinline gomp libomp starpu"
while [ $# -gt 0 ]; do
  case $1 in
  --json) json=${2:?--json needs a file}; shift ;;
  --threads) threads=${2:?--threads needs a number}; shift ;;
  --pattern) pattern=${2:?--pattern needs a value}; shift ;;
  --reps) reps="--reps ${2:?--reps needs a number}"; shift ;;
  --quick) quick=--quick ;;
  --runtimes) runtimes=${2:?--runtimes needs a list}; shift ;;
  -h | --help) usage; exit 0 ;;
  *) echo "run-overhead: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

export OMP_NUM_THREADS="$threads" DAG_NUM_THREADS="$threads"
export STARPU_NCPU="$threads"

# StarPU keeps what it learns under $STARPU_HOME: a temporary directory, not
# $HOME.
records=$(mktemp) one=$(mktemp) STARPU_HOME=$(mktemp -d)
export STARPU_HOME
trap 'rm -rf "$records" "$one" "$STARPU_HOME"' EXIT
variants='' ran=''
for rt in $runtimes; do
  variants="$variants $(peer_variants "$rt")"
done
for v in $variants; do
  # dag-noinline: dag with every task deferred (DAG_INLINE=0), beside dag
  # running tiny ready tasks in the submitting thread, which its peers do
  # not do in these patterns. A peer's variant: its settings (peers.sh).
  peer_variant "$v"
  rt=$variant_base bin=$here/overhead_${variant_base%-noinline} inline=1
  [ "$rt" = dag-noinline ] && inline=0
  if [ ! -x "$bin" ]; then
    echo "run-overhead: $v: $bin not built, skipped" >&2
    continue
  fi
  : >"$one" && ran="$ran $v"
  # shellcheck disable=SC2086 # settings, $reps and $quick are words
  env $variant_env DAG_INLINE=$inline "$bin" --pattern "$pattern" \
    --threads "$threads" --json "$one" $reps $quick ||
    echo "run-overhead: $v failed (exit $?)" >&2
  sed "s/\"runtime\":\"${rt%-noinline}\"/\"runtime\":\"$rt\",\"variant\":\"$v\"/" \
    "$one" >>"$records"
done
echo

# The table, from the records: one row per metric, one column per runtime.
awk -v order="$runtimes" "$awklib"'
{
  rt = str("runtime"); m = str("metric"); v = str("variant")
  tasks[m] = num("tasks"); seen[rt] = 1; tried[rt, v] = 1
  if (!((rt, m) in val) || num("value") < val[rt, m]) { # the best variant
    val[rt, m] = num("value"); won[rt, m] = v
  }
  reps = num("reps"); threads = num("threads")
  if (str("config") != "") config[rt] = str("config")
}
END {
  if (!NR) { print "run-overhead: no results"; exit 1 }
  n = 0
  split(order, all, " ")
  for (i = 1; i in all; i++) {
    sub(/_.*/, "", all[i]) # starpu_lws: starpu
    if (all[i] in seen && !(all[i] in taken)) {
      col[++n] = all[i]; taken[all[i]] = 1
    }
  }
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
      v = val[rt, m]
      cell = sprintf(m ~ /rss/ ? "%.1f" : "%.3f", v)
      if (rt != "dag" && m !~ /rss/ && ("dag", m) in val && val["dag", m] > 0)
        cell = sprintf("%s (%.2fx)", cell, v / val["dag", m])
      printf " %17s", cell
    }
    printf "\n"
  }
  say_variants(col, n)
}' "$records"
peers_config "$ran"

if [ -n "$json" ]; then
  cat "$records" >>"$json"
fi
