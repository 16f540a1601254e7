/*
 * faults_tools.h - refserver faults: tools, sampling, elicitation, progress, cancellation.
 * One X(ENUM_SUFFIX, "name", "REQUIREMENT-IDS", "one-line description") per fault;
 * faults.h joins the areas into one table.
 */
#ifndef RS_FAULTS_TOOLS_H
#define RS_FAULTS_TOOLS_H

#define RS_FAULTS_TOOLS(X)                                                                         \
    X(CALL_BAD_PARAMS_AS_RESULT, "call-bad-params-as-result", "RPC-ERR-006",                       \
      "answer tools/call without a string name with an isError result instead of -32602")          \
    X(TOOL_NO_INPUT_SCHEMA, "tool-no-input-schema", "TOOL-001",                                    \
      "leave inputSchema out of the echo tool in tools/list")                                      \
    X(TOOL_ANNOTATION_STRING, "tool-annotation-string", "TOOL-011",                                \
      "give readOnlyHint as the string \"true\" instead of a boolean")                             \
    X(TOOL_SCHEMA_INVALID, "tool-schema-invalid", "TOOL-002 GEN-JSCH-001",                         \
      "give echo's text property the type \"str\", which JSON Schema has not")                     \
    X(TOOL_OUTPUT_SCHEMA_ARRAY, "tool-output-schema-array", "TOOL-015",                            \
      "give the echo tool an outputSchema whose root type is array")                               \
    X(TOOL_BAD_NAME, "tool-bad-name", "TOOL-003",                                                  \
      "list item-007 as \"item 007\" (a space is not allowed in tool names)")                      \
    X(TOOL_CONTENT_BAD_TYPE, "tool-content-bad-type", "TOOL-005",                                  \
      "answer the add tool with a content block of type \"txt\"")                                  \
    X(STRUCTURED_MISMATCH, "structured-mismatch", "TOOL-012",                                      \
      "give add's structuredContent sum as a string, against its outputSchema")                    \
    X(STRUCTURED_NO_TEXT, "structured-no-text", "TOOL-014",                                        \
      "give add's result as prose only, not the structuredContent as JSON text")                   \
    X(UNKNOWN_TOOL_RESULT, "unknown-tool-result", "TOOL-007",                                      \
      "answer calls of unknown tools with an isError result instead of -32602")                    \
    X(INVALID_ARGS_AS_RESULT, "invalid-args-as-result", "TOOL-007",                                \
      "before 2025-11-25 answer invalid arguments with an isError result, not -32602")             \
    X(INVALID_ARGS_AS_ERROR, "invalid-args-as-error", "TOOL-008",                                  \
      "in 2025-11-25 answer invalid arguments with -32602, not an isError result")                 \
    X(TOOL_FAILURE_AS_ERROR, "tool-failure-as-error", "TOOL-006",                                  \
      "answer the fail tool with a -32603 error instead of an isError result")                     \
    X(TOGGLE_SILENT, "toggle-silent", "TOOL-009 RES-009 PROMPT-006",                               \
      "change a list with the toggle tool without sending list_changed")                           \
    X(TOOL_TRAVERSAL, "tool-traversal", "TOOL-010",                                                \
      "let the read tool open any path, inside --root or not")                                     \
    X(PROGRESS_NOT_INCREASING, "progress-not-increasing", "PROG-004",                              \
      "send every progress value of the slow tool twice")                                          \
    X(PROGRESS_EMPTY_MESSAGE, "progress-empty-message", "PROG-009",                                \
      "send progress with an empty message")                                                       \
    X(PROGRESS_AFTER_RESPONSE, "progress-after-response", "PROG-007",                              \
      "send one more progress notification after the slow tool's response")                        \
    X(CANCEL_IGNORED, "cancel-ignored", "CANC-003",                                                \
      "ignore notifications/cancelled: a cancelled slow call still answers")                       \
    X(CANCEL_UNKNOWN_ANSWERED, "cancel-unknown-answered", "CANC-007 CANC-006",                     \
      "answer a cancellation of an unknown or finished request with an error response")            \
    X(CANCEL_MALFORMED_ANSWERED, "cancel-malformed-answered", "CANC-007",                          \
      "answer a malformed cancellation (no valid requestId) with an error response")               \
    X(SAMPLING_NO_MAX_TOKENS, "sampling-no-max-tokens", "SAMP-001",                                \
      "leave maxTokens out of sampling/createMessage")                                             \
    X(SAMPLING_AUDIO_EARLY, "sampling-audio-early", "SAMP-003",                                    \
      "add an audio block to the sampling messages in 2024-11-05, which has no audio")             \
    X(SAMPLING_PRIORITY_RANGE, "sampling-priority-range", "SAMP-004",                              \
      "send modelPreferences.costPriority 1.5, outside [0, 1]")                                    \
    X(SAMPLING_BAD_TOOL_CHOICE, "sampling-bad-tool-choice", "SAMP-014",                            \
      "send toolChoice mode \"always\" (not auto, required or none)")                              \
    X(SAMPLING_NEVER_GIVES_UP, "sampling-never-gives-up", "LIFE-TIME-001 LIFE-TIME-002",           \
      "wait forever for an unanswered sampling request: no timeout, no cancellation")              \
    X(SAMPLING_TOOLS_UNDECLARED, "sampling-tools-undeclared", "SAMP-008",                          \
      "send tools and toolChoice in sampling requests though the client has no sampling.tools")    \
    X(SERVER_REQUEST_BAD_TOKEN, "server-request-bad-token", "PROG-001",                            \
      "put the progress token 1.5 (neither string nor integer) in sampling requests")              \
    X(ELICIT_NO_MESSAGE, "elicit-no-message", "ELIC-001",                                          \
      "leave message out of elicitation/create")                                                   \
    X(ELICIT_NESTED, "elicit-nested", "ELIC-002",                                                  \
      "ask with a requestedSchema property that is a nested object")                               \
    X(ELICIT_ASKS_PASSWORD, "elicit-asks-password", "ELIC-004 ELIC-005",                           \
      "ask for a password in a form elicitation")                                                  \
    X(ELICIT_TRUSTS_ANSWER, "elicit-trusts-answer", "ELIC-018",                                    \
      "use accepted content without validating it against the requestedSchema")                    \
    X(URL_ELICIT_TOKEN, "url-elicit-token", "ELIC-015",                                            \
      "put an access token in the URL of a URL-mode elicitation")                                  \
    X(URL_ELICIT_HTTP, "url-elicit-http", "ELIC-016",                                              \
      "give a URL-mode elicitation a plain http:// URL")                                           \
    X(URL_ELICIT_BARE_ERROR, "url-elicit-bare-error", "ELIC-014 ELIC-013",                         \
      "answer connect-account with -32042 without data.elicitations")                              \
    X(REQUEST_BEFORE_INITIALIZED, "request-before-initialized", "LIFE-INIT-006",                   \
      "send roots/list right after the initialize response, before notifications/initialized")     \
    X(MCP_HEADER_INVALID, "mcp-header-invalid", "TOOL-020",                                        \
      "2026-07-28: annotate the log tool's level with x-mcp-header \"Log Level\" (not a token)")   \
    X(MCP_HEADER_SECRET, "mcp-header-secret", "TOOL-022",                                          \
      "2026-07-28: give the log tool an api_key property mirrored into a header by x-mcp-header")

#endif
