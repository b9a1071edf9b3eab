#!/bin/sh
# run.sh — the distributed benchmarks' driver, copied by CMake to
# <build>/bench/mpi/run-mpi. For each kernel (Cholesky, GEMM), rank count,
# matrix order and tile size it runs every runtime's program under mpiexec,
# one run at a time, all with single-threaded OpenBLAS and the same number
# of task threads per rank; each program checks its own residual. Then it
# prints a table of GFLOP/s with the ratio runtime/dag, and one of the bytes
# the busiest rank sent against the algorithm's minimum. With --json FILE it
# appends the records (JSON Lines) to FILE. Exits non-zero if any run failed
# or was wrong.
set -eu

usage() {
  cat <<EOF
usage: run-mpi [--json FILE] [--ranks "1 2"] [--sizes "4096"] [--tiles "256"]
               [--reps N] [--threads N] [--quick] [--kernels "cholesky gemm"]
               [--runtimes "dag scalapack starpumpi"] [--mpiexec "CMD"]
  --json FILE   append one JSON object per line per result to FILE
  --ranks L     rank counts (default "1 2"; more ranks than cores run
                oversubscribed, e.g. "1 2 4" on 2 cores)
  --sizes L     matrix orders (default 4096)
  --tiles L     tile (block) orders (default 256)
  --reps N      repetitions per run, the best counts (default 3)
  --threads N   task threads per rank: DAG_NUM_THREADS, STARPU_NCPU
                (default 1: one rank per core, as ScaLAPACK runs)
  --quick       --sizes 1024 --tiles 128 --reps 1 (a few seconds)
  --kernels L   the kernels (default "cholesky gemm")
  --runtimes L  the runtimes, in this order (default all three; StarPU-MPI
                has no GEMM here)
  --mpiexec C   the launcher before '-n R' (default "mpiexec --oversubscribe")
Environment: STARPU_SCHED (default prio) and any other DAG_*, STARPU_*,
OMPI_* setting pass through.
EOF
}

here=$(cd "$(dirname "$0")" && pwd)
jsonl=$(cat "$here/../jsonl.awk") # str() and num(), for the records
json='' ranks="1 2" sizes=4096 tiles=256 reps=3 threads=1
kernels="cholesky gemm" runtimes="dag scalapack starpumpi"
launcher="mpiexec --oversubscribe"
while [ $# -gt 0 ]; do
  case $1 in
  --json) json=${2:?--json needs a file}; shift ;;
  --ranks) ranks=${2:?--ranks needs a list}; shift ;;
  --sizes) sizes=${2:?--sizes needs a list}; shift ;;
  --tiles) tiles=${2:?--tiles needs a list}; shift ;;
  --reps) reps=${2:?--reps needs a number}; shift ;;
  --threads) threads=${2:?--threads needs a number}; shift ;;
  --quick) sizes=1024 tiles=128 reps=1 ;;
  --kernels) kernels=${2:?--kernels needs a list}; shift ;;
  --runtimes) runtimes=${2:?--runtimes needs a list}; shift ;;
  --mpiexec) launcher=${2:?--mpiexec needs a command}; shift ;;
  -h | --help) usage; exit 0 ;;
  *) echo "run-mpi: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
records=$tmp/records.jsonl
: >"$records"

# One OpenBLAS thread inside every kernel; the task threads per rank.
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
export DAG_NUM_THREADS="$threads" STARPU_NCPU="$threads"
export STARPU_SCHED="${STARPU_SCHED:-prio}" STARPU_HOME="$tmp"
export STARPU_SILENT=1 STARPU_NCUDA=0 STARPU_NOPENCL=0
if [ "$(id -u)" = 0 ]; then # Open MPI refuses root without these
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

status=0 failed=0

bin_of() { # KERNEL RUNTIME
  case $1 in
  cholesky) echo "$here/chol_$2" ;;
  *) echo "$here/$1_$2" ;;
  esac
}

# run KERNEL RUNTIME RANKS N TILE: one mpiexec; rank 0's line becomes two
# JSON records (GFLOP/s, bytes sent).
run() {
  if ! out=$($launcher -n "$3" "$(bin_of "$1" "$2")" -n "$4" -b "$5" \
      -r "$reps" 2>"$tmp/err"); then
    echo "run-mpi: $1 $2 ranks=$3 n=$4 b=$5 FAILED" >&2
    cat "$tmp/err" >&2
    printf '%s\n' "$out" >&2
    status=1 failed=$((failed + 1))
    return
  fi
  printf '%s\n' "$out" | awk -v rt="$2" -v threads="$threads" \
      -v reps="$reps" '
  $1 == "cholesky" || $1 == "gemm" {
    for (i = 2; i <= NF; i++) {
      split($i, kv, "=")
      f[kv[1]] = kv[2]
    }
    key = "r" f["ranks"] "_n" f["n"] "_b" f["b"]
    common = sprintf("\"ranks\":%d,\"grid\":\"%s\",\"n\":%d,\"tile\":%d," \
                     "\"threads\":%d,\"workers\":%d,\"reps\":%d",
                     f["ranks"], f["grid"], f["n"], f["b"], threads,
                     f["workers"], reps)
    printf "{\"bench\":\"mpi_%s\",\"runtime\":\"%s\",\"metric\":" \
           "\"gflops_%s\",\"value\":%s,\"unit\":\"GFLOP/s\",%s," \
           "\"time_s\":%s,\"residual\":%s}\n",
           $1, rt, key, f["gflops"], common, f["time"], f["residual"]
    printf "{\"bench\":\"mpi_%s\",\"runtime\":\"%s\",\"metric\":" \
           "\"sent_bytes_%s\",\"value\":%s,\"unit\":\"B\",%s," \
           "\"sent_total\":%s,\"min_bytes\":%s,\"min_total\":%s}\n",
           $1, rt, key, f["sent"], common, f["sent_total"], f["min"],
           f["min_total"]
  }' >>"$records"
}

for k in $kernels; do
  for rt in $runtimes; do
    bin=$(bin_of "$k" "$rt")
    if [ "$k/$rt" = gemm/starpumpi ]; then
      continue # not written: StarPU-MPI runs the Cholesky only
    fi
    if [ ! -x "$bin" ]; then
      echo "run-mpi: $k on $rt: $bin not built, skipped" >&2
      continue
    fi
    for r in $ranks; do
      for n in $sizes; do
        for b in $tiles; do
          run "$k" "$rt" "$r" "$n" "$b"
        done
      done
    done
  done
done

# The tables: one row per (kernel, ranks, n, tile), one column per runtime.
awk -v order="$runtimes" -v reps="$reps" -v threads="$threads" "$jsonl"'
{
  rt = str("runtime"); seen[rt] = 1
  row = sprintf("%-8s %5d %5s %6d %5d", substr(str("bench"), 5), num("ranks"),
                str("grid"), num("n"), num("tile"))
  if (!(row in rowseen)) { rowseen[row] = 1; rows[++nrows] = row }
  if (str("unit") == "GFLOP/s") {
    gf[rt, row] = num("value")
  } else {
    sent[rt, row] = num("value")
    minimum[row] = num("min_bytes")
    many[row] = num("ranks") > 1
  }
}
END {
  if (!NR) { print "run-mpi: no results"; exit 1 }
  nc = 0
  split(order, all, " ")
  for (i = 1; i in all; i++) if (all[i] in seen) col[++nc] = all[i]
  head = sprintf("%-8s %5s %5s %6s %5s", "kernel", "ranks", "grid", "n", "b")
  printf "GFLOP/s (cholesky n^3/3, gemm 2n^3 flops), best of %d, %d task " \
         "thread(s) per rank; (x) = runtime / dag\n%s", reps, threads, head
  for (j = 1; j <= nc; j++) printf " %15s", col[j]
  printf "\n"
  for (r = 1; r <= nrows; r++) {
    row = rows[r]; printf "%s", row
    for (j = 1; j <= nc; j++) {
      rt = col[j]
      if (!((rt, row) in gf)) { printf " %15s", "-"; continue }
      cell = sprintf("%.2f", gf[rt, row])
      if (rt != "dag" && ("dag", row) in gf && gf["dag", row] > 0)
        cell = sprintf("%s (%.2fx)", cell, gf[rt, row] / gf["dag", row])
      printf " %15s", cell
    }
    printf "\n"
  }
  printed = 0
  for (r = 1; r <= nrows; r++) {
    row = rows[r]
    if (!many[row]) continue
    if (!printed++) {
      printf "\nMiB sent by the busiest rank during the timed part; " \
             "minimum: whole tiles, each sent\nonce from its home to each " \
             "rank that needs it; (x) = sent / minimum\n%s %9s", head,
             "minimum"
      for (j = 1; j <= nc; j++) printf " %15s", col[j]
      printf "\n"
    }
    printf "%s %9.1f", row, minimum[row] / 1048576
    for (j = 1; j <= nc; j++) {
      rt = col[j]
      if (!((rt, row) in sent)) { printf " %15s", "-"; continue }
      cell = sprintf("%.1f", sent[rt, row] / 1048576)
      if (minimum[row] > 0)
        cell = sprintf("%s (%.2fx)", cell, sent[rt, row] / minimum[row])
      printf " %15s", cell
    }
    printf "\n"
  }
}' "$records" || status=1

if [ -n "$json" ]; then
  cat "$records" >>"$json"
fi
if [ "$failed" -gt 0 ]; then
  echo "run-mpi: $failed run(s) FAILED (see above)" >&2
fi
exit "$status"
