#!/bin/sh
# run.sh — the nested-task benchmark's driver, copied by CMake to
# <build>/bench/nested/run-nested. For each repetition, each kernel row and
# each thread count it runs every version's binary once, in a process of its
# own (DAG_NUM_THREADS = OMP_NUM_THREADS = the thread count, OpenMP's
# threads bound as ../peers.sh says; the serial versions once, with 1), the versions in an order that turns from one
# repetition to the next, so that a noisy spell of this shared machine hits
# them all alike. Every program checks its own result. Then it prints three
# tables from the JSON records: seconds (best of the repetitions); dag
# against the best OpenMP, against the OpenMP built by the same compiler,
# and the speedup of the last thread count over the first; peak RSS. With
# --json FILE it appends the records (JSON Lines) to FILE, failed runs as
# records with an "error". Exits non-zero if any run failed or was wrong.
set -eu

usage() {
  cat <<EOF
usage: run-nested [--json FILE] [--threads "1 2"] [--reps N]
                  [--kernels "fib nqueens ..."] [--row "KERNEL N C"]...
                  [--versions "serial serial-clang dag dag-noinline dag-clang
                               gomp gomp_active libomp libomp_active"]
                  [--timeout S] [--smoke]
  --json FILE   append one JSON object per run to FILE
  --threads L   thread counts for the parallel versions (default "1 2")
  --reps N      runs of each kernel x version x threads (default 3)
  --kernels L   only the rows of these kernels (default: all)
  --row R       run the row "KERNEL N C" (kernel, -n, -c) instead of the
                default rows; may be given several times
  --versions L  the versions to run, in this order (default: all nine;
                dag-noinline is dag with DAG_INLINE=0: no task runs in the
                submitting thread, as OpenMP's fib without cutoff defers;
                gomp_active and libomp_active are OpenMP with
                OMP_WAIT_POLICY=active, ../peers.sh)
  --timeout S   a run taking longer is killed and reported (default 120)
  --smoke       the dag version of every kernel at a tiny size, 1 and 2
                workers, once each: a check, not a measurement
Default rows (kernel, N, cutoff):
$(printf '%s\n' "$default_rows" | sed 's/^/  /')
EOF
}

default_rows='fib 42 20
fib 30 0
nqueens 15 3
sort 8388608 16384
strassen 1024 64
sparselu 40 64
tsp 18 3
uts 13 6
spawn 200000 5'
# shellcheck disable=SC2034 # --smoke's code reads it (runner_options)
smoke_rows='fib 27 12
fib 22 0
nqueens 11 3
sort 200000 4096
strassen 256 32
sparselu 12 16
tsp 12 3
uts 10 4
spawn 2000 5'

here=$(cd "$(dirname "$0")" && pwd) runner=run-nested
# shellcheck source=bench/runner.sh
. "$here/../runner.sh"
threads="1 2" reps=3 kernels='' row='' timeout=120
versions="serial serial-clang dag dag-noinline dag-clang gomp gomp_active"
versions="$versions libomp libomp_active"
runner_options "$@" <<'EOF'
a file: json
a list: threads kernels versions
a number: reps
"KERNEL N C": row+
seconds: timeout
--smoke: row=$smoke_rows versions=dag reps=1 threads="1 2" timeout=30
EOF
rows=${row:-$default_rows}
if [ -n "$kernels" ]; then
  rows=$(printf '%s\n' "$rows" | while read -r k n c; do
    case " $kernels " in *" $k "*) echo "$k $n $c" ;; esac
  done)
fi

one=$tmp/one

# The runs of one row: version:threads, the serial versions with 1 thread.
plan=''
for v in $versions; do
  case $v in
  serial*) plan="$plan $v:1" ;;
  *) for t in $threads; do plan="$plan $v:$t"; done ;;
  esac
done
for v in $versions; do
  peer_variant "${v%-noinline}"
  for k in $(printf '%s\n' "$rows" | awk '{ print $1 }' | sort -u); do
    [ -x "$here/nested_${k}_$variant_base" ] ||
      echo "$runner: $here/nested_${k}_$variant_base not built, skipped" >&2
  done
done

# run VERSION THREADS KERNEL N C: one process, its record appended.
run() {
  peer_variant "${1%-noinline}"
  bin=$here/nested_$3_$variant_base inline=1
  [ "$1" = dag-noinline ] && inline=0
  [ -x "$bin" ] || return 0
  rc=0
  : >"$one"
  # shellcheck disable=SC2086 # the settings are words
  out=$(env $variant_env DAG_INLINE=$inline DAG_NUM_THREADS=$2 \
        OMP_NUM_THREADS=$2 timeout -k 5 "$timeout" "$bin" -n "$4" -c "$5" \
        --json "$one" 2>&1 </dev/null) || rc=$?
  sed "s/\"version\":\"$variant_base\"/\"version\":\"$1\"/" "$one" \
    >>"$records"
  if [ "$rc" -eq 0 ]; then
    printf '%s\n' "$out"
    return 0
  fi
  case $rc in
  124 | 137) why="timeout" ;;
  1) why="wrong" ;;
  2) why="usage" ;;
  *) if [ "$rc" -gt 128 ]; then why="signal $((rc - 128))"; else why="exit $rc"; fi ;;
  esac
  echo "$runner: $3 -n $4 -c $5, $1 with $2 threads: FAILED ($why)" >&2
  printf '%s\n' "$out" | tail -n 5 | sed 's/^/  /' >&2
  printf '{"bench":"nested","version":"%s","kernel":"%s","size":%s,"cutoff":%s,"threads":%s,"error":"%s"}\n' \
    "$1" "$3" "$4" "$5" "$2" "$why" >>"$records"
  failed=$((failed + 1))
}

rep=0
while [ "$rep" -lt "$reps" ]; do
  rep=$((rep + 1))
  while read -r k n c; do
    [ -n "$k" ] || continue
    # This repetition's order: the plan turned by rep - 1 places.
    for vt in $(turned $((rep - 1)) "$plan"); do
      run "${vt%%:*}" "${vt##*:}" "$k" "$n" "$c"
    done
  done <<EOF
$rows
EOF
done
echo

awk -v versions="$versions" -v threads="$threads" -v reps="$reps" "$awklib"'
function cell(s) { return sprintf(" %12s", s) }
# The best seconds of version v with t threads on row r, as text.
function secs(r, v, t,   key) {
  key = r SUBSEP v SUBSEP t
  if (key in best) return sprintf("%.3f%s", best[key], (key in err) ? "!" : "")
  if (key in err) return err[key]
  return "-"
}
function has(r, v, t) { return (r SUBSEP v SUBSEP t) in best }
function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
# The best time of OpenMP runtime o (gomp, libomp: either wait policy) with
# t threads on row r, or -1.
function omp(r, o, t,   b) {
  b = -1
  if (has(r, o, t)) b = best[r, o, t]
  if (has(r, o "_active", t) && (b < 0 || best[r, o "_active", t] < b))
    b = best[r, o "_active", t]
  return b
}
function over(a, b) { return a >= 0 && b > 0 ? ratio(a, b) : "-" }
function time_of(r, v, t) { return has(r, v, t) ? best[r, v, t] : -1 }
# best time of (v, t) over best time of (w, u) on row r, as text.
function pair(r, v, t, w, u) {
  if (!has(r, v, t) || !has(r, w, u)) return "-"
  return ratio(best[r, v, t], best[r, w, u])
}
function head(title,   i) {
  printf "%s\n%-9s %9s %6s", title, "kernel", "n", "cutoff"
}
function rowlabel(r,   p) {
  split(r, p, SUBSEP)
  printf "%-9s %9s %6s", p[1], p[2], p[3]
}
{
  r = str("kernel") SUBSEP num("size") SUBSEP num("cutoff")
  if (!(r in seen)) { seen[r] = 1; order[++nr] = r }
  key = r SUBSEP str("version") SUBSEP num("threads")
  if (str("error") != "") {
    err[key] = str("error"); nerr++
    next
  }
  if (beats(num("seconds"), best, key, 1)) best[key] = num("seconds")
  if (num("peak_rss_kib") > rss[key]) rss[key] = num("peak_rss_kib")
}
END {
  if (!NR) { print "run-nested: no results"; exit 1 }
  nv = split(versions, vs, " "); nt = split(threads, ts, " ")
  t1 = ts[1]; tn = ts[nt]
  nc = 0
  for (i = 1; i <= nv; i++) {
    if (vs[i] ~ /^serial/) { col[++nc] = vs[i]; colt[nc] = 1; continue }
    for (j = 1; j <= nt; j++) { col[++nc] = vs[i]; colt[nc] = ts[j] }
  }

  head(sprintf("nested: seconds, best of %d; name:T = T threads; " \
               "! = failed in some repetition", reps))
  for (j = 1; j <= nc; j++)
    printf "%s", cell(col[j] ~ /^serial/ ? col[j] : col[j] ":" colt[j])
  printf "\n"
  for (i = 1; i <= nr; i++) {
    rowlabel(order[i])
    for (j = 1; j <= nc; j++) printf "%s", cell(secs(order[i], col[j], colt[j]))
    printf "\n"
  }

  printf "\n"
  head(sprintf("ratios of best times: dag/best = dag / min(gomp, libomp), " \
               "each the better of its wait policies; same compiler at %s " \
               "threads; speedup = %s threads / %s", tn, t1, tn))
  for (j = 1; j <= nt; j++) printf "%s", cell("dag/best:" ts[j])
  printf "%s", cell("noinline/best:" tn)
  printf "%s%s", cell("dag/gomp"), cell("dagclang/lomp")
  for (j = 1; j <= nv; j++)
    if (vs[j] !~ /^serial/) printf "%s", cell("speedup " vs[j])
  printf "\n"
  for (i = 1; i <= nr; i++) {
    r = order[i]
    rowlabel(r)
    for (j = 1; j <= nt; j++) {
      t = ts[j]; g = omp(r, "gomp", t); l = omp(r, "libomp", t)
      b = g < 0 || (l > 0 && l < g) ? l : g
      printf "%s", cell(over(time_of(r, "dag", t), b))
    }
    printf "%s", cell(over(time_of(r, "dag-noinline", tn), b))
    printf "%s", cell(over(time_of(r, "dag", tn), omp(r, "gomp", tn)))
    printf "%s", cell(over(time_of(r, "dag-clang", tn), omp(r, "libomp", tn)))
    for (j = 1; j <= nv; j++)
      if (vs[j] !~ /^serial/) printf "%s", cell(pair(r, vs[j], t1, vs[j], tn))
    printf "\n"
  }

  printf "\n"
  head(sprintf("peak RSS in MiB (ru_maxrss, the most of any repetition), " \
               "serial versions at 1 thread, the others at %s", tn))
  for (j = 1; j <= nv; j++) printf "%s", cell(vs[j])
  printf "\n"
  for (i = 1; i <= nr; i++) {
    r = order[i]
    rowlabel(r)
    for (j = 1; j <= nv; j++) {
      key = r SUBSEP vs[j] SUBSEP (vs[j] ~ /^serial/ ? 1 : tn)
      printf "%s", cell((key in rss) ? sprintf("%.1f", rss[key] / 1024) : "-")
    }
    printf "\n"
  }
}' "$records" || failed=$((failed + 1))
peers_config "$versions"
runner_finish
