#!/bin/sh
# bench/gpu/model_check.sh [N] [TILE] [WORKERS] [ROUNDS] — the timed device
# model against this machine (issue 26 §1): one core's dgemm rate is
# measured, a model with it is written, and a tiled GEMM of CPU tasks runs
# for real and on the model, alternately, ROUNDS times each; prints each
# wall time, the medians and their ratio (model over real).
set -eu
dir=$(dirname "$0")
bin=${MODEL_CHECK:-$dir/model_check}
n=${1:-4096} b=${2:-512} workers=${3:-2} rounds=${4:-3}
rate=$("$bin" calibrate -b "$b" | sed 's/.*rate=//')
model=$(mktemp)
trap 'rm -f "$model"' EXIT
cat >"$model" <<MODEL
name this-cpu
memory 1G
copy in 10G 1us
copy out 10G 1us
rate cpu gemm $rate
MODEL
echo "one core's dgemm on tiles of $b: $rate flop/s"
real="" model_t=""
for r in $(seq "$rounds"); do
  t=$(DAG_NUM_THREADS=$workers "$bin" run -n "$n" -b "$b" | sed 's/.*wall=//')
  real="$real $t"
  t=$(DAG_NUM_THREADS=$workers DAG_DEVICES=emul DAG_EMUL_MODEL=$model \
      "$bin" run -n "$n" -b "$b" 2>/dev/null | sed 's/.*wall=//')
  model_t="$model_t $t"
done
median() { echo "$@" | tr ' ' '\n' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
mr=$(median $real) mm=$(median $model_t)
echo "real:$real"
echo "model:$model_t"
echo "model_check n=$n b=$b workers=$workers real=$mr model=$mm model/real=$(echo "$mm $mr" | awk '{printf "%.3f", $1/$2}')"
