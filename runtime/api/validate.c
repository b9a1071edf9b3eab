/* validate.c — the accesses of a public call, checked once into the
 * canonical regions the layers below take, and the submitted task handed
 * down with them (api.h). Every mistake gets a message naming the task and
 * the access, with the item as written when the rewriter passed it.
 *
 * A rank of a multi-rank run submits every top-level task of the program,
 * and most of the work of a task is working out its accesses: validating
 * each region, finding its allocation and, in dag_alloc memory, the one
 * block it lies in. Programs name the same tiles and runs again and again,
 * so in front of the checks a cache keeps, per access as written (mode,
 * base, span and up to one dimension: runs and rows of tiles), its region
 * and where the planner found it lies. It is true as long as no allocation
 * comes or goes (dag__dist_version), and only the program's thread, the
 * one that drives the planner, uses it.
 */
#include "api/api.h"
#include "plan/dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* What is wrong with reduction item regs[kept] of a task whose argument
 * block is args (args_size bytes), beside the items kept before it, or NULL:
 * the body reaches its private copy through a listed pointer into the item,
 * which must lie in the block. */
static const char *misused_reduction(const struct dag_task_info *info,
                                     const void *args, size_t args_size,
                                     const struct region *regs,
                                     const enum dag_mode *modes, size_t kept) {
  const struct region *r = &regs[kept];
  if (info->npointers > 0 && !info->pointers)
    return "the task lists pointers (dag_task_info.npointers) at NULL";
  bool reached = false;
  for (int j = 0; j < info->npointers; j++) {
    const struct dag_pointers *p = &info->pointers[j];
    if (p->offset > args_size ||
        p->count > (args_size - p->offset) / sizeof(void *))
      return "a run of the task's pointers (dag_task_info.pointers) runs "
             "past its argument block";
    for (size_t c = 0; c < p->count; c++) {
      uintptr_t q;
      memcpy(&q, (const char *)args + p->offset + c * sizeof q, sizeof q);
      reached |= q >= r->lo && q < r->hi;
    }
  }
  if (!reached)
    return "no pointer of the argument block (dag_task_info.pointers) "
           "points into it, so the body could not reach its private copy";
  for (size_t j = 0; j < kept; j++)
    if (dag__is_reduction(modes[j]) && dag__region_overlap(&regs[j], r))
      return "it overlaps another reduction item of the task";
  return NULL;
}

/* Region i of a reduction or a shaped access (mode m as written): the
 * checks a plain access skips, and the count of the reductions that touch
 * something. Out of make_regions' loop, which every task with accesses
 * runs. */
static __attribute__((noinline)) int
reduction_or_shaped_region(const struct dag_task_info *info,
                           const struct dag_access *a, struct region *out,
                           enum dag_mode *m, const char **why,
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

/* ------------------------------------------------------------ the cache */

/* One access as written, and how it validated. */
struct cached_access {
  /* The key: an access with ndims 0 or 1 (count 0 and stride 0 for 0). */
  const void *base;
  size_t span, count;
  ptrdiff_t stride;
  int8_t mode; /* 0: a free slot */
  int8_t ndims;
  /* The answer; the region's lo is base. */
  int8_t region_ndims;
  uintptr_t hi;
  size_t region_span, region_count, region_stride;
  struct resolved where;
};

#define CACHE_SLOTS 8192 /* a power of two */

static struct cached_access cache[CACHE_SLOTS];
static const void *cache_version; /* the allocations it is true for */

/* Whether the cache keeps accesses like `a`: not shaped ones, nor
 * reductions. dag__access_known need not ask about the mode: no kept
 * access has one of theirs, so same_key tells them apart. */
static bool keyable(const struct dag_access *a) {
  return (unsigned)a->region.ndims <= 1 && (unsigned)a->mode <= DAG_COMMUTATIVE;
}

static struct cached_access *slot(const struct dag_access *a) {
  size_t count = a->region.ndims ? a->region.dim[0].count : 0;
  uint64_t h = (uintptr_t)a->region.base ^ a->region.span << 20 ^ count << 40;
  return &cache[(h * 0x9e3779b97f4a7c15ull) >> (64 - 13)];
}

_Static_assert(CACHE_SLOTS == 1 << 13, "slot() takes 13 bits");

static bool same_key(const struct cached_access *k,
                     const struct dag_access *a) {
  const struct dag_region *r = &a->region;
  return k->base == r->base && k->span == r->span && k->mode == (int)a->mode &&
         k->ndims == r->ndims &&
         (r->ndims == 0 ||
          (k->count == r->dim[0].count && k->stride == r->dim[0].stride));
}

bool dag__access_known(const struct dag_access *a, struct region *g,
                       struct resolved *where) {
  if ((unsigned)a->region.ndims > 1)
    return false;
  const struct cached_access *k = slot(a);
  if (!k->mode || !same_key(k, a))
    return false;
  g->lo = (uintptr_t)a->region.base;
  g->hi = k->hi;
  g->span = k->region_span;
  g->ndims = k->region_ndims;
  g->shape = 0; /* shaped accesses are not kept */
  g->dim[0].count = k->region_count;
  g->dim[0].stride = k->region_stride;
  *where = k->where;
  return true;
}

bool dag__access_cache_valid(void) {
  const void *now = dag__dist_version();
  if (likely(now == cache_version))
    return true;
  dag__access_cache_forget();
  cache_version = now;
  return false;
}

/* Inlined where validate_and_hand_down remembers every access of a task:
 * a call per access cost planned tasks a tenth more (callgrind). */
static DAG_ALWAYS_INLINE void remember(const struct dag_access *a,
                                       const struct region *g,
                                       const struct resolved *where) {
  if (!keyable(a) || g->ndims > 1)
    return;
  const struct dag_region *in = &a->region;
  bool rows = in->ndims == 1;
  *slot(a) =
      (struct cached_access){.base = in->base,
                             .span = in->span,
                             .count = rows ? in->dim[0].count : 0,
                             .stride = rows ? in->dim[0].stride : 0,
                             .mode = (int8_t)a->mode,
                             .ndims = (int8_t)in->ndims,
                             .region_ndims = (int8_t)g->ndims,
                             .hi = g->hi,
                             .region_span = g->span,
                             .region_count = g->ndims ? g->dim[0].count : 0,
                             .region_stride = g->ndims ? g->dim[0].stride : 0,
                             .where = *where};
}

void dag__access_remember(const struct dag_access *a, const struct region *g,
                          const struct resolved *where) {
  remember(a, g, where);
}

void dag__access_cache_forget(void) { memset(cache, 0, sizeof cache); }

/* ------------------------------------------------------------ validation */

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
    int err = likely(m == DAG_IN || m == DAG_OUT || m == DAG_INOUT ||
                     m == DAG_COMMUTATIVE)
                  ? dag__region_make(&acc[i].region, &regs[kept], &why)
                  : reduction_or_shaped_region(info, &acc[i], &regs[kept], &m,
                                               &why, reductions);
    if (err) {
      char name[256];
      if (why == unknown_mode)
        return dag__user_error(info, err, "%s: unknown mode %d",
                               access_name(info, i, name, sizeof name),
                               (int)acc[i].mode);
      return dag__user_error(info, err, "%s: %s",
                             access_name(info, i, name, sizeof name), why);
    }
    if (dag__region_empty(&regs[kept]))
      continue;
    const struct allocation *a;
    enum dist_misplaced how = dag__dist_misplaced(&regs[kept], &a);
    if (unlikely(how != DIST_FITS))
      return misplaced_error(info, i, &acc[i], &regs[kept], how, a);
    modes[kept++] = m;
  }
  return (long)kept;
}

/* Checks the reduction items of a task against its arguments
 * (misused_reduction), once make_regions kept those of the n accesses acc
 * that are not empty in regs and modes. Returns kept, or a DAG_E* code. A
 * pass of its own, which only tasks with reductions take. */
static __attribute__((noinline)) long
check_reductions(const struct dag_task_info *info, const void *args,
                 size_t args_size, const struct dag_access *acc, size_t n,
                 const struct region *regs, const enum dag_mode *modes,
                 long kept) {
  for (size_t i = 0, k = 0; i < n; i++) {
    const struct dag_region *r = &acc[i].region;
    bool empty = r->span == 0;
    for (int d = 0; d < r->ndims; d++)
      empty |= r->dim[d].count == 0;
    if (empty)
      continue; /* left out */
    const char *why;
    if (dag__is_reduction(modes[k]) &&
        (why = misused_reduction(info, args, args_size, regs, modes, k))) {
      char name[256];
      return dag__user_error(info, DAG_EINVAL, "%s: %s",
                             access_name(info, i, name, sizeof name), why);
    }
    k++;
  }
  return kept;
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

/* ------------------------------------------------------------ handing down */

/* Hands the task down with its n validated accesses: to the reductions
 * when it has some (`reductions`) or groups are open, else to the planner
 * when `planned` or this rank's device layer and core. For the planner,
 * `where` (NULL, or n entries) receives where each access lies. Returns
 * whether the planner filled `where`, or a DAG_E* code. */
static DAG_ALWAYS_INLINE int
hand_down(const struct dag_task_info *info, dag_task_fn body, const void *args,
          size_t args_size, const struct region *regs,
          const enum dag_mode *modes, size_t n, size_t reductions, bool planned,
          struct resolved *where) {
  if (unlikely(reductions) || unlikely(dag__reductions_to_end())) {
    dag__reduce_submit(info, body, args, args_size, regs, modes, n);
    return 0;
  }
  if (!planned) {
    dag__local_submit(info, body, args, args_size, regs, modes, n, 0);
    return 0;
  }
  dag__plan_submit(info, body, args, args_size, regs, modes, n, where);
  return where != NULL;
}

/* Validates the task's accesses and hands it down. */
static DAG_ALWAYS_INLINE int
validate_and_hand_down(const struct dag_task_info *info, dag_task_fn body,
                       const void *args, size_t args_size,
                       const struct dag_access *acc, size_t n, bool planned,
                       struct resolved *where) {
  struct validated v;
  dag__validate(&v, info, acc, n);
  if (unlikely(v.reductions) && v.kept >= 0)
    v.kept = check_reductions(info, args, args_size, acc, n, v.regs, v.modes,
                              v.kept);
  int ret = (int)v.kept;
  if (v.kept >= 0) {
    size_t kept = (size_t)v.kept;
    /* An empty item was left out: the items as written no longer match. */
    struct dag_task_info bare;
    if (unlikely(kept < n) && info->items) {
      bare = *info;
      bare.items = NULL;
      info = &bare;
    }
    ret = hand_down(info, body, args, args_size, v.regs, v.modes, kept,
                    v.reductions, planned, kept == n ? where : NULL);
    if (ret == 1) /* where is filled: kept for the next task */
      for (size_t i = 0; i < n; i++)
        remember(&acc[i], &v.regs[i], &where[i]);
  }
  dag__validated_release(&v);
  return ret < 0 ? ret : 0;
}

/* validate_and_hand_down for a top-level task of several ranks, out of
 * the way of planned_submit's usual path: a frame this large there cost
 * every task that the cache answers. */
static __attribute__((noinline)) int
validate_planned(const struct dag_task_info *info, dag_task_fn body,
                 const void *args, size_t args_size,
                 const struct dag_access *acc, size_t n,
                 struct resolved *where) {
  return validate_and_hand_down(info, body, args, args_size, acc, n, true,
                                where);
}

/* Whether the cache knows each of the n accesses acc: then regs, modes
 * and where hold them. A loop of its own: inlined in planned_submit's
 * frame, it kept its values on the stack (a tenth more instructions per
 * task, callgrind). */
static __attribute__((noinline)) bool all_known(const struct dag_access *acc,
                                                size_t n, struct region *regs,
                                                enum dag_mode *modes,
                                                struct resolved *where) {
  for (size_t i = 0; i < n; i++) {
    if (!dag__access_known(&acc[i], &regs[i], &where[i]))
      return false;
    modes[i] = acc[i].mode;
  }
  return true;
}

/* A top-level task of several ranks: from the cache when all its accesses
 * are there. */
static DAG_ALWAYS_INLINE int planned_submit(const struct dag_task_info *info,
                                            dag_task_fn body, const void *args,
                                            size_t args_size,
                                            const struct dag_access *acc,
                                            size_t n) {
  struct region regs[ACCESSES_ON_STACK];
  enum dag_mode modes[ACCESSES_ON_STACK];
  struct resolved where[ACCESSES_ON_STACK];
  if (n > ACCESSES_ON_STACK || !dag__access_cache_valid())
    return validate_planned(info, body, args, args_size, acc, n,
                            n > ACCESSES_ON_STACK ? NULL : where);
  if (!all_known(acc, n, regs, modes, where))
    return validate_planned(info, body, args, args_size, acc, n, where);
  if (unlikely(dag__reductions_to_end())) {
    dag__reduce_submit(info, body, args, args_size, regs, modes, n);
    return 0;
  }
  dag__plan_submit_resolved(info, body, args, args_size, regs, modes, where, n);
  return 0;
}

int dag__validate_submit(const struct dag_task_info *info, dag_task_fn body,
                         const void *args, size_t args_size,
                         const struct dag_access *acc, size_t n) {
  if (dag__planned())
    return planned_submit(info, body, args, args_size, acc, n);
  return validate_and_hand_down(info, body, args, args_size, acc, n, false,
                                NULL);
}
