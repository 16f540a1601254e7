/*
 * lifecycle.c - initialize (version negotiation, capabilities, serverInfo),
 * notifications/initialized, and ping.
 *
 * The server speaks the four handshake-era revisions. A supported requested
 * version is answered as is (LIFE-VER-003); any other one with the newest,
 * 2025-11-25 (LIFE-VER-004/005), including 2026-07-28, which has no handshake.
 */
#include "server.h"

#include "codec/json.h"

#include <stdlib.h>
#include <string.h>

static const char *const rs_supported[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

static cJSON *capabilities(const rs_server *s)
{
    cJSON *caps = cJSON_CreateObject();
    cJSON_AddItemToObject(caps, "logging", cJSON_CreateObject());
    if (rs_rev_at_least(s, MCPS_REV_2025_03_26))
        cJSON_AddItemToObject(caps, "completions", cJSON_CreateObject());
    cJSON *prompts = cJSON_AddObjectToObject(caps, "prompts");
    cJSON_AddBoolToObject(prompts, "listChanged", true);
    cJSON *resources = cJSON_AddObjectToObject(caps, "resources");
    cJSON_AddBoolToObject(resources, "subscribe", true);
    cJSON_AddBoolToObject(resources, "listChanged", true);
    cJSON *tools = cJSON_AddObjectToObject(caps, "tools");
    cJSON_AddBoolToObject(tools, "listChanged", true);
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
    return info;
}

static cJSON *init_result(const rs_server *s)
{
    static const char instructions[] = "Reference MCP server of the mcpspec conformance harness.";
    cJSON *result = cJSON_CreateObject();
    if (!rs_fault_on(s, RS_FAULT_INIT_NO_PROTOCOL_VERSION))
        cJSON_AddStringToObject(result, "protocolVersion", s->announced);
    cJSON_AddItemToObject(result, "capabilities", capabilities(s));
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
    rs_debug(s, "initialized: client asked %s, server speaks %s", requested, s->announced);
    rs_ok(r, init_result(s));
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
    rs_ok(r, rs_fault_on(s, RS_FAULT_PING_RESULT_NULL) ? cJSON_CreateNull() : cJSON_CreateObject());
}
