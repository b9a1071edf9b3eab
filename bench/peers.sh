# shellcheck shell=sh
# peers.sh: sourced by the benchmark runners. Every peer at the
# configuration its maintainers would run it with, each setting left to
# the environment where it is set there, and a line that says what ran.
#
# OpenMP: threads bound to cores, as dag binds its workers (unbound, a
# runtime's threads float and lose caches); task priorities counted
# (OMP_MAX_TASK_PRIORITY is 0 by default, which ignores every `priority`
# clause). OMP_WAIT_POLICY stays the runtime's default unless set.
export OMP_PROC_BIND="${OMP_PROC_BIND:-close}" OMP_PLACES="${OMP_PLACES:-cores}"
export OMP_MAX_TASK_PRIORITY="${OMP_MAX_TASK_PRIORITY:-1000}"

# StarPU quiet and on the CPUs only; Open MPI allowed to run as root, which
# it refuses without these (the CI's machines run as root).
export STARPU_SILENT=1 STARPU_NCUDA=0 STARPU_NOPENCL=0
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# The peers' settings, one line, for the foot of a table; with the
# runner's runtimes as $1, each variant's own settings after (peer_variant).
peers_config() {
  line="peers: OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES"
  line="$line OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-default}"
  line="$line OMP_MAX_TASK_PRIORITY=$OMP_MAX_TASK_PRIORITY"
  line="$line${STARPU_SCHED:+ STARPU_SCHED=$STARPU_SCHED}"
  for rt in ${1:-}; do
    peer_variant "$rt"
    [ -z "$variant_env" ] || line="$line; $rt: $variant_env"
  done
  echo "$line"
}

# peer_variant NAME: a runtime named in a runner's --runtimes, read as the
# runtime whose program runs ($variant_base) and the settings it runs with
# ($variant_env, VAR=value words for env(1), or empty), so that each
# setting a peer's maintainers would try is a peer of its own and the best
# counts:
#   starpu_SCHED, starpumpi_SCHED   StarPU with scheduler SCHED (lws, eager,
#                                   ws, prio, dmda, dmdas...)
#   starpu_SCHED_main               ... and a core of its own for the thread
#                                   that submits, one worker fewer (as Task
#                                   Bench runs StarPU)
#   gomp_active, libomp_active      OpenMP with OMP_WAIT_POLICY=active
# shellcheck disable=SC2034 # the runner that calls it reads them
peer_variant() {
  variant_base=$1 variant_env=''
  case $1 in
  gomp_active | libomp_active)
    variant_base=${1%_active} variant_env=OMP_WAIT_POLICY=active ;;
  starpumpi_*) variant_base=starpumpi variant_env=STARPU_SCHED=${1#*_} ;;
  starpu_*_main)
    variant_sched=${1#starpu_} variant_base=starpu
    variant_env="STARPU_SCHED=${variant_sched%_main} STARPU_MAIN_THREAD_BIND=1" ;;
  starpu_*) variant_base=starpu variant_env=STARPU_SCHED=${1#*_} ;;
  esac
}

# peer_variants NAME: the variants a runner tries of peer NAME, the best
# of which counts (a variant's name, as peer_variant reads it, stands for
# itself alone).
peer_variants() {
  case $1 in
  gomp | libomp) echo "$1 ${1}_active" ;;
  starpu) echo "starpu_dmdas starpu_dmda starpu_lws starpu_ws starpu_eager" \
    "starpu_prio starpu_dmdas_main starpu_lws_main" ;;
  starpumpi)
    echo "starpumpi_dmdas starpumpi_dmda starpumpi_lws starpumpi_ws" \
      "starpumpi_eager starpumpi_prio" ;;
  *) echo "$1" ;;
  esac
}
