/* validate.c — the accesses of a public call, checked once into the
 * canonical regions the layers below take (api.h). Every mistake gets a
 * message naming the task and the access, with the item as written when
 * the rewriter passed it.
 */
#include "api/api.h"
#include "plan/dist.h"

#include <stdio.h>
#include <stdlib.h>

static const char *mode_name(enum dag_mode m) {
  return m == DAG_IN            ? "in"
         : m == DAG_OUT         ? "out"
         : m == DAG_INOUT       ? "inout"
         : m == DAG_COMMUTATIVE ? "commutative"
                                : "reduction";
}

/* What is wrong with the reduction access of mode m on r, or NULL. */
static const char *bad_reduction(enum dag_mode m, const struct region *r) {
  const char *why =
      dag__reduce_check(dag__reduce_op_of(m), dag__reduce_type_of(m));
  if (why)
    return why;
  size_t size = dag__reduce_type_size(dag__reduce_type_of(m));
  if (r->span % size || r->lo % size)
    return "its spans are not whole elements of the reduction's type";
  return NULL;
}

/* What forbids a triangle or diagonal in access mode m, or NULL. */
static const char *bad_shape(enum dag_mode m) {
  return dag__is_reduction(m) ? "a triangle or diagonal cannot be reduced"
                              : NULL;
}

/* Access i of the task, for messages: "access 2 'A[k:n]'" when the
 * rewriter gave the items' text. */
static const char *access_name(const struct dag_task_info *info, size_t i,
                               char *buf, size_t size) {
  if (info->items && info->items[i])
    snprintf(buf, size, "access %zu '%s'", i, info->items[i]);
  else
    snprintf(buf, size, "access %zu", i);
  return buf;
}

/* r, access i, lies wrong against dag_alloc memory (`how`, allocation a):
 * it crosses an allocation's edge, an extent written wrong (OpenMP matches
 * depend items by start address only, so code ported from it may name far
 * too many bytes), or it lies just outside an allocation, as a token past
 * the end of an array may (OpenMP only compares its address; here an item
 * is memory the task uses, and under MPI a transfer would reach memory no
 * rank holds). */
static int misplaced_error(const struct dag_task_info *info, size_t i,
                           const struct dag_access *acc, const struct region *r,
                           enum dist_misplaced how,
                           const struct allocation *a) {
  char name[256], memory[256], where[400];
  access_name(info, i, name, sizeof name);
  dag__dist_name(memory, sizeof memory, a);
  uintptr_t base = (uintptr_t)a->base, end = base + a->bytes;
  long long from =
      r->lo >= base ? (long long)(r->lo - base) : -(long long)(base - r->lo);
  const char *hint = "; is its extent in elements of the right type?";
  switch (how) {
  case DIST_CROSSES:
    snprintf(where, sizeof where, "runs from %s into another allocation",
             memory);
    break;
  case DIST_LEAVES:
    snprintf(where, sizeof where, "reaches %zu bytes past the end of %s",
             (size_t)(r->hi - end), memory);
    break;
  case DIST_ENTERS:
    snprintf(where, sizeof where, "starts %zu bytes before %s",
             (size_t)(base - r->lo), memory);
    break;
  case DIST_HOLDS:
    snprintf(where, sizeof where, "holds the whole of %s and bytes around it",
             memory);
    break;
  default: /* DIST_BEFORE_START, DIST_PAST_END */
    snprintf(where, sizeof where, "lies just %s %s",
             how == DIST_PAST_END ? "past the end of" : "before", memory);
    hint = "; an item is memory the task reads or writes, not a token: name "
           "bytes of the array, or a variable of their own";
  }
  return dag__user_error(info, DAG_EINVAL,
                         "%s (%s, %zu bytes at offset %lld) %s%s", name,
                         mode_name(dag__unshaped(acc->mode)),
                         (size_t)(r->hi - r->lo), from, where, hint);
}

static const char unknown_mode[] = "unknown mode";

/* Region i of a reduction or a shaped access (mode m as written): the
 * checks a plain access skips, and the count of the reductions that touch
 * something. Out of make_regions' loop, which every task with accesses
 * runs. */
static __attribute__((noinline)) int
unusual_region(const struct dag_task_info *info, const struct dag_access *a,
               struct region *out, enum dag_mode *m, const char **why,
               size_t *reductions) {
  unsigned shape = dag__shape_of(a->mode);
  *m = dag__unshaped(a->mode);
  bool reduction = dag__is_reduction(*m);
  if (*m != DAG_IN && *m != DAG_OUT && *m != DAG_INOUT &&
      *m != DAG_COMMUTATIVE && !reduction) {
    *why = unknown_mode;
    return DAG_EINVAL;
  }
  if (shape && (*why = bad_shape(*m)))
    return DAG_EINVAL;
  int err = shape ? dag__region_make_shaped(&a->region, shape, out, why)
                  : dag__region_make(&a->region, out, why);
  if (err || !reduction || dag__region_empty(out))
    return err;
  if ((*why = bad_reduction(*m, out)))
    return DAG_EINVAL;
  ++*reductions;
  return 0;
}

/* Validates acc into regs/modes, leaving out empty regions; counts the
 * reductions. Returns the number kept, or a negative DAG_E* code. */
static long make_regions(const struct dag_task_info *info,
                         const struct dag_access *acc, size_t n,
                         struct region *regs, enum dag_mode *modes,
                         size_t *reductions) {
  size_t kept = 0;
  for (size_t i = 0; i < n; i++) {
    enum dag_mode m = acc[i].mode;
    const char *why = NULL;
    int err =
        likely(m == DAG_IN || m == DAG_OUT || m == DAG_INOUT ||
               m == DAG_COMMUTATIVE)
            ? dag__region_make(&acc[i].region, &regs[kept], &why)
            : unusual_region(info, &acc[i], &regs[kept], &m, &why, reductions);
    if (err) {
      char name[256];
      if (why == unknown_mode)
        return dag__user_error(info, err, "%s: unknown mode %d",
                               access_name(info, i, name, sizeof name),
                               (int)acc[i].mode);
      return dag__user_error(info, err, "%s: %s",
                             access_name(info, i, name, sizeof name), why);
    }
    if (dag__region_empty(&regs[kept])) {
      if (unlikely(dag__guarding))
        *reductions |= VALIDATED_ITEMS_SKIPPED;
      continue;
    }
    const struct allocation *a;
    enum dist_misplaced how = dag__dist_misplaced(&regs[kept], &a);
    if (unlikely(how != DIST_FITS))
      return misplaced_error(info, i, &acc[i], &regs[kept], how, a);
    modes[kept++] = m;
  }
  return (long)kept;
}

void dag__validate(struct validated *v, const struct dag_task_info *info,
                   const struct dag_access *acc, size_t n) {
  v->regs = v->regs_stack;
  v->modes = v->modes_stack;
  v->reductions = 0;
  if (n > ACCESSES_ON_STACK) {
    v->regs = malloc(n * sizeof *v->regs);
    v->modes = malloc(n * sizeof *v->modes);
    if (!v->regs || !v->modes) {
      free(v->regs);
      free(v->modes);
      v->regs = v->regs_stack; /* nothing for validated_release to free */
      v->modes = v->modes_stack;
      v->kept =
          dag__user_error(info, DAG_ENOMEM, "no memory for %zu accesses", n);
      return;
    }
  }
  v->kept = make_regions(info, acc, n, v->regs, v->modes, &v->reductions);
}

void dag__validated_release(struct validated *v) {
  if (v->regs != v->regs_stack) {
    free(v->regs);
    free(v->modes);
  }
}
