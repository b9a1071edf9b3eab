#!/bin/sh
# run.sh — the Cholesky benchmark's driver, copied by CMake to
# <build>/bench/cholesky/run-cholesky. For each matrix order and tile size it
# runs every runtime's binary in a process of its own, all with the same
# thread count (DAG_NUM_THREADS = OMP_NUM_THREADS = STARPU_NCPU =
# OPENBLAS_NUM_THREADS for the untiled LAPACK baseline = --threads), each
# checking its own residual; then it prints one table of GFLOP/s with the
# ratio runtime/dag. With --json FILE it appends one JSON object per result
# (JSON Lines) to FILE. Exits non-zero if any run failed or was wrong.
set -eu

usage() {
  cat <<EOF
usage: run-cholesky [--json FILE] [--threads N] [--sizes "2048 4096"]
                    [--tiles "128 256 512"] [--reps N] [--quick]
                    [--runtimes "dag dag-pragma gomp libomp starpu lapacke"]
                    [--dag BIN]
  --json FILE   append one JSON object per line per result to FILE
  --threads N   threads that run tasks in every runtime (default 2)
  --sizes L     matrix orders (default "2048 4096")
  --tiles L     tile orders (default "128 256 512")
  --reps N      factorizations per run, the best counts (default 3)
  --quick       --sizes 1024 --tiles "128 256" --reps 1 (smoke test)
  --runtimes L  the runtimes to run, in this order (default: all six;
                dag-pragma is samples/cholesky/cholesky_pragma, the same
                algorithm written with pragmas and built by dagcc). A peer
                runs as each of its variants (../peers.sh): gomp and libomp
                with OMP_WAIT_POLICY at its default and active, starpu with the
                schedulers dmdas, dmda, lws, ws, eager and prio; its column
                is the best of them. A variant named (starpu_lws,
                libomp_active) runs alone
  --dag BIN     the dag binary (default: samples/cholesky/cholesky of this
                build tree)
Environment: OMP_MAX_TASK_PRIORITY (default 1000), OMP_PROC_BIND and
OMP_PLACES (default close and cores, ../peers.sh), and any other OMP_*,
DAG_*, STARPU_* setting pass through.
EOF
}

here=$(cd "$(dirname "$0")" && pwd) runner=run-cholesky
# shellcheck source=bench/runner.sh
. "$here/../runner.sh"
threads=2 sizes="2048 4096" tiles="128 256 512" reps=3
runtimes="dag dag-pragma gomp libomp starpu lapacke"
dag=$here/../../samples/cholesky/cholesky
runner_options "$@" <<'EOF'
a file: json
a number: threads reps
a list: sizes tiles runtimes
a path: dag
--quick: sizes=1024 tiles="128 256" reps=1
EOF

# StarPU keeps its calibration under $STARPU_HOME: the temporary directory,
# so that no performance model lands in the source tree or in $HOME.
runner_threads "$threads"
export OPENBLAS_NUM_THREADS="$threads" STARPU_HOME="$tmp"

bin_of() {
  case $1 in
  dag) echo "$dag" ;;
  dag-pragma) echo "$here/../../samples/cholesky/cholesky_pragma" ;;
  *) echo "$here/cholesky_$1" ;;
  esac
}

# run VARIANT N TILE: one process; its result line becomes a JSON record.
run() {
  peer_variant "$1"
  # shellcheck disable=SC2086 # the settings are words
  if ! out=$(env $variant_env "$(bin_of "$variant_base")" -n "$2" -b "$3" \
      -r "$reps" --check); then
    runner_fail "$1 n=$2 b=$3" "$out"
    return
  fi
  printf '%s\n' "$out" | awk -v rt="$variant_base" -v variant="$1" \
      -v threads="$threads" -v reps="$reps" "$awklib"'
  /^cholesky / {
    fields(f, 2)
    cfg = ""
    if (match($0, / config=.*/))
      cfg = substr($0, RSTART + 8)
    untiled = rt == "lapacke"
    metric = "gflops_n" f["n"] (untiled ? "" : "_b" f["b"])
    printf "{\"bench\":\"cholesky\",\"runtime\":\"%s\",\"variant\":\"%s\"," \
           "\"metric\":\"%s\",\"value\":%s,\"unit\":\"GFLOP/s\",\"n\":%d," \
           "\"tile\":%d,\"threads\":%d,\"workers\":%d,\"time_s\":%s," \
           "\"residual\":%s,\"reps\":%d,\"config\":\"%s\"}\n",
           rt, variant, metric, f["gflops"], f["n"], untiled ? 0 : f["b"],
           threads, f["workers"], f["time"], f["residual"], reps, cfg
  }' >>"$records"
}

# The ceiling, in the same run: a threaded dgemm on the whole matrix.
for n in $sizes; do
  "$here/cholesky_dgemm" -n "$n" -r "$reps" |
    awk -v threads="$threads" "$awklib"'
    /^dgemm / { fields(f, 2)
      printf "{\"bench\":\"cholesky\",\"runtime\":\"dgemm\"," \
             "\"metric\":\"dgemm_gflops_n%d\",\"value\":%s," \
             "\"unit\":\"GFLOP/s\",\"n\":%d,\"tile\":0,\"threads\":%d}\n",
             f["n"], f["gflops"], f["n"], threads }' >>"$records" ||
    echo "$runner: dgemm n=$n FAILED" >&2
done

# The tighter ceiling, per tile: the kernels' own times with every thread
# busy, scheduled at no cost (cholesky_bound; kernel rates in the config).
for n in $sizes; do
  for b in $tiles; do
    "$here/cholesky_bound" -n "$n" -b "$b" -t "$threads" -r "$reps" |
      awk -v threads="$threads" "$awklib"'
      { fields(line, 2); for (k in line) f[$1, k] = line[k] }
      END {
        printf "{\"bench\":\"cholesky\",\"runtime\":\"bound\"," \
               "\"metric\":\"bound_gflops_n%d_b%d\",\"value\":%s," \
               "\"unit\":\"GFLOP/s\",\"n\":%d,\"tile\":%d,\"threads\":%d," \
               "\"work_s\":%s,\"path_s\":%s,\"config\":\"kernel GFLOP/s " \
               "on one thread: potrf %s trsm %s syrk %s gemm %s\"}\n",
               f["bound", "n"], f["bound", "b"], f["bound", "gflops"],
               f["bound", "n"], f["bound", "b"], threads, f["bound", "work"],
               f["bound", "path"], f["kernels", "potrf"], f["kernels", "trsm"],
               f["kernels", "syrk"], f["kernels", "gemm"] }' >>"$records" ||
      echo "$runner: bound n=$n b=$b FAILED" >&2
  done
done

# Every variant of every runtime at each size and tile, one after the
# other, so that a drift of the machine touches them alike; StarPU's
# history-based models are calibrated first, per tile size (at least 10
# samples of each kernel), untimed, so that the timed runs use them.
variants=$(runner_variants bin_of "$runtimes")
for rt in $variants; do
  peer_variant "$rt"
  [ "$variant_base" = starpu ] || continue
  for b in $tiles; do
    # shellcheck disable=SC2086 # the settings are words
    env $variant_env "$(bin_of starpu)" -n $((8 * b)) -b "$b" -r 2 \
      >/dev/null ||
      { echo "$runner: $rt calibration b=$b FAILED" >&2; status=1; }
  done
done
for n in $sizes; do
  untiled_done=''
  for b in $tiles; do
    for rt in $variants; do
      if [ "$rt" = lapacke ]; then # one run per size
        [ -z "$untiled_done" ] && run "$rt" "$n" "$n"
        untiled_done=1
        continue
      fi
      run "$rt" "$n" "$b"
    done
  done
done

# The table: one row per (n, tile), one column per runtime.
awk -v order="$runtimes" -v sizes="$sizes" -v tiles="$tiles" \
    -v reps="$reps" -v threads="$threads" "$awklib"'
{
  rt = str("runtime")
  if (rt == "dgemm") { ceiling[num("n")] = num("value"); next }
  if (rt == "bound") {
    bound[num("n"), num("tile")] = num("value")
    kernels[num("n"), num("tile")] = str("config")
    next
  }
  seen[rt] = 1
  key = rt SUBSEP num("n") SUBSEP num("tile")
  tried[rt, str("variant")] = 1
  if (beats(num("value"), val, key)) {
    val[key] = num("value"); won[key] = str("variant")
  }
  if (str("config") != "") config[rt] = str("config")
}
END {
  if (!NR) { print "run-cholesky: no results"; exit 1 }
  nc = columns(order, seen, col)
  printf "cholesky: GFLOP/s (n^3/3 flops), best of %d, %d threads; " \
         "(x) = runtime / dag\n", reps, threads
  printf "%6s %5s", "n", "tile"
  for (j = 1; j <= nc; j++) printf " %15s", col[j]
  printf " %15s\n", "kernel bound"
  ns = split(sizes, nv, " "); nb = split(tiles, bv, " ")
  for (s = 1; s <= ns; s++) for (t = 1; t <= nb; t++) {
    n = nv[s]; b = bv[t]
    printf "%6d %5d", n, b
    for (j = 1; j <= nc; j++) {
      rt = col[j]
      key = rt == "lapacke" ? (rt SUBSEP n SUBSEP 0) : (rt SUBSEP n SUBSEP b)
      if (!(key in val)) { printf " %15s", "-"; continue }
      ref = rt != "dag" && ("dag", n, b) in val ? val["dag", n, b] : 0
      printf " %15s", cell_of(val[key], ref)
    }
    if ((n, b) in bound && ("dag", n, b) in val && val["dag", n, b] > 0)
      printf " %15s", cell_of(bound[n, b], val["dag", n, b])
    printf "\n"
  }
  for (s = 1; s <= ns; s++) {
    n = nv[s]; best = 0; peer = 0
    for (key in val) {
      split(key, k, SUBSEP)
      if (k[2] != n) continue
      if (k[1] == "dag" && val[key] > best) { best = val[key]; bt = k[3] }
      if (k[1] != "dag" && k[1] != "dag-pragma" && val[key] > peer) {
        peer = val[key]; pr = won[key]
      }
    }
    if (n in ceiling && best > 0)
      printf "n=%d: dag best (tile %d) %.2f GFLOP/s = %.2fx the best peer (%s), " \
             "%.2fx the %d-thread dgemm (%.2f GFLOP/s)\n", n, bt, best,
             (peer > 0 ? best / peer : 0), pr, best / ceiling[n], threads,
             ceiling[n]
    if ((n, bt) in bound && best > 0)
      printf "n=%d: dag best = %.2fx the kernel bound at tile %d (%.2f GFLOP/s; " \
             "%s)\n", n, best / bound[n, bt], bt, bound[n, bt], kernels[n, bt]
  }
  say_variants(col, nc)
}' "$records" || status=1
peers_config "$variants"
runner_finish
