/*
 * faults_content.h - refserver faults: resources, prompts, completion, pagination.
 * One X(ENUM_SUFFIX, "name", "REQUIREMENT-IDS", "one-line description") per fault;
 * faults.h joins the areas into one table.
 */
#ifndef RS_FAULTS_CONTENT_H
#define RS_FAULTS_CONTENT_H

#define RS_FAULTS_CONTENT(X)                                                                       \
    X(CURSOR_NUMBER, "cursor-number", "PAGE-002",                                                  \
      "give every list's nextCursor as a number instead of a string")                              \
    X(CURSOR_UNCHECKED, "cursor-unchecked", "PAGE-006",                                            \
      "answer a cursor the server never issued with the first page instead of -32602")             \
    X(CURSOR_LOOP, "cursor-loop", "PAGE-005",                                                      \
      "end every list's last page with a cursor back to the first, so walks never end")            \
    X(LATE_PAGE_BAD_ITEMS, "late-page-bad-items", "TOOL-001 RES-001 RES-006 PROMPT-001 TOOL-002",  \
      "on every page but the first, leave inputSchema out of the first tool, name out of the "     \
      "first resource, template and prompt")                                                       \
    X(RESOURCE_NO_NAME, "resource-no-name", "RES-001", "leave name out of resources/list entries") \
    X(TEMPLATE_INVALID, "template-invalid", "RES-006 RES-011",                                     \
      "list the uriTemplate mem://item/{id (an unclosed expression)")                              \
    X(RESOURCE_PRIORITY_RANGE, "resource-priority-range", "RES-013",                               \
      "annotate mem://readme with priority 1.5, outside [0, 1]")                                   \
    X(RESOURCE_TEXT_AND_BLOB, "resource-text-and-blob", "RES-002",                                 \
      "read mem://readme with both text and blob in its contents")                                 \
    X(RESOURCE_NOT_FOUND_WRONG_CODE, "resource-not-found-wrong-code", "RES-004",                   \
      "answer reads of unknown resources with -32603 instead of -32002")                           \
    X(RESOURCE_INTERNAL_AS_NOT_FOUND, "resource-internal-as-not-found", "RES-005",                 \
      "answer a read that fails inside the server (mem://broken) with -32002, not -32603")         \
    X(SUBSCRIBE_EXTRA_RESULT, "subscribe-extra-result", "RES-007",                                 \
      "answer resources/subscribe and unsubscribe with {\"subscribed\": true}, not an empty "      \
      "result")                                                                                    \
    X(RESOURCE_TRAVERSAL, "resource-traversal", "RES-010 RES-017",                                 \
      "resolve file:// URIs without confining them to --root (\"..\" climbs out)")                 \
    X(UPDATE_UNSUBSCRIBED, "update-unsubscribed", "RES-008",                                       \
      "on resources/subscribe also send resources/updated for a URI nobody subscribed to")         \
    X(TOOL_EMBEDS_UNDECLARED, "tool-embeds-undeclared", "TOOL-017",                                \
      "declare no resources capability, yet embed a resource in the add tool's result")            \
    X(PROMPT_REQUIRED_STRING, "prompt-required-string", "PROMPT-001",                              \
      "list prompt arguments with required \"yes\" instead of a boolean")                          \
    X(PROMPT_SYSTEM_ROLE, "prompt-system-role", "PROMPT-002",                                      \
      "give the greet prompt's message the role \"system\"")                                       \
    X(PROMPT_UNKNOWN_RESULT, "prompt-unknown-result", "PROMPT-005",                                \
      "answer prompts/get of an unknown prompt with an empty result instead of -32602")            \
    X(PROMPT_MISSING_ARGS_ACCEPTED, "prompt-missing-args-accepted", "PROMPT-005",                  \
      "answer prompts/get without a required argument with a result instead of -32602")            \
    X(PROMPT_READS_FILES, "prompt-reads-files", "PROMPT-007",                                      \
      "greet a name that is a file path with that file's contents (reads outside the root)")       \
    X(COMPLETION_TOO_MANY, "completion-too-many", "COMP-002",                                      \
      "return up to 150 completion values instead of at most 100")                                 \
    X(COMPLETION_UNKNOWN_PROMPT_OK, "completion-unknown-prompt-ok", "COMP-004",                    \
      "complete arguments of unknown prompts with no values instead of -32602")                    \
    X(COMPLETION_READS_FILES, "completion-reads-files", "COMP-005",                                \
      "complete a value that names a file path with that file's first line")                       \
    X(READ_NO_URI_NOT_FOUND, "read-no-uri-not-found", "RPC-ERR-006",                               \
      "answer resources/read without a string uri with -32002 (not found) instead of -32602")

#endif
