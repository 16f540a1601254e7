/*
 * faults_stateless.h - refserver faults of protocol revision 2026-07-28 (stateless.c).
 * One X(ENUM_SUFFIX, "name", "REQUIREMENT-IDS", "one-line description") per fault;
 * faults.h joins the areas into one table.
 */
#ifndef RS_FAULTS_STATELESS_H
#define RS_FAULTS_STATELESS_H

#define RS_FAULTS_STATELESS(X)                                                                     \
    X(DISCOVER_NO_VERSION, "discover-no-version", "DISC-005 DISC-002",                             \
      "2026-07-28: list 2025-11-25 instead of 2026-07-28 in server/discover's supportedVersions")  \
    X(DISCOVER_NO_CACHE_HINTS, "discover-no-cache-hints", "DISC-002 CACHE-001",                    \
      "2026-07-28: leave ttlMs and cacheScope out of the server/discover result")                  \
    X(UNSUPPORTED_VERSION_BARE, "unsupported-version-bare", "VER-002",                             \
      "2026-07-28: answer an unsupported _meta protocolVersion with -32022 but no data")           \
    X(REMOVED_METHOD_SERVED, "removed-method-served", "PING-004",                                  \
      "2026-07-28: still answer ping (removed in 2026-07-28) with a result")                       \
    X(NO_RESULT_TYPE, "no-result-type", "RPC-RT-001",                                              \
      "2026-07-28: leave resultType out of every result")                                          \
    X(NOT_FOUND_RETIRED_CODE, "not-found-retired-code", "RES-014 RPC-CODE-004",                    \
      "2026-07-28: answer a read of a missing resource with the retired -32002")                   \
    X(TOOLS_ORDER_UNSTABLE, "tools-order-unstable", "TOOL-019",                                    \
      "2026-07-28: list the tools in reverse order every other time")                              \
    X(MISSING_CAPS_ACCEPTED, "missing-caps-accepted", "STATE-002",                                 \
      "2026-07-28: serve a request whose _meta has no clientCapabilities")                         \
    X(MISSING_CAPABILITY_WRONG_CODE, "missing-capability-wrong-code", "STATE-008",                 \
      "2026-07-28: refuse a tool call that needs an undeclared client capability with -32603, "    \
      "not -32021")

#endif
