/*
 * tools.h - the tool registry shared by tools.c (list, call, argument
 * checks, schemas) and the files that implement tools.
 *
 * A tool's arguments are described once, as rs_arg rows; tools/list turns
 * them into the JSON Schema (2020-12) inputSchema and tools/call validates
 * against the same rows, so the two cannot drift apart.
 */
#ifndef RS_TOOLS_H
#define RS_TOOLS_H

#include "server.h"

typedef enum rs_arg_type { RS_ARG_STRING, RS_ARG_NUMBER, RS_ARG_INTEGER } rs_arg_type;

typedef struct rs_arg {
    const char *name;
    rs_arg_type type;
    bool required;
    const char *description;
    const char *const *choices; /* strings: NULL-terminated enum, or NULL */
    bool ranged;                /* numbers: min/max apply */
    double min, max;
} rs_arg;

/* Tool.execution.taskSupport (2025-11-25). DEFAULT sends no execution member, which means
 * forbidden; FORBIDDEN says so explicitly. */
typedef enum rs_task_support {
    RS_TASKS_DEFAULT,
    RS_TASKS_FORBIDDEN,
    RS_TASKS_OPTIONAL,
    RS_TASKS_REQUIRED
} rs_task_support;

typedef void rs_tool_fn(rs_server *s, const rs_req *req, const cJSON *args, rs_reply *r);

typedef struct rs_tool {
    char name[32];
    const char *title;
    const char *description;
    const rs_arg *args;
    size_t nargs;
    bool read_only, destructive, idempotent;
    bool structured; /* declares an outputSchema (2025-06-18+) */
    rs_tool_fn *run;
    rs_task_support tasks;
} rs_tool;

/* tools_basic.c */
rs_tool_fn rs_tool_echo, rs_tool_add, rs_tool_fail, rs_tool_touch, rs_tool_log, rs_tool_toggle,
    rs_tool_name, rs_tool_route;
/* jobs.c */
rs_tool_fn rs_tool_slow;
/* client.c: tools that ask the client (sampling, elicitation) */
rs_tool_fn rs_tool_ask_llm, rs_tool_ask_user, rs_tool_connect_account;
/* tools_basic.c */
rs_tool_fn rs_tool_read_file;

/* 2026-07-28 (x-mcp-header): an argument an HTTP client mirrors into Mcp-Param-{header}. */
typedef struct rs_mcp_header {
    const char *tool, *property, *header;
    bool integer; /* compared with the body by value (HDR-012) */
} rs_mcp_header;

/* The x-mcp-header annotations of the tool called name: *n rows (none: NULL and 0). The HTTP
 * front end checks the Mcp-Param headers of a call against the same rows tools/list states. */
const rs_mcp_header *rs_tool_mcp_headers(const char *name, size_t *n);

/* A CallToolResult with one text block. */
cJSON *rs_tool_result(const char *text, bool is_error);
/* An integer argument, or fallback when absent (already validated). */
double rs_arg_number(const cJSON *args, const char *name, double fallback);

#endif
