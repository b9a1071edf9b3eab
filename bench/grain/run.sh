#!/bin/sh
# run.sh — bench/grain's runner, copied by CMake to
# <build>/bench/grain/run-grain. A sweep takes each pattern and width, and
# each task size (kernel iterations, largest first), and at each size runs
# every runtime once, each in a process of its own (best of --reps runs
# inside), with the same thread count, in an order that turns by one place
# from one size to the next. It makes --sweeps sweeps and prints, per
# pattern and width, each runtime's METG(50%), Task Bench's rule: the
# smallest task granularity (wall time x workers / tasks, in microseconds)
# whose efficiency is at least half the peak, interpolated in log scale
# with the size below it; a dip at a larger size does not decide it. The
# peak is fixed per pattern and width: the best efficiency any runtime
# reached at the largest size in that sweep. The efficiency of a run is
# the tasks' own time (one task timed alone, times the tasks) over wall
# time x workers. The table is each runtime's median over the sweeps. With
# --json FILE it appends every run's record (with its "sweep") and one
# "metg_us" record per runtime, pattern and width.
# With --ranks N (N > 1) it runs the builds of dag only, each under
# mpiexec on N ranks of --threads workers, the grid spread over the ranks.
set -eu

usage() {
  cat <<EOF
usage: run-grain [--json FILE] [--threads N] [--patterns "P ..."]
                 [--widths "W ..."] [--kernel compute|memory] [--radix R]
                 [--grains "N ..."] [--reps N] [--runtimes "R ..."]
                 [--ranks N] [--quick]
  --patterns   default: trivial stencil_1d stencil_1d_periodic nearest
               spread fft tree all_to_all random_nearest
  --widths     default "2 8"
  --grains     kernel iterations to sweep, largest first
               (default: 2^16 down to 2^5, by factors of 2)
  --reps       runs per process, the best counts (default 3)
  --sweeps     sweeps, each runtime's median METG counts (default 3)
  --runtimes   default "dag gomp libomp starpu" (those built); NAME=PATH
               adds a grain binary of another build under NAME;
               starpu_SCHED runs StarPU with scheduler SCHED (starpu_ws,
               starpu_eager...), starpu_SCHED_main the same with a core
               of its own for the submitting thread (one worker fewer;
               its METG counts every core), gomp_active and libomp_active
               OpenMP with OMP_WAIT_POLICY=active, each a peer of its
               own: the best counts
  --ranks N    run dag (and other dag builds) under mpiexec on N ranks of
               --threads workers each, unbound, the grid spread over them;
               the peers, single-process runtimes, are left out (default 1)
  --quick      three grains, two patterns, one run, one sweep (a smoke
               test)
Environment: STARPU_SCHED (default lws), OMP_PROC_BIND and OMP_PLACES
(default close and cores, ../peers.sh) and other OMP_*, DAG_*, STARPU_*
settings pass through; MPIEXEC names the launcher (default mpiexec).
EOF
}

here=$(cd "$(dirname "$0")" && pwd) runner=run-grain
# shellcheck source=bench/runner.sh
. "$here/../runner.sh"
threads=2 kernel=compute radix=3 reps=3 sweeps=3 ranks=1
patterns="trivial stencil_1d stencil_1d_periodic nearest spread fft tree all_to_all random_nearest"
widths="2 8" runtimes="dag gomp libomp starpu"
grains="65536 32768 16384 8192 4096 2048 1024 512 256 128 64 32"
runner_options "$@" <<'EOF'
a file: json
a number: threads radix reps sweeps ranks
a list: patterns widths grains runtimes
a kernel: kernel
--quick: grains="4096 256 32" patterns="stencil_1d fft" reps=1 sweeps=1
EOF

runner_threads "$threads"
export STARPU_SCHED="${STARPU_SCHED:-lws}"

# On several ranks the builds of dag run under the launcher, unbound so that
# dag shares the node's cores among the ranks (docs/mpi.md).
launch=''
if [ "$ranks" -gt 1 ]; then
  launch="${MPIEXEC:-mpiexec} -n $ranks --oversubscribe --bind-to none"
fi

built='' peers='' # peers: the other runtimes, not dag's builds
for rt in $runtimes; do
  peer=1 variant_env=''
  case $rt in
  dag) peer='' bin=$here/grain_dag ;;
  *=*) bin=${rt#*=} rt=${rt%%=*} peer='' ;;
  *) peer_variant "$rt" && bin=$here/grain_$variant_base ;;
  esac
  if [ -n "$peer" ]; then
    if [ "$ranks" -gt 1 ]; then
      echo "$runner: $rt runs in one process, left out on $ranks ranks" >&2
      continue
    fi
    peers="$peers $rt"
  fi
  if [ -x "$bin" ]; then
    built="$built $rt"
    settings=$variant_env
    eval "bin_$rt=\$bin env_$rt=\$settings"
  else
    echo "$runner: $rt: $bin not built, skipped" >&2
  fi
done

turn=0
for sweep in $(seq "$sweeps"); do
  for pattern in $patterns; do
    for width in $widths; do
      for grain in $grains; do
        # About 2^25 iterations in all (60 ms of the compute kernel on one
        # core here), so that the graph and not the start is measured,
        # within 1000 steps (Task Bench's) and 16000.
        steps=$((33554432 / grain / width))
        [ "$steps" -lt 1000 ] && steps=1000
        [ "$steps" -gt 16000 ] && steps=16000
        for rt in $(turned "$turn" "$built"); do
          eval "bin=\$bin_$rt settings=\$env_$rt"
          # shellcheck disable=SC2086 # the settings and launcher are words
          env $settings $launch "$bin" --name "$rt" \
            --pattern "$pattern" --width "$width" --steps "$steps" \
            --radix "$radix" --kernel "$kernel" --iterations "$grain" \
            --threads "$threads" --reps "$reps" \
            --json "$tmp/$sweep" >/dev/null ||
            echo "$runner: $rt $pattern width $width: failed" >&2
        done
        turn=$((turn + 1))
        printf '.' >&2
      done
      printf ' sweep %s: %s width %s\n' "$sweep" "$pattern" "$width" >&2
    done
  done
done

# One sweep's "pattern width runtime sign metg_us" lines; sign: =
# interpolated, < at least half the peak down to the smallest size, > below
# half at every size.
metg_of_sweep() {
  awk "$awklib"'
  !/"metric"/ {
    key = str("pattern") SUBSEP num("width"); rt = str("runtime")
    g = num("iterations")
    if (!(key in largest) || g > largest[key]) largest[key] = g
    eff[key, rt, g] = num("efficiency"); gran[key, rt, g] = num("granularity_ns")
    if (!((key, rt) in seen)) { seen[key, rt] = 1; rts[key] = rts[key] " " rt }
    if (!((key, g) in gseen)) { gseen[key, g] = 1; gs[key] = gs[key] " " g }
  }
  END {
    for (key in largest) {
      n = split(rts[key], list, " "); m = split(gs[key], grain, " ")
      peak = 0
      for (i = 1; i <= n; i++)
        if (eff[key, list[i], largest[key]] > peak)
          peak = eff[key, list[i], largest[key]]
      for (a = 1; a <= m; a++) # largest first
        for (b = a + 1; b <= m; b++)
          if (grain[b] + 0 > grain[a] + 0) { x = grain[a]; grain[a] = grain[b]; grain[b] = x }
      split(key, kw, SUBSEP)
      for (i = 1; i <= n; i++) {
        rt = list[i]; last = 0 # the smallest size at half the peak or more
        for (a = 1; a <= m; a++)
          if (eff[key, rt, grain[a]] / peak >= 0.5) last = a
        if (!last) { sign = ">"; value = gran[key, rt, grain[1]] / 1000 }
        else if (last == m) { sign = "<"; value = gran[key, rt, grain[m]] / 1000 }
        else {
          sign = "="
          pe = eff[key, rt, grain[last]] / peak; pg = gran[key, rt, grain[last]]
          e = eff[key, rt, grain[last + 1]] / peak; g = gran[key, rt, grain[last + 1]]
          value = exp(log(pg) + (0.5 - pe) * (log(g) - log(pg)) / (e - pe)) / 1000
        }
        printf "%s %d %s %s %.3f\n", kw[1], kw[2], rt, sign, value
      }
    }
  }' "$1"
}

# Each runtime's median over the sweeps (the lower middle of an even
# count), with the sign of the sweep it came from.
metg=$(for sweep in $(seq "$sweeps"); do metg_of_sweep "$tmp/$sweep"; done |
  sort -k1,1 -k2,2n -k3,3 -k5,5g | awk '
  { key = $1 " " $2 " " $3; n[key]++; line[key, n[key]] = $0
    if (!(key in order)) { order[key] = ++keys; at[keys] = key } }
  END { for (k = 1; k <= keys; k++) { key = at[k]; print line[key, int((n[key] + 1) / 2)] } }' |
  sort)

echo
echo "METG(50%), microseconds of task granularity (wall x workers / tasks),"
echo "median of $sweeps sweep(s); $ranks rank(s) x $threads threads, kernel"
echo "$kernel, radix $radix. '<': at half the peak or more at every size down"
echo "to the smallest; '>': below half at every size."
printf '%-20s %5s' pattern width
for rt in $built; do printf ' %9s' "$rt"; done
printf ' %9s\n' dag/peer
echo "$metg" | awk -v built="$built" -v peers="$peers" '
  { key = $1 " " $2; v[key, $3] = $5; s[key, $3] = ($4 == "=" ? "" : $4)
    if (!(key in order)) { order[key] = ++n; keys[n] = key } }
  END {
    nb = split(built, rts, " "); np = split(peers, pl, " ")
    for (i = 1; i <= np; i++) peer[pl[i]] = 1
    for (k = 1; k <= n; k++) {
      split(keys[k], kw, " "); printf "%-20s %5s", kw[1], kw[2]; best = 0
      for (i = 1; i <= nb; i++) {
        x = v[keys[k], rts[i]]
        printf " %9s", s[keys[k], rts[i]] sprintf("%.2f", x)
        if ((rts[i] in peer) && (best == 0 || x < best)) best = x
      }
      if (best > 0) printf " %9.2f", v[keys[k], "dag"] / best
      printf "\n"
    }
  }'
peers_config "$built"
if [ -n "$json" ]; then
  for sweep in $(seq "$sweeps"); do
    sed "s/^{/{\"sweep\":$sweep,/" "$tmp/$sweep" >>"$records"
  done
  echo "$metg" | awk -v t="$threads" -v r="$ranks" -v k="$kernel" '{
    printf "{\"bench\":\"grain\",\"metric\":\"metg_us\",\"runtime\":\"%s\",", $3
    printf "\"pattern\":\"%s\",\"width\":%d,\"threads\":%d,\"ranks\":%d,", $1, $2, t, r
    printf "\"kernel\":\"%s\",", k
    printf "\"bound\":\"%s\",\"value\":%s}\n", $4, $5 }' >>"$records"
fi
runner_finish
