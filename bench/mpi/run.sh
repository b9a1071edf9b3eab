#!/bin/sh
# run.sh — the distributed benchmarks' driver, copied by CMake to
# <build>/bench/mpi/run-mpi. For each kernel (Cholesky, GEMM), rank count,
# matrix order and tile size it runs every runtime's program under mpiexec,
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

here=$(cd "$(dirname "$0")" && pwd)
awklib=$(cat "$here/../runner.awk") # str(), num(), say_variants()
# shellcheck source=bench/peers.sh
. "$here/../peers.sh"
json='' ranks="1 2" sizes=4096 tiles="128 256 512" blocks="32 64 128 256"
reps=3 threads=1
kernels="cholesky gemm" runtimes="dag scalapack starpumpi"
launcher="mpiexec --oversubscribe"
while [ $# -gt 0 ]; do
  case $1 in
  --json) json=${2:?--json needs a file}; shift ;;
  --ranks) ranks=${2:?--ranks needs a list}; shift ;;
  --sizes) sizes=${2:?--sizes needs a list}; shift ;;
  --tiles) tiles=${2:?--tiles needs a list}; shift ;;
  --blocks) blocks=${2:?--blocks needs a list}; shift ;;
  --reps) reps=${2:?--reps needs a number}; shift ;;
  --threads) threads=${2:?--threads needs a number}; shift ;;
  --quick) sizes=1024 tiles=128 blocks="64 128" reps=1 ;;
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
export STARPU_HOME="$tmp"

status=0 failed=0

bin_of() { # KERNEL RUNTIME
  case $1 in
  cholesky) echo "$here/chol_$2" ;;
  *) echo "$here/$1_$2" ;;
  esac
}

# run KERNEL VARIANT RANKS N TILE: one mpiexec; rank 0's line becomes two
# JSON records (GFLOP/s, bytes sent).
run() {
  peer_variant "$2"
  # shellcheck disable=SC2086 # the settings and the launcher are words
  if ! out=$(env $variant_env $launcher -n "$3" \
      "$(bin_of "$1" "$variant_base")" -n "$4" -b "$5" -r "$reps" \
      2>"$tmp/err"); then
    echo "run-mpi: $1 $2 ranks=$3 n=$4 b=$5 FAILED" >&2
    cat "$tmp/err" >&2
    printf '%s\n' "$out" >&2
    status=1 failed=$((failed + 1))
    return
  fi
  printf '%s\n' "$out" | awk -v rt="$variant_base" -v variant="$2" \
      -v threads="$threads" -v reps="$reps" '
  $1 == "cholesky" || $1 == "gemm" {
    for (i = 2; i <= NF; i++) {
      split($i, kv, "=")
      f[kv[1]] = kv[2]
    }
    key = "r" f["ranks"] "_n" f["n"] "_b" f["b"]
    common = sprintf("\"variant\":\"%s\",\"ranks\":%d,\"grid\":\"%s\"," \
                     "\"n\":%d,\"tile\":%d,\"threads\":%d,\"workers\":%d," \
                     "\"reps\":%d", variant, f["ranks"], f["grid"], f["n"],
                     f["b"], threads, f["workers"], reps)
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

# Every variant of every runtime, at each rank count and size one after
# the other (each at its tiles), so that a drift of the machine touches
# them alike.
all_variants=''
for k in $kernels; do
  variants=''
  for rt in $runtimes; do
    for v in $(peer_variants "$rt"); do
      peer_variant "$v"
      if [ "$k/$variant_base" = gemm/starpumpi ]; then
        continue # not written: StarPU-MPI runs the Cholesky only
      elif [ -x "$(bin_of "$k" "$variant_base")" ]; then
        variants="$variants $v"
      else
        echo "run-mpi: $k on $v: $(bin_of "$k" "$variant_base") not built," \
          "skipped" >&2
      fi
    done
  done
  all_variants="$all_variants $variants"
  case " $variants " in
  *" starpumpi_"*) # the dm* schedulers' models, per tile, untimed
    for b in $tiles; do
      STARPU_SCHED=dmda $launcher -n 1 "$(bin_of "$k" starpumpi)" \
        -n $((8 * b)) -b "$b" -r 2 >/dev/null 2>&1 ||
        { echo "run-mpi: StarPU-MPI calibration b=$b FAILED" >&2; status=1; }
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
function cell_of(v, ref) {
  c = sprintf("%.2f", v)
  return ref > 0 ? sprintf("%s (%.2fx)", c, v / ref) : c
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
    if (!((rt, row) in gf) || num("value") > gf[rt, row]) {
      gf[rt, row] = num("value"); won[rt, row] = str("variant")
    }
    if (!((rt, head) in best) || num("value") > best[rt, head]) {
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
  nc = 0
  split(order, all, " ")
  for (i = 1; i in all; i++) {
    sub(/_.*/, "", all[i]) # starpumpi_lws: starpumpi
    if (all[i] in seen && !(all[i] in taken)) {
      col[++nc] = all[i]; taken[all[i]] = 1
    }
  }
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
    row = rows[r]; printf "%s", row
    for (j = 1; j <= nc; j++) {
      rt = col[j]
      if (!((rt, row) in gf)) { printf " %15s", "-"; continue }
      ref = rt != "dag" && ("dag", row) in gf ? gf["dag", row] : 0
      printf " %15s", cell_of(gf[rt, row], ref)
    }
    printf "\n"
  }
  printf "\nEach at its best tile (b=...); (x) = runtime / dag\n%s", top
  for (j = 1; j <= nc; j++) printf " %22s", col[j]
  printf "\n"
  for (h = 1; h <= nheads; h++) {
    head = heads[h]; printf "%s", head
    for (j = 1; j <= nc; j++) {
      rt = col[j]
      if (!((rt, head) in best)) { printf " %22s", "-"; continue }
      ref = rt != "dag" && ("dag", head) in best ? best["dag", head] : 0
      c = cell_of(best[rt, head], ref)
      printf " %22s", sprintf("%s b=%d", c, at[rt, head])
    }
    printf "\n"
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
      c = sprintf("%.1f", bytes / 1048576)
      if (minimum[row] > 0)
        c = sprintf("%s (%.2fx)", c, bytes / minimum[row])
      printf " %15s", c
    }
    printf "\n"
  }
}' "$records" || status=1
peers_config "$(echo "$all_variants" | tr ' ' '\n' | sort -u)"

if [ -n "$json" ]; then
  cat "$records" >>"$json"
fi
if [ "$failed" -gt 0 ]; then
  echo "run-mpi: $failed run(s) FAILED (see above)" >&2
fi
exit "$status"
