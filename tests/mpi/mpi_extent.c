/* mpi_extent: an item whose extent reaches past the end of its dag_alloc
 * allocation, as code ported from OpenMP often has (OpenMP matches depend
 * items by their start address, so `depend(inout: A[k:bs*bs])` "works"
 * there whatever its length). The run must stop with a message naming the
 * task, the item as written and the allocation, on one rank and on several,
 * never crash in a transfer. Run through expect_failure.sh:
 *
 *   mpi_extent past     the last block's item reaches past the end;
 *   mpi_extent before   an item starts before the allocation and ends
 *                       inside it;
 *   mpi_extent token    an item lies just before the allocation, a token
 *                       as OpenMP ports keep them (it only compares
 *                       addresses); DAG_CHECK_UNIFORMITY=values read such
 *                       an item and crashed when the page was not mapped;
 *   mpi_extent slack    an item lies just past the end, in the rest of the
 *                       allocation's last page.
 *
 * Exits 0 only if the runtime let the task through. */
#include <stdio.h>
#include <string.h>

#include <dag.h>

enum { BS = 64, NB = 4 };

static void scale(float *block, int n) {
  for (int i = 0; i < n; i++)
    block[i] *= 2.0f;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "past";
  size_t n = (size_t)NB * BS * BS;
  struct dag_dist blocks = dag_dist_block(sizeof(float), BS * BS);
  float *a = dag_alloc(n * sizeof *a, blocks); /* @alloc@ */
  if (!a)
    return 2;
  if (strcmp(mode, "past") == 0) {
    for (int k = 0; k < NB; k++)
      /* The extent is in bytes where elements were meant: 4x too long. */
#pragma dag task inout(a[k * BS * BS : BS * BS * sizeof(float)]) label("scale") /* @past@ */
      scale(&a[k * BS * BS], BS * BS);
  } else if (strcmp(mode, "before") == 0) {
    int lo = -BS; /* a negative start, computed wrongly */
#pragma dag task inout(a[lo : 2 * BS]) label("straddle") /* @before@ */
    scale(a, BS);
  } else {
    int at = strcmp(mode, "token") == 0 ? -1 : (int)n;
#pragma dag task in(a[at]) inout(a[0 : BS]) label("token") /* @token@ */
    scale(a, BS);
  }
#pragma dag taskwait
  printf("mpi_extent: the runtime let the item through\n");
  dag_free(a);
  return 0;
}
