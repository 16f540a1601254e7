# Install.cmake - what `cmake --install` puts where, and the Debian package
# `cpack` builds from it (tests/e2e/test_package.py installs and runs it).
#
# The layout is fixed, not GNUInstallDirs': mcpspec finds its suites at
# PREFIX/share/mcpspec/suites from its own path, PREFIX/bin/mcpspec
# (harness/cli/suites_dir.c), so the two must not be moved apart. Only mcpspec
# is installed: refserver, the tests, benchmarks and fuzz targets stay in the
# build folder.
# Installing (cmake --install, cpack) installs what was built; like `cmake --install`,
# cpack then does not first walk every target of the tree (fuzz, tests, benchmarks),
# which took 20 s on a loaded machine for nothing.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
install(TARGETS mcpspec RUNTIME DESTINATION bin)
# What a run reads from the suites folder: every *.suite, and builtin.proofs
# (the proofs of the discovery and observer checks; `list --json`, `explain`).
install(DIRECTORY suites/ DESTINATION share/mcpspec/suites
        FILES_MATCHING PATTERN "*.suite" PATTERN "builtin.proofs")

# Debian policy wants man pages compressed; man -l reads either.
find_program(MCPS_GZIP gzip REQUIRED)
set(MCPS_MAN_GZ ${CMAKE_BINARY_DIR}/mcpspec.1.gz)
add_custom_command(OUTPUT ${MCPS_MAN_GZ}
                   COMMAND ${MCPS_GZIP} -9nc ${CMAKE_SOURCE_DIR}/docs/mcpspec.1 > ${MCPS_MAN_GZ}
                   DEPENDS ${CMAKE_SOURCE_DIR}/docs/mcpspec.1 VERBATIM)
add_custom_target(mcpspec_man ALL DEPENDS ${MCPS_MAN_GZ})
install(FILES ${MCPS_MAN_GZ} DESTINATION share/man/man1)

# The user's documentation (the developers' notes stay in the checkout).
install(FILES README.md DESTINATION share/doc/mcpspec)
install(FILES docs/ci.md docs/target-config.md docs/baseline.md docs/report-format.md
              docs/report.schema.json docs/json-schema-unsupported.md
              docs/json-implementation-defined.md
        DESTINATION share/doc/mcpspec)
install(FILES suites/README.md DESTINATION share/doc/mcpspec RENAME suites.md)

set(MCPS_DEB_MAINTAINER "mcpspec maintainers <maintainers@users.noreply.a-seed-beaaafaf.example>"
    CACHE STRING "The Debian package's Maintainer field")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME mcpspec)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR mcpspec)
set(CPACK_PACKAGE_CONTACT ${MCPS_DEB_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "conformance and fuzz testing harness for the Model Context Protocol")
# The Description's long text; CPack puts the summary above it and indents it.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "mcpspec launches an MCP server (stdio, Streamable HTTP or HTTP+SSE), finds
out which protocol revisions it speaks, replays conversation suites against
it and grades every observation against a numbered requirement of the
specification. Reports: JSON, JUnit, Markdown, HTML and SARIF, with exit
codes for CI gates and baselines of known failures.")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
# Depends (libcjson1, libcurl4, libc6, ...) from the binary itself, by dpkg-shlibdeps
# (dpkg-dev, which build-essential brings).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
include(CPack)
