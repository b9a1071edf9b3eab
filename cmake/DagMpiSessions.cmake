# dag_own_mpi_sessions(TEST...): gives each TEST its own Open MPI session
# directory. mpiexec makes <tmpdir>/ompi.<host>.<uid>/pid.N and, when its
# job ends, removes the first level if it is empty: two jobs that start and
# end at once under `ctest -j` race on it, one removing the directory the
# other is about to make its pid.N in ("mkdir ... No such file or
# directory", orte_session_dir failed). A test never runs beside itself, so
# a directory per test ends the race.
function(dag_own_mpi_sessions)
  foreach(test IN LISTS ARGN)
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT_MODIFICATION
      "OMPI_MCA_orte_tmpdir_base=set:${CMAKE_BINARY_DIR}/mpi-sessions/${test}")
  endforeach()
endfunction()

# dag_own_mpi_sessions_here(): the same for every test of the calling
# directory so far.
function(dag_own_mpi_sessions_here)
  get_property(tests DIRECTORY PROPERTY TESTS)
  dag_own_mpi_sessions(${tests})
endfunction()
