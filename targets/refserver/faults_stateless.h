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
      "not -32021")                                                                                \
    X(RESULT_TYPE_UNKNOWN, "result-type-unknown", "RPC-RT-004 VER-010",                            \
      "2026-07-28: answer tools/list with resultType \"partial\", a value of no extension")        \
    X(RESERVED_ERROR_CODE, "reserved-error-code", "RPC-CODE-001",                                  \
      "2026-07-28: answer an unknown method with -32050, an MCP code the revision never defined")  \
    X(LEGACY_ERROR_CODE, "legacy-error-code", "RPC-CODE-002 RPC-CODE-005",                         \
      "2026-07-28: answer prompts/get for an unknown prompt with -32001 (the legacy range)")       \
    X(SERVER_REQUEST_SENT, "server-request-sent", "RPC-DIR-001 STDIO-008",                         \
      "2026-07-28: send the client a roots/list request after answering tools/list")               \
    X(NO_SERVER_INFO, "no-server-info", "STATE-004 DISC-004",                                      \
      "2026-07-28: leave _meta io.modelcontextprotocol/serverInfo out of every result")            \
    X(LOG_WITHOUT_LEVEL, "log-without-level", "LOG-009",                                           \
      "2026-07-28: log a message for tools/list, whose _meta set no logLevel")                     \
    X(CANCELLED_NOT_LISTEN, "cancelled-not-listen", "CANC-013",                                    \
      "2026-07-28: send notifications/cancelled for a tools/list it just answered")                \
    X(INPUT_REQUIRED_EMPTY, "input-required-empty", "MRTR-003",                                    \
      "2026-07-28: answer input_required with neither inputRequests nor requestState")             \
    X(INPUT_REQUEST_JSONRPC, "input-request-jsonrpc", "MRTR-004",                                  \
      "2026-07-28: write inputRequests entries as whole JSON-RPC requests (jsonrpc, id)")          \
    X(INPUT_REQUEST_UNDECLARED, "input-request-undeclared", "MRTR-005",                            \
      "2026-07-28: ask for sampling or elicitation the request did not declare, not -32021")       \
    X(INPUT_REQUIRED_CACHED, "input-required-cached", "CACHE-003",                                 \
      "2026-07-28: put ttlMs and cacheScope on an InputRequiredResult")                            \
    X(REQUEST_STATE_UNCHECKED, "request-state-unchecked", "MRTR-007",                              \
      "2026-07-28: act on a retry whatever its requestState says (no integrity check)")            \
    X(INPUT_RESPONSES_UNCHECKED, "input-responses-unchecked", "MRTR-015",                          \
      "2026-07-28: take a malformed inputResponses entry as an answer instead of -32602")          \
    X(EXTRA_RESPONSES_REJECTED, "extra-responses-rejected", "MRTR-016",                            \
      "2026-07-28: refuse a retry whose inputResponses has an entry it did not ask for")           \
    X(REASK_AS_ERROR, "reask-as-error", "MRTR-017",                                                \
      "2026-07-28: answer a retry without the needed answers with -32602, not input_required")     \
    X(DECLINE_UNANSWERED, "decline-unanswered", "ELIC-020",                                        \
      "2026-07-28: never answer a retry whose elicitation was declined or cancelled")              \
    X(LISTEN_ACK_LATE, "listen-ack-late", "SUB-003",                                               \
      "2026-07-28: send a tools/list_changed on a new listen stream before its acknowledgement")   \
    X(LISTEN_ACK_OVERCLAIMS, "listen-ack-overclaims", "SUB-004",                                   \
      "2026-07-28: stop declaring prompts.listChanged, yet acknowledge every type a listen asks "  \
      "for")                                                                                       \
    X(LISTEN_ID_STRINGIFIED, "listen-id-stringified", "SUB-006",                                   \
      "2026-07-28: tag a listen stream whose request id is a number with that number as a string") \
    X(LISTEN_UNFILTERED, "listen-unfiltered", "SUB-002",                                           \
      "2026-07-28: send every change notification on every listen stream, whatever its filter")    \
    X(LISTEN_UPDATES_ALL, "listen-updates-all", "SUB-013",                                         \
      "2026-07-28: send resources/updated on every stream with resourceSubscriptions, any URI")    \
    X(LISTEN_CARRIES_PROGRESS, "listen-carries-progress", "SUB-012 LOG-011",                       \
      "2026-07-28: tag progress notifications with the subscriptionId of an open listen stream")   \
    X(LISTEN_SURVIVES_CANCEL, "listen-survives-cancel", "CANC-003",                                \
      "2026-07-28: keep a listen stream going after the client cancelled it")                      \
    X(LISTEN_UNCLOSED_AT_EXIT, "listen-unclosed-at-exit", "SUB-009 CANC-014",                      \
      "2026-07-28: exit at end of input without closing open listen streams (no result, no "       \
      "cancel)")                                                                                   \
    X(META_LOG_LEVEL_UNCHECKED, "meta-log-level-unchecked", "LOG-006",                             \
      "2026-07-28: serve a request whose _meta logLevel names no log level")                       \
    X(TRACE_CONTEXT_REJECTED, "trace-context-rejected", "GEN-META-006",                            \
      "2026-07-28: refuse a request whose _meta carries a traceparent with -32602")                \
    X(EXTENSION_UNPREFIXED, "extension-unprefixed", "VER-009",                                     \
      "2026-07-28: declare the extension \"reference\" in server/discover, without a prefix")      \
    X(CACHE_SCOPE_PER_PAGE, "cache-scope-per-page", "CACHE-010",                                   \
      "2026-07-28: mark every list page after the first cacheScope \"private\"")                   \
    X(CLIENT_INFO_TAILORED, "client-info-tailored", "STATE-005",                                   \
      "2026-07-28: hide the first tool from a client whose clientInfo name is claude-ai")          \
    X(ICON_BAD_THEME, "icon-bad-theme", "GEN-ICON-001",                                            \
      "2026-07-28: give the serverInfo icon in _meta the theme \"sepia\"")

#endif
