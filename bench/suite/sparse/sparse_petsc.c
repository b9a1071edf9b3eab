/* sparse_petsc.c — the sparse group's kernels with PETSc, the library a
 * user would pick for them: the peer of sparse.c.
 *
 *   mpiexec -n R sparse_petsc -k spmv|cg|cg_unfused [-n N] [-r REPS]
 *                                                    [-t SECONDS]
 *
 * The matrix is the same 5-point Laplacian on an n x n grid (sparse.h),
 * assembled as a MATMPIAIJ by rows: each rank inserts the rows of its
 * ownership range (PETSc's even split of the N = n^2 rows), so no entry
 * travels. -b is ignored. One process per rank, so workers = 1.
 *
 *   spmv  y = A x (MatMult), x(r) = suite_random(2, r). Work: 2 nnz.
 *   cg    KSPCG with PCNONE from x0 = 0 on A x = b, b(r) = suite_random(2,
 *         r), for exactly 50 iterations: tolerances 0 and max_it = 50, so
 *         that only the iteration count stops it. The norm is the natural
 *         one, sqrt(r.z), which without a preconditioner is ||r||, the
 *         unpreconditioned norm, from the dot product CG computes anyway
 *         (KSP_NORM_UNPRECONDITIONED would add a VecNorm per iteration).
 *         Work counted as sparse.c counts it (sparse.h): 2 nnz + 10 N per
 *         iteration. The program sparse_petsc_1red runs it with KSPCG's
 *         single reduction (below).
 *   cg_unfused  KSPCG as cg is in this program: sparse.c's cg_unfused is
 *         its like, pass for pass.
 *
 * Checks, with PETSc's own operations:
 *
 *   spmv  ||y - exact||_inf, exact from the stencil formula (each rank
 *         evaluates x at its rows and their halo from suite_random). On
 *         several ranks MPIAIJ adds a row's off-rank terms after its local
 *         ones, so the order of the additions may differ from the formula's:
 *         terms of at most 4 in magnitude, partial sums of at most 8, four
 *         roundings of at most 8 eps / 2 each, so tol 1e-14. sum: VecSum(y).
 *   cg    |(||b - A x||) - KSPGetResidualNorm| / ||b||, at most CG_TOL
 *         (sparse.h); the run must have taken 50 iterations (fewer only on
 *         reaching a residual of exactly 0, on a grid of a few points) and
 *         its residual have dropped below ||b||, or the check is infinite.
 *         sum: the final residual norm.
 */
#include <math.h>
#include <petscksp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sparse.h"
#include "suite.h"

_Static_assert(sizeof(PetscInt) == sizeof(int),
               "laplace_row writes int column indices");

/* The spmv check's tolerance (see the top). */
#define SPMV_TOL 1e-14

/* The Laplacian of grid side n, this rank's rows inserted here. */
static PetscErrorCode laplace_matrix(long n, Mat *A) {
  PetscInt lo, hi, N = (PetscInt)(n * n);
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetType(*A, MATMPIAIJ));
  /* At most 5 nonzeros per row on this rank, at most 4 on others. */
  PetscCall(MatMPIAIJSetPreallocation(*A, LAPLACE_ROW_MAX, NULL, 4, NULL));
  PetscCall(MatGetOwnershipRange(*A, &lo, &hi));
  for (PetscInt r = lo; r < hi; r++) {
    PetscInt cols[LAPLACE_ROW_MAX];
    PetscScalar vals[LAPLACE_ROW_MAX];
    int k = laplace_row(n, r, cols, vals);
    PetscCall(MatSetValues(*A, 1, &r, k, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  return 0;
}

/* v(r) = suite_random(seed, r) on this rank's rows. */
static PetscErrorCode fill_random(Vec v, uint64_t seed) {
  PetscInt lo, hi;
  PetscScalar *a;
  PetscCall(VecGetOwnershipRange(v, &lo, &hi));
  PetscCall(VecGetArray(v, &a));
  for (PetscInt r = lo; r < hi; r++)
    a[r - lo] = suite_random(seed, (uint64_t)r);
  PetscCall(VecRestoreArray(v, &a));
  return 0;
}

/* exact = A x on this rank's rows from the stencil, x(r) = suite_random(2,
 * r) evaluated here for the rows and one grid row on each side. */
static PetscErrorCode stencil_product(long n, Vec exact) {
  PetscInt lo, hi;
  PetscScalar *a;
  PetscCall(VecGetOwnershipRange(exact, &lo, &hi));
  long x0 = lo - n > 0 ? lo - n : 0;
  long x1 = hi + n < n * n ? hi + n : n * n;
  double *x = malloc((size_t)(x1 - x0) * sizeof *x);
  PetscCheck(x, PETSC_COMM_SELF, PETSC_ERR_MEM, "out of memory");
  for (long r = x0; r < x1; r++)
    x[r - x0] = suite_random(2, (uint64_t)r);
  PetscCall(VecGetArray(exact, &a));
  for (PetscInt r = lo; r < hi; r++)
    a[r - lo] = laplace_apply(n, r, x, x0);
  PetscCall(VecRestoreArray(exact, &a));
  free(x);
  return 0;
}

static PetscErrorCode run_spmv(const struct suite_opts *o, Mat A, int *status) {
  Vec x, y, exact;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &exact));
  PetscCall(fill_random(x, 2));
  struct suite_times tt = {0};
  while (suite_more(&tt, o)) {
    suite_begin(&tt);
    PetscCall(MatMult(A, x, y));
    suite_end(&tt);
  }

  PetscReal err;
  PetscScalar total;
  PetscCall(stencil_product(o->n, exact));
  PetscCall(VecAXPY(exact, -1.0, y));
  PetscCall(VecNorm(exact, NORM_INFINITY, &err));
  PetscCall(VecSum(y, &total));
  *status = suite_report(o, 1, &tt, spmv_flops(o->n), "GFLOP/s", err, SPMV_TOL,
                         total);
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&exact));
  return 0;
}

/* The CG of kernel cg: CMake builds this program once per variant, each a
 * runtime of its own in the suite's tables, so that PETSc's best counts:
 * KSPCG (runtime petsc, which also runs cg_unfused, the like of KSPCG) and
 * KSPCG with its two dot products in one reduction (petsc_1red), PETSc's
 * fused CG. (KSPPIPECG, pipelined, reports the residual norm of the
 * iteration before its last, so the check below cannot hold for it; with
 * 2 more vector updates per iteration than KSPCG it is not PETSc's best on
 * a few ranks either.) */
enum cg_variant { CG_PLAIN, CG_SINGLE_REDUCTION };
#ifndef SPARSE_PETSC_CG
#define SPARSE_PETSC_CG CG_PLAIN
#define SPARSE_PETSC_RUNTIME "petsc"
#endif

/* CG without a preconditioner that stops after CG_ITERATIONS iterations
 * only. */
static PetscErrorCode cg_solver(Mat A, enum cg_variant variant, KSP *ksp) {
  PC pc;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPCG));
  if (variant == CG_SINGLE_REDUCTION)
    PetscCall(KSPCGUseSingleReduction(*ksp, PETSC_TRUE));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCNONE));
  PetscCall(KSPSetNormType(*ksp, KSP_NORM_NATURAL));
  PetscCall(KSPSetTolerances(*ksp, 0.0, 0.0, PETSC_DEFAULT, CG_ITERATIONS));
  PetscCall(KSPSetUp(*ksp));
  return 0;
}

static PetscErrorCode run_cg(const struct suite_opts *o, Mat A,
                             enum cg_variant variant, int *status) {
  Vec b, x, t;
  KSP ksp;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(b, &t));
  PetscCall(fill_random(b, 2));
  PetscCall(cg_solver(A, variant, &ksp));
  struct suite_times tt = {0};
  while (suite_more(&tt, o)) {
    PetscCall(VecSet(x, 0.0));
    suite_begin(&tt);
    PetscCall(KSPSolve(ksp, b, x));
    suite_end(&tt);
  }

  PetscInt its;
  KSPConvergedReason reason;
  PetscReal bnorm, norm, recurrence;
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetResidualNorm(ksp, &recurrence));
  PetscCall(MatMult(A, x, t));
  PetscCall(VecAYPX(t, -1.0, b)); /* t = b - A x */
  PetscCall(VecNorm(t, NORM_2, &norm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  double check = fabs(norm - recurrence) / bnorm;
  /* Only a residual of exactly 0 (a grid of a few points) stops it early. */
  bool complete = its == CG_ITERATIONS || (reason > 0 && recurrence == 0.0);
  if (!complete || !(recurrence < bnorm)) {
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR,
                           "sparse_petsc: cg: %d iterations, residual %g "
                           "from %g\n",
                           (int)its, (double)recurrence, (double)bnorm));
    check = INFINITY;
  }
  *status = suite_report(o, 1, &tt, cg_flops(o->n), "GFLOP/s", check, CG_TOL,
                         recurrence);
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&t));
  return 0;
}

int main(int argc, char **argv) {
  struct suite_opts o;
  static const char *const variant_kernels[] = {"cg", NULL};
  int status = sparse_init(
      &argc, &argv, SPARSE_PETSC_RUNTIME,
      SPARSE_PETSC_CG == CG_PLAIN ? sparse_kernels : variant_kernels, &o);
  if (status >= 0) {
    suite_finish();
    return status;
  }
  /* MPI is up (suite_init): PETSc uses it and leaves it to suite_finish.
   * No arguments for PETSc's options: they are the suite's. */
  PetscCall(PetscInitializeNoArguments());
  Mat A;
  PetscCall(laplace_matrix(o.n, &A));
  if (!strcmp(o.kernel, "spmv"))
    PetscCall(run_spmv(&o, A, &status));
  else /* cg_unfused: KSPCG, unfused as it is */
    PetscCall(run_cg(
        &o, A, !strcmp(o.kernel, "cg") ? SPARSE_PETSC_CG : CG_PLAIN, &status));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  suite_finish();
  return status;
}
