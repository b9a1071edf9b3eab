# DagRewrite.cmake: dag_rewrite_sources(), the rewrite step for CMake targets.
# find_package(dag) includes it; in dag's own build tool/CMakeLists.txt does.
#
#   dag_rewrite_sources(<target> [NO_LINK])
#
# Replaces each C source of <target> with its rewrite in the build folder,
# made by `dagcc --rewrite-only` with the target's include directories,
# compile definitions, compile options, C standard and CMAKE_C_FLAGS (plus
# those of the configuration), and made again when the source or a header it
# includes changes (Ninja and Makefile generators). The rewritten file is
# compiled with `-iquote <the source's folder>`, so `#include "..."` finds
# what it found before, and its #line directives point messages at the
# source. Links <target> with dag::dag unless NO_LINK is given.
#
# Call it in the folder that made the target, after its sources are added.
# Sources given as generator expressions are left as they are.
include_guard(GLOBAL)

# The dagcc to run, and what the rewrite commands depend on to get it built.
function(_dag_rewrite_driver exe_var deps_var)
  if(NOT TARGET dag::dagcc)
    message(FATAL_ERROR "dag_rewrite_sources: no dag::dagcc target; use find_package(dag)")
  endif()
  get_target_property(real dag::dagcc ALIASED_TARGET)
  if(real)
    set(${deps_var} ${real} PARENT_SCOPE)
  else()
    set(${deps_var} $<TARGET_FILE:dag::dagcc> PARENT_SCOPE)
  endif()
  set(${exe_var} $<TARGET_FILE:dag::dagcc> PARENT_SCOPE)
endfunction()

# The flags of <target> that change how its sources parse, as one list of
# generator expressions, to pass quoted with COMMAND_EXPAND_LISTS.
function(_dag_rewrite_flags target out_var)
  set(inc "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(def "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(std "$<TARGET_PROPERTY:${target},C_STANDARD>")
  set(ext "$<TARGET_PROPERTY:${target},C_EXTENSIONS>")
  # C_EXTENSIONS unset means CMake's default: GNU extensions on.
  set(gnu "$<OR:$<STREQUAL:${ext},>,$<BOOL:${ext}>>")
  separate_arguments(flags UNIX_COMMAND "${CMAKE_C_FLAGS}")
  foreach(config Debug Release RelWithDebInfo MinSizeRel)
    string(TOUPPER ${config} upper)
    separate_arguments(config_flags UNIX_COMMAND "${CMAKE_C_FLAGS_${upper}}")
    list(JOIN config_flags "$<SEMICOLON>" config_flags)
    list(APPEND flags "$<$<CONFIG:${config}>:${config_flags}>")
  endforeach()
  list(APPEND flags
    "$<$<BOOL:${inc}>:-I$<JOIN:${inc},$<SEMICOLON>-I>>"
    "$<$<BOOL:${def}>:-D$<JOIN:${def},$<SEMICOLON>-D>>"
    "$<TARGET_PROPERTY:${target},COMPILE_OPTIONS>"
    "$<$<BOOL:${std}>:-std=$<IF:${gnu},gnu,c>${std}>")
  set(${out_var} "${flags}" PARENT_SCOPE)
endfunction()

# Adds the command that rewrites `src` of `target`; `out_var` gets the file
# to compile instead (`src` itself when it is not a C file to rewrite).
function(_dag_rewrite_one target src flags out_var)
  set(${out_var} "${src}" PARENT_SCOPE)
  set(root "${CMAKE_CURRENT_BINARY_DIR}/dag_rewrite/${target}")
  if(src MATCHES "\\$<" OR NOT src MATCHES "\\.c$")
    return()
  endif()
  get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  string(FIND "${abs}" "${root}/" already)
  if(already EQUAL 0)
    return()
  endif()
  file(RELATIVE_PATH rel "${CMAKE_CURRENT_SOURCE_DIR}" "${abs}")
  string(REPLACE "../" "__/" rel "${rel}")
  set(out "${root}/${rel}")
  get_filename_component(dir "${abs}" DIRECTORY)
  _dag_rewrite_driver(dagcc dagcc_deps)
  set(depfile)
  set(md)
  if(CMAKE_GENERATOR MATCHES "Ninja|Makefiles")
    set(depfile DEPFILE "${out}.d")
    set(md -MD -MF "${out}.d")
  endif()
  # The dependency pass runs the project's compiler, not dagcc's default.
  add_custom_command(OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -E env "DAG_CC=${CMAKE_C_COMPILER}"
            "${dagcc}" --rewrite-only "${flags}" ${md} -o "${out}" "${abs}"
    DEPENDS "${abs}" ${dagcc_deps}
    ${depfile}
    COMMENT "Rewriting the dag pragmas of ${rel}"
    COMMAND_EXPAND_LISTS VERBATIM)
  set_source_files_properties("${out}" PROPERTIES COMPILE_OPTIONS "-iquote;${dir}")
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

function(dag_rewrite_sources target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_LINK" "" "")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "dag_rewrite_sources: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  get_target_property(target_dir ${target} SOURCE_DIR)
  if(NOT target_dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    message(FATAL_ERROR "dag_rewrite_sources(${target}): call it in ${target_dir}, where the target is made")
  endif()
  _dag_rewrite_flags(${target} flags)
  get_target_property(sources ${target} SOURCES)
  set(rewritten)
  foreach(src IN LISTS sources)
    _dag_rewrite_one(${target} "${src}" "${flags}" out)
    list(APPEND rewritten "${out}")
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${rewritten})
  if(NOT arg_NO_LINK)
    set_property(TARGET ${target} APPEND PROPERTY LINK_LIBRARIES dag::dag)
  endif()
endfunction()
