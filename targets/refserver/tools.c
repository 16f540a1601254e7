/*
 * tools.c - tools/list and tools/call: the registry (thirteen named tools,
 * item-000..item-119 so the list paginates, and an optional "extra"), the
 * JSON Schemas generated from each tool's argument rows, and the argument
 * checks, whose failure is a -32602 error up to 2025-06-18 (TOOL-007) and an
 * isError result from 2025-11-25 (TOOL-008). In 2025-11-25 it also does the
 * tool-level task negotiation (execution.taskSupport, TASK-004/006) and
 * turns a task-augmented call into a task (tasks.c).
 */
#include "tools.h"

#include "codec/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const rs_lists[] = {"tools", "resources", "prompts", NULL};

static const rs_arg echo_args[] = {
    {"text", RS_ARG_STRING, true, "Text to send back unchanged", NULL, false, 0, 0},
};
static const rs_arg add_args[] = {
    {"a", RS_ARG_NUMBER, true, "First addend", NULL, false, 0, 0},
    {"b", RS_ARG_NUMBER, true, "Second addend", NULL, false, 0, 0},
};
static const rs_arg slow_args[] = {
    {"steps", RS_ARG_INTEGER, false, "Number of steps (default 5)", NULL, true, 1, 1000},
    {"interval_ms", RS_ARG_INTEGER, false, "Pause before each step in ms (default 100)", NULL, true,
     0, 60000},
};
static const rs_arg touch_args[] = {
    {"uri", RS_ARG_STRING, true, "URI of a mem://item/NNN resource to change", NULL, false, 0, 0},
};
static const rs_arg log_args[] = {
    {"level", RS_ARG_STRING, true, "Severity of the log message", rs_level_list, false, 0, 0},
    {"message", RS_ARG_STRING, true, "Text of the log message", NULL, false, 0, 0},
};
static const rs_arg read_args[] = {
    {"path", RS_ARG_STRING, true, "Path of a text file below the server's --root directory", NULL,
     false, 0, 0},
};
static const rs_arg ask_llm_args[] = {
    {"question", RS_ARG_STRING, true, "What to ask the client's model", NULL, false, 0, 0},
};
static const rs_arg route_args[] = {
    {"region", RS_ARG_STRING, true, "Region to route to", NULL, false, 0, 0},
    {"shard", RS_ARG_INTEGER, false, "Shard within the region (default 0)", NULL, true, 0, 1023},
};
static const rs_arg toggle_args[] = {
    {"list", RS_ARG_STRING, true, "The list to add the extra entry to or remove it from", rs_lists,
     false, 0, 0},
};

#define ARGS(a) a, sizeof a / sizeof *a

/* name, title, description, args, read_only, destructive, idempotent, structured, run, tasks */
static const rs_tool rs_named_tools[] = {
    {"echo", "Echo", "Returns its text argument as text content.", ARGS(echo_args), true, false,
     true, false, rs_tool_echo, RS_TASKS_FORBIDDEN},
    {"add", "Add", "Adds two numbers; the sum is also returned as structured content.",
     ARGS(add_args), true, false, true, true, rs_tool_add, RS_TASKS_DEFAULT},
    {"slow", "Slow", "Runs for steps x interval_ms, reporting progress; cancellable.",
     ARGS(slow_args), true, false, true, false, rs_tool_slow, RS_TASKS_OPTIONAL},
    {"slow-task", "Slow task",
     "Like slow, but in 2025-11-25 it runs only as a task (execution.taskSupport required).",
     ARGS(slow_args), true, false, true, false, rs_tool_slow, RS_TASKS_REQUIRED},
    {"fail", "Fail", "Always fails with a tool execution error (isError).", NULL, 0, true, false,
     true, false, rs_tool_fail, RS_TASKS_DEFAULT},
    {"touch", "Touch", "Changes a mem://item resource, notifying its subscribers.",
     ARGS(touch_args), false, false, false, false, rs_tool_touch, RS_TASKS_DEFAULT},
    {"log", "Log", "Sends a notifications/message at the given level.", ARGS(log_args), true, false,
     false, false, rs_tool_log, RS_TASKS_DEFAULT},
    {"toggle", "Toggle", "Adds or removes the extra entry of a list, sending list_changed.",
     ARGS(toggle_args), false, false, false, false, rs_tool_toggle, RS_TASKS_DEFAULT},
    {"read", "Read file", "Returns the text of a file below the server's --root directory.",
     ARGS(read_args), true, false, true, false, rs_tool_read_file, RS_TASKS_DEFAULT},
    {"ask-llm", "Ask the model",
     "Asks the client's model (sampling/createMessage) and returns its answer.", ARGS(ask_llm_args),
     true, false, false, false, rs_tool_ask_llm, RS_TASKS_DEFAULT},
    {"ask-user", "Ask the user", "Asks the user for contact details (form elicitation).", NULL, 0,
     true, false, false, false, rs_tool_ask_user, RS_TASKS_DEFAULT},
    {"connect-account", "Connect account",
     "Sends the user to a web page to connect an account (URL elicitation, 2025-11-25).", NULL, 0,
     true, false, false, false, rs_tool_connect_account, RS_TASKS_DEFAULT},
    {"route", "Route", "Says which region and shard a request would be routed to.",
     ARGS(route_args), true, false, true, false, rs_tool_route, RS_TASKS_DEFAULT},
};
#define RS_NAMED_TOOLS (sizeof rs_named_tools / sizeof *rs_named_tools)

/* ---- registry ---- */

static size_t tool_count(const rs_server *s)
{
    return RS_NAMED_TOOLS + RS_ITEM_COUNT + (s->extra[RS_LIST_TOOLS] ? 1 : 0);
}

static void simple_tool(rs_tool *t, const char *name, const char *title)
{
    *t = (rs_tool){.title = title,
                   .description = "Returns its own name as text.",
                   .read_only = true,
                   .idempotent = true,
                   .run = rs_tool_name};
    snprintf(t->name, sizeof t->name, "%s", name);
}

static void tool_at(const rs_server *s, size_t i, rs_tool *out)
{
    if (i < RS_NAMED_TOOLS) {
        *out = rs_named_tools[i];
        return;
    }
    i -= RS_NAMED_TOOLS;
    if (i >= RS_ITEM_COUNT) {
        simple_tool(out, "extra", "Extra");
        return;
    }
    char name[16];
    bool spaced = i == 7 && rs_fault_on(s, RS_FAULT_TOOL_BAD_NAME);
    snprintf(name, sizeof name, spaced ? "item %03zu" : "item-%03zu", i);
    simple_tool(out, name, "Item");
}

/* "item-NNN" with exactly three digits below RS_ITEM_COUNT. */
static bool item_index(const char *name, size_t *index)
{
    if (strncmp(name, "item-", 5) != 0 || strlen(name) != 8)
        return false;
    size_t v = 0;
    for (int i = 5; i < 8; i++) {
        if (name[i] < '0' || name[i] > '9')
            return false;
        v = v * 10 + (size_t)(name[i] - '0');
    }
    *index = v;
    return v < RS_ITEM_COUNT;
}

static bool tool_find(const rs_server *s, const char *name, rs_tool *out)
{
    for (size_t i = 0; i < RS_NAMED_TOOLS; i++) {
        if (strcmp(rs_named_tools[i].name, name) == 0) {
            *out = rs_named_tools[i];
            return true;
        }
    }
    size_t index;
    if (item_index(name, &index)) {
        tool_at(s, RS_NAMED_TOOLS + index, out);
        return true;
    }
    if (s->extra[RS_LIST_TOOLS] && strcmp(name, "extra") == 0) {
        tool_at(s, RS_NAMED_TOOLS + RS_ITEM_COUNT, out);
        return true;
    }
    return false;
}

/* ---- schemas ---- */

static const char *type_name(rs_arg_type type)
{
    return type == RS_ARG_STRING ? "string" : type == RS_ARG_NUMBER ? "number" : "integer";
}

static cJSON *arg_schema(const rs_server *s, const rs_arg *a)
{
    cJSON *p = cJSON_CreateObject();
    bool broken = a == &echo_args[0] && rs_fault_on(s, RS_FAULT_TOOL_SCHEMA_INVALID);
    cJSON_AddStringToObject(p, "type", broken ? "str" : type_name(a->type));
    cJSON_AddStringToObject(p, "description", a->description);
    if (a->choices) {
        cJSON *e = cJSON_AddArrayToObject(p, "enum");
        for (const char *const *c = a->choices; *c; c++)
            cJSON_AddItemToArray(e, cJSON_CreateString(*c));
    }
    if (a->ranged) {
        cJSON_AddNumberToObject(p, "minimum", a->min);
        cJSON_AddNumberToObject(p, "maximum", a->max);
    }
    return p;
}

/* 2026-07-28 (x-mcp-header): the log tool's level goes into an Mcp-Param-Log-Level header over
 * HTTP, a routing hint an intermediary may read; route's region and shard (a string and an
 * integer) are what the target configuration's header_tool calls, for the checks of how the
 * HTTP front end compares such headers with the body (HDR-011, HDR-012). One tool's rows are
 * adjacent. */
static const rs_mcp_header rs_mcp_headers[] = {
    {"log", "level", "Log-Level", false},
    {"route", "region", "Region", false},
    {"route", "shard", "Shard", true},
};

const rs_mcp_header *rs_tool_mcp_headers(const char *name, size_t *n)
{
    const size_t rows = sizeof rs_mcp_headers / sizeof *rs_mcp_headers;
    size_t first = 0;
    while (first < rows && strcmp(rs_mcp_headers[first].tool, name) != 0)
        first++;
    *n = 0;
    while (first + *n < rows && strcmp(rs_mcp_headers[first + *n].tool, name) == 0)
        (*n)++;
    return *n ? &rs_mcp_headers[first] : NULL;
}

/* The annotations are valid ones, so that there are some to judge (TOOL-020). The
 * mcp-header-invalid fault names the log tool's header with a space in it, and
 * mcp-header-secret mirrors an api_key property into a header as well (TOOL-022). */
static void mcp_headers(const rs_server *s, const rs_tool *t, cJSON *props)
{
    if (s->rev != MCPS_REV_2026_07_28)
        return;
    size_t n;
    const rs_mcp_header *h = rs_tool_mcp_headers(t->name, &n);
    bool bad = rs_fault_on(s, RS_FAULT_MCP_HEADER_INVALID);
    for (size_t i = 0; i < n; i++) {
        cJSON *p = cJSON_GetObjectItemCaseSensitive(props, h[i].property);
        bool broken = bad && strcmp(h[i].header, "Log-Level") == 0;
        if (p)
            cJSON_AddStringToObject(p, "x-mcp-header", broken ? "Log Level" : h[i].header);
    }
    if (strcmp(t->name, "log") != 0 || !rs_fault_on(s, RS_FAULT_MCP_HEADER_SECRET))
        return;
    cJSON *key = cJSON_AddObjectToObject(props, "api_key");
    cJSON_AddStringToObject(key, "type", "string");
    cJSON_AddStringToObject(key, "description", "Key of the logging backend");
    cJSON_AddStringToObject(key, "x-mcp-header", "Api-Key");
}

static cJSON *input_schema(const rs_server *s, const rs_tool *t)
{
    cJSON *schema = cJSON_CreateObject();
    cJSON_AddStringToObject(schema, "type", "object");
    if (t->nargs) {
        cJSON *props = cJSON_AddObjectToObject(schema, "properties");
        cJSON *required = cJSON_CreateArray();
        for (size_t i = 0; i < t->nargs; i++) {
            cJSON_AddItemToObject(props, t->args[i].name, arg_schema(s, &t->args[i]));
            if (t->args[i].required)
                cJSON_AddItemToArray(required, cJSON_CreateString(t->args[i].name));
        }
        if (cJSON_GetArraySize(required))
            cJSON_AddItemToObject(schema, "required", required);
        else
            mcps_json_delete(required);
        mcp_headers(s, t, props);
    }
    cJSON_AddBoolToObject(schema, "additionalProperties", false);
    return schema;
}

static cJSON *output_schema(void)
{
    cJSON *schema = cJSON_CreateObject();
    cJSON_AddStringToObject(schema, "type", "object");
    cJSON *sum = cJSON_AddObjectToObject(cJSON_AddObjectToObject(schema, "properties"), "sum");
    cJSON_AddStringToObject(sum, "type", "number");
    cJSON *required = cJSON_AddArrayToObject(schema, "required");
    cJSON_AddItemToArray(required, cJSON_CreateString("sum"));
    cJSON_AddBoolToObject(schema, "additionalProperties", false);
    return schema;
}

static cJSON *annotations(const rs_server *s, const rs_tool *t)
{
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "title", t->title);
    if (rs_fault_on(s, RS_FAULT_TOOL_ANNOTATION_STRING))
        cJSON_AddStringToObject(a, "readOnlyHint", t->read_only ? "true" : "false");
    else
        cJSON_AddBoolToObject(a, "readOnlyHint", t->read_only);
    cJSON_AddBoolToObject(a, "destructiveHint", t->destructive);
    cJSON_AddBoolToObject(a, "idempotentHint", t->idempotent);
    cJSON_AddBoolToObject(a, "openWorldHint", false);
    return a;
}

static const char *task_support_name(rs_task_support support)
{
    return support == RS_TASKS_REQUIRED   ? "required"
           : support == RS_TASKS_OPTIONAL ? "optional"
                                          : "forbidden";
}

static cJSON *tool_json(const rs_server *s, const rs_tool *t)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "name", t->name);
    if (rs_rev_at_least(s, MCPS_REV_2025_06_18))
        cJSON_AddStringToObject(j, "title", t->title);
    cJSON_AddStringToObject(j, "description", t->description);
    bool echo = strcmp(t->name, "echo") == 0;
    if (!echo || !rs_fault_on(s, RS_FAULT_TOOL_NO_INPUT_SCHEMA))
        cJSON_AddItemToObject(j, "inputSchema", input_schema(s, t));
    if (t->structured && rs_rev_at_least(s, MCPS_REV_2025_06_18))
        cJSON_AddItemToObject(j, "outputSchema", output_schema());
    if (echo && rs_fault_on(s, RS_FAULT_TOOL_OUTPUT_SCHEMA_ARRAY) &&
        rs_rev_at_least(s, MCPS_REV_2025_06_18)) {
        cJSON *array = cJSON_AddObjectToObject(j, "outputSchema");
        cJSON_AddStringToObject(array, "type", "array");
    }
    if (rs_rev_at_least(s, MCPS_REV_2025_03_26))
        cJSON_AddItemToObject(j, "annotations", annotations(s, t));
    if (t->tasks != RS_TASKS_DEFAULT && rs_tasks_era(s)) {
        cJSON *execution = cJSON_AddObjectToObject(j, "execution");
        cJSON_AddStringToObject(execution, "taskSupport", task_support_name(t->tasks));
    }
    return j;
}

void rs_tools_list(rs_server *s, const rs_req *req, rs_reply *r)
{
    size_t total = tool_count(s), start;
    if (!rs_page_start(s, req, r, 't', total, &start))
        return;
    cJSON *result = cJSON_CreateObject();
    cJSON *tools = cJSON_AddArrayToObject(result, "tools");
    for (size_t i = start; i < total && i < start + rs_page_size('t'); i++) {
        rs_tool t;
        tool_at(s, i, &t);
        cJSON_AddItemToArray(tools, tool_json(s, &t));
    }
    rs_page_next(s, result, 't', start, total);
    rs_ok(r, result);
}

/* ---- arguments ---- */

static const rs_arg *find_arg(const rs_tool *t, const char *name)
{
    for (size_t i = 0; i < t->nargs; i++)
        if (strcmp(t->args[i].name, name) == 0)
            return &t->args[i];
    return NULL;
}

static bool in_choices(const char *const *choices, const char *v)
{
    for (; *choices; choices++)
        if (strcmp(*choices, v) == 0)
            return true;
    return false;
}

/* Whether v fits a (type, enum, range); the same rules the inputSchema states. */
static bool arg_fits(const rs_arg *a, const cJSON *v)
{
    if (a->type == RS_ARG_STRING)
        return cJSON_IsString(v) && (!a->choices || in_choices(a->choices, v->valuestring));
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return false;
    double d = v->valuedouble;
    if (a->type == RS_ARG_INTEGER && d != floor(d))
        return false;
    return !a->ranged || (d >= a->min && d <= a->max);
}

static bool args_valid(const rs_tool *t, const cJSON *args, char *why, size_t n)
{
    for (const cJSON *v = args ? args->child : NULL; v; v = v->next) {
        const rs_arg *a = find_arg(t, v->string);
        if (!a) {
            snprintf(why, n, "unexpected argument \"%.40s\"", v->string);
            return false;
        }
        if (!arg_fits(a, v)) {
            snprintf(why, n, "argument \"%s\" does not match its schema", a->name);
            return false;
        }
    }
    for (size_t i = 0; i < t->nargs; i++) {
        if (t->args[i].required && !cJSON_HasObjectItem(args, t->args[i].name)) {
            snprintf(why, n, "missing required argument \"%s\"", t->args[i].name);
            return false;
        }
    }
    return true;
}

double rs_arg_number(const cJSON *args, const char *name, double fallback)
{
    const cJSON *v = args ? cJSON_GetObjectItemCaseSensitive(args, name) : NULL;
    return cJSON_IsNumber(v) ? v->valuedouble : fallback;
}

cJSON *rs_tool_result(const char *text, bool is_error)
{
    cJSON *result = cJSON_CreateObject();
    cJSON *content = cJSON_AddArrayToObject(result, "content");
    cJSON_AddItemToArray(content, rs_text_content(text));
    if (is_error)
        cJSON_AddBoolToObject(result, "isError", true);
    return result;
}

static void invalid_arguments(const rs_server *s, rs_reply *r, const char *why)
{
    bool as_result = rs_rev_at_least(s, MCPS_REV_2025_11_25)
                         ? !rs_fault_on(s, RS_FAULT_INVALID_ARGS_AS_ERROR)
                         : rs_fault_on(s, RS_FAULT_INVALID_ARGS_AS_RESULT);
    if (as_result) {
        char text[200];
        snprintf(text, sizeof text, "Invalid arguments: %s", why);
        rs_ok(r, rs_tool_result(text, true));
    } else {
        rs_fail(r, RS_INVALID_PARAMS, "Invalid arguments: %s", why);
    }
}

static void log_call(rs_server *s, const char *name)
{
    cJSON *data = cJSON_CreateObject();
    cJSON_AddStringToObject(data, "event", "tools/call");
    cJSON_AddStringToObject(data, "tool", name);
    rs_log(s, RS_LOG_DEBUG, data);
}

/* Validate, then run: the reply, or r->handled when a job answers later. */
static void run_tool(rs_server *s, const rs_req *req, const rs_tool *tool, const cJSON *args,
                     rs_reply *r)
{
    char why[120];
    if (!args_valid(tool, args, why, sizeof why)) {
        invalid_arguments(s, r, why);
        return;
    }
    log_call(s, tool->name);
    tool->run(s, req, args, r);
}

/*
 * params.task: NULL for a plain call. Before 2025-11-25, or without the tasks capability, the
 * field means nothing and is ignored like any unknown member (TASK-007); otherwise it must be
 * an object.
 */
static const cJSON *task_param(const rs_server *s, const rs_req *req, rs_reply *r)
{
    if (!rs_tasks_era(s) || s->refused[RS_CAP_TASKS])
        return NULL;
    return rs_param_object(s, req->params, "task", false, r);
}

/* Tool-level negotiation (2025-11-25): -32601 both ways (TASK-004 SHOULD, TASK-006 MUST). */
static bool task_support_ok(const rs_server *s, const rs_tool *tool, bool as_task, rs_reply *r)
{
    if (!rs_tasks_era(s))
        return true;
    bool allows = tool->tasks == RS_TASKS_OPTIONAL || tool->tasks == RS_TASKS_REQUIRED;
    if (as_task && !allows && !rs_fault_on(s, RS_FAULT_TASK_FORBIDDEN_ACCEPTED)) {
        rs_fail(r, RS_METHOD_NOT_FOUND, "Tool %.64s does not support task-augmented calls",
                tool->name);
        return false;
    }
    if (!as_task && tool->tasks == RS_TASKS_REQUIRED &&
        !rs_fault_on(s, RS_FAULT_TASK_REQUIRED_PLAIN_ACCEPTED)) {
        rs_fail(r, RS_METHOD_NOT_FOUND, "Tool %.64s must be called as a task (params.task)",
                tool->name);
        return false;
    }
    return true;
}

/*
 * A task-augmented call: the CreateTaskResult answers the request at once (TASK-009), then the
 * tool runs for the task. A job (slow) finishes the task later; any other tool (only with the
 * task-forbidden-accepted fault, or invalid arguments) has its outcome already.
 */
static void call_as_task(rs_server *s, const rs_req *req, const rs_tool *tool, const cJSON *args,
                         const cJSON *task, rs_reply *r)
{
    const char *task_id = rs_task_create(s, task, r);
    if (!task_id)
        return;
    rs_reply created = {0};
    rs_ok(&created, rs_task_created_result(s, task_id));
    rs_answer(s, req->id, req->batch, &created);
    r->handled = true;
    rs_req as_task = *req;
    as_task.task_id = task_id;
    rs_reply outcome = {0};
    run_tool(s, &as_task, tool, args, &outcome);
    if (outcome.handled)
        rs_reply_free(&outcome);
    else
        rs_task_finish(s, task_id, &outcome);
}

void rs_tools_call(rs_server *s, const rs_req *req, rs_reply *r)
{
    if (rs_fault_on(s, RS_FAULT_CALL_BAD_PARAMS_AS_RESULT) &&
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(req->params, "name"))) {
        rs_ok(r, rs_tool_result("Which tool? The call names none.", true));
        return;
    }
    const char *name = rs_param_string(s, req->params, "name", true, r);
    const cJSON *args = rs_param_object(s, req->params, "arguments", false, r);
    const cJSON *task = task_param(s, req, r);
    if (r->code)
        return;
    rs_tool tool;
    if (!tool_find(s, name, &tool) && rs_fault_on(s, RS_FAULT_UNKNOWN_TOOL_RESULT)) {
        rs_ok(r, rs_tool_result("No such tool.", true));
        return;
    }
    if (!tool_find(s, name, &tool)) {
        rs_fail(r, RS_INVALID_PARAMS, "Unknown tool: %.64s", name);
        return;
    }
    if (!task_support_ok(s, &tool, task != NULL, r))
        return;
    if (task)
        call_as_task(s, req, &tool, args, task, r);
    else
        run_tool(s, req, &tool, args, r);
}
