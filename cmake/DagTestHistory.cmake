# DagTestHistory.cmake — every test starts cold, the same way each time: a
# run with a device keeps its measured times by default in the user's cache
# folder (docs/gpu.md, "Which variant runs"), and a test that read a file
# left by an earlier test, or by itself on an earlier run, would explore
# (or not) depending on what ran before it; ctest also runs tests at once.
# So ctest runs every test with DAG_HISTORY=off (a test that sets its own
# in ENVIRONMENT keeps it), and with XDG_CACHE_HOME in the build tree, so
# that no test writes to the user's cache even where it turns the default
# back on (tests/unit/check_chooser.c does, in a folder of its own). The
# variables are set in ctest's own environment, which every test inherits,
# by a file ctest includes when it reads the tests (from the build's top).
set(dag_test_env ${CMAKE_BINARY_DIR}/DagTestEnv.cmake)
file(WRITE ${dag_test_env}
  "set(ENV{DAG_HISTORY} off)\n"
  "set(ENV{XDG_CACHE_HOME} \"${CMAKE_BINARY_DIR}/test-cache\")\n")
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${dag_test_env})
