# End-to-end tests: one Python unittest file per tests/e2e/test_*.py, run with
# Debian's /usr/bin/python3 (standard library only) against the built binaries.
# The real-server snapshots judge verdicts, not memory safety: they run in the
# release build only, not again under the sanitizers.
file(GLOB MCPS_E2E_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/e2e/test_*.py)
# The fault tables run every proof of every check; under ASan and UBSan that passes 900 s
# on a loaded 2-core machine (a CI run timed out there), so the sanitized build waits longer.
if(CMAKE_BUILD_TYPE STREQUAL "Sanitize")
  set(MCPS_E2E_TIMEOUT 2400)
else()
  set(MCPS_E2E_TIMEOUT 900)
endif()
set(MCPS_E2E_ENV
  "MCPSPEC_BIN_DIR=${CMAKE_BINARY_DIR};MCPSPEC_BUILD_TYPE=${CMAKE_BUILD_TYPE};MCPSPEC_SHARED=${MCPS_SHARED_DIR}")
foreach(src IN LISTS MCPS_E2E_TESTS)
  get_filename_component(name ${src} NAME_WE)
  if(name STREQUAL "test_real_servers")
    continue()
  endif()
  add_test(NAME e2e.${name} COMMAND /usr/bin/python3 ${src} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(e2e.${name} PROPERTIES TIMEOUT ${MCPS_E2E_TIMEOUT} SKIP_RETURN_CODE 77 ENVIRONMENT
    "${MCPS_E2E_ENV}")
endforeach()
# The slowest tests start first (ctest orders by COST; a fresh clone has no timings of its
# own): each holds a core for minutes, and one started last would end the stage alone.
set_tests_properties(e2e.test_faults PROPERTIES COST 300)
set_tests_properties(e2e.test_fuzz_live e2e.test_clients PROPERTIES COST 250)
set_tests_properties(e2e.test_hostile_http e2e.test_hostile e2e.test_fuzz_afl PROPERTIES COST 150)

# The real-server snapshots: one ctest per server and transport, so that ctest -j
# overlaps their waits (a sampling request left unanswered for 60 s, say) with other
# tests; the npm install runs once, before them.
if(NOT CMAKE_BUILD_TYPE STREQUAL "Sanitize")
  set(real ${CMAKE_CURRENT_SOURCE_DIR}/e2e/test_real_servers.py)
  add_test(NAME e2e.test_real_servers.install COMMAND ${CMAKE_SOURCE_DIR}/scripts/real-servers
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(e2e.test_real_servers.install PROPERTIES TIMEOUT 900
                       FIXTURES_SETUP real_servers)
  file(STRINGS ${real} methods REGEX "^    def test_[a-z0-9_]+\\(self\\):")
  foreach(line IN LISTS methods)
    string(REGEX REPLACE "^    def (test_[a-z0-9_]+).*" "\\1" method "${line}")
    string(REGEX REPLACE "^test_" "" short "${method}")
    set(t e2e.test_real_servers.${short})
    add_test(NAME ${t} COMMAND /usr/bin/python3 ${real} RealServerTest.${method}
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(${t} PROPERTIES TIMEOUT 900 COST 200 FIXTURES_REQUIRED real_servers
                         ENVIRONMENT "${MCPS_E2E_ENV}")
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${real})
  # The SDK client (tests/clients/sdk-v1-client.cjs) comes with that install.
  set_tests_properties(e2e.test_client_sdk PROPERTIES FIXTURES_REQUIRED real_servers)
endif()
# e2e.test_scripts compares the checkout and the build folders before and after
# each script's --help: no other test may write there meanwhile.
set_tests_properties(e2e.test_scripts PROPERTIES RUN_SERIAL TRUE)
