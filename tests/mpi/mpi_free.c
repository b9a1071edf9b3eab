/* mpi_free: a program ported from malloc that still calls free() (and
 * realloc()) on its dag_alloc memory. The C library would crash on it and
 * the output still buffered would be lost; the runtime says which call and
 * which allocation instead, leaves the memory alone, and the program ends
 * normally with all its output. Its stdout must be a pipe or a file (fully
 * buffered), as when a test or a batch system runs it. Exits 0 when the
 * memory is still there after the calls. */
#include <stdio.h>
#include <stdlib.h>

#include <dag.h>

/* Through pointers, as a program whose free is far from its dag_alloc:
 * the compiler then cannot see the mistake this test makes on purpose. */
static void (*volatile release)(void *) = free;
static void *(*volatile resize)(void *, size_t) = realloc;

int main(void) {
  struct dag_dist d = dag_dist_block(sizeof(double), 100);
  double *x = dag_alloc(1000 * sizeof *x, d); /* @alloc@ */
  printf("mpi_free: rank %d: before\n", dag_rank());
  x[0] = 1.0; /* rank 0 holds it, as its home */
  release(x); /* WRONG, dag_free(x) is meant */
  if (resize(x, 10) != NULL)
    return 1;
  x[1] = 2.0;              /* still allocated */
  char *heap = malloc(64); /* the C library's own, as before */
  heap = realloc(heap, 4096);
  free(heap);
  printf("mpi_free: rank %d: after, %g\n", dag_rank(), x[1]);
  dag_free(x);
  return 0;
}
