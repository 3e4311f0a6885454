# Run by planner_discover_suites (cmake/TestSuites.cmake) after a test binary is
# built: lists its GoogleTest suites and writes one CTest test per suite.
# In: BINARY, WORKING_DIRECTORY, OUTPUT, PROPERTIES (a CMake list, key value ...).
execute_process(COMMAND "${BINARY}" --gtest_list_tests
  WORKING_DIRECTORY "${WORKING_DIRECTORY}"
  OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE rc TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BINARY} --gtest_list_tests failed (${rc}): ${errors}")
endif()
set(script "")
string(REPLACE "\n" ";" lines "${listing}")
foreach(line IN LISTS lines)
  # A suite's line: "Suite." or "Prefix/Suite.  # TypeParam = ..."; its cases
  # are indented beneath it.
  if(line MATCHES "^([A-Za-z0-9_/]+)\\.( .*)?$")
    set(suite "${CMAKE_MATCH_1}")
    string(APPEND script
      "add_test([=[${suite}.*]=] \"${BINARY}\" [=[--gtest_filter=${suite}.*]=])\n"
      "set_tests_properties([=[${suite}.*]=] PROPERTIES WORKING_DIRECTORY \"${WORKING_DIRECTORY}\"")
    foreach(p IN LISTS PROPERTIES)
      string(APPEND script " [==[${p}]==]")
    endforeach()
    string(APPEND script ")\n")
  endif()
endforeach()
if(script STREQUAL "")
  message(FATAL_ERROR "${BINARY} lists no test suite")
endif()
file(WRITE "${OUTPUT}" "${script}")
