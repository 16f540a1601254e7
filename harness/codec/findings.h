/*
 * findings.h - the kinds of finding the passive checks report, and the
 * observer rule each one breaks.
 *
 * The classifier (rpc.c), the passive observer (session/observe.c) and the
 * case judges (engine/judges.c) report what is wrong by naming a kind from
 * this table, never by writing requirement IDs: the kind carries the IDs it
 * breaks and the observer rule (engine/observers.c) that tallies it, so a
 * finding no rule claims cannot be written. The table is here, below every
 * emitter, because the classifier is the lowest of them.
 */
#ifndef MCPS_CODEC_FINDINGS_H
#define MCPS_CODEC_FINDINGS_H

/* The observer rules; engine/observers.c describes each (observe/<name>). */
#define MCPS_RULES(X)                                                                              \
    X(JSON_TEXT)                                                                                   \
    X(UTF8)                                                                                        \
    X(NO_EMBEDDED_NEWLINE)                                                                         \
    X(ENVELOPE)                                                                                    \
    X(DUPLICATE_KEY)                                                                               \
    X(LONE_SURROGATE)                                                                              \
    X(RESPONSE_ID)                                                                                 \
    X(RESULT_XOR_ERROR)                                                                            \
    X(ONE_RESPONSE)                                                                                \
    X(RESULT_OBJECT)                                                                               \
    X(ERROR_SHAPE)                                                                                 \
    X(ERROR_MESSAGE)                                                                               \
    X(REQUEST_ID)                                                                                  \
    X(NOTIFICATION_ID)                                                                             \
    X(BATCH)                                                                                       \
    X(PROGRESS)                                                                                    \
    X(DECLARED_NOTIFICATIONS)                                                                      \
    X(CLIENT_CAPABILITIES)                                                                         \
    X(REVISION_METHODS)                                                                            \
    X(SERVER_REQUESTS)                                                                             \
    X(META_KEYS)                                                                                   \
    X(RESOURCE_UPDATES)                                                                            \
    X(URL_ELICITATION_ERRORS)                                                                      \
    X(EMBEDDED_RESOURCES)                                                                          \
    X(NO_SECRETS_IN_LOGS)                                                                          \
    X(TASK_STATUS)                                                                                 \
    X(RESULT_TYPE_VALUE)                                                                           \
    X(INPUT_REQUIRED)                                                                              \
    X(ERROR_CODES)                                                                                 \
    X(NO_SERVER_REQUESTS)                                                                          \
    X(SERVER_INFO)                                                                                 \
    X(REQUEST_SCOPED)                                                                              \
    X(MCP_HEADERS)

#define MCPS_RULE_ENUM_(name) MCPS_RULE_##name,
typedef enum mcps_rule { MCPS_RULES(MCPS_RULE_ENUM_) MCPS_RULE_COUNT } mcps_rule;
#undef MCPS_RULE_ENUM_

/*
 * X(KIND, RULE, "REQUIREMENT-IDS"): one kind of finding. Where the IDs depend
 * on the revision or the direction, there is one kind per variant and the
 * emitter picks.
 */
#define MCPS_FINDING_KINDS(X)                                                                      \
    X(NOT_JSON, JSON_TEXT, "JSON-SYNTAX-001")                                                      \
    X(NOT_JSON_FROM_SERVER, JSON_TEXT, "JSON-SYNTAX-001 STDIO-002")                                \
    X(NOT_JSON_TO_SERVER, JSON_TEXT, "JSON-SYNTAX-001 STDIO-003")                                  \
    X(BAD_UTF8, UTF8, "JSON-UTF8-001 RPC-MSG-002")                                                 \
    X(BAD_UTF8_2024, UTF8, "JSON-UTF8-001")                                                        \
    X(EMBEDDED_NEWLINE, NO_EMBEDDED_NEWLINE, "STDIO-001")                                          \
    X(ENVELOPE, ENVELOPE, "RPC-MSG-001")                                                           \
    X(METHOD_NOT_STRING, ENVELOPE, "RPC-MSG-001 RPC-ERR-004")                                      \
    X(NOT_A_MESSAGE, ENVELOPE, "RPC-MSG-001 RPC-RSP-002")                                          \
    X(DUPLICATE_KEY, DUPLICATE_KEY, "JSON-DUP-001")                                                \
    X(LONE_SURROGATE, LONE_SURROGATE, "JSON-SURR-001")                                             \
    X(RESPONSE_ID, RESPONSE_ID, "RPC-RSP-001")                                                     \
    X(RESPONSE_ID_ROUNDED, RESPONSE_ID, "JSON-INT-001")                                            \
    X(RESULT_AND_ERROR, RESULT_XOR_ERROR, "RPC-RSP-002")                                           \
    X(SECOND_RESPONSE, ONE_RESPONSE, "RPC-RSP-004")                                                \
    X(RESULT_NOT_OBJECT, RESULT_OBJECT, "RPC-RSP-003")                                             \
    X(NO_RESULT_TYPE, RESULT_OBJECT, "RPC-RT-001")                                                 \
    X(ERROR_SHAPE, ERROR_SHAPE, "RPC-ERR-001")                                                     \
    X(ERROR_MESSAGE, ERROR_MESSAGE, "RPC-ERR-002")                                                 \
    X(REQUEST_ID_TYPE, REQUEST_ID, "RPC-ID-001")                                                   \
    X(REQUEST_ID_NULL, REQUEST_ID, "RPC-ID-002")                                                   \
    X(REQUEST_ID_REUSED, REQUEST_ID, "RPC-ID-003")                                                 \
    X(REQUEST_ID_REUSED_PENDING, REQUEST_ID, "RPC-ID-003 RPC-ID-004")                              \
    X(REQUEST_ID_PENDING, REQUEST_ID, "RPC-ID-004")                                                \
    X(NOTIFICATION_ID, NOTIFICATION_ID, "RPC-NOT-001")                                             \
    X(EMPTY_BATCH, BATCH, "BATCH-004")                                                             \
    X(BATCH_REMOVED, BATCH, "BATCH-005")                                                           \
    X(BATCH_2024, BATCH, "BATCH-006")                                                              \
    X(PROGRESS_SHAPE, PROGRESS, "PROG-003")                                                        \
    X(PROGRESS_NOT_INCREASING, PROGRESS, "PROG-004")                                               \
    X(PROGRESS_UNKNOWN_TOKEN, PROGRESS, "PROG-006")                                                \
    X(PROGRESS_AFTER_RESPONSE, PROGRESS, "PROG-007")                                               \
    X(UNDECLARED_PROMPTS_CHANGED, DECLARED_NOTIFICATIONS, "CAP-GEN-001 CAP-GEN-002")               \
    X(UNDECLARED_RESOURCES_NOTICE, DECLARED_NOTIFICATIONS, "CAP-GEN-001 CAP-GEN-002")              \
    X(UNDECLARED_TOOLS_CHANGED, DECLARED_NOTIFICATIONS, "CAP-GEN-001 CAP-GEN-002")                 \
    X(UNDECLARED_LOGGING, DECLARED_NOTIFICATIONS, "CAP-SRV-004")                                   \
    X(CLIENT_UNDECLARED_2024, CLIENT_CAPABILITIES, "CAP-GEN-001")                                  \
    X(CLIENT_UNDECLARED, CLIENT_CAPABILITIES, "CAP-GEN-002")                                       \
    X(ROOTS_UNDECLARED, CLIENT_CAPABILITIES, "ROOTS-005")                                          \
    X(SAMPLING_TOOLS_UNDECLARED, CLIENT_CAPABILITIES, "SAMP-008")                                  \
    X(SAMPLING_CONTEXT_UNDECLARED, CLIENT_CAPABILITIES, "SAMP-013")                                \
    X(URL_ELICITATION_UNDECLARED, CLIENT_CAPABILITIES, "ELIC-007")                                 \
    X(TASKS_UNDECLARED, CLIENT_CAPABILITIES, "TASK-001")                                           \
    X(METHOD_TOO_NEW_2025_03, REVISION_METHODS, "LIFE-OP-001")                                     \
    X(METHOD_TOO_NEW, REVISION_METHODS, "LIFE-OP-002")                                             \
    X(PROGRESS_TOKEN_TYPE, SERVER_REQUESTS, "PROG-001")                                            \
    X(PROGRESS_TOKEN_REUSED, SERVER_REQUESTS, "PROG-002")                                          \
    X(CANCEL_UNKNOWN_REQUEST, SERVER_REQUESTS, "CANC-001")                                         \
    X(CANCEL_NO_REQUEST_ID, SERVER_REQUESTS, "CANC-009")                                           \
    X(META_KEY_MALFORMED, META_KEYS, "GEN-META-001 GEN-META-002")                                  \
    X(META_KEY_RESERVED, META_KEYS, "GEN-META-003")                                                \
    X(META_KEY_FORWARD_DNS, META_KEYS, "GEN-META-004")                                             \
    X(UPDATE_UNSUBSCRIBED, RESOURCE_UPDATES, "RES-008")                                            \
    X(URL_ELICITATION_ERROR, URL_ELICITATION_ERRORS, "ELIC-013 ELIC-014")                          \
    X(UNDECLARED_EMBEDDED_RESOURCE, EMBEDDED_RESOURCES, "TOOL-017")                                \
    X(SECRET_IN_LOG, NO_SECRETS_IN_LOGS, "LOG-007")                                                \
    X(TASK_STATUS_BACKWARDS, TASK_STATUS, "TASK-012")                                              \
    X(RESULT_TYPE_UNKNOWN, RESULT_TYPE_VALUE, "RPC-RT-004 VER-010")                                \
    X(INPUT_REQUIRED_EMPTY, INPUT_REQUIRED, "MRTR-003")                                            \
    X(INPUT_REQUEST_SHAPE, INPUT_REQUIRED, "MRTR-004")                                             \
    X(INPUT_REQUEST_UNDECLARED, INPUT_REQUIRED, "MRTR-005")                                        \
    X(INPUT_REQUIRED_CACHED, INPUT_REQUIRED, "CACHE-003")                                          \
    X(CODE_MCP_UNDEFINED, ERROR_CODES, "RPC-CODE-001")                                             \
    X(CODE_LEGACY_RANGE, ERROR_CODES, "RPC-CODE-002 RPC-CODE-005")                                 \
    X(CODE_RESERVED_BLOCK, ERROR_CODES, "RPC-CODE-005")                                            \
    X(SERVER_REQUEST, NO_SERVER_REQUESTS, "RPC-DIR-001")                                           \
    X(SERVER_REQUEST_STDIO, NO_SERVER_REQUESTS, "RPC-DIR-001 STDIO-008")                           \
    X(NO_SERVER_INFO, SERVER_INFO, "STATE-004")                                                    \
    X(NO_SERVER_INFO_DISCOVER, SERVER_INFO, "STATE-004 DISC-004")                                  \
    X(LOG_WITHOUT_LEVEL, REQUEST_SCOPED, "LOG-009")                                                \
    X(CANCELLED_NOT_LISTEN, REQUEST_SCOPED, "CANC-013")                                            \
    X(MCP_HEADER_INVALID, MCP_HEADERS, "TOOL-020")                                                 \
    X(MCP_HEADER_SENSITIVE, MCP_HEADERS, "TOOL-022")

#define MCPS_FINDING_ENUM_(kind, rule, reqs) MCPS_FINDING_##kind,
typedef enum mcps_finding_kind {
    MCPS_FINDING_NOTE, /* a harness note (a message too long to judge): no rule, no requirement */
    MCPS_FINDING_KINDS(MCPS_FINDING_ENUM_) MCPS_FINDING_KIND_COUNT
} mcps_finding_kind;
#undef MCPS_FINDING_ENUM_

/* The requirement IDs a kind breaks (space-separated); NULL for a note or an unknown kind. */
const char *mcps_finding_kind_reqs(mcps_finding_kind kind);
/* The rule that tallies a kind; MCPS_RULE_COUNT for a note or an unknown kind. */
mcps_rule mcps_finding_kind_rule(mcps_finding_kind kind);
/* The kind's name as in the table ("NOT_JSON"), for tests and diagnostics. */
const char *mcps_finding_kind_name(mcps_finding_kind kind);

#endif
