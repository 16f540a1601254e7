/*
 * faults.h - the fault switches of refclient (--fault NAME), one row each.
 *
 * The same proof rule as refserver's (targets/refserver/faults.h): every
 * client check of mcpspec passes against refclient clean and fails with its
 * fault switched on. Each fault breaks the first requirement listed and
 * leaves the rest conformant where the wire allows (the README says where it
 * cannot). One X(ENUM_SUFFIX, "name", "REQUIREMENT-IDS", "check", "description").
 */
#ifndef RC_FAULTS_H
#define RC_FAULTS_H

#include <stdbool.h>
#include <stdio.h>

#define RC_FAULT_TABLE(X)                                                                          \
    X(PING_FIRST, "ping-first", "LIFE-INIT-001", "client/initialize-first",                        \
      "send a ping before initialize")                                                             \
    X(NO_CLIENTINFO, "no-clientinfo", "LIFE-INIT-002", "client/initialize-params",                 \
      "leave clientInfo out of initialize")                                                        \
    X(NO_INITIALIZED, "no-initialized", "LIFE-INIT-004", "client/initialized-notification",        \
      "never send notifications/initialized")                                                      \
    X(NO_WAIT, "no-wait", "LIFE-INIT-005 LIFE-INIT-004", "client/waits-for-initialize",            \
      "send tools/list right after initialize, without waiting for its answer")                    \
    X(IGNORE_VERSION, "ignore-version", "LIFE-VER-007", "client/unsupported-version",              \
      "go on whatever protocolVersion the server answers")                                         \
    X(PING_ERROR, "ping-error", "PING-001", "client/ping",                                         \
      "answer the server's ping with an error")                                                    \
    X(ROOTS_NOT_FILE, "roots-not-file", "ROOTS-002", "client/roots-list",                          \
      "list a root whose uri is https://, not file://")                                            \
    X(ROOTS_UNDECLARED, "roots-undeclared", "CAP-CLI-001", "client/roots-list",                    \
      "answer roots/list without declaring roots")                                                 \
    X(SAMPLING_NO_MODEL, "sampling-no-model", "SAMP-002", "client/sampling",                       \
      "answer sampling/createMessage without model")                                               \
    X(SAMPLING_UNDECLARED, "sampling-undeclared", "CAP-CLI-002", "client/sampling",                \
      "answer sampling/createMessage without declaring sampling")                                  \
    X(ELICIT_BAD_ACTION, "elicit-bad-action", "ELIC-003", "client/elicitation",                    \
      "answer elicitation/create with action \"maybe\"")                                           \
    X(ELICIT_UNDECLARED, "elicit-undeclared", "CAP-CLI-003", "client/elicitation",                 \
      "answer elicitation/create without declaring elicitation")                                   \
    X(REFUSE_WRONG_CODE, "refuse-wrong-code", "CAP-GEN-003", "client/roots-list",                  \
      "refuse requests for undeclared capabilities with -32603, not -32601 (with --no-caps)")      \
    X(REUSE_ID, "reuse-id", "RPC-ID-003", "client/request-ids",                                    \
      "give tools/call the id tools/list had")                                                     \
    X(JSONRPC_1, "jsonrpc-1", "RPC-MSG-001", "client/jsonrpc-lines",                               \
      "send tools/call with \"jsonrpc\":\"1.0\"")                                                  \
    X(STRAY_LINE, "stray-line", "STDIO-003", "client/jsonrpc-lines",                               \
      "write a line that is not JSON to the server after notifications/initialized")               \
    X(CRASH_UNKNOWN_ID, "crash-unknown-id", "RPC-RSP-004", "client/survives-unknown-id",           \
      "exit on a response to no request of its")                                                   \
    X(CRASH_INVALID_JSON, "crash-invalid-json", "RPC-RSP-004 RPC-ERR-003",                         \
      "client/survives-invalid-json", "exit on a line that is not JSON")                           \
    X(NO_PARSE_ERROR, "no-parse-error", "RPC-ERR-003", "client/parse-error-answered",              \
      "ignore a line that is not JSON instead of answering -32700")                                \
    X(CRASH_NULL_ID, "crash-null-id", "RPC-RSP-004", "client/survives-null-id",                    \
      "exit on a response whose id is null")                                                       \
    X(CRASH_DUPLICATE, "crash-duplicate", "RPC-RSP-004", "client/survives-duplicate-response",     \
      "exit on a second response to its initialize")                                               \
    X(CRASH_HUGE, "crash-huge", "RPC-RSP-004", "client/survives-huge",                             \
      "exit on a message of more than 64 KiB")                                                     \
    X(PROGRESS_TOKEN_FLOAT, "progress-token-float", "PROG-001", "client/progress-tokens",          \
      "give tools/call the progressToken 1.5")                                                     \
    X(IGNORE_INVALID_REQUEST, "ignore-invalid-request", "RPC-ERR-004", "client/unknown-method",    \
      "leave a request whose method is not a string unanswered")                                   \
    X(UNKNOWN_METHOD_RESULT, "unknown-method-result", "RPC-ERR-005", "client/unknown-method",      \
      "answer a request for a method it does not have with an empty result")                       \
    X(RESULT_AND_ERROR, "result-and-error", "RPC-RSP-002", "client/responses",                     \
      "answer the server's ping with both a result and an error")                                  \
    X(CURSOR_ALTERED, "cursor-altered", "PAGE-004", "client/cursor-unchanged",                     \
      "send nextCursor back with its '+' decoded to a space")                                      \
    X(PAGE_PAST_END, "page-past-end", "PAGE-007", "client/cursor-unchanged",                       \
      "ask for another page after the last one (a page without nextCursor)")                       \
    X(CRASH_ON_CANCEL, "crash-on-cancel", "CANC-006", "client/cancel-survived",                    \
      "exit on notifications/cancelled")                                                           \
    X(ANSWER_CANCEL, "answer-cancel", "RPC-NOT-002", "client/cancel-survived",                     \
      "answer notifications/cancelled with a -32601 error (id null)")                              \
    X(PROGRESS_AFTER_ANSWER, "progress-after-answer", "PROG-007", "client/progress",               \
      "send the last progress for a server request after answering it")                            \
    X(NO_BATCH, "no-batch", "BATCH-001", "client/batch",                                           \
      "ignore a batch (JSON array) line from the server")                                          \
    X(BATCH_EMPTY_ARRAY, "batch-empty-array", "BATCH-004", "client/batch-edges",                   \
      "2025-03-26: answer an empty batch [] with an empty array, not a -32600 error")              \
    X(BATCH_REQUEST, "batch-request", "BATCH-005", "client/jsonrpc-lines",                         \
      "send tools/list inside a one-element batch, whatever the revision")                         \
    X(INITIALIZED_WITH_ID, "initialized-with-id", "RPC-NOT-001", "client/jsonrpc-lines",           \
      "send notifications/initialized with an id")                                                 \
    X(CANCEL_INITIALIZE, "cancel-initialize", "CANC-002", "client/cancellations",                  \
      "cancel its initialize request while waiting for the answer")                                \
    X(KILL_SERVER, "kill-server", "LIFE-SHUT-001", "client/shutdown",                              \
      "stop the server with SIGKILL instead of closing its stdin")                                 \
    X(NO_SESSION_ID, "no-session-id", "HTTP-036", "client/http-session-id",                        \
      "HTTP: leave Mcp-Session-Id out of every request after initialize")                          \
    X(NO_PROTOCOL_VERSION, "no-protocol-version", "HTTP-042", "client/http-protocol-version",      \
      "HTTP: leave MCP-Protocol-Version out of every request after initialize")                    \
    X(ACCEPT_JSON_ONLY, "accept-json-only", "HTTP-006", "client/http-accept",                      \
      "HTTP: send Accept: application/json only")                                                  \
    X(IGNORE_404, "ignore-404", "HTTP-039", "client/http-session-404",                             \
      "HTTP: give up when its session is answered 404, instead of initializing again")             \
    X(NO_DELETE, "no-delete", "HTTP-040", "client/http-delete",                                    \
      "HTTP: exit without ending its session with DELETE")                                         \
    X(NO_DISCOVER, "no-discover", "STDIO-011", "client/discover-first",                            \
      "2026-07-28: call tools/list straight away, without server/discover")                        \
    X(INITIALIZE_AFTER_DISCOVER, "initialize-after-discover", "VER-001",                           \
      "client/no-initialize-after-discover", "2026-07-28: send initialize after server/discover")  \
    X(META_NO_VERSION, "meta-no-version", "VER-001", "client/meta-protocol-version",               \
      "2026-07-28: leave _meta protocolVersion out of tools/call")                                 \
    X(META_NO_CLIENTINFO, "meta-no-clientinfo", "STATE-003", "client/meta-client-info",            \
      "2026-07-28: leave _meta clientInfo out of every request")                                   \
    X(META_OTHER_VERSION, "meta-other-version", "DISC-006", "client/discover-version",             \
      "2026-07-28: name 2025-11-25 after server/discover listed only 2026-07-28")                  \
    X(MODERN_RESPONSE, "modern-response", "STDIO-007 RPC-DIR-001", "client/no-responses",          \
      "2026-07-28: write a response (to no request) after server/discover")                        \
    X(NO_VERSION_RETRY, "no-version-retry", "VER-003", "client/version-retry",                     \
      "2026-07-28: give up on -32022 instead of retrying with a version it lists")                 \
    X(META_RESERVED_KEY, "meta-reserved-key", "GEN-META-003", "client/meta-keys",                  \
      "put a _meta key of its own under io.modelcontextprotocol/ on tools/call")                   \
    X(EXTENSION_NO_PREFIX, "extension-no-prefix", "VER-009", "client/meta-keys",                   \
      "2026-07-28: declare an extension without a prefix in clientCapabilities")                   \
    X(UNDECLARED_PROMPTS, "undeclared-prompts", "CAP-GEN-002", "client/uses-declared",             \
      "call prompts/list, though the server declared tools only")                                  \
    X(TASK_CALL, "task-call", "TASK-002", "client/uses-declared",                                  \
      "call the tool with params.task, though the server declared no tasks")                       \
    X(NEWER_METHOD, "newer-method", "LIFE-OP-002", "client/negotiated-only",                       \
      "send tasks/list (a 2025-11-25 method) whatever revision was negotiated")                    \
    X(CALL_ARGS_ARRAY, "call-args-array", "TOOL-005", "client/tool-calls",                         \
      "call the tool with arguments that are an array, not an object")                             \
    X(LEAVE_OWN_VERSION, "leave-own-version", "LIFE-VER-001", "client/own-version",                \
      "disconnect when the server answers the very revision it asked for")                         \
    X(SPLIT_MESSAGE, "split-message", "STDIO-001", "client/jsonrpc-lines",                         \
      "write tools/list over two lines (a newline inside the message)")                            \
    X(NOT_UTF8, "not-utf8", "RPC-MSG-002", "client/jsonrpc-lines",                                 \
      "send tools/call with a Latin-1 byte (not UTF-8) in its arguments")                          \
    X(ELICIT_REFUSE_FORM, "elicit-refuse-form", "ELIC-006 CAP-CLI-004", "client/elicitation",      \
      "refuse elicitation/create without mode with -32602, though it declares elicitation")        \
    X(SAMPLING_BAD_CONTENT, "sampling-bad-content", "SAMP-003", "client/sampling",                 \
      "answer sampling/createMessage with content of type \"video\"")                              \
    X(MODERN_PING, "modern-ping", "PING-004", "client/modern-methods",                             \
      "2026-07-28: send ping after server/discover")                                               \
    X(MRTR_SAME_ID, "mrtr-same-id", "MRTR-012", "client/input-required",                           \
      "2026-07-28: retry an InputRequiredResult with the original request's id")                   \
    X(MRTR_STATE_ALTERED, "mrtr-state-altered", "MRTR-011", "client/input-required",               \
      "2026-07-28: retry with requestState's first character changed")                             \
    X(MRTR_ARGS_CHANGED, "mrtr-args-changed", "MRTR-014", "client/input-required",                 \
      "2026-07-28: retry with other tool arguments")                                               \
    X(MRTR_NO_INPUTS, "mrtr-no-inputs", "MRTR-010", "client/input-required",                       \
      "2026-07-28: retry without the inputResponses asked for")                                    \
    X(MRTR_STATE_LEAK, "mrtr-state-leak", "MRTR-013", "client/input-required",                     \
      "2026-07-28: send tools/list with the requestState before retrying")                         \
    X(REDISCOVER, "rediscover", "VER-005", "client/no-initialize-after-discover",                  \
      "2026-07-28: send server/discover again before tools/list")                                  \
    X(LOG_LEVEL_VERBOSE, "log-level-verbose", "LOG-002", "client/meta-keys",                       \
      "2026-07-28: ask for the log level \"verbose\" (not RFC 5424's) in every request's _meta")   \
    X(STOP_ON_EMPTY_PAGE, "stop-on-empty-page", "PAGE-003", "client/cursor-unchanged",             \
      "stop paging at a page without tools, though it has a nextCursor")                           \
    X(MODERN_BATCH, "modern-batch", "HTTP-048", "client/http-bodies",                              \
      "HTTP, 2026-07-28: POST server/discover inside a one-element batch")                         \
    X(HEADER_VERSION_MISMATCH, "header-version-mismatch", "HDR-001", "client/http-version-header", \
      "HTTP, 2026-07-28: send MCP-Protocol-Version: 2025-11-25 with 2026-07-28 in _meta")          \
    X(NO_MCP_METHOD, "no-mcp-method", "HDR-005", "client/http-method-header",                      \
      "HTTP, 2026-07-28: leave Mcp-Method out of every request")                                   \
    X(NO_PARAM_HEADER, "no-param-header", "HDR-009", "client/http-param-headers",                  \
      "HTTP, 2026-07-28: send no Mcp-Param-* header for an x-mcp-header argument")                 \
    X(NO_RESUME, "no-resume", "HTTP-030", "client/http-resume",                                    \
      "HTTP: give up on a request whose SSE stream closed before the answer, without resuming")    \
    X(RESUME_EARLY, "resume-early", "HTTP-021", "client/http-resume",                              \
      "HTTP, 2025-11-25: resume a closed stream at once, ignoring the event's retry")              \
    X(CANCEL_ON_DROP, "cancel-on-drop", "HTTP-017", "client/http-resume",                          \
      "HTTP: cancel a request whose SSE stream closed (then resume it all the same)")              \
    X(ERA_IGNORE_400, "era-ignore-400", "HTTP-058", "client/http-era-fallback",                    \
      "HTTP, --protocol-version auto: go on with 2026-07-28 requests after a legacy endpoint "     \
      "refused server/discover (400, no modern error), instead of initializing")                   \
    X(RESUME_MODERN, "resume-modern", "HTTP-057", "client/http-stream-retry",                      \
      "HTTP, 2026-07-28: resume a broken stream with GET and Last-Event-ID instead of sending "    \
      "the "                                                                                       \
      "request again")                                                                             \
    X(MODERN_EMPTY_CURSOR_END, "modern-empty-cursor-end", "PAGE-008", "client/modern-paging",      \
      "2026-07-28: take nextCursor \"\" for the end of the list")                                  \
    X(MODERN_STOP_ON_EMPTY_PAGE, "modern-stop-on-empty-page", "PAGE-003", "client/modern-paging",  \
      "2026-07-28: stop paging at a page without tools, though it has a nextCursor")               \
    X(MODERN_PAGE_PAST_END, "modern-page-past-end", "PAGE-007", "client/modern-paging",            \
      "2026-07-28: ask for another page after the last one (a page without nextCursor)")           \
    X(LEAVE_ON_EXTENSION, "leave-on-extension", "VER-010", "client/extension-fallback",            \
      "2026-07-28: disconnect when the DiscoverResult advertises an extension")                    \
    X(CODE_REDISCOVER, "code-rediscover", "RPC-CODE-003", "client/opaque-codes",                   \
      "2026-07-28: probe server/discover again after a -32001 error, as if it meant a stale era")  \
    X(PROBE_CODE_IGNORED, "probe-code-ignored", "STDIO-010", "client/probe-fallback",              \
      "--protocol-version auto: go on with 2026-07-28 requests when server/discover is answered "  \
      "an error other than -32601, instead of initializing")                                       \
    X(TASK_PLAIN_CALL, "task-plain-call", "TASK-005", "client/task-required",                      \
      "call a tool whose execution.taskSupport is \"required\" without params.task")               \
    X(POLL_FAST, "poll-fast", "TASK-014", "client/task-polling",                                   \
      "poll tasks/get at once, ignoring the task's pollInterval")                                  \
    X(TASK_NO_RESULT, "task-no-result", "TASK-020", "client/task-input",                           \
      "stop at a task's input_required without calling tasks/result")                              \
    X(TASK_META_MISSING, "task-meta-missing", "TASK-017", "client/task-input",                     \
      "answer the task's elicitation/create without the related-task _meta")                       \
    X(TASK_META_ON_GET, "task-meta-on-get", "TASK-019", "client/task-meta",                        \
      "put the related-task _meta on tasks/get")                                                   \
    X(TASK_CANCEL_NOTIFY, "task-cancel-notification", "CANC-008", "client/task-cancel",            \
      "cancel its task-augmented tools/call with notifications/cancelled")                         \
    X(TASK_ANSWER_PLAIN, "task-answer-plain", "TASK-009", "client/task-receiver-create",           \
      "answer a task-augmented elicitation/create with the plain result, though it declared "      \
      "tasks for it")                                                                              \
    X(TASK_GET_BY_META, "task-get-by-meta", "TASK-018", "client/task-receiver-get",                \
      "answer tasks/get about the task its related-task _meta names, not its taskId")              \
    X(TASK_LIST_EMPTY, "task-list-empty", "TASK-022", "client/task-receiver-list",                 \
      "answer tasks/list with no tasks")                                                           \
    X(TASK_RESULT_NO_META, "task-result-no-meta", "TASK-016", "client/task-receiver-result",       \
      "answer tasks/result without the related-task _meta")                                        \
    X(TASK_CANCEL_TERMINAL, "task-cancel-terminal", "TASK-023", "client/task-receiver-cancel",     \
      "answer tasks/cancel of a completed task with the task, not -32602")                         \
    X(TASK_UNKNOWN_RESULT, "task-unknown-result", "TASK-025", "client/task-receiver-errors",       \
      "answer tasks/get of an unknown taskId with an empty result, not -32602")                    \
    X(TASK_UNDECLARED_CREATE, "task-undeclared-create", "TASK-007", "client/task-not-declared",    \
      "create a task for a task-augmented sampling/createMessage, though it declared tasks for "   \
      "elicitation only")                                                                          \
    X(TASKS_CAP_BAD, "tasks-cap-bad", "CAP-CLI-005", "client/task-capability",                     \
      "declare capabilities.tasks.requests.elicitation as true, not an object")                    \
    X(TASK_PROGRESS_LATE, "task-progress-late", "PROG-010", "client/task-progress",                \
      "send progress for a task's token after answering its tasks/result")                         \
    X(REJECT_UNKNOWN_META, "reject-unknown-meta", "GEN-META-005", "client/unknown-meta-key",       \
      "refuse a request carrying an io.modelcontextprotocol/ _meta key it does not know (-32602)") \
    X(CRASH_ON_COMPLETE, "crash-on-complete", "ELIC-011", "client/elicit-complete-unknown",        \
      "exit on notifications/elicitation/complete for an elicitation it never saw")                \
    X(URL_ACCEPTED, "url-accepted", "ELIC-008", "client/elicit-mode-undeclared",                   \
      "answer a url-mode elicitation/create (declined) though it declared form only")              \
    X(MRTR_ROOTS_UNDECLARED, "mrtr-roots-undeclared", "CAP-CLI-001", "client/input-roots",         \
      "2026-07-28: with --deprecated-caps, answer a roots/list inputRequest in a retry whose "     \
      "clientCapabilities declare no roots")                                                       \
    X(MRTR_SAMPLING_UNDECLARED, "mrtr-sampling-undeclared", "CAP-CLI-002",                         \
      "client/input-sampling",                                                                     \
      "2026-07-28: with --deprecated-caps, answer a sampling/createMessage inputRequest in a "     \
      "retry whose clientCapabilities declare no sampling")                                        \
    X(MRTR_SAMPLING_TOOLS, "mrtr-sampling-tools", "SAMP-009", "client/input-sampling-tools",       \
      "2026-07-28: with --deprecated-caps, answer a sampling inputRequest carrying tools, though " \
      "it declared no sampling.tools")                                                             \
    X(MODERN_REJECT_UNKNOWN_META, "modern-reject-unknown-meta", "GEN-META-005",                    \
      "client/modern-unknown-meta",                                                                \
      "2026-07-28: disconnect after a DiscoverResult whose _meta holds an "                        \
      "io.modelcontextprotocol/ key it does not know")                                             \
    X(ERROR_NULL_ID, "error-null-id", "RPC-ERR-008", "client/error-ids",                           \
      "refuse a request for a method it does not have with an error whose id is null")             \
    X(TOOL_USE_NO_ID, "tool-use-no-id", "SAMP-014", "client/input-sampling-tools",                 \
      "2026-07-28: with --deprecated-caps --sampling-tools, answer a sampling inputRequest "       \
      "carrying tools with a tool_use block without id")                                           \
    X(ELICIT_CONTENT_INVALID, "elicit-content-invalid", "ELIC-018", "client/elicit-content",       \
      "accept elicitation/create with content whose name is 42, though the schema asks a string")  \
    X(LISTEN_FILTER_STRING, "listen-filter-string", "SUB-001", "client/listen-request",            \
      "2026-07-28: send toolsListChanged as the string \"true\" in its subscriptions/listen")      \
    X(LISTEN_LEAVE_NARROWED, "listen-leave-narrowed", "SUB-005", "client/listen-narrowed",         \
      "2026-07-28: exit 1 when the acknowledgment leaves out a type it asked for")                 \
    X(ANSWER_PROGRESS, "answer-progress", "RPC-NOT-002", "client/notification-unanswered",         \
      "2026-07-28: answer notifications/progress with a -32601 error (id null)")                   \
    X(STRUCTURED_OBJECT_ONLY, "structured-object-only", "TOOL-018", "client/structured-array",     \
      "2026-07-28: exit 1 on a structuredContent that is not an object (as before 2026-07-28)")    \
    X(SCHEMA_DRAFT7, "schema-draft7", "GEN-JSCH-001", "client/schema-2020-12",                     \
      "2026-07-28: read inputSchema as draft-07 (prefixItems unknown): fill a tuple argument "     \
      "from items alone")                                                                          \
    X(FETCH_REF, "fetch-ref", "GEN-JSCH-004", "client/no-remote-ref",                              \
      "2026-07-28: fetch the http:// $refs of the listed tools' schemas")                          \
    X(DEEP_SCHEMA_CRASH, "deep-schema-crash", "GEN-JSCH-006", "client/deep-schema",                \
      "2026-07-28: exit 1 (as a validator out of stack) on a tool schema nested over 64 levels")   \
    X(NO_RESTART, "no-restart", "STDIO-013", "client/server-restart",                              \
      "2026-07-28: exit 1 when its stdio server dies mid-request, instead of starting it again")   \
    X(NO_RELISTEN, "no-relisten", "SUB-011", "client/relisten",                                    \
      "2026-07-28: after starting its server again, do not open its subscription again")           \
    X(TWO_IN_ONE_POST, "two-in-one-post", "HTTP-005", "client/http-one-post",                      \
      "HTTP: POST notifications/initialized and the next message in one body, a line each")        \
    X(JSON_ANSWERS_ONLY, "json-answers-only", "HTTP-012", "client/http-answer-forms",              \
      "HTTP: take an answer on an SSE stream for a failure (exit 1)")                              \
    X(HEADER_CASE_EXACT, "header-case-exact", "HDR-013", "client/http-modern-answers",             \
      "HTTP, 2026-07-28: look for Content-Type case-sensitively; a body without it is a failure "  \
      "(exit 1)")                                                                                  \
    X(SSE_COMMENT_FATAL, "sse-comment-fatal", "HTTP-052", "client/http-modern-answers",            \
      "HTTP, 2026-07-28: take an SSE comment line for a broken stream (exit 1)")                   \
    X(LEGACY_FALLBACK, "legacy-fallback-on-error", "HTTP-059", "client/http-no-legacy-fallback",   \
      "HTTP, 2026-07-28: GET the endpoint for HTTP+SSE when a request is refused with 400, "       \
      "though "                                                                                    \
      "its body is a modern error")                                                                \
    X(TOKEN_FIRST_ONLY, "token-first-only", "AUTH-003", "client/http-bearer",                      \
      "HTTP: send the --token on its first request only")                                          \
    X(AUTH_PATH_KEPT, "auth-path-kept", "AUTH-005", "client/auth-metadata",                        \
      "HTTP, 2025-03-26: after a 401, ask for authorization server metadata under the endpoint's " \
      "path")                                                                                      \
    X(AUTH_PRM_WELL_KNOWN, "auth-prm-well-known", "AUTH-008", "client/auth-resource-metadata",     \
      "HTTP: after a 401, ask the well-known protected resource metadata URI, not the header's "   \
      "resource_metadata")                                                                         \
    X(REGISTER_NO_APP_TYPE, "register-no-app-type", "AUTH-014", "client/auth-register",            \
      "HTTP, 2026-07-28: register (dynamic client registration) without application_type")         \
    X(ISSUER_UNCHECKED, "issuer-unchecked", "AUTH-016", "client/auth-issuer",                      \
      "HTTP, 2026-07-28: use authorization server metadata whatever issuer it names")              \
    X(SSE_ENDPOINT_NO_QUERY, "sse-endpoint-no-query", "SSE-003", "client/sse-endpoint",            \
      "HTTP+SSE: POST to the endpoint event's URI without its query string (the session)")         \
    X(FALLBACK_NO_QUERY, "fallback-no-query", "HTTP-046", "client/http-sse-fallback",              \
      "HTTP: falling back to HTTP+SSE (initialize refused with 4xx), POST to the endpoint "        \
      "event's URI without its query string")                                                      \
    X(NO_MESSAGES_INTERNAL, "no-messages-internal", "RPC-ERR-006",                                 \
      "client/sampling-invalid-params",                                                            \
      "refuse a sampling/createMessage without messages with -32603, not -32602")                  \
    X(SAMPLING_TOOLS_ANSWERED, "sampling-tools-answered", "SAMP-009", "client/sampling-tools",     \
      "answer a sampling/createMessage carrying tools with text, though it declared no "           \
      "sampling.tools")                                                                            \
    X(TOOL_USE_NO_INPUT, "tool-use-no-input", "SAMP-014", "client/sampling-tools",                 \
      "with --sampling-tools, answer a sampling/createMessage carrying tools with a tool_use "     \
      "block without input")                                                                       \
    X(MIXED_RESULTS_ACCEPTED, "mixed-results-accepted", "SAMP-012",                                \
      "client/sampling-mixed-results",                                                             \
      "with --sampling-tools, answer a sampling request whose user message mixes text and a "      \
      "tool_result, instead of refusing it with -32602")                                           \
    X(TUPLE_DRAFT7, "tuple-draft7", "GEN-JSCH-001", "client/schema-2020-12-handshake",             \
      "read inputSchema as draft-07 (prefixItems unknown) in the handshake era: fill a tuple "     \
      "argument from items alone")                                                                 \
    X(NAME_HEADER_RAW, "name-header-raw", "HDR-007", "client/http-name-encoded",                   \
      "HTTP, 2026-07-28: send a tool name that is not plain ASCII in Mcp-Name as is (its UTF-8 "   \
      "bytes), not as =?base64?...?=")                                                             \
    X(HEADER_NO_RELIST, "header-no-relist", "HDR-014", "client/http-header-relist",                \
      "HTTP, 2026-07-28: a tools/call refused with -32020 (HeaderMismatch) is sent again at "      \
      "once, "                                                                                     \
      "without listing the tools again")

#define RC_FAULT_ENUM(suffix, name, reqs, check, desc) RC_FAULT_##suffix,
typedef enum rc_fault { RC_FAULT_TABLE(RC_FAULT_ENUM) RC_FAULT_COUNT } rc_fault;
#undef RC_FAULT_ENUM

/* The fault called name; false when there is none. */
bool rc_fault_lookup(const char *name, rc_fault *out);
/* One line per fault: NAME<TAB>REQUIREMENT-IDS<TAB>CHECK<TAB>description. */
void rc_fault_list(FILE *out);

#endif
