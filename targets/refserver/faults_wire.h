/*
 * faults_wire.h - refserver faults: JSON-RPC, stdio framing, lifecycle, ping, batches.
 * One X(ENUM_SUFFIX, "name", "REQUIREMENT-IDS", "one-line description") per fault;
 * faults.h joins the areas into one table.
 */
#ifndef RS_FAULTS_WIRE_H
#define RS_FAULTS_WIRE_H

#define RS_FAULTS_WIRE(X)                                                                          \
    X(CRASH_DEEP_NESTING, "crash-deep-nesting", "RPC-RSP-004 JSON-LIMIT-001",                      \
      "exit at once, without an answer, on a line nested 64 or more arrays or objects deep")       \
    X(HANG_LONG_STRING, "hang-long-string", "RPC-RSP-004 JSON-LIMIT-001",                          \
      "stop answering for good on a line holding a string of 64 KiB or more")                      \
    X(CRASH_HUGE_NUMBER, "crash-huge-number", "RPC-RSP-004 JSON-LIMIT-001",                        \
      "exit at once, without an answer, on a line holding a number of 1000 digits or more")        \
    X(HANG_MANY_MEMBERS, "hang-many-members", "RPC-RSP-004 JSON-LIMIT-001",                        \
      "stop answering for good on a line with 10000 or more object members")                       \
    X(INIT_NO_SERVERINFO, "init-no-serverinfo", "LIFE-INIT-003",                                   \
      "omit serverInfo from the initialize result")                                                \
    X(INIT_WRONG_VERSION, "init-wrong-version", "LIFE-VER-003 LIFE-VER-004",                       \
      "answer 2024-11-05 to every supported requested version (and behave as 2024-11-05)")         \
    X(UNSUPPORTED_VERSION_ERROR, "unsupported-version-error", "LIFE-VER-004",                      \
      "refuse an unknown protocolVersion with -32602 and data.supported/requested")                \
    X(UNSUPPORTED_VERSION_ECHO, "unsupported-version-echo", "LIFE-VER-004",                        \
      "echo an unknown protocolVersion back instead of naming a supported one")                    \
    X(FALLBACK_OLDEST, "fallback-oldest", "LIFE-VER-005",                                          \
      "answer an unknown protocolVersion with 2024-11-05 instead of the newest")                   \
    X(RESPOND_TO_NOTIFICATIONS, "respond-to-notifications", "RPC-NOT-002",                         \
      "answer every notification with an error response whose id is null")                         \
    X(IGNORE_BEFORE_INIT, "ignore-before-init", "RPC-RSP-004",                                     \
      "silently drop requests (other than initialize and ping) that arrive before initialize")     \
    X(SECOND_INIT_ACCEPTED, "second-init-accepted", "LIFE-INIT-001",                               \
      "answer a second initialize with the first result instead of an error")                      \
    X(PING_NO_RESPONSE, "ping-no-response", "PING-001 RPC-RSP-004", "never answer ping")           \
    X(PING_RESULT_NULL, "ping-result-null", "RPC-RSP-003 PING-001",                                \
      "answer ping with result null")                                                              \
    X(PING_REQUIRES_INITIALIZED, "ping-requires-initialized", "PING-001",                          \
      "refuse ping with an error until notifications/initialized arrived")                         \
    X(ID_AS_NUMBER, "id-as-number", "RPC-RSP-001",                                                 \
      "echo string ids that look like integers (\"42\") as numbers (42)")                          \
    X(ID_LOSSY, "id-lossy", "JSON-INT-001",                                                        \
      "echo integer ids through a double (9007199254740993 -> 9007199254740992)")                  \
    X(ID_ASCII_ONLY, "id-ascii-only", "RPC-RSP-001",                                               \
      "echo string ids with each non-ASCII character replaced by '?'")                             \
    X(DROP_MALFORMED, "drop-malformed", "RPC-ERR-003", "send no answer to unparseable lines")      \
    X(PARSE_ERROR_WRONG_CODE, "parse-error-wrong-code", "RPC-ERR-003",                             \
      "answer unparseable lines with -32603 instead of -32700")                                    \
    X(INVALID_REQUEST_AS_RESULT, "invalid-request-as-result", "RPC-MSG-001",                       \
      "process requests whose jsonrpc member is not \"2.0\" and answer with a result")             \
    X(INVALID_REQUEST_WRONG_CODE, "invalid-request-wrong-code", "RPC-ERR-004",                     \
      "answer structurally invalid request objects with -32603 instead of -32600")                 \
    X(ID_NULL_ACCEPTED, "id-null-accepted", "RPC-ID-002",                                          \
      "process requests with id null and answer them with a result")                               \
    X(UNKNOWN_METHOD_WRONG_CODE, "unknown-method-wrong-code", "RPC-ERR-005",                       \
      "answer unknown methods with -32603 instead of -32601")                                      \
    X(UNKNOWN_METHOD_SILENT, "unknown-method-silent", "RPC-RSP-004",                               \
      "send no answer to requests for unknown methods")                                            \
    X(UNKNOWN_METHOD_NULL_ID, "unknown-method-null-id", "RPC-RSP-001 RPC-ERR-008",                 \
      "answer unknown methods with -32601 but id null")                                            \
    X(DROP_INVALID_REQUESTS, "drop-invalid-requests", "RPC-ERR-004",                               \
      "send no answer to structurally invalid requests (validation before routing, as some SDKs)") \
    X(DROP_ERROR_ANSWERS, "drop-error-answers", "RPC-RSP-004",                                     \
      "send no answer to a well-formed request whose handler fails (an error lost, not sent)")     \
    X(INVALID_PARAMS_WRONG_CODE, "invalid-params-wrong-code", "RPC-ERR-006",                       \
      "answer missing or wrongly typed params members with -32603 instead of -32602")              \
    X(NO_BATCH, "no-batch", "BATCH-001", "in 2025-03-26 reject every batch with one -32600 error") \
    X(EMPTY_BATCH_ARRAY_RESPONSE, "empty-batch-array-response", "BATCH-004",                       \
      "in 2025-03-26 answer the empty batch [] with []")                                           \
    X(BATCH_NOTIFICATION_REPLY, "batch-notification-reply", "BATCH-004",                           \
      "in 2025-03-26 answer a batch that yields no responses with []")                             \
    X(BATCH_ALWAYS, "batch-always", "BATCH-005 BATCH-006",                                         \
      "process batches in every revision, not only 2025-03-26")                                    \
    X(IGNORE_STDIN_EOF, "ignore-stdin-eof", "LIFE-SHUT-001 STDIO-012",                             \
      "keep running after end of file on stdin")                                                   \
    X(STDOUT_NOISE, "stdout-noise", "STDIO-002 JSON-SYNTAX-001",                                   \
      "print a plain-text banner line on stdout at start")                                         \
    X(STDOUT_LOG_LINE, "stdout-log-line", "STDIO-002 JSON-SYNTAX-001",                             \
      "print a plain-text line on stdout before each ping response")                               \
    X(PRETTY_PRINT, "pretty-print", "STDIO-001", "pretty-print responses over several lines")      \
    X(LATIN1_OUTPUT, "latin1-output", "RPC-MSG-002 JSON-UTF8-001",                                 \
      "put a raw Latin-1 byte 0xE9 into serverInfo.name")                                          \
    X(JSONRPC_MISSING, "jsonrpc-missing", "RPC-MSG-001", "omit \"jsonrpc\" from responses")        \
    X(RESULT_AND_ERROR, "result-and-error", "RPC-RSP-002",                                         \
      "answer ping with both a result and an error")                                               \
    X(ERROR_CODE_STRING, "error-code-string", "RPC-ERR-001",                                       \
      "send error codes as strings (\"-32601\")")                                                  \
    X(ERROR_MESSAGE_LONG, "error-message-long", "RPC-ERR-002",                                     \
      "send error messages of 400 characters spread over several lines")                           \
    X(NOTIFICATION_WITH_ID, "notification-with-id", "RPC-NOT-001",                                 \
      "give every server notification (log, progress, updates) an id")                             \
    X(DOUBLE_RESPONSE, "double-response", "RPC-RSP-004", "answer every ping twice")                \
    X(DUPLICATE_KEY, "duplicate-key", "JSON-DUP-001",                                              \
      "write the \"jsonrpc\" member twice in every response")                                      \
    X(BATCH_RESPONSES_ALWAYS, "batch-responses-always", "BATCH-005 BATCH-006",                     \
      "wrap every single response in a one-element array")                                         \
    X(INIT_NO_PROTOCOL_VERSION, "init-no-protocol-version", "LIFE-INIT-003",                       \
      "omit protocolVersion from the initialize result")                                           \
    X(INSTRUCTIONS_NOT_STRING, "instructions-not-string", "LIFE-INIT-003",                         \
      "send the initialize result's instructions as an array of strings")                          \
    X(DIE_ON_MALFORMED, "die-on-malformed", "RPC-ERR-003 RPC-RSP-004",                             \
      "exit at once, without an answer, on an unparseable line")                                   \
    X(PARAMS_ARRAY_ACCEPTED, "params-array-accepted", "RPC-ERR-004",                               \
      "process requests whose params is an array (JSON-RPC allows it, MCP does not)")              \
    X(BATCH_SEPARATE_RESPONSES, "batch-separate-responses", "BATCH-001",                           \
      "in 2025-03-26 answer the requests of a batch one line each, not as one array")              \
    X(LONE_SURROGATE, "lone-surrogate", "JSON-SURR-001",                                           \
      "write an unpaired \\ud800 escape into serverInfo.name")                                     \
    X(SERVER_PING_NULL_ID, "server-ping-null-id", "RPC-ID-002",                                    \
      "after notifications/initialized, send the client a ping request whose id is null")          \
    X(SET_LEVEL_ERROR, "set-level-error", "LOG-001",                                               \
      "answer every logging/setLevel with -32603 although logging is declared")                    \
    X(INVALID_LEVEL_ACCEPTED, "invalid-level-accepted", "LOG-006",                                 \
      "accept an unknown log level with an empty result")                                          \
    X(LOG_BAD_LEVEL, "log-bad-level", "LOG-002",                                                   \
      "send log messages with level \"verbose\", which RFC 5424 does not have")                    \
    X(LOG_NO_DATA, "log-no-data", "LOG-003", "send log messages without a data member")

#endif
