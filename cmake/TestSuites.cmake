# planner_discover_suites(TARGET [PROPERTIES key value ...])
#
# Like GoogleTest's gtest_discover_tests, but one CTest test per test suite
# (`SuiteName.*`, run as `TARGET --gtest_filter=SuiteName.*`) rather than one per
# test case. For binaries that link LibTorch: loading it takes about a second of
# static initialisation per process on CI's 2 cores (bench/test_startup.py), which
# per-case discovery paid once per case. A failing case is still named in the suite's output
# (ctest --output-on-failure); run one case with the binary's --gtest_filter.
#
# Use gtest_discover_tests where a case may skip (GTEST_SKIP): CTest can mark a
# whole process skipped, not one case of it.
#
# The suites are listed after each build (POST_BUILD), as gtest_discover_tests
# does; an unbuilt binary shows as one failing test named TARGET_NOT_BUILT.
function(planner_discover_suites target)
  cmake_parse_arguments(arg "" "" "PROPERTIES" ${ARGN})
  set(suites_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake")
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites_include.cmake")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND "${CMAKE_COMMAND}"
      -D "BINARY=$<TARGET_FILE:${target}>"
      -D "WORKING_DIRECTORY=${CMAKE_CURRENT_BINARY_DIR}"
      -D "OUTPUT=${suites_file}"
      -D "PROPERTIES=${arg_PROPERTIES}"
      -P "${PROJECT_SOURCE_DIR}/cmake/ListTestSuites.cmake"
    BYPRODUCTS "${suites_file}"
    VERBATIM)
  file(WRITE "${include_file}"
    "if(EXISTS \"${suites_file}\")\n"
    "  include(\"${suites_file}\")\n"
    "else()\n"
    "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
