/*
 * lifecycle.c - initialize (version negotiation, capabilities, serverInfo),
 * notifications/initialized, and ping.
 *
 * The server speaks the four handshake-era revisions. A supported requested
 * version is answered as is (LIFE-VER-003); any other one with the newest,
 * 2025-11-25 (LIFE-VER-004/005), including 2026-07-28, which has no handshake
 * (refserver serves it without one: stateless.c).
 */
#include "server.h"

#include "codec/json.h"

#include <stdlib.h>
#include <string.h>

static const char *const rs_supported[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

/* CAP-SRV-006: {"list":{}, "cancel":{}, "requests":{"tools":{"call":{}}}} */
static cJSON *tasks_capability(const rs_server *s)
{
    cJSON *tasks = cJSON_CreateObject();
    if (rs_fault_on(s, RS_FAULT_TASKS_CAPABILITY_SHAPE))
        cJSON_AddTrueToObject(tasks, "list");
    else
        cJSON_AddItemToObject(tasks, "list", cJSON_CreateObject());
    cJSON_AddItemToObject(tasks, "cancel", cJSON_CreateObject());
    cJSON *tools = cJSON_AddObjectToObject(cJSON_AddObjectToObject(tasks, "requests"), "tools");
    cJSON_AddItemToObject(tools, "call", cJSON_CreateObject());
    return tasks;
}

static const char *const rs_cap_names[RS_CAP_COUNT] = {
    [RS_CAP_TOOLS] = "tools",
    [RS_CAP_RESOURCES] = "resources",
    [RS_CAP_PROMPTS] = "prompts",
    [RS_CAP_LOGGING] = "logging",
    [RS_CAP_COMPLETIONS] = "completions",
    [RS_CAP_TASKS] = "tasks",
};

bool rs_cap_parse(const char *name, rs_cap *out)
{
    for (int c = 0; c < RS_CAP_COUNT; c++) {
        if (strcmp(rs_cap_names[c], name) == 0) {
            *out = (rs_cap)c;
            return true;
        }
    }
    return false;
}

rs_cap rs_cap_of(const char *method)
{
    static const struct {
        const char *prefix;
        rs_cap cap;
    } owners[] = {
        {"tools/", RS_CAP_TOOLS},
        {"resources/", RS_CAP_RESOURCES},
        {"prompts/", RS_CAP_PROMPTS},
        {"logging/", RS_CAP_LOGGING},
        {"completion/", RS_CAP_COMPLETIONS},
        {"tasks/", RS_CAP_TASKS},
        {"notifications/tools/", RS_CAP_TOOLS},
        {"notifications/resources/", RS_CAP_RESOURCES},
        {"notifications/prompts/", RS_CAP_PROMPTS},
        {"notifications/message", RS_CAP_LOGGING},
        {"notifications/tasks/", RS_CAP_TASKS},
    };
    for (size_t i = 0; i < sizeof owners / sizeof *owners; i++)
        if (strncmp(method, owners[i].prefix, strlen(owners[i].prefix)) == 0)
            return owners[i].cap;
    return RS_CAP_COUNT;
}

/* Faults that serve a capability without declaring it (tasks has its own, task-no-capability). */
static bool hidden_by_fault(const rs_server *s, rs_cap cap)
{
    switch (cap) {
    case RS_CAP_TOOLS:
        return rs_fault_on(s, RS_FAULT_TOOLS_UNDECLARED);
    case RS_CAP_RESOURCES:
        return rs_fault_on(s, RS_FAULT_RESOURCES_UNDECLARED) ||
               rs_fault_on(s, RS_FAULT_TOOL_EMBEDS_UNDECLARED);
    case RS_CAP_PROMPTS:
        return rs_fault_on(s, RS_FAULT_PROMPTS_UNDECLARED);
    case RS_CAP_COMPLETIONS:
        return rs_fault_on(s, RS_FAULT_COMPLETIONS_UNDECLARED);
    case RS_CAP_LOGGING:
        return rs_fault_on(s, RS_FAULT_LOGGING_UNDECLARED) ||
               rs_fault_on(s, RS_FAULT_LOGGING_UNDECLARED_SILENT) ||
               rs_fault_on(s, RS_FAULT_LOG_UNDECLARED_NOTIFY);
    default:
        return false;
    }
}

static bool declares(const rs_server *s, rs_cap cap)
{
    return !s->refused[cap] && !hidden_by_fault(s, cap);
}

/* listChanged: true, unless the list-changed-undeclared fault leaves it out. */
static void add_list_changed(const rs_server *s, cJSON *cap)
{
    if (!rs_fault_on(s, RS_FAULT_LIST_CHANGED_UNDECLARED))
        cJSON_AddBoolToObject(cap, "listChanged", true);
}

bool rs_tasks_era(const rs_server *s)
{
    return s->rev == MCPS_REV_2025_11_25;
}

/* Tasks exist in 2025-11-25 (the tasks-every-revision fault declares them in every handshake-era
 * one). */
static bool declares_tasks(const rs_server *s)
{
    return (rs_tasks_era(s) ||
            (rs_fault_on(s, RS_FAULT_TASKS_EVERY_REVISION) && !rs_stateless(s))) &&
           declares(s, RS_CAP_TASKS) && !s->refused[RS_CAP_TOOLS] &&
           !rs_fault_on(s, RS_FAULT_TASK_NO_CAPABILITY);
}

/* 2026-07-28: no logging (deprecated, and refserver honours no per-request logLevel yet);
 * subscribe and listChanged now mean what subscriptions/listen streams carry (listen.c). The
 * listen-ack-overclaims fault stops declaring prompts.listChanged (and its acknowledgement does
 * not notice). */
static cJSON *stateless_capabilities(const rs_server *s)
{
    cJSON *caps = cJSON_CreateObject();
    if (declares(s, RS_CAP_COMPLETIONS))
        cJSON_AddItemToObject(caps, "completions", cJSON_CreateObject());
    if (declares(s, RS_CAP_PROMPTS)) {
        cJSON *prompts = cJSON_AddObjectToObject(caps, "prompts");
        if (!rs_fault_on(s, RS_FAULT_LISTEN_ACK_OVERCLAIMS))
            add_list_changed(s, prompts);
    }
    if (declares(s, RS_CAP_RESOURCES)) {
        cJSON *resources = cJSON_AddObjectToObject(caps, "resources");
        cJSON_AddBoolToObject(resources, "subscribe", true);
        add_list_changed(s, resources);
    }
    if (declares(s, RS_CAP_TOOLS))
        add_list_changed(s, cJSON_AddObjectToObject(caps, "tools"));
    return caps;
}

cJSON *rs_capabilities(const rs_server *s)
{
    if (rs_stateless(s))
        return stateless_capabilities(s);
    cJSON *caps = cJSON_CreateObject();
    if (declares(s, RS_CAP_LOGGING))
        cJSON_AddItemToObject(caps, "logging", cJSON_CreateObject());
    if (rs_rev_at_least(s, MCPS_REV_2025_03_26) && declares(s, RS_CAP_COMPLETIONS))
        cJSON_AddItemToObject(caps, "completions", cJSON_CreateObject());
    if (declares(s, RS_CAP_PROMPTS))
        add_list_changed(s, cJSON_AddObjectToObject(caps, "prompts"));
    if (declares(s, RS_CAP_RESOURCES)) {
        cJSON *resources = cJSON_AddObjectToObject(caps, "resources");
        cJSON_AddBoolToObject(resources, "subscribe", true);
        add_list_changed(s, resources);
    }
    if (declares(s, RS_CAP_TOOLS))
        add_list_changed(s, cJSON_AddObjectToObject(caps, "tools"));
    /* Tasks here augment tools/call only: without tools there is nothing to declare. */
    if (declares_tasks(s))
        cJSON_AddItemToObject(caps, "tasks", tasks_capability(s));
    return caps;
}

static cJSON *server_info(const rs_server *s)
{
    cJSON *info = cJSON_CreateObject();
    /* "caf\xE9" is Latin-1, not UTF-8: the latin1-output fault. A tree cannot
     * hold an unpaired surrogate, so that fault writes the escape raw. */
    if (rs_fault_on(s, RS_FAULT_LONE_SURROGATE))
        cJSON_AddItemToObject(info, "name", cJSON_CreateRaw("\"" RS_NAME "-\\ud800\""));
    else
        cJSON_AddStringToObject(
            info, "name", rs_fault_on(s, RS_FAULT_LATIN1_OUTPUT) ? RS_NAME "-caf\xE9" : RS_NAME);
    if (rs_rev_at_least(s, MCPS_REV_2025_06_18))
        cJSON_AddStringToObject(info, "title", "mcpspec reference server");
    cJSON_AddStringToObject(info, "version", MCPS_VERSION);
    if (rs_rev_at_least(s, MCPS_REV_2025_11_25)) {
        cJSON *icon = cJSON_CreateObject();
        cJSON_AddStringToObject(icon, "src", "https://mcpspec.example/refserver.png");
        cJSON_AddStringToObject(icon, "mimeType", "image/png");
        cJSON_AddItemToArray(
            cJSON_AddArrayToObject(icon, "sizes"),
            cJSON_CreateString(rs_fault_on(s, RS_FAULT_ICON_BAD_SIZES) ? "48" : "48x48"));
        cJSON_AddStringToObject(icon, "theme", "light");
        cJSON_AddItemToArray(cJSON_AddArrayToObject(info, "icons"), icon);
    }
    return info;
}

static cJSON *init_result(const rs_server *s)
{
    static const char instructions[] = "Reference MCP server of the mcpspec conformance harness.";
    cJSON *result = cJSON_CreateObject();
    if (!rs_fault_on(s, RS_FAULT_INIT_NO_PROTOCOL_VERSION))
        cJSON_AddStringToObject(result, "protocolVersion", s->announced);
    cJSON_AddItemToObject(result, "capabilities", rs_capabilities(s));
    if (!rs_fault_on(s, RS_FAULT_INIT_NO_SERVERINFO))
        cJSON_AddItemToObject(result, "serverInfo", server_info(s));
    if (rs_fault_on(s, RS_FAULT_INSTRUCTIONS_NOT_STRING)) {
        const char *lines[] = {instructions};
        cJSON_AddItemToObject(result, "instructions", cJSON_CreateStringArray(lines, 1));
    } else {
        cJSON_AddStringToObject(result, "instructions", instructions);
    }
    return result;
}

/* The lifecycle page's error example (catalog conflict 2): -32602 with supported/requested. */
static void refuse_version(const char *requested, rs_reply *r)
{
    rs_fail(r, RS_INVALID_PARAMS, "Unsupported protocol version");
    r->data = cJSON_CreateObject();
    cJSON *list = cJSON_AddArrayToObject(r->data, "supported");
    for (size_t i = 0; i < sizeof rs_supported / sizeof *rs_supported; i++)
        cJSON_AddItemToArray(list, cJSON_CreateString(rs_supported[i]));
    cJSON_AddStringToObject(r->data, "requested", requested);
}

static bool negotiate(rs_server *s, const char *requested, rs_reply *r)
{
    mcps_rev want = mcps_rev_parse(requested);
    mcps_rev rev = MCPS_REV_2025_11_25;
    const char *announce = NULL;
    if (want != MCPS_REV_NONE && mcps_rev_is_handshake(want)) {
        rev = rs_fault_on(s, RS_FAULT_INIT_WRONG_VERSION) ? MCPS_REV_2024_11_05 : want;
    } else if (rs_fault_on(s, RS_FAULT_UNSUPPORTED_VERSION_ERROR)) {
        refuse_version(requested, r);
        return false;
    } else if (rs_fault_on(s, RS_FAULT_UNSUPPORTED_VERSION_ECHO)) {
        announce = requested;
    } else if (rs_fault_on(s, RS_FAULT_FALLBACK_OLDEST)) {
        rev = MCPS_REV_2024_11_05;
    }
    free(s->announced);
    s->announced = strdup(announce ? announce : mcps_rev_name(rev));
    s->rev = rev;
    if (!s->announced) {
        rs_fail(r, RS_INTERNAL_ERROR, "Out of memory");
        return false;
    }
    return true;
}

static void check_init_params(const rs_server *s, const rs_req *req, rs_reply *r)
{
    rs_param_string(s, req->params, "protocolVersion", true, r);
    rs_param_object(s, req->params, "capabilities", true, r);
    const cJSON *client = rs_param_object(s, req->params, "clientInfo", true, r);
    if (client) {
        rs_param_string(s, client, "name", true, r);
        rs_param_string(s, client, "version", true, r);
    }
}

void rs_initialize(rs_server *s, const rs_req *req, rs_reply *r)
{
    if (s->initialized) {
        if (rs_fault_on(s, RS_FAULT_SECOND_INIT_ACCEPTED))
            rs_ok(r, init_result(s));
        else
            rs_fail(r, RS_INVALID_REQUEST, "Server already initialized");
        return;
    }
    check_init_params(s, req, r);
    if (r->code)
        return;
    const char *requested =
        cJSON_GetObjectItemCaseSensitive(req->params, "protocolVersion")->valuestring;
    if (!negotiate(s, requested, r))
        return;
    s->initialized = true;
    mcps_json_delete(s->client_caps); /* a 2026-07-28 request's, on a dual-era process */
    s->client_caps =
        cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(req->params, "capabilities"), true);
    rs_debug(s, "initialized: client asked %s, server speaks %s", requested, s->announced);
    rs_ok(r, init_result(s));
    if (rs_fault_on(s, RS_FAULT_REQUEST_BEFORE_INITIALIZED))
        rs_ask_roots_early(s);
}

/* The server-ping-null-id fault: a request to the client with a null id (RPC-ID-002). */
static void ping_client_with_null_id(rs_server *s)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddNullToObject(m, "id");
    cJSON_AddStringToObject(m, "method", "ping");
    rs_write_response(s, m);
}

void rs_on_initialized(rs_server *s, const rs_req *req)
{
    (void)req;
    if (!s->initialized)
        return;
    s->client_ready = true;
    if (rs_fault_on(s, RS_FAULT_SERVER_PING_NULL_ID))
        ping_client_with_null_id(s);
    if (rs_fault_on(s, RS_FAULT_LOG_UNDECLARED_NOTIFY))
        rs_log(s, RS_LOG_EMERGENCY, cJSON_CreateString("ready (logging was not declared)"));
    if (rs_fault_on(s, RS_FAULT_METHOD_FROM_LATER_REVISION) &&
        !rs_rev_at_least(s, MCPS_REV_2025_11_25)) {
        cJSON *params = cJSON_CreateObject();
        cJSON_AddStringToObject(params, "elicitationId", "refserver-early");
        rs_notify(s, "notifications/elicitation/complete", params);
    }
    if (rs_fault_on(s, RS_FAULT_LIST_CHANGED_UNDECLARED)) {
        rs_notify(s, "notifications/tools/list_changed", NULL);
        rs_notify(s, "notifications/resources/list_changed", NULL);
        rs_notify(s, "notifications/prompts/list_changed", NULL);
    }
}

/* ping with both members: the result-and-error fault. */
static void send_result_and_error(rs_server *s, const rs_req *req)
{
    cJSON *msg = rs_response_new(s, req->id);
    cJSON_AddItemToObject(msg, "result", cJSON_CreateObject());
    cJSON_AddItemToObject(msg, "error",
                          rs_error_object(s, RS_INTERNAL_ERROR, "Internal error", NULL));
    rs_emit_response(s, req->batch, msg);
}

/* The reserved-meta-rejected fault's trigger: an io.modelcontextprotocol/ key it does not know. */
static bool unknown_reserved_meta(const cJSON *params)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    for (const cJSON *k = cJSON_IsObject(meta) ? meta->child : NULL; k; k = k->next)
        if (strncmp(k->string, "io.modelcontextprotocol/", 24) == 0)
            return true;
    return false;
}

void rs_ping(rs_server *s, const rs_req *req, rs_reply *r)
{
    if (rs_fault_on(s, RS_FAULT_PING_NO_RESPONSE)) {
        r->handled = true;
        return;
    }
    if (rs_fault_on(s, RS_FAULT_PING_REQUIRES_INITIALIZED) && !s->client_ready) {
        rs_fail(r, RS_INVALID_REQUEST, "Server not initialized");
        return;
    }
    if (rs_fault_on(s, RS_FAULT_RESULT_AND_ERROR)) {
        send_result_and_error(s, req);
        r->handled = true;
        return;
    }
    if (rs_fault_on(s, RS_FAULT_STDOUT_LOG_LINE))
        rs_write_text(s, "refserver: pong\n");
    if (rs_fault_on(s, RS_FAULT_DOUBLE_RESPONSE)) {
        cJSON *extra = rs_response_new(s, req->id);
        cJSON_AddItemToObject(extra, "result", cJSON_CreateObject());
        rs_emit_response(s, req->batch, extra);
    }
    if (rs_fault_on(s, RS_FAULT_RESERVED_META_REJECTED) && unknown_reserved_meta(req->params)) {
        rs_fail(r, RS_INVALID_PARAMS, "Unknown reserved _meta key");
        return;
    }
    cJSON *result =
        rs_fault_on(s, RS_FAULT_PING_RESULT_NULL) ? cJSON_CreateNull() : cJSON_CreateObject();
    if (rs_fault_on(s, RS_FAULT_RESERVED_META_KEY)) {
        cJSON *meta = cJSON_AddObjectToObject(result, "_meta");
        cJSON_AddStringToObject(meta, "io.modelcontextprotocol/refserver-build", MCPS_VERSION);
        cJSON_AddStringToObject(meta, "modelcontextprotocol.io/refserver-build", MCPS_VERSION);
    }
    rs_ok(r, result);
}
