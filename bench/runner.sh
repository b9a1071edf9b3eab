# shellcheck shell=sh disable=SC2154 # $here, $runner: set by the runner
# runner.sh: sourced by every benchmark runner once it has set $here (its
# folder in the build tree) and $runner (the name it goes by in messages).
# What the runners do alike lives here once: reading the command line,
# keeping the records (JSON Lines) in a temporary folder until the end,
# turning the order of the runs, counting the failed ones, and handing the
# records to --json. It also sources peers.sh (the peers' settings) and
# reads runner.awk (the records' awk functions) into $awklib, for the
# runners' awk programs to put in front of their own.
# shellcheck source=bench/peers.sh
. "$here/../peers.sh"
# shellcheck disable=SC2034 # the runners read it
awklib=$(cat "$here/../runner.awk")

# The run's files: $tmp, removed at the exit, also on INT and TERM (which
# would otherwise end the shell without its EXIT trap); $records, the
# records of this run, which the tables read and --json receives at the end.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
records=$tmp/records.jsonl
: >"$records"
status=0 failed=0 json=''

# runner_options ARGS... <<SPEC: reads the command line by SPEC, one line
# per kind of option:
#   WHAT: NAME...    --NAME takes a value into $NAME ("--NAME needs WHAT"
#                    where it is missing); NAME+ adds the value to $NAME as
#                    one more line
#   --FLAG: CODE     --FLAG runs CODE (shell words)
# -h and --help print usage (the runner's function) and exit 0; any other
# word prints an error and usage on stderr and exits 2.
runner_options() {
  runner_spec=$(cat)
  while [ $# -gt 0 ]; do
    runner_took='' # the words the option took: 1 or 2
    case $1 in -h | --help) usage; exit 0 ;; esac
    while IFS= read -r runner_line; do
      runner_what=${runner_line%%:*}
      case $runner_what in
      --*) # a flag
        [ "$runner_what" = "$1" ] || continue
        eval "${runner_line#*:}"
        runner_took=1 && break ;;
      esac
      for runner_name in ${runner_line#*:}; do
        [ "--${runner_name%+}" = "$1" ] || continue
        : "${2:?$1 needs $runner_what}"
        case $runner_name in
        *+) runner_name=${runner_name%+} # one more line
          eval "$runner_name=\"\${$runner_name:+\$$runner_name
}\$2\"" ;;
        *) eval "$runner_name=\$2" ;;
        esac
        runner_took=2 && break 2
      done
    done <<EOF
$runner_spec
EOF
    if [ -z "$runner_took" ]; then
      echo "$runner: unknown option '$1'" >&2
      usage >&2
      exit 2
    fi
    shift "$runner_took"
  done
}

# runner_threads N: N threads that run tasks in every runtime: dag's
# workers, OpenMP's team, StarPU's CPU workers.
runner_threads() {
  export DAG_NUM_THREADS="$1" OMP_NUM_THREADS="$1" STARPU_NCPU="$1"
}

# runner_variants "BIN_OF [WORD...]" RUNTIMES [CASE]: the variants
# (peers.sh) of RUNTIMES whose program is built, in order; BIN_OF [WORD...]
# BASE names the program of a variant's runtime BASE, or nothing where there
# is none to run (not written for this case: left out without a word). The
# others are named on stderr, after CASE ("gemm on ").
runner_variants() {
  for runner_rt in $2; do
    for runner_v in $(peer_variants "$runner_rt"); do
      peer_variant "$runner_v"
      # shellcheck disable=SC2086 # the function and its words
      runner_bin=$($1 "$variant_base")
      if [ -x "$runner_bin" ]; then
        printf ' %s' "$runner_v"
      elif [ -n "$runner_bin" ]; then
        echo "$runner: ${3:-}$runner_v: $runner_bin not built, skipped" >&2
      fi
    done
  done
}

# turned K LIST: the words of LIST turned left by K places, so that from
# one round to the next each runs in another place of the order and a
# drift of the machine (these shared machines drift by half over seconds)
# touches them all alike.
turned() {
  # shellcheck disable=SC2086 # the list is words
  set -- "$1" $2
  [ $# -gt 1 ] || return 0
  runner_k=$(($1 % ($# - 1))) && shift
  while [ "$runner_k" -gt 0 ]; do
    runner_first=$1 && shift && set -- "$@" "$runner_first"
    runner_k=$((runner_k - 1))
  done
  echo "$@"
}

# runner_fail WHAT [TEXT...]: a run that failed, said on stderr with what it
# printed (TEXT), and counted.
runner_fail() {
  echo "$runner: $1 FAILED" >&2
  shift
  [ $# -eq 0 ] || printf '%s\n' "$@" >&2
  status=1 failed=$((failed + 1))
}

# record BENCH RUNTIME METRIC VALUE UNIT [PAIRS]: one JSON Lines record on
# stdout, the fields every record has and PAIRS ("key":value,...) after.
record() {
  printf '{"bench":"%s","runtime":"%s","metric":"%s","value":%s,"unit":"%s"%s}\n' \
    "$1" "$2" "$3" "$4" "$5" "${6:+,$6}"
}

# runner_finish: the records appended to --json's file, the failed runs
# counted on stderr, and the exit: 1 where a run failed, else $status.
runner_finish() {
  [ -z "$json" ] || cat "$records" >>"$json"
  if [ "$failed" -gt 0 ]; then
    echo "$runner: $failed run(s) FAILED (see above)" >&2
    status=1
  fi
  exit "$status"
}
