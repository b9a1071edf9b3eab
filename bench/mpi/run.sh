#!/bin/sh
# run.sh — the distributed benchmarks' driver, copied by CMake to
# <build>/bench/mpi/run-mpi. For each kernel (Cholesky, GEMM), rank count,
# matrix order and tile size it runs every runtime's program under mpiexec
# (dag's and ScaLAPACK's are bench/suite/linalg's blas and linalg_scalapack),
# one run at a time, all with single-threaded OpenBLAS and the same number
# of task threads per rank; each program checks its own residual. A peer
# runs at each of its settings (StarPU-MPI under each scheduler, ScaLAPACK
# at each block size), the best counting. Then it prints a table of GFLOP/s
# per tile with the ratio runtime/dag, one of each runtime at its best tile,
# and one of the bytes the busiest rank sent against the algorithm's
# minimum. With --json FILE it
# appends the records (JSON Lines) to FILE. Exits non-zero if any run failed
# or was wrong.
set -eu

usage() {
  cat <<EOF
usage: run-mpi [--json FILE] [--ranks "1 2"] [--sizes "4096"]
               [--tiles "128 256 512"] [--blocks "32 64 128 256"] [--reps N]
               [--threads N] [--quick] [--kernels "cholesky gemm"]
               [--runtimes "dag scalapack starpumpi"] [--mpiexec "CMD"]
  --json FILE   append one JSON object per line per result to FILE
  --ranks L     rank counts (default "1 2"; more ranks than cores run
                oversubscribed, e.g. "1 2 4" on 2 cores)
  --sizes L     matrix orders (default 4096)
  --tiles L     tile orders of dag and StarPU-MPI (default "128 256 512")
  --blocks L    block orders of ScaLAPACK (default "32 64 128 256": its
                panels are factored column by column, so its best block is
                smaller than a task runtime's best tile)
  --reps N      repetitions per run, the best counts (default 3)
  --threads N   task threads per rank: DAG_NUM_THREADS, STARPU_NCPU
                (default 1: one rank per core, as ScaLAPACK runs)
  --quick       --sizes 1024 --tiles 128 --blocks "64 128" --reps 1 (a
                smoke test)
  --kernels L   the kernels (default "cholesky gemm")
  --runtimes L  the runtimes, in this order (default all three; StarPU-MPI
                has no GEMM here). starpumpi runs under the schedulers
                dmdas, dmda, lws, ws, eager and prio (../peers.sh), its
                cell the best of them; starpumpi_SCHED runs one alone
  --mpiexec C   the launcher before '-n R' (default "mpiexec --oversubscribe")
Environment: DAG_*, STARPU_* and OMPI_* settings pass through.
EOF
}

here=$(cd "$(dirname "$0")" && pwd) runner=run-mpi
# shellcheck source=bench/runner.sh
. "$here/../runner.sh"
ranks="1 2" sizes=4096 tiles="128 256 512" blocks="32 64 128 256"
reps=3 threads=1
kernels="cholesky gemm" runtimes="dag scalapack starpumpi"
mpiexec="mpiexec --oversubscribe"
runner_options "$@" <<'EOF'
a file: json
a list: ranks sizes tiles blocks kernels runtimes
a number: reps threads
a command: mpiexec
--quick: sizes=1024 tiles=128 blocks="64 128" reps=1
EOF

# The task threads per rank; one OpenBLAS thread inside every kernel.
runner_threads "$threads"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 STARPU_HOME="$tmp"

bin_of() { # KERNEL RUNTIME; none for StarPU-MPI's GEMM, not written
  case $1/$2 in
  gemm/starpumpi) ;;
  */dag) echo "$here/../suite/linalg/blas" ;;
  */scalapack) echo "$here/../suite/linalg/linalg_scalapack" ;;
  */starpumpi) echo "$here/chol_starpumpi" ;;
  esac
}

# run KERNEL VARIANT RANKS N TILE: one mpiexec of a program of the suite's
# linalg group (or its StarPU-MPI peer), whose SUITE line becomes two JSON
# records (GFLOP/s, bytes sent) with the least the kernel must move.
run() {
  peer_variant "$2"
  # shellcheck disable=SC2086 # the settings and the launcher are words
  if ! out=$(env $variant_env $mpiexec -n "$3" \
      "$(bin_of "$1" "$variant_base")" -k "$1" -n "$4" -b "$5" -r "$reps" \
      -t 3600 2>"$tmp/err"); then
    runner_fail "$1 $2 ranks=$3 n=$4 b=$5" "$(cat "$tmp/err")" "$out"
    return
  fi
  printf '%s %s\n' "$out" "$("$here/min_bytes" "$1" "$4" "$5" "$3")" |
    awk -v variant="$2" -v threads="$threads" "$awklib"'
  $1 == "SUITE" {
    fields(f, 2)
    key = "r" f["ranks"] "_n" f["n"] "_b" f["b"]
    common = sprintf("\"variant\":\"%s\",\"ranks\":%d,\"grid\":\"%s\"," \
                     "\"n\":%d,\"tile\":%d,\"threads\":%d,\"workers\":%d," \
                     "\"reps\":%d", variant, f["ranks"], f["grid"], f["n"],
                     f["b"], threads, f["workers"], f["reps"])
    printf "{\"bench\":\"mpi_%s\",\"runtime\":\"%s\",\"metric\":" \
           "\"gflops_%s\",\"value\":%s,\"unit\":\"GFLOP/s\",%s," \
           "\"time_s\":%s,\"residual\":%s}\n",
           f["kernel"], f["runtime"], key, f["rate"], common, f["time"],
           f["check"]
    printf "{\"bench\":\"mpi_%s\",\"runtime\":\"%s\",\"metric\":" \
           "\"sent_bytes_%s\",\"value\":%s,\"unit\":\"B\",%s," \
           "\"sent_total\":%s,\"min_bytes\":%s,\"min_total\":%s}\n",
           f["kernel"], f["runtime"], key, f["sent"], common, f["sent_total"],
           f["min"], f["min_total"]
  }' >>"$records"
}

# Every variant of every runtime, at each rank count and size one after
# the other (each at its tiles), so that a drift of the machine touches
# them alike.
all_variants=''
for k in $kernels; do
  variants=$(runner_variants "bin_of $k" "$runtimes" "$k on ")
  all_variants="$all_variants $variants"
  case " $variants " in
  *" starpumpi_"*) # the dm* schedulers' models, per tile, untimed
    for b in $tiles; do
      STARPU_SCHED=dmda $mpiexec -n 1 "$(bin_of "$k" starpumpi)" \
        -k "$k" -n $((8 * b)) -b "$b" -r 2 >/dev/null 2>&1 ||
        { echo "$runner: StarPU-MPI calibration b=$b FAILED" >&2; status=1; }
    done ;;
  esac
  for r in $ranks; do
    for n in $sizes; do
      for v in $variants; do
        sizes_of=$tiles
        [ "$v" != scalapack ] || sizes_of=$blocks
        for b in $sizes_of; do
          run "$k" "$v" "$r" "$n" "$b"
        done
      done
    done
  done
done

# The tables: one row per (kernel, ranks, n, tile), one column per runtime
# (a peer of several variants: the best of them); then each runtime at its
# best tile; then the bytes sent.
awk -v order="$runtimes" -v reps="$reps" -v threads="$threads" "$awklib"'
# The cells of one row, w wide: arr[runtime, key] of each runtime against
# that of dag; with tiles, each followed by its tile (at[runtime, key]).
function cells(arr, key, w, tiles,   j, c, ref) {
  for (j = 1; j <= nc; j++) {
    if (!((col[j], key) in arr)) { printf " %" w "s", "-"; continue }
    ref = col[j] != "dag" && ("dag", key) in arr ? arr["dag", key] : 0
    c = cell_of(arr[col[j], key], ref)
    printf " %" w "s", tiles ? sprintf("%s b=%d", c, at[col[j], key]) : c
  }
  printf "\n"
}
{
  rt = str("runtime"); seen[rt] = 1
  head = sprintf("%-8s %5d %5s %6d", substr(str("bench"), 5), num("ranks"),
                 str("grid"), num("n"))
  row = sprintf("%s %5d", head, num("tile"))
  if (!(head in headseen)) { headseen[head] = 1; heads[++nheads] = head }
  if (!((head, num("tile")) in rowseen)) {
    rowseen[head, num("tile")] = 1; width[head]++
    # rows of one head in increasing tile order
    for (i = width[head]; i > 1 && tile[head, i - 1] > num("tile"); i--)
      tile[head, i] = tile[head, i - 1]
    tile[head, i] = num("tile")
  }
  if (str("unit") == "GFLOP/s") {
    tried[rt, str("variant")] = 1
    if (beats(num("value"), gf, rt SUBSEP row)) {
      gf[rt, row] = num("value"); won[rt, row] = str("variant")
    }
    if (beats(num("value"), best, rt SUBSEP head)) {
      best[rt, head] = num("value"); at[rt, head] = num("tile")
    }
  } else {
    sent[rt, row, str("variant")] = num("value")
    minimum[row] = num("min_bytes")
    many[row] = num("ranks") > 1
  }
}
END {
  if (!NR) { print "run-mpi: no results"; exit 1 }
  nc = columns(order, seen, col)
  top = sprintf("%-8s %5s %5s %6s", "kernel", "ranks", "grid", "n")
  printf "GFLOP/s (cholesky n^3/3, gemm 2n^3 flops), best of %d, %d task " \
         "thread(s) per rank; (x) = runtime / dag\n%s %5s", reps, threads,
         top, "b"
  for (j = 1; j <= nc; j++) printf " %15s", col[j]
  printf "\n"
  for (h = 1; h <= nheads; h++)
    for (i = 1; i <= width[heads[h]]; i++)
      rows[++nrows] = sprintf("%s %5d", heads[h], tile[heads[h], i])
  for (r = 1; r <= nrows; r++) {
    printf "%s", rows[r]
    cells(gf, rows[r], 15)
  }
  printf "\nEach at its best tile (b=...); (x) = runtime / dag\n%s", top
  for (j = 1; j <= nc; j++) printf " %22s", col[j]
  printf "\n"
  for (h = 1; h <= nheads; h++) {
    printf "%s", heads[h]
    cells(best, heads[h], 22, 1)
  }
  say_variants(col, nc)
  printed = 0
  for (r = 1; r <= nrows; r++) {
    row = rows[r]
    if (!many[row]) continue
    if (!printed++) {
      printf "\nMiB sent by the busiest rank during the timed part (by the " \
             "variant of the table above); minimum: whole tiles, each sent\n" \
             "once from its home to each rank that needs it; (x) = sent / " \
             "minimum\n%s %5s %9s", top, "b", "minimum"
      for (j = 1; j <= nc; j++) printf " %15s", col[j]
      printf "\n"
    }
    printf "%s %9.1f", row, minimum[row] / 1048576
    for (j = 1; j <= nc; j++) {
      rt = col[j]
      if (!((rt, row) in won)) { printf " %15s", "-"; continue }
      bytes = sent[rt, row, won[rt, row]]
      printf " %15s", cell_of(bytes / 1048576, minimum[row] / 1048576, "%.1f")
    }
    printf "\n"
  }
}' "$records" || status=1
peers_config "$(echo "$all_variants" | tr ' ' '\n' | sort -u)"
runner_finish
