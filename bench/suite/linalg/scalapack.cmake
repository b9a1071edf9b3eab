# linalg_scalapack: the ScaLAPACK peers of the linalg group (scalapack.c,
# its grid and matrices in scalapack_grid.c), one MPI process per rank on a
# p x q grid, single-threaded OpenBLAS.
if(NOT (SUITE_SCALAPACK_FOUND AND SUITE_OPENBLAS_FOUND AND MPI_C_FOUND))
  message(STATUS "bench/suite/linalg: no scalapack-openmpi, openblas or MPI "
                 "(libscalapack-openmpi-dev), skipping linalg_scalapack")
  return()
endif()

add_executable(linalg_scalapack ${CMAKE_CURRENT_LIST_DIR}/scalapack.c
               ${CMAKE_CURRENT_LIST_DIR}/scalapack_grid.c)
target_link_libraries(linalg_scalapack PRIVATE suite_harness_mpi
  PkgConfig::SUITE_SCALAPACK PkgConfig::SUITE_OPENBLAS MPI::MPI_C m)

# Each kernel on 1, 2 and 4 ranks (a 1 x 1, 1 x 2 and 2 x 2 grid), n = 300
# in blocks of 64 (the last one 44): checked, any sum.
foreach(kernel gemm syrk gemv cholesky lu qr solve)
  foreach(ranks 1 2 4)
    suite_peer_test(linalg_scalapack_${kernel}_${ranks} ${kernel}
      "${SUITE_MPIEXEC} --oversubscribe -n ${ranks} $<TARGET_FILE:linalg_scalapack> -n 300 -b 64")
  endforeach()
endforeach()
