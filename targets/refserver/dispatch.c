/*
 * dispatch.c - from one input line to handlers: JSON parse errors, request
 * validation (JSON-RPC 2.0 §4, §5.1, MCP RPC-* rows), batches (2025-03-26
 * only, JSON-RPC 2.0 §6), the initialize gate, and the method tables.
 */
#include "server.h"

#include "codec/json.h"
#include "codec/rpc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void rs_listener(rs_server *s, const rs_req *req);

typedef struct rs_method {
    const char *name;
    rs_handler *handle;
    mcps_rev since; /* the first revision that has it */
} rs_method;

typedef struct rs_notification {
    const char *name;
    rs_listener *handle;
} rs_notification;

static const rs_method rs_methods[] = {
    {"initialize", rs_initialize, MCPS_REV_2024_11_05},
    {"ping", rs_ping, MCPS_REV_2024_11_05},
    {"tools/list", rs_tools_list, MCPS_REV_2024_11_05},
    {"tools/call", rs_tools_call, MCPS_REV_2024_11_05},
    {"resources/list", rs_resources_list, MCPS_REV_2024_11_05},
    {"resources/read", rs_resources_read, MCPS_REV_2024_11_05},
    {"resources/templates/list", rs_resources_templates, MCPS_REV_2024_11_05},
    {"resources/subscribe", rs_resources_subscribe, MCPS_REV_2024_11_05},
    {"resources/unsubscribe", rs_resources_unsubscribe, MCPS_REV_2024_11_05},
    {"prompts/list", rs_prompts_list, MCPS_REV_2024_11_05},
    {"prompts/get", rs_prompts_get, MCPS_REV_2024_11_05},
    {"logging/setLevel", rs_logging_set_level, MCPS_REV_2024_11_05},
    {"completion/complete", rs_complete, MCPS_REV_2024_11_05},
    {"tasks/get", rs_tasks_get, MCPS_REV_2025_11_25},
    {"tasks/result", rs_tasks_result, MCPS_REV_2025_11_25},
    {"tasks/list", rs_tasks_list, MCPS_REV_2025_11_25},
    {"tasks/cancel", rs_tasks_cancel, MCPS_REV_2025_11_25},
};

static const rs_notification rs_notifications[] = {
    {"notifications/initialized", rs_on_initialized},
    {"notifications/cancelled", rs_on_cancelled},
};

/* A method of a later revision than the negotiated one is unknown (LIFE-OP-002), and so is one
 * of a capability taken away with --without; methods of every revision are found before
 * initialize too, for the gate to answer. */
static rs_handler *find_method(const rs_server *s, const char *name)
{
    rs_cap cap = rs_cap_of(name);
    if (cap != RS_CAP_COUNT && s->refused[cap])
        return NULL;
    for (size_t i = 0; i < sizeof rs_methods / sizeof *rs_methods; i++) {
        const rs_method *m = &rs_methods[i];
        if (strcmp(m->name, name) == 0)
            return m->since <= MCPS_REV_2024_11_05 || rs_rev_at_least(s, m->since) ? m->handle
                                                                                   : NULL;
    }
    return NULL;
}

static rs_listener *find_notification(const char *name)
{
    for (size_t i = 0; i < sizeof rs_notifications / sizeof *rs_notifications; i++)
        if (strcmp(rs_notifications[i].name, name) == 0)
            return rs_notifications[i].handle;
    return NULL;
}

/* ---- requests and notifications ---- */

static void handle_notification(rs_server *s, const rs_req *req)
{
    rs_listener *listen = find_notification(req->method);
    if (listen)
        listen(s, req);
    else
        rs_debug(s, "ignoring notification %s", req->method);
    if (rs_fault_on(s, RS_FAULT_RESPOND_TO_NOTIFICATIONS))
        rs_answer_error(s, NULL, req->batch, RS_INVALID_REQUEST, "Notification received");
}

/* Before initialize only initialize and ping are served (catalog conflict 8). */
static bool gate_uninitialized(rs_server *s, const rs_req *req)
{
    if (s->initialized || rs_streq(req->method, "initialize") || rs_streq(req->method, "ping"))
        return false;
    if (!rs_fault_on(s, RS_FAULT_IGNORE_BEFORE_INIT))
        rs_answer_error(s, req->id, req->batch, RS_INVALID_REQUEST, "Server not initialized");
    return true;
}

static void handle_request(rs_server *s, const rs_req *req)
{
    if (rs_stateless_request(s, req, find_method))
        return;
    if (gate_uninitialized(s, req))
        return;
    if (req->batch && rs_streq(req->method, "initialize")) {
        rs_answer_error(s, req->id, req->batch, RS_INVALID_REQUEST,
                        "initialize must not be part of a batch");
        return;
    }
    rs_handler *handle = find_method(s, req->method);
    if (!handle) {
        int code = rs_fault_on(s, RS_FAULT_UNKNOWN_METHOD_WRONG_CODE) ? RS_INTERNAL_ERROR
                                                                      : RS_METHOD_NOT_FOUND;
        if (!rs_fault_on(s, RS_FAULT_UNKNOWN_METHOD_SILENT))
            rs_answer_error(s, rs_fault_on(s, RS_FAULT_UNKNOWN_METHOD_NULL_ID) ? NULL : req->id,
                            req->batch, code, "Method not found");
        return;
    }
    rs_reply r = {0};
    rs_fuzz_before(s, req);
    handle(s, req, &r);
    rs_fuzz_after(s, req, &r);
    if (r.code && !r.handled && rs_fault_on(s, RS_FAULT_DROP_ERROR_ANSWERS))
        r.handled = true; /* rs_answer then frees the reply and sends nothing */
    rs_answer(s, req->id, req->batch, &r);
}

/* ---- validation of one message object ---- */

static bool jsonrpc_ok(const rs_server *s, const cJSON *msg)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
    return (cJSON_IsString(v) && strcmp(v->valuestring, "2.0") == 0) ||
           rs_fault_on(s, RS_FAULT_INVALID_REQUEST_AS_RESULT);
}

/* Why msg is not a valid request or notification; NULL when it is. */
static const char *invalid_reason(const rs_server *s, const cJSON *msg)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    if (!jsonrpc_ok(s, msg))
        return "Invalid Request: \"jsonrpc\" must be \"2.0\"";
    if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(msg, "method")))
        return "Invalid Request: \"method\" must be a string";
    if (cJSON_IsNull(id) && !rs_fault_on(s, RS_FAULT_ID_NULL_ACCEPTED))
        return "Invalid Request: \"id\" must not be null";
    if (id && !cJSON_IsNull(id) && !mcps_rpc_id_valid(id))
        return "Invalid Request: \"id\" must be a string or an integer";
    if (params && !cJSON_IsObject(params) && !rs_fault_on(s, RS_FAULT_PARAMS_ARRAY_ACCEPTED))
        return "Invalid Request: \"params\" must be an object";
    if (cJSON_HasObjectItem(msg, "result") || cJSON_HasObjectItem(msg, "error"))
        return "Invalid Request: a request carries no \"result\" or \"error\"";
    return NULL;
}

static bool is_response(const cJSON *msg)
{
    return !cJSON_HasObjectItem(msg, "method") &&
           (cJSON_HasObjectItem(msg, "result") || cJSON_HasObjectItem(msg, "error"));
}

static void handle_object(rs_server *s, const cJSON *msg, rs_batch *batch)
{
    if (is_response(msg)) {
        rs_on_response(s, msg);
        return;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const char *why = invalid_reason(s, msg);
    if (why && rs_fault_on(s, RS_FAULT_DROP_INVALID_REQUESTS))
        return;
    if (why) {
        int code = rs_fault_on(s, RS_FAULT_INVALID_REQUEST_WRONG_CODE) ? RS_INTERNAL_ERROR
                                                                       : RS_INVALID_REQUEST;
        rs_answer_error(s, mcps_rpc_id_valid(id) ? id : NULL, batch, code, why);
        return;
    }
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    rs_req req = {
        .method = cJSON_GetObjectItemCaseSensitive(msg, "method")->valuestring,
        .id = id,
        .params = cJSON_IsObject(params) ? params : NULL, /* params-array-accepted */
        .batch = batch,
    };
    if (id)
        handle_request(s, &req);
    else
        handle_notification(s, &req);
}

/* ---- batches ---- */

static bool batches_allowed(const rs_server *s)
{
    if (rs_fault_on(s, RS_FAULT_BATCH_ALWAYS))
        return true;
    return s->initialized && s->rev == MCPS_REV_2025_03_26 && !rs_fault_on(s, RS_FAULT_NO_BATCH);
}

static void handle_batch(rs_server *s, const cJSON *array)
{
    if (!batches_allowed(s)) {
        rs_answer_error(s, NULL, NULL, RS_INVALID_REQUEST,
                        "Invalid Request: batches are not supported in this protocol revision");
        return;
    }
    if (!array->child) {
        if (rs_fault_on(s, RS_FAULT_EMPTY_BATCH_ARRAY_RESPONSE))
            rs_write_response(s, cJSON_CreateArray());
        else
            rs_answer_error(s, NULL, NULL, RS_INVALID_REQUEST, "Invalid Request: empty batch");
        return;
    }
    rs_batch *batch = rs_fault_on(s, RS_FAULT_BATCH_SEPARATE_RESPONSES) ? NULL : rs_batch_new();
    if (!batch && !rs_fault_on(s, RS_FAULT_BATCH_SEPARATE_RESPONSES)) {
        rs_answer_error(s, NULL, NULL, RS_INTERNAL_ERROR, "Out of memory");
        return;
    }
    for (const cJSON *item = array->child; item; item = item->next) {
        if (cJSON_IsObject(item))
            handle_object(s, item, batch);
        else
            rs_answer_error(s, NULL, batch, RS_INVALID_REQUEST,
                            "Invalid Request: a batch element must be an object");
    }
    if (batch)
        rs_batch_release(s, batch);
}

/* ---- lines ---- */

static void parse_error(rs_server *s, const char *message)
{
    if (rs_fault_on(s, RS_FAULT_DIE_ON_MALFORMED))
        _exit(1); /* like a crash: no answer, no clean-up */
    if (rs_fault_on(s, RS_FAULT_DROP_MALFORMED))
        return;
    int code = rs_fault_on(s, RS_FAULT_PARSE_ERROR_WRONG_CODE) ? RS_INTERNAL_ERROR : RS_PARSE_ERROR;
    rs_answer_error(s, NULL, NULL, code, message);
}

static bool blank(const char *line, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
            return false;
    return true;
}

/* What a careless parser chokes on, measured over a line read as JSON would be. */
typedef struct rs_line_shape {
    size_t depth;   /* deepest nesting of arrays and objects */
    size_t string;  /* longest string, in bytes */
    size_t digits;  /* longest run of digits outside strings */
    size_t members; /* name-value separators outside strings, in all objects */
} rs_line_shape;

static void measure_line(const char *line, size_t len, rs_line_shape *m)
{
    size_t depth = 0, run = 0;
    bool in_string = false;
    *m = (rs_line_shape){0};
    for (size_t i = 0; i < len; i++) {
        char c = line[i];
        if (in_string) {
            i += c == '\\';
            in_string = c != '"';
            if (in_string && ++run > m->string)
                m->string = run;
            continue;
        }
        run = c >= '0' && c <= '9' ? run + 1 : 0;
        if (run > m->digits)
            m->digits = run;
        if (c == '"') {
            in_string = true;
            run = 0;
        } else if (c == '[' || c == '{') {
            if (++depth > m->depth)
                m->depth = depth;
        } else if ((c == ']' || c == '}') && depth) {
            depth--;
        } else if (c == ':') {
            m->members++;
        }
    }
}

static void stuck_for_good(void)
{
    for (;;)
        pause(); /* stdin unread, nothing answered; a signal ends it */
}

/* The crash-... and hang-... faults of robustness: a careless parser meets a probe. */
static void careless_parser(const rs_server *s, const char *line, size_t len)
{
    if (!rs_fault_on(s, RS_FAULT_CRASH_DEEP_NESTING) &&
        !rs_fault_on(s, RS_FAULT_HANG_LONG_STRING) && !rs_fault_on(s, RS_FAULT_CRASH_HUGE_NUMBER) &&
        !rs_fault_on(s, RS_FAULT_HANG_MANY_MEMBERS))
        return;
    rs_line_shape m;
    measure_line(line, len, &m);
    /* An exit without an answer or clean-up, as a process whose stack or heap ran out. */
    if ((m.depth >= 64 && rs_fault_on(s, RS_FAULT_CRASH_DEEP_NESTING)) ||
        (m.digits >= 1000 && rs_fault_on(s, RS_FAULT_CRASH_HUGE_NUMBER)))
        _exit(134);
    if ((m.string >= 65536 && rs_fault_on(s, RS_FAULT_HANG_LONG_STRING)) ||
        (m.members >= 10000 && rs_fault_on(s, RS_FAULT_HANG_MANY_MEMBERS)))
        stuck_for_good();
}

void rs_handle_line(rs_server *s, const char *line, size_t len, bool oversize)
{
    careless_parser(s, line, len);
    if (oversize) {
        parse_error(s, "Parse error: message longer than 16 MiB");
        return;
    }
    if (blank(line, len))
        return; /* a stray newline is framing noise, not a message */
    mcps_json_limits limits = mcps_json_default_limits();
    limits.max_bytes = RS_MAX_LINE;
    mcps_json_result parsed;
    if (!mcps_json_parse(line, len, &limits, &parsed)) {
        rs_debug(s, "parse error at byte %zu: %s", parsed.error_offset, parsed.error);
        parse_error(s, "Parse error");
        return;
    }
    cJSON *msg = parsed.root;
    if (cJSON_IsArray(msg))
        handle_batch(s, msg);
    else if (cJSON_IsObject(msg))
        handle_object(s, msg, NULL);
    else
        rs_answer_error(s, NULL, NULL, RS_INVALID_REQUEST,
                        "Invalid Request: a message must be an object");
    mcps_json_delete(msg);
}
