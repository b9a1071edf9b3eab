/* guard_check.c — DAG_CHECK_ITEMS's verdict on one body (guard.c calls
 * it when the body stops): each page it wrote compared with its snapshot
 * (guard_pages.c took them), the changed bytes outside its items, and the
 * message that names the task, the bytes, the memory they lie in and the
 * items it declared. Called under guard.c's lock, but the message, which
 * stops the run.
 */
#include "comm/comm.h"
#include "core/guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* ---------------------------------------------------------- the check */

/* Adds [a, b) minus `allowed` to f->bad, counting the bytes and those in
 * `ins`; a rises from call to call. */
static void add_bad(struct finding *f, const struct runs *allowed,
                    const struct runs *ins, uintptr_t a, uintptr_t b) {
  if (f->bad.n && a < f->bad.at[f->bad.n - 1].hi)
    a = f->bad.at[f->bad.n - 1].hi; /* counted already */
  if (a >= b)
    return;
  struct runs pieces = {0};
  dag__runs_subtract(&(struct runs){&(struct run){a, b}, 1, 1}, allowed,
                     &pieces);
  for (size_t i = 0; i < pieces.n; i++) {
    uintptr_t lo = pieces.at[i].lo, hi = pieces.at[i].hi;
    f->bad_bytes += hi - lo;
    if (f->bad.n && f->bad.at[f->bad.n - 1].hi == lo)
      f->bad.at[f->bad.n - 1].hi = hi;
    else
      dag__runs_push(&f->bad, lo, hi);
    struct runs outside = {0};
    dag__runs_subtract(&(struct runs){&pieces.at[i], 1, 1}, ins, &outside);
    size_t n = 0;
    for (size_t k = 0; k < outside.n; k++)
      n += outside.at[k].hi - outside.at[k].lo;
    f->in_bytes += (hi - lo) - n;
    free(outside.at);
  }
  free(pieces.at);
}

/* A changed byte outside the items stands for the aligned word around it
 * (less what the items hold): a double whose low bytes stay zero was
 * written whole, and bytes named one by one would read as noise. */
#define WORD 8

/* The changed bytes [lo, hi): what lies outside `allowed` goes into f->bad,
 * by words. */
static void blame(struct finding *f, const struct runs *allowed,
                  const struct runs *ins, uintptr_t lo, uintptr_t hi) {
  struct runs exact = {0};
  dag__runs_subtract(&(struct runs){&(struct run){lo, hi}, 1, 1}, allowed,
                     &exact);
  for (size_t i = 0; i < exact.n; i++)
    add_bad(f, allowed, ins, exact.at[i].lo & ~(uintptr_t)(WORD - 1),
            (exact.at[i].hi + WORD - 1) & ~(uintptr_t)(WORD - 1));
  free(exact.at);
}

/* A dirty page and the slot of its snapshot. */
struct dirty {
  uintptr_t dag__guard_page;
  size_t slot;
};

static int by_page(const void *a, const void *b) {
  uintptr_t x = ((const struct dirty *)a)->dag__guard_page,
            y = ((const struct dirty *)b)->dag__guard_page;
  return (x > y) - (x < y);
}

static void push_span(uintptr_t lo, uintptr_t hi, void *v) {
  dag__runs_push(v, lo, hi);
}

static bool writes(enum dag_mode m) { return dag__unshaped(m) != DAG_IN; }

/* Compares the dirty pages of the top frame's body with their snapshots. */
static void compare(const struct frame *fr, struct finding *f) {
  struct snapshots s;
  dag__guard_snapshots(&s);
  size_t n = s.n;
  f->unchecked = s.unchecked;
  if (!n)
    return;
  struct runs allowed = {0}, ins = {0};
  const struct items *it = fr->items;
  for (size_t i = 0; i < it->n; i++)
    dag__region_each_span(&it->regs[i], push_span,
                          writes(it->modes[i]) ? &allowed : &ins);
  for (size_t i = 0; i < fr->nseen; i++)
    dag__region_each_span(&fr->seen[i], push_span, &allowed);
  dag__runs_merge(&allowed);
  dag__runs_merge(&ins);
  struct dirty *order = malloc(n * sizeof *order);
  if (!order)
    dag__out_of_memory("DAG_CHECK_ITEMS");
  for (size_t i = 0; i < n; i++)
    order[i] = (struct dirty){s.pages[i], i};
  qsort(order, n, sizeof *order, by_page);
  for (size_t k = 0; k < n; k++) {
    uintptr_t p = order[k].dag__guard_page;
    const unsigned char *now = (const unsigned char *)p;
    const unsigned char *then =
        (const unsigned char *)s.copies + order[k].slot * dag__guard_page;
    /* A body may have freed (unmapped) what it wrote. */
    if (msync((void *)p, dag__guard_page, MS_ASYNC))
      continue;
    size_t i = 0;
    while (i < dag__guard_page) {
      if (i % 64 == 0 && i + 64 <= dag__guard_page &&
          !memcmp(now + i, then + i, 64)) {
        i += 64;
        continue;
      }
      if (now[i] == then[i]) {
        i++;
        continue;
      }
      size_t j = i + 1;
      while (j < dag__guard_page && now[j] != then[j])
        j++;
      blame(f, &allowed, &ins, p + i, p + j);
      i = j;
    }
  }
  free(order);
  free(allowed.at);
  free(ins.at);
}

bool dag__guard_finish(const struct frame *fr, struct finding *f) {
  compare(fr, f);
  dag__guard_unprotect();
  if (f->unchecked) {
    static bool warned;
    if (!warned)
      dag__log(DAG_LOG_WARN,
               "DAG_CHECK_ITEMS: task %llu wrote more pages than can be "
               "checked; %zu were not",
               (unsigned long long)fr->items->number, f->unchecked);
    warned = true;
  }
  return f->bad_bytes > 0;
}

/* ------------------------------------------------------------- messages */

struct text {
  char *s;
  size_t n, size;
};

static void say(struct text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(struct text *t, const char *fmt, ...) {
  if (t->n + 1 >= t->size)
    return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(t->s + t->n, t->size - t->n, fmt, ap);
  va_end(ap);
  if (k > 0)
    t->n = t->n + (size_t)k < t->size ? t->n + (size_t)k : t->size - 1;
}

/* The memory holding a, as messages name it: its start, its size, and
 * "dag_alloc memory" or "replicated memory". */
static void area_of(const struct guard_areas *ar, uintptr_t a, uintptr_t *base,
                    size_t *bytes, bool *distributed) {
  const struct run *r = dag__run_holding(ar->allocs->at, ar->allocs->n, a);
  if (r) {
    *base = r->lo;
    *bytes = ar->names[r - ar->allocs->at].bytes;
    *distributed = true;
    return;
  }
  r = dag__run_holding(ar->replicated->at, ar->replicated->n, a);
  *base = r ? r->lo : page_down(a);
  *bytes = r ? r->hi - r->lo : dag__guard_page;
  *distributed = false;
}

static void say_area(struct text *t, const struct guard_areas *ar,
                     uintptr_t base, size_t bytes, bool distributed) {
  const struct alloc_name *name =
      distributed
          ? &ar->names[dag__run_holding(ar->allocs->at, ar->allocs->n, base) -
                       ar->allocs->at]
          : NULL;
  if (name && name->file) /* as the planner's messages name it */
    say(t, " of the dag_alloc memory of %zu bytes allocated at %s:%d", bytes,
        name->file, name->line);
  else if (name)
    say(t, " of the dag_alloc memory at %p (%zu bytes)", (void *)base, bytes);
  else
    say(t,
        " of the replicated memory at %p (the %zu bytes tasks declare "
        "there)",
        (void *)base, bytes);
}

#define RANGES_SAID 4

static void say_bytes(struct text *t, const struct guard_areas *ar,
                      const struct runs *bad) {
  size_t said = 0;
  for (size_t i = 0; i < bad->n;) {
    uintptr_t base;
    size_t bytes;
    bool distributed;
    area_of(ar, bad->at[i].lo, &base, &bytes, &distributed);
    size_t end = i;
    while (end < bad->n && bad->at[end].lo >= base &&
           bad->at[end].lo <
               base + (distributed ? page_up(base + bytes) - base : bytes))
      end++;
    if (end == i)
      end = i + 1;
    say(t, "%sbytes ", i ? "; " : "");
    size_t k = i;
    for (; k < end && said < RANGES_SAID; k++, said++)
      say(t, "%s%zu..%zu", k > i ? ", " : "", (size_t)(bad->at[k].lo - base),
          (size_t)(bad->at[k].hi - 1 - base));
    if (k < end)
      say(t, " and %zu more range%s", end - k, end - k > 1 ? "s" : "");
    say_area(t, ar, base, bytes, distributed);
    i = end;
  }
}

static const char *mode_word(enum dag_mode m) {
  switch (dag__unshaped(m) & 0xf) {
  case DAG_IN:
    return "in";
  case DAG_OUT:
    return "out";
  case DAG_INOUT:
    return "inout";
  case DAG_COMMUTATIVE:
    return "commutative";
  default:
    return "reduction";
  }
}

static void say_items(struct text *t, const struct guard_areas *ar,
                      const struct items *it) {
  if (!it->n) {
    say(t, "; it has no items");
    return;
  }
  say(t, "; its items: ");
  for (size_t i = 0; i < it->n; i++) {
    const struct region *r = &it->regs[i];
    if (it->texts && it->texts[i])
      say(t, "%s%s(%s)", i ? ", " : "", mode_word(it->modes[i]), it->texts[i]);
    else
      say(t, "%s%s item %zu", i ? ", " : "", mode_word(it->modes[i]), i);
    uintptr_t base;
    size_t bytes;
    bool distributed;
    area_of(ar, r->lo, &base, &bytes, &distributed);
    size_t size = dag__region_bytes(r);
    size_t rows = r->ndims ? r->dim[0].count : 1;
    say(t, " (%zu bytes", size);
    if (rows > 1)
      say(t, " in %zu rows", rows);
    if (distributed)
      say(t, " at offset %zu)", (size_t)(r->lo - base));
    else
      say(t, " at %p)", (void *)r->lo);
  }
}

noreturn void dag__guard_report(const struct items *it, struct finding *f,
                                const struct guard_areas *areas) {
  char buf[2048];
  struct text t = {buf, 0, sizeof buf};
  buf[0] = 0;
  say(&t, "task %llu ", (unsigned long long)it->number);
  if (it->label && it->file)
    say(&t, "'%s' (%s:%d)", it->label, it->file, it->line);
  else if (it->file)
    say(&t, "at %s:%d", it->file, it->line);
  else
    say(&t, "'%s'", it->label ? it->label : "(unnamed)");
  if (dag__nranks > 1)
    say(&t, " on rank %d", dag__rank);
  say(&t, " wrote %zu byte%s outside its items", f->bad_bytes,
      f->bad_bytes == 1 ? "" : "s");
  if (f->in_bytes)
    say(&t, " (%zu of them in its in items, which it may only read)",
        f->in_bytes);
  say(&t, ": ");
  say_bytes(&t, areas, &f->bad);
  say_items(&t, areas, it);
  say(&t, "; declare every byte the body writes in an out, inout or "
          "commutative item (DAG_CHECK_ITEMS)");
  dag__log(DAG_LOG_ERROR, "%s", buf);
  /* mpiexec gets a moment to pass the line on before the run ends. */
  if (dag__nranks > 1)
    nanosleep(&(struct timespec){0, 200000000}, NULL);
  dag__comm_abort_all();
}
