#!/bin/sh
# bench/gpu/model_check.sh [N] [TILE] [WORKERS] [ROUNDS] [TOLERANCE] — the
# timed device model against this machine (issue 26 §1, issue 50): ROUNDS
# times in turn, one core's dgemm rate is measured, a model with it is
# written, and a tiled GEMM of CPU tasks runs for real and then on that
# model. A round's ratio is the model's wall time over the real run's CPU
# time per worker: what the real run takes on cores of its own, while its
# workers never idle (many more tiles than workers). The wall time of the
# real run would also count other processes holding its cores, which the
# model cannot know: on 2 shared cores under a load of 8 single runs went
# from 0.17 to 1.6 of it. The calibration is in CPU time for the same
# reason. Prints each round and the median of the ratios (and, for
# reference, of the model over the real wall time).
# Exits 1 when a run fails or prints no time, and, given TOLERANCE (0.15:
# 15%), when the median ratio is further than that from 1.
set -eu
dir=$(dirname "$0")
bin=${MODEL_CHECK:-$dir/model_check}
n=${1:-4096} b=${2:-512} workers=${3:-2} rounds=${4:-3} tolerance=${5:-}
# A model that charges a multiple of the measured time (MODEL_CHECK_SKEW=2:
# twice) shows that the check fails when the model is wrong.
skew=${MODEL_CHECK_SKEW:-1}
err=$(mktemp)
model=$(mktemp)
trap 'rm -f "$model" "$err"' EXIT

# The values of each FIELD= in the line COMMAND prints, on one line; its
# stderr is shown only when it fails or prints no such value.
values_of() { # "FIELD..." COMMAND...
  fields=$1
  shift
  out=$("$@" 2>"$err") || {
    status=$?
    cat "$err" >&2
    echo "model_check.sh: FAILED: exit status $status: $*" >&2
    return 1
  }
  values=""
  for field in $fields; do
    v=$(printf '%s\n' "$out" | sed -n "s/.* $field=\([0-9.e+-]*\).*/\1/p")
    if [ -z "$v" ]; then
      printf '%s\n' "$out" >&2
      cat "$err" >&2
      echo "model_check.sh: FAILED: no $field= from: $*" >&2
      return 1
    fi
    values="$values${values:+ }$v"
  done
  echo "$values"
}

ratios="" wall_ratios=""
for r in $(seq "$rounds"); do
  rate=$(values_of rate "$bin" calibrate -b "$b")
  cat >"$model" <<MODEL
name this-cpu
memory 1G
copy in 10G 1us
copy out 10G 1us
rate cpu gemm $(awk -v r="$rate" -v s="$skew" 'BEGIN { print r / s }')
MODEL
  real=$(values_of "wall cpu" env DAG_NUM_THREADS="$workers" "$bin" run \
    -n "$n" -b "$b")
  wall=${real% *} cpu=${real#* }
  t=$(values_of wall env DAG_NUM_THREADS="$workers" DAG_DEVICES=emul \
    DAG_EMUL_MODEL="$model" "$bin" run -n "$n" -b "$b")
  line=$(awk -v m="$t" -v w="$wall" -v c="$cpu" -v k="$workers" 'BEGIN {
    printf "%.3f %.3f", m / (c / k), m / w }')
  ratios="$ratios ${line% *}" wall_ratios="$wall_ratios ${line#* }"
  echo "round $r: one core $rate flop/s; real wall $wall s, cpu $cpu s; model $t s; model/real ${line% *}"
done
median() { echo "$@" | tr ' ' '\n' | sort -g | awk 'NF {v[++k]=$1} END {print v[int((k+1)/2)]}'; }
# shellcheck disable=SC2086 # the words of the lists are the values
ratio=$(median $ratios) wall_median=$(median $wall_ratios)
echo "model_check n=$n b=$b workers=$workers rounds=$rounds model/real=$ratio (model/real wall $wall_median)"
if [ -n "$tolerance" ]; then
  if awk -v r="$ratio" -v t="$tolerance" 'BEGIN { exit !(r >= 1 - t && r <= 1 + t) }'; then
    echo "model_check: model/real=$ratio within $tolerance of 1: ok"
  else
    echo "model_check: FAILED: model/real=$ratio, further than $tolerance from 1" >&2
    exit 1
  fi
fi
