# End-to-end tests: one Python unittest file per tests/e2e/test_*.py, run with
# Debian's /usr/bin/python3 (standard library only) against the built binaries.
# The real-server snapshots judge verdicts, not memory safety: they run in the
# release build only, not again under the sanitizers.
file(GLOB MCPS_E2E_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/e2e/test_*.py)
foreach(src IN LISTS MCPS_E2E_TESTS)
  get_filename_component(name ${src} NAME_WE)
  if(name STREQUAL "test_real_servers" AND CMAKE_BUILD_TYPE STREQUAL "Sanitize")
    continue()
  endif()
  add_test(NAME e2e.${name} COMMAND /usr/bin/python3 ${src} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(e2e.${name} PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77 ENVIRONMENT
    "MCPSPEC_BIN_DIR=${CMAKE_BINARY_DIR};MCPSPEC_BUILD_TYPE=${CMAKE_BUILD_TYPE};MCPSPEC_SHARED=${MCPS_SHARED_DIR}")
endforeach()
# e2e.test_scripts compares the checkout and the build folders before and after
# each script's --help: no other test (fuzz.ossfuzz_build builds into build/)
# may write there meanwhile.
set_tests_properties(e2e.test_scripts PROPERTIES RUN_SERIAL TRUE)
