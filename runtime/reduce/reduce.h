/* reduce.h — task reductions (reduce/), as the public calls see them:
 * the groups of tasks that reduce into the same item, each on a private
 * copy (reduce.c), and the operators on C's arithmetic types (ops.c).
 * Reductions are rare next to ordinary tasks, so their calls are cold:
 * their code lies apart from the hot paths of the layers below.
 */
#ifndef DAG_REDUCE_H
#define DAG_REDUCE_H

#include "base.h"

/* ---------------------------------------------------------------- ops.c */

/* The operator and the element type of a DAG_REDUCTION mode. */
static inline enum dag_reduce_op dag__reduce_op_of(enum dag_mode m) {
  return (enum dag_reduce_op)(((unsigned)m >> 4) & 0xff);
}
static inline enum dag_reduce_type dag__reduce_type_of(enum dag_mode m) {
  return (enum dag_reduce_type)((unsigned)m >> 12);
}
static inline bool dag__is_reduction(enum dag_mode m) {
  return ((unsigned)m & 0xf) == DAG_REDUCTION;
}

/* What is wrong with a reduction of operator op on type, or NULL. */
DAG_COLD const char *dag__reduce_check(unsigned op, unsigned type);
DAG_COLD size_t dag__reduce_type_size(enum dag_reduce_type type);
/* Fills `bytes` bytes at into with op's identity. */
void dag__reduce_identity(enum dag_reduce_op op, enum dag_reduce_type type,
                          void *into, size_t bytes);
/* into[i] = into[i] op from[i] over `bytes` bytes of elements. */
void dag__reduce_combine(enum dag_reduce_op op, enum dag_reduce_type type,
                         void *into, const void *from, size_t bytes);

/* ------------------------------------------------------------- reduce.c */

/* Reduction groups open among top-level tasks, plus task bodies' scopes
 * of groups open on every thread: atomic so that every submitter may look
 * at it first, before the dearer question of which thread it is and which
 * groups are its own (a thread-local look cost tiny tasks run inline 70%
 * more, bench/overhead c). */
extern _Atomic size_t dag__reductions_open;

/* Submits a validated task (n accesses, not empty; its reduction items
 * reached by a listed pointer each, and apart) that has DAG_REDUCTION
 * accesses, or any while the calling context has groups open
 * (dag__reductions_to_end). First the groups that its accesses touch
 * other than as the same reduction end: their tasks combine into the item
 * before the access. Then each of its reductions works on a private copy
 * of its item. */
DAG_COLD void dag__reduce_submit(const struct dag_task_info *info,
                                 dag_task_fn body, const void *args,
                                 size_t args_size, const struct region *regs,
                                 const enum dag_mode *modes, size_t n);
/* The calls below act on the groups among the calling context's children
 * (top-level tasks, or the children of the body that calls). */

/* Whether some are open. */
DAG_COLD bool dag__reduce_scope_open(void);
/* Ends the groups whose items overlap regs (taskwait on, dag_free). */
DAG_COLD void dag__reduce_end_overlapping(const struct region *regs, size_t n);
/* Ends every group (taskwait, dag_finalize; for a body, its return). */
DAG_COLD void dag__reduce_end_all(void);
/* Forgets the groups and their memory (dag_finalize: freed with every
 * allocation). */
DAG_COLD void dag__reduce_release(void);

/* Whether the calling context may have reduction groups to end. */
static inline bool dag__reductions_to_end(void) {
  if (likely(
          !atomic_load_explicit(&dag__reductions_open, memory_order_relaxed)))
    return false;
  return dag__reduce_scope_open();
}

#endif /* DAG_REDUCE_H */
