/* planted_vendor_include.c — the core including MPI's header, which only
 * the MPI transport may: the layer check must find it (tests/layers). Read
 * by the check, never compiled (MPI may not be installed). */
#include <mpi.h>
