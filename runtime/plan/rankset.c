/* rankset.c — sets of ranks (see planner.h): the out-of-line operations,
 * the ones that touch the bitmap. */
#include "plan/planner.h"

#include <stdlib.h>
#include <string.h>

static size_t words(void) { return (size_t)(dag__nranks + 63) / 64; }

/* Turns a one-member set (or ALL) into the bitmap form. */
static void spell_out(struct rankset *s) {
  if (!s->bits && !(s->bits = malloc(words() * sizeof *s->bits)))
    dag__out_of_memory("rank sets");
  memset(s->bits, s->one == RANKSET_ALL ? 0xff : 0, words() * sizeof *s->bits);
  if (s->one >= 0)
    s->bits[s->one / 64] |= 1ull << (s->one % 64);
  s->one = RANKSET_MANY;
}

void dag__rankset_add(struct rankset *s, int r) {
  if (dag__rankset_has(s, r))
    return;
  if (s->one != RANKSET_MANY)
    spell_out(s);
  s->bits[r / 64] |= 1ull << (r % 64);
}

int dag__rankset_first(const struct rankset *s) {
  if (s->one >= 0)
    return s->one;
  if (s->one == RANKSET_ALL)
    return 0;
  for (size_t w = 0; w < words(); w++)
    if (s->bits[w])
      return (int)(w * 64) + __builtin_ctzll(s->bits[w]);
  DAG_BUG("an empty rank set");
}

int dag__rankset_next(const struct rankset *s, int after) {
  if (s->one >= 0)
    return s->one > after ? s->one : -1;
  for (int r = after + 1; r < dag__nranks; r++)
    if (dag__rankset_has(s, r))
      return r;
  return -1;
}

void dag__rankset_intersect(struct rankset *s, const struct rankset *with) {
  if (with->one == RANKSET_ALL)
    return;
  if (with->one >= 0 || s->one >= 0) {
    int r = with->one >= 0 ? with->one : s->one;
    if (!dag__rankset_has(s, r) || !dag__rankset_has(with, r))
      DAG_BUG("rank sets without a common member");
    s->one = r;
    return;
  }
  if (s->one == RANKSET_ALL)
    spell_out(s);
  for (size_t w = 0; w < words(); w++)
    s->bits[w] &= with->bits[w];
}

void dag__rankset_free(struct rankset *s) {
  free(s->bits);
  s->bits = NULL;
}
