/*
 * tools_basic.c - the tools that answer at once: echo, add (structured
 * content from 2025-06-18), fail, touch, log, toggle, route, and the item-NNN ones.
 * Arguments arrive already checked against the tool's rs_arg rows.
 */
#include "tools.h"

#include "codec/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *arg_string(const cJSON *args, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(args, name)->valuestring;
}

void rs_tool_echo(rs_server *s, const rs_req *req, const cJSON *args, rs_reply *r)
{
    (void)s;
    (void)req;
    rs_ok(r, rs_tool_result(arg_string(args, "text"), false));
}

/* An embedded resource block (the tool-embeds-undeclared fault). */
static cJSON *embedded_readme(const rs_server *s)
{
    cJSON *block = cJSON_CreateObject();
    cJSON_AddStringToObject(block, "type", "resource");
    cJSON_AddItemToObject(block, "resource", rs_mem_contents(s, "mem://readme"));
    return block;
}

/* The text block of add: the structured content as JSON text (TOOL-014), or prose (fault). */
static cJSON *sum_result(const rs_server *s, const cJSON *structured, double sum)
{
    char prose[64];
    snprintf(prose, sizeof prose, "The sum is %g.", sum);
    char *json = mcps_json_print(structured, NULL);
    bool plain =
        rs_fault_on(s, RS_FAULT_STRUCTURED_NO_TEXT) && rs_rev_at_least(s, MCPS_REV_2025_06_18);
    cJSON *result = rs_tool_result(plain ? prose : json ? json : "", false);
    free(json);
    if (rs_fault_on(s, RS_FAULT_TOOL_CONTENT_BAD_TYPE))
        cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(result, "content"), 0),
                                  "type", cJSON_CreateString("txt"));
    if (rs_fault_on(s, RS_FAULT_TOOL_EMBEDS_UNDECLARED))
        cJSON_AddItemToArray(cJSON_GetObjectItem(result, "content"), embedded_readme(s));
    return result;
}

/* structuredContent plus the same JSON as text (TOOL-012, TOOL-014). */
void rs_tool_add(rs_server *s, const rs_req *req, const cJSON *args, rs_reply *r)
{
    (void)req;
    double sum = rs_arg_number(args, "a", 0) + rs_arg_number(args, "b", 0);
    if (!isfinite(sum)) {
        rs_ok(r, rs_tool_result("The sum is too large to represent.", true));
        return;
    }
    cJSON *structured = cJSON_CreateObject();
    if (rs_fault_on(s, RS_FAULT_STRUCTURED_MISMATCH)) {
        char text[40];
        snprintf(text, sizeof text, "%g", sum);
        cJSON_AddStringToObject(structured, "sum", text);
    } else {
        cJSON_AddNumberToObject(structured, "sum", sum);
    }
    cJSON *result = sum_result(s, structured, sum);
    if (rs_rev_at_least(s, MCPS_REV_2025_06_18))
        cJSON_AddItemToObject(result, "structuredContent", structured);
    else
        mcps_json_delete(structured);
    rs_ok(r, result);
}

/* The read tool: a text file below --root; anything else is a tool error (TOOL-010). */
void rs_tool_read_file(rs_server *s, const rs_req *req, const cJSON *args, rs_reply *r)
{
    (void)req;
    char *path = rs_tool_path(s, arg_string(args, "path"));
    char *text = path ? rs_tool_read(path) : NULL;
    if (text)
        rs_ok(r, rs_tool_result(text, false));
    else
        rs_ok(r, rs_tool_result("No readable text file at that path below the root.", true));
    free(text);
    free(path);
}

void rs_tool_fail(rs_server *s, const rs_req *req, const cJSON *args, rs_reply *r)
{
    (void)req;
    (void)args;
    if (rs_fault_on(s, RS_FAULT_TOOL_FAILURE_AS_ERROR))
        rs_fail(r, RS_INTERNAL_ERROR, "The fail tool failed");
    else
        rs_ok(r, rs_tool_result("The fail tool always fails.", true));
}

void rs_tool_touch(rs_server *s, const rs_req *req, const cJSON *args, rs_reply *r)
{
    (void)req;
    const char *uri = arg_string(args, "uri");
    char text[160];
    bool ok = rs_resource_touch(s, uri);
    snprintf(text, sizeof text, ok ? "Touched %.100s" : "No mem://item resource %.100s", uri);
    rs_ok(r, rs_tool_result(text, !ok));
}

void rs_tool_log(rs_server *s, const rs_req *req, const cJSON *args, rs_reply *r)
{
    (void)req;
    rs_level level = RS_LOG_INFO;
    rs_level_parse(arg_string(args, "level"), &level);
    rs_log(s, level, cJSON_CreateString(arg_string(args, "message")));
    char text[64];
    snprintf(text, sizeof text, "Logged at level %s.", rs_level_name(level));
    rs_ok(r, rs_tool_result(text, false));
}

void rs_tool_toggle(rs_server *s, const rs_req *req, const cJSON *args, rs_reply *r)
{
    (void)req;
    static const char *const lists[RS_LIST_COUNT] = {"tools", "resources", "prompts"};
    const char *name = arg_string(args, "list");
    size_t i = 0;
    while (i + 1 < RS_LIST_COUNT && strcmp(lists[i], name) != 0)
        i++;
    s->extra[i] = !s->extra[i];
    char method[64], text[64];
    snprintf(method, sizeof method, "notifications/%s/list_changed", lists[i]);
    if (!rs_fault_on(s, RS_FAULT_TOGGLE_SILENT))
        rs_notify(s, method, NULL);
    snprintf(text, sizeof text, "The extra %s entry was %s.", lists[i],
             s->extra[i] ? "added" : "removed");
    rs_ok(r, rs_tool_result(text, false));
}

/* item-NNN and extra: answer with the tool's own name. */
void rs_tool_name(rs_server *s, const rs_req *req, const cJSON *args, rs_reply *r)
{
    (void)s;
    (void)args;
    rs_ok(r, rs_tool_result(cJSON_GetObjectItemCaseSensitive(req->params, "name")->valuestring,
                            false));
}

/* route: where a request would go. Its arguments are x-mcp-header ones in 2026-07-28, so over
 * HTTP the front end has checked their Mcp-Param headers before the call gets here. */
void rs_tool_route(rs_server *s, const rs_req *req, const cJSON *args, rs_reply *r)
{
    (void)s;
    (void)req;
    char text[160];
    snprintf(text, sizeof text, "Routed to region %.100s, shard %.0f.", arg_string(args, "region"),
             rs_arg_number(args, "shard", 0));
    rs_ok(r, rs_tool_result(text, false));
}
