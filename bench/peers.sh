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

# The peers' settings, one line, for the foot of a table.
peers_config() {
  echo "peers: OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES" \
    "OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-default}" \
    "OMP_MAX_TASK_PRIORITY=$OMP_MAX_TASK_PRIORITY" \
    "${STARPU_SCHED:+STARPU_SCHED=$STARPU_SCHED}"
}
