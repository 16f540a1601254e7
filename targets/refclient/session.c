/*
 * session.c - refclient's MCP session: initialize, notifications/initialized,
 * tools/list, tools/call, then shutdown; while it waits for each answer it
 * answers what the server asks (ping, roots/list, sampling/createMessage,
 * elicitation/create) as its capabilities say, refuses the rest with -32601,
 * answers a line that is not JSON with -32700, and ignores responses to no
 * request of its and cancellations. A server request carrying a progressToken
 * gets two progress notifications before its answer; a batch line (2025-03-26)
 * is served element by element; a paged tools/list is followed to its end. Faults (faults.h) bend
 * exactly one of these rules each. With --protocol-version 2026-07-28 the session is stateless
 * instead: server/discover, then tools/list and tools/call, each with its _meta.
 */
#include "refclient.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec/json.h"
#include "codec/rev.h"

#define RC_RELATED_TASK "io.modelcontextprotocol/related-task"
#define RC_MAX_POLLS    20 /* a task still working after these is given up on */

/* A request of the session run again on a restarted server gets its id plus id_base: a new
 * id for what the dead server left unanswered (STDIO-013). */
static void rebase(const rc_client *c, cJSON *m)
{
    cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
    if (c->id_base && cJSON_IsNumber(id) && cJSON_GetObjectItemCaseSensitive(m, "method"))
        cJSON_SetNumberValue(id, id->valuedouble + c->id_base);
}

static void send_json(rc_client *c, cJSON *m)
{
    rebase(c, m);
    char *s = mcps_json_print(m, NULL);
    if (s)
        rc_write_line(c, s);
    free(s);
    cJSON_Delete(m);
}

static cJSON *envelope(const cJSON *id)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
    return m;
}

static void reply(rc_client *c, const cJSON *id, cJSON *result)
{
    cJSON *m = envelope(id);
    cJSON_AddItemToObject(m, "result", result);
    send_json(c, m);
}

static void reply_error(rc_client *c, const cJSON *id, int code, const char *message)
{
    cJSON *m = envelope(id);
    cJSON *e = cJSON_AddObjectToObject(m, "error");
    cJSON_AddNumberToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", message);
    send_json(c, m);
}

static bool elicitation_known(const rc_client *c)
{
    mcps_rev r = mcps_rev_parse(c->version);
    return r == MCPS_REV_NONE || r >= MCPS_REV_2025_06_18;
}

/* Whether it declares capability name (and so serves it). */
static bool declares(const rc_client *c, const char *name)
{
    if (!c->caps)
        return false;
    if (strcmp(name, "roots") == 0)
        return !rc_on(c, RC_FAULT_ROOTS_UNDECLARED);
    if (strcmp(name, "sampling") == 0)
        return !rc_on(c, RC_FAULT_SAMPLING_UNDECLARED);
    return elicitation_known(c) && !rc_on(c, RC_FAULT_ELICIT_UNDECLARED);
}

/* Whether it serves capability name: declared, or a fault answers it anyway. */
static bool serves(const rc_client *c, const char *name)
{
    if (declares(c, name))
        return true;
    return (strcmp(name, "roots") == 0 && rc_on(c, RC_FAULT_ROOTS_UNDECLARED)) ||
           (strcmp(name, "sampling") == 0 && rc_on(c, RC_FAULT_SAMPLING_UNDECLARED)) ||
           (strcmp(name, "elicitation") == 0 && rc_on(c, RC_FAULT_ELICIT_UNDECLARED));
}

/* On 2026-07-28, where roots and sampling are deprecated (VER-011): declared (and served) only
 * with --deprecated-caps. */
static bool declares_modern(const rc_client *c, const char *name)
{
    if (strcmp(name, "elicitation") != 0 && !c->deprecated)
        return false;
    return declares(c, name);
}

/* Whether it declares sampling.tools in the handshake era: --sampling-tools, from 2025-11-25
 * (2026-07-28 declares it in capabilities_modern). */
static bool declares_tools(const rc_client *c)
{
    mcps_rev r = mcps_rev_parse(c->version);
    return c->sampling_tools && declares(c, "sampling") && r != MCPS_REV_NONE &&
           r >= MCPS_REV_2025_11_25;
}

/* A sampling request carrying tools or toolChoice to a client that did not declare
 * sampling.tools is refused (SAMP-009). */
static bool sampling_tools_asked(const cJSON *params)
{
    return cJSON_GetObjectItemCaseSensitive(params, "tools") ||
           cJSON_GetObjectItemCaseSensitive(params, "toolChoice");
}

/* Whether a user message of the request mixes tool_result blocks with other content
 * (SAMP-010: the server's to keep; refused with -32602, SAMP-012). */
static bool results_mixed(const cJSON *params)
{
    const cJSON *m, *b;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(params, "messages"))
    {
        const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
        const cJSON *blocks = cJSON_IsArray(content) ? content : NULL;
        size_t results = 0, others = 0;
        cJSON_ArrayForEach(b, blocks)
        {
            const cJSON *type = cJSON_GetObjectItemCaseSensitive(b, "type");
            if (cJSON_IsString(type) && strcmp(type->valuestring, "tool_result") == 0)
                results++;
            else
                others++;
        }
        if (results && others)
            return true;
    }
    return false;
}

static cJSON *roots_result(const rc_client *c)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "uri",
                            rc_on(c, RC_FAULT_ROOTS_NOT_FILE) ? "https://example.com/project"
                                                              : "file:///tmp/refclient-project");
    cJSON_AddStringToObject(root, "name", "project");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "roots"), root);
    return r;
}

static cJSON *sampling_result(const rc_client *c)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "role", "assistant");
    cJSON *content = cJSON_AddObjectToObject(r, "content");
    cJSON_AddStringToObject(content, "type",
                            rc_on(c, RC_FAULT_SAMPLING_BAD_CONTENT) ? "video" : "text");
    cJSON_AddStringToObject(content, "text", "Hello.");
    if (!rc_on(c, RC_FAULT_SAMPLING_NO_MODEL))
        cJSON_AddStringToObject(r, "model", "refclient-canned");
    cJSON_AddStringToObject(r, "stopReason", "endTurn");
    return r;
}

/* No person to ask: decline, or with --accept-elicitation (and the elicit-content-invalid
 * fault, which breaks the schema's string) accept with a canned name. */
static cJSON *elicit_result(const rc_client *c)
{
    cJSON *r = cJSON_CreateObject();
    bool invalid = rc_on(c, RC_FAULT_ELICIT_CONTENT_INVALID);
    if (rc_on(c, RC_FAULT_ELICIT_BAD_ACTION))
        cJSON_AddStringToObject(r, "action", "maybe");
    else if (c->accept || invalid) {
        cJSON_AddStringToObject(r, "action", "accept");
        cJSON *content = cJSON_AddObjectToObject(r, "content");
        if (invalid)
            cJSON_AddNumberToObject(content, "name", 42);
        else
            cJSON_AddStringToObject(content, "name", "refclient");
    } else
        cJSON_AddStringToObject(r, "action", "decline");
    return r;
}

static void refuse(rc_client *c, const cJSON *id)
{
    if (rc_on(c, RC_FAULT_UNKNOWN_METHOD_RESULT)) {
        reply(c, id, cJSON_CreateObject());
        return;
    }
    if (rc_on(c, RC_FAULT_REFUSE_WRONG_CODE))
        reply_error(c, id, -32603, "Internal error");
    else
        reply_error(c, rc_on(c, RC_FAULT_ERROR_NULL_ID) ? NULL : id, -32601, "Method not found");
}

/* notifications/progress for a server request's token: value out of 2. */
static void send_progress(rc_client *c, const cJSON *token, int value)
{
    cJSON *n = cJSON_CreateObject();
    cJSON_AddStringToObject(n, "jsonrpc", "2.0");
    cJSON_AddStringToObject(n, "method", "notifications/progress");
    cJSON *p = cJSON_AddObjectToObject(n, "params");
    cJSON_AddItemToObject(p, "progressToken", cJSON_Duplicate(token, true));
    cJSON_AddNumberToObject(p, "progress", value);
    cJSON_AddNumberToObject(p, "total", 2);
    mcps_rev r = mcps_rev_parse(c->negotiated);
    if (r != MCPS_REV_NONE && r >= MCPS_REV_2025_03_26) /* message came with 2025-03-26 */
        cJSON_AddStringToObject(p, "message", value < 2 ? "refclient: working" : "refclient: done");
    send_json(c, n);
}

/* result, tied to the task the request belongs to, if any (TASK-017): the request's
 * related-task _meta copied into the result's. */
static cJSON *tied(const rc_client *c, const cJSON *params, cJSON *result)
{
    const cJSON *related = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(params, "_meta"), RC_RELATED_TASK);
    if (related && !rc_on(c, RC_FAULT_TASK_META_MISSING))
        cJSON_AddItemToObject(cJSON_AddObjectToObject(result, "_meta"), RC_RELATED_TASK,
                              cJSON_Duplicate(related, true));
    return result;
}

/* Whether an elicitation asks for url mode (refclient declares form only). */
static bool url_mode(const cJSON *params)
{
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(params, "mode");
    return cJSON_IsString(mode) && strcmp(mode->valuestring, "url") == 0;
}

/* Whether params' _meta holds an io.modelcontextprotocol/ key refclient does not know (the
 * reject-unknown-meta fault refuses such a request). */
static bool unknown_reserved_meta(const cJSON *params)
{
    const cJSON *k;
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(params, "_meta"))
    {
        if (k->string && strncmp(k->string, "io.modelcontextprotocol/", 24) == 0 &&
            strcmp(k->string, RC_RELATED_TASK) != 0 &&
            strcmp(k->string, "io.modelcontextprotocol/serverInfo") != 0)
            return true;
    }
    return false;
}

/* tasks/get, list, result, cancel about its own tasks (tasks.c). */
static void answer_tasks(rc_client *c, const char *method, const cJSON *id, const cJSON *params)
{
    int code = 0;
    const char *message = "";
    cJSON *r = rc_task_request(c, method, params, &code, &message);
    const cJSON *token = rc_task_token(c, params);
    if (r)
        reply(c, id, r);
    else
        reply_error(c, id, code, message);
    if (token && strcmp(method, "tasks/result") == 0 && rc_on(c, RC_FAULT_TASK_PROGRESS_LATE))
        send_progress(c, token, 2); /* the task is terminal: too late */
}

/* Whether a server request is to run as a task of its (TASK-007: only a request type it
 * declared tasks for; the task-undeclared-create fault takes sampling too). */
static bool runs_as_task(const rc_client *c, const char *method, const cJSON *params)
{
    if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(params, "task")) ||
        !rc_tasks_declared(c) || !declares(c, "elicitation"))
        return false;
    if (strcmp(method, "elicitation/create") == 0)
        return !rc_on(c, RC_FAULT_TASK_ANSWER_PLAIN);
    return strcmp(method, "sampling/createMessage") == 0 && serves(c, "sampling") &&
           rc_on(c, RC_FAULT_TASK_UNDECLARED_CREATE);
}

static cJSON *tool_use_result(const rc_client *c, const cJSON *params);

/* A sampling request to a client that serves sampling: checked (RPC-ERR-006, SAMP-009,
 * SAMP-012), then answered; tools used when it declared sampling.tools. */
static void answer_sampling(rc_client *c, const cJSON *id, const cJSON *params)
{
    bool tools = declares_tools(c);
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(params, "messages")))
        reply_error(c, id, rc_on(c, RC_FAULT_NO_MESSAGES_INTERNAL) ? -32603 : -32602,
                    "Invalid params: messages is required");
    else if (sampling_tools_asked(params) && !tools && !rc_on(c, RC_FAULT_SAMPLING_TOOLS_ANSWERED))
        reply_error(c, id, -32602, "Invalid params: sampling.tools was not declared");
    else if (tools && results_mixed(params) && !rc_on(c, RC_FAULT_MIXED_RESULTS_ACCEPTED))
        reply_error(c, id, -32602, "Invalid params: tool results mixed with other content");
    else if (tools && sampling_tools_asked(params))
        reply(c, id, tied(c, params, tool_use_result(c, params)));
    else
        reply(c, id, tied(c, params, sampling_result(c)));
}

static void answer_request(rc_client *c, const char *method, const cJSON *id, const cJSON *params)
{
    if (rc_on(c, RC_FAULT_REJECT_UNKNOWN_META) && unknown_reserved_meta(params)) {
        reply_error(c, id, -32602, "Invalid params: unknown _meta key");
        return;
    }
    if (runs_as_task(c, method, params)) {
        cJSON *real =
            strcmp(method, "elicitation/create") == 0 ? elicit_result(c) : sampling_result(c);
        reply(c, id, rc_task_create(c, params, real));
        return;
    }
    if (strcmp(method, "ping") == 0 && rc_on(c, RC_FAULT_RESULT_AND_ERROR)) {
        cJSON *m = envelope(id);
        cJSON_AddItemToObject(m, "result", cJSON_CreateObject());
        cJSON *e = cJSON_AddObjectToObject(m, "error");
        cJSON_AddNumberToObject(e, "code", -32603);
        cJSON_AddStringToObject(e, "message", "Internal error");
        send_json(c, m);
    } else if (strcmp(method, "ping") == 0) {
        if (rc_on(c, RC_FAULT_PING_ERROR))
            reply_error(c, id, -32603, "Internal error");
        else
            reply(c, id, cJSON_CreateObject());
    } else if (strcmp(method, "roots/list") == 0 && serves(c, "roots"))
        reply(c, id, tied(c, params, roots_result(c)));
    else if (strcmp(method, "sampling/createMessage") == 0 && serves(c, "sampling"))
        answer_sampling(c, id, params);
    else if (strcmp(method, "elicitation/create") == 0 && serves(c, "elicitation") &&
             rc_on(c, RC_FAULT_ELICIT_REFUSE_FORM))
        reply_error(c, id, -32602, "Invalid params: unsupported elicitation mode");
    else if (strcmp(method, "elicitation/create") == 0 && serves(c, "elicitation") &&
             url_mode(params) && !rc_on(c, RC_FAULT_URL_ACCEPTED))
        reply_error(c, id, -32602, "Invalid params: url mode was not declared"); /* ELIC-008 */
    else if (strcmp(method, "elicitation/create") == 0 && serves(c, "elicitation"))
        reply(c, id, tied(c, params, elicit_result(c)));
    else if (strncmp(method, "tasks/", 6) == 0 && declares(c, "elicitation") &&
             rc_tasks_declared(c))
        answer_tasks(c, method, id, params);
    else
        refuse(c, id);
}

/* A server request: answered, with progress first when it carries a progressToken. */
static void on_request(rc_client *c, const char *method, const cJSON *id, const cJSON *params)
{
    const cJSON *token = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(params, "_meta"), "progressToken");
    bool late = rc_on(c, RC_FAULT_PROGRESS_AFTER_ANSWER);
    if (token) {
        send_progress(c, token, 1);
        if (!late)
            send_progress(c, token, 2);
    }
    answer_request(c, method, id, params);
    if (token && late)
        send_progress(c, token, 2);
}

/* A notification: nothing to answer (RPC-NOT-002); false when a fault exits on it. A
 * subscription's acknowledgment is kept (its filter, for subscribe). */
static bool on_notification(rc_client *c, const char *method, const cJSON *params)
{
    if (strcmp(method, "notifications/subscriptions/acknowledged") == 0) {
        cJSON_Delete(c->ack);
        c->ack = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(params, "notifications"), true);
        if (!c->ack)
            c->ack = cJSON_CreateObject();
        return true;
    }
    if (strcmp(method, "notifications/progress") == 0 && rc_on(c, RC_FAULT_ANSWER_PROGRESS))
        reply_error(c, NULL, -32601, "Method not found");
    if (strcmp(method, "notifications/elicitation/complete") == 0)
        return !rc_on(c, RC_FAULT_CRASH_ON_COMPLETE);
    if (strcmp(method, "notifications/cancelled") != 0)
        return true;
    if (rc_on(c, RC_FAULT_ANSWER_CANCEL))
        reply_error(c, NULL, -32601, "Method not found");
    return !rc_on(c, RC_FAULT_CRASH_ON_CANCEL);
}

/* A response that answers none of its requests: false when a fault exits on it. */
static bool on_stray_response(const rc_client *c, const cJSON *id)
{
    if (cJSON_IsNull(id))
        return !rc_on(c, RC_FAULT_CRASH_NULL_ID);
    if (cJSON_IsNumber(id) && id->valuedouble == 1) /* initialize's id: answered already */
        return !rc_on(c, RC_FAULT_CRASH_DUPLICATE);
    return !rc_on(c, RC_FAULT_CRASH_UNKNOWN_ID);
}

/* Handle one message (owned); *answer set when it is the response to want. False: give up. */
static bool on_message(rc_client *c, cJSON *m, int want, cJSON **answer)
{
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
    bool ok = true;
    if (cJSON_IsString(method) && id)
        on_request(c, method->valuestring, id, cJSON_GetObjectItemCaseSensitive(m, "params"));
    else if (cJSON_IsString(method))
        ok = on_notification(c, method->valuestring, cJSON_GetObjectItemCaseSensitive(m, "params"));
    else if (method && id && !rc_on(c, RC_FAULT_IGNORE_INVALID_REQUEST))
        reply_error(c, id, -32600, "Invalid Request"); /* a method that is not a string */
    else if (!method && id && cJSON_IsNumber(id) && id->valuedouble == want + c->id_base) {
        *answer = m;
        return true;
    } else if (!method && id)
        ok = on_stray_response(c, id);
    cJSON_Delete(m);
    return ok;
}

/* Handle one line: a message, or a batch of them (2025-03-26) served one by one. */
static bool on_line(rc_client *c, const char *line, int want, cJSON **answer)
{
    if (rc_on(c, RC_FAULT_CRASH_HUGE) && strlen(line) > 64 * 1024)
        return false;
    cJSON *m = mcps_json_parse_simple(line, strlen(line)), *e;
    if (!m) {
        if (rc_on(c, RC_FAULT_CRASH_INVALID_JSON))
            return false;
        if (!rc_on(c, RC_FAULT_NO_PARSE_ERROR))
            reply_error(c, NULL, -32700, "Parse error");
        return true;
    }
    if (!cJSON_IsArray(m))
        return on_message(c, m, want, answer);
    if (!m->child && !rc_on(c, RC_FAULT_NO_BATCH)) { /* JSON-RPC §6: one error, not an array */
        if (rc_on(c, RC_FAULT_BATCH_EMPTY_ARRAY))
            rc_write_line(c, "[]");
        else
            reply_error(c, NULL, -32600, "Invalid Request");
    }
    bool ok = true;
    while (ok && !rc_on(c, RC_FAULT_NO_BATCH) && (e = cJSON_DetachItemFromArray(m, 0)))
        ok = on_message(c, e, want, answer);
    cJSON_Delete(m);
    return ok;
}

/* Wait for the response to request id `want`, serving the server meanwhile; NULL: none. */
static cJSON *await(rc_client *c, int want)
{
    cJSON *answer = NULL;
    char *line;
    while (!answer && (line = rc_read_line(c))) {
        bool ok = on_line(c, line, want, &answer);
        free(line);
        if (!ok) {
            fprintf(stderr, "refclient: giving up on a message from the server (fault)\n");
            exit(1);
        }
    }
    return answer;
}

static cJSON *request(int id, const char *method, cJSON *params, bool jsonrpc_1)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", jsonrpc_1 ? "1.0" : "2.0");
    cJSON_AddNumberToObject(m, "id", id);
    cJSON_AddStringToObject(m, "method", method);
    if (params)
        cJSON_AddItemToObject(m, "params", params);
    return m;
}

static cJSON *capabilities(const rc_client *c)
{
    cJSON *caps = cJSON_CreateObject();
    if (declares(c, "roots"))
        cJSON_AddFalseToObject(cJSON_AddObjectToObject(caps, "roots"), "listChanged");
    if (declares_tools(c))
        cJSON_AddObjectToObject(cJSON_AddObjectToObject(caps, "sampling"), "tools");
    else if (declares(c, "sampling"))
        cJSON_AddObjectToObject(caps, "sampling");
    if (declares(c, "elicitation")) {
        cJSON *e = cJSON_AddObjectToObject(caps, "elicitation");
        if (mcps_rev_parse(c->version) >= MCPS_REV_2025_11_25)
            cJSON_AddObjectToObject(e, "form");
    }
    if (declares(c, "elicitation") && rc_tasks_declared(c))
        cJSON_AddItemToObject(caps, "tasks", rc_tasks_capability(c));
    return caps;
}

static cJSON *initialize_params(const rc_client *c)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "protocolVersion", c->version);
    cJSON_AddItemToObject(p, "capabilities", capabilities(c));
    if (!rc_on(c, RC_FAULT_NO_CLIENTINFO)) {
        cJSON *info = cJSON_AddObjectToObject(p, "clientInfo");
        cJSON_AddStringToObject(info, "name", "refclient");
        cJSON_AddStringToObject(info, "version", MCPS_VERSION);
    }
    return p;
}

/* notifications/cancelled for its own request id (only the cancel-initialize fault does). */
static void send_cancel(rc_client *c, int id)
{
    cJSON *n = cJSON_CreateObject();
    cJSON_AddStringToObject(n, "jsonrpc", "2.0");
    cJSON_AddStringToObject(n, "method", "notifications/cancelled");
    cJSON *p = cJSON_AddObjectToObject(n, "params");
    cJSON_AddNumberToObject(p, "requestId", id);
    cJSON_AddStringToObject(p, "reason", "refclient gave up waiting");
    send_json(c, n);
}

/* The server's answer names a revision refclient speaks. */
static bool version_ok(const cJSON *answer)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(answer, "result");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "protocolVersion");
    mcps_rev rev = cJSON_IsString(v) ? mcps_rev_parse(v->valuestring) : MCPS_REV_NONE;
    return rev != MCPS_REV_NONE && mcps_rev_is_handshake(rev);
}

/* Whether an initialize answer declares task-augmented tools/call (TASK-002). */
static bool server_offers_tasks(const cJSON *answer)
{
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(answer, "result"), "capabilities");
    const cJSON *requests = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(caps, "tasks"), "requests");
    return cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(requests, "tools"), "call"));
}

static bool handshake(rc_client *c)
{
    if (rc_on(c, RC_FAULT_PING_FIRST)) {
        send_json(c, request(100, "ping", NULL, false));
        cJSON_Delete(await(c, 100));
    }
    send_json(c, request(1, "initialize", initialize_params(c), false));
    if (rc_on(c, RC_FAULT_CANCEL_INITIALIZE))
        send_cancel(c, 1);
    if (rc_on(c, RC_FAULT_NO_WAIT))
        send_json(c, request(2, "tools/list", NULL, false));
    cJSON *answer = await(c, 1);
    bool ok = answer && cJSON_GetObjectItemCaseSensitive(answer, "result") &&
              (version_ok(answer) || rc_on(c, RC_FAULT_IGNORE_VERSION));
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(answer, "result"), "protocolVersion");
    snprintf(c->negotiated, sizeof c->negotiated, "%s", cJSON_IsString(v) ? v->valuestring : "");
    c->server_tasks = strcmp(c->negotiated, "2025-11-25") == 0 && server_offers_tasks(answer);
    cJSON_Delete(answer);
    if (!ok) {
        fprintf(stderr, "refclient: the server's initialize answer is unusable: disconnecting\n");
        return false;
    }
    if (rc_on(c, RC_FAULT_LEAVE_OWN_VERSION) && strcmp(c->negotiated, c->version) == 0) {
        fprintf(stderr, "refclient: answered %s, the revision it asked for: leaving (fault)\n",
                c->version);
        return false;
    }
    if (!rc_on(c, RC_FAULT_NO_INITIALIZED)) {
        cJSON *n = cJSON_CreateObject();
        cJSON_AddStringToObject(n, "jsonrpc", "2.0");
        cJSON_AddStringToObject(n, "method", "notifications/initialized");
        if (rc_on(c, RC_FAULT_INITIALIZED_WITH_ID))
            cJSON_AddNumberToObject(n, "id", 50);
        send_json(c, n);
    }
    if (rc_on(c, RC_FAULT_STRAY_LINE))
        rc_write_line(c, "refclient says hello");
    return true;
}

/* The first tool's name, from a tools/list answer; NULL when there is none. */
static char *first_tool(const cJSON *answer)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(answer, "result");
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(r, "tools");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(tools, 0), "name");
    return cJSON_IsString(name) ? strdup(name->valuestring) : NULL;
}

/* tools/list, or with the batch-request fault the same inside a one-element array. */
/* One message written over two lines: a newline after its first comma (split-message). */
static void send_split(rc_client *c, cJSON *m)
{
    char *s = mcps_json_print(m, NULL);
    char *comma = s ? strchr(s, ',') : NULL;
    if (comma) {
        *comma = '\0';
        rc_write_line(c, s);
        *comma = ',';
        rc_write_line(c, comma);
    }
    free(s);
    cJSON_Delete(m);
}

static void send_list(rc_client *c)
{
    cJSON *m = request(2, "tools/list", NULL, false);
    if (rc_on(c, RC_FAULT_SPLIT_MESSAGE)) {
        send_split(c, m);
        return;
    }
    if (!rc_on(c, RC_FAULT_BATCH_REQUEST)) {
        send_json(c, m);
        return;
    }
    cJSON *batch = cJSON_CreateArray();
    cJSON_AddItemToArray(batch, m);
    send_json(c, batch);
}

/* tools/list; over HTTP a 404 for the session means starting over (HTTP-039). */
static cJSON *list_tools(rc_client *c)
{
    if (!rc_on(c, RC_FAULT_NO_WAIT))
        send_list(c);
    cJSON *list = await(c, 2);
    if (list || !c->session_lost)
        return list;
    if (rc_on(c, RC_FAULT_IGNORE_404)) {
        fprintf(stderr, "refclient: the server forgot the session (404): giving up (fault)\n");
        return NULL;
    }
    fprintf(stderr, "refclient: the server forgot the session (404): initializing again\n");
    c->session_lost = false;
    c->negotiated[0] = '\0';
    if (!handshake(c))
        return NULL;
    send_json(c, request(4, "tools/list", NULL, false));
    return await(c, 4);
}

/* The nextCursor of a list answer (malloc'd), or NULL at the last page. "" is a real cursor
 * (PAGE-008), but not with the modern-empty-cursor-end fault. */
static char *next_cursor(const rc_client *c, const cJSON *answer)
{
    const cJSON *next = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(answer, "result"), "nextCursor");
    if (cJSON_IsString(next) && !next->valuestring[0] && rc_on(c, RC_FAULT_MODERN_EMPTY_CURSOR_END))
        return NULL;
    return cJSON_IsString(next) ? strdup(next->valuestring) : NULL;
}

static cJSON *stateless_params(const rc_client *c, const char *version, bool tools_call);

/* A page request's params: the cursor, and on 2026-07-28 (version) the _meta every request
 * carries. */
static cJSON *page_params(const rc_client *c, const char *version, const char *cursor)
{
    cJSON *params = version ? stateless_params(c, version, false) : cJSON_CreateObject();
    cJSON_AddStringToObject(params, "cursor", cursor);
    return params;
}

/* The pages after the first: each asked with the cursor exactly as given (PAGE-004) until
 * a page has no nextCursor (PAGE-007); a bounded number of them. version: 2026-07-28's, or
 * NULL in the handshake era (its own ids, then: 20 on). */
static void next_pages(rc_client *c, const cJSON *first, const char *version)
{
    char *cursor = next_cursor(c, first);
    bool again = rc_on(c, RC_FAULT_PAGE_PAST_END) || rc_on(c, RC_FAULT_MODERN_PAGE_PAST_END);
    bool stop_empty =
        rc_on(c, RC_FAULT_STOP_ON_EMPTY_PAGE) || rc_on(c, RC_FAULT_MODERN_STOP_ON_EMPTY_PAGE);
    bool last_had_tools = true;
    int base = version ? 40 : 20;
    for (int page = 0; cursor && page < 8; page++) {
        if (stop_empty && page > 0 && !last_had_tools)
            break; /* the fault: an empty page taken for the end of the list */
        if (rc_on(c, RC_FAULT_CURSOR_ALTERED))
            for (char *p = strchr(cursor, '+'); p; p = strchr(p, '+'))
                *p = ' '; /* as a careless URL decoding would */
        send_json(c, request(base + page, "tools/list", page_params(c, version, cursor), false));
        cJSON *answer = await(c, base + page);
        const cJSON *tools = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(answer, "result"), "tools");
        last_had_tools = cJSON_GetArraySize(tools) > 0;
        char *next = next_cursor(c, answer);
        cJSON_Delete(answer);
        if (!next && again) { /* the fault: once more past the end */
            again = false;
            next = cursor;
        } else
            free(cursor);
        cursor = next;
    }
    free(cursor);
}

/* tools/call asks for progress (PROG-001: a string token; 1.5 with the fault). */
static void add_progress_token(const rc_client *c, cJSON *params)
{
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    if (!meta)
        meta = cJSON_AddObjectToObject(params, "_meta");
    if (rc_on(c, RC_FAULT_PROGRESS_TOKEN_FLOAT))
        cJSON_AddNumberToObject(meta, "progressToken", 1.5);
    else
        cJSON_AddStringToObject(meta, "progressToken", "refclient-call");
    if (rc_on(c, RC_FAULT_META_RESERVED_KEY)) /* a key the spec does not define, under its prefix */
        cJSON_AddStringToObject(meta, "io.modelcontextprotocol/refclient-trace", "1");
}

/* The tool's arguments: {"text": "hello"} (an array with call-args-array). */
static void add_arguments(const rc_client *c, cJSON *params)
{
    if (rc_on(c, RC_FAULT_CALL_ARGS_ARRAY))
        cJSON_AddItemToArray(cJSON_AddArrayToObject(params, "arguments"),
                             cJSON_CreateString("hello"));
    else
        cJSON_AddStringToObject(cJSON_AddObjectToObject(params, "arguments"), "text", "hello");
}

/* tools/call as a line, with not-utf8 its "hello" spelt with a Latin-1 e-acute byte. */
static void send_call(rc_client *c, cJSON *m)
{
    char *s = mcps_json_print(m, NULL);
    char *hello = s && rc_on(c, RC_FAULT_NOT_UTF8) ? strstr(s, "\"hello\"") : NULL;
    if (hello)
        hello[2] = (char)0xE9;
    if (s)
        rc_write_line(c, s);
    free(s);
    cJSON_Delete(m);
}

/* Whether the first tool of a tools/list answer may run as a task: its
 * execution.taskSupport is "required" or "optional" (TASK-003, TASK-005). */
static bool tool_takes_task(const cJSON *answer)
{
    const cJSON *tool =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
                               cJSON_GetObjectItemCaseSensitive(answer, "result"), "tools"),
                           0);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(tool, "execution"), "taskSupport");
    return cJSON_IsString(s) &&
           (strcmp(s->valuestring, "required") == 0 || strcmp(s->valuestring, "optional") == 0);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static const char *status_of(const cJSON *task)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(task, "status");
    return cJSON_IsString(s) ? s->valuestring : "";
}

/* The task a CreateTaskResult names: polled with tasks/get every pollInterval (TASK-014) while
 * working, then its result fetched with tasks/result, which also serves what the task asks
 * meanwhile (input_required: TASK-020). Bounded by RC_MAX_POLLS. */
static void run_task(rc_client *c, int call_id, const cJSON *task)
{
    const cJSON *tid = cJSON_GetObjectItemCaseSensitive(task, "taskId");
    const cJSON *interval = cJSON_GetObjectItemCaseSensitive(task, "pollInterval");
    long poll = cJSON_IsNumber(interval) ? (long)interval->valuedouble : 1000;
    if (!cJSON_IsString(tid))
        return;
    if (poll < 0 || poll > 5000)
        poll = 5000;
    if (rc_on(c, RC_FAULT_TASK_CANCEL_NOTIFY))
        send_cancel(c, call_id);
    char *status = strdup(status_of(task));
    for (int n = 0; status && strcmp(status, "working") == 0 && n < RC_MAX_POLLS; n++) {
        if (!rc_on(c, RC_FAULT_POLL_FAST))
            sleep_ms(poll);
        cJSON *params = cJSON_CreateObject();
        cJSON_AddStringToObject(params, "taskId", tid->valuestring);
        if (rc_on(c, RC_FAULT_TASK_META_ON_GET))
            cJSON_AddStringToObject(
                cJSON_AddObjectToObject(cJSON_AddObjectToObject(params, "_meta"), RC_RELATED_TASK),
                "taskId", tid->valuestring);
        send_json(c, request(40 + n, "tasks/get", params, false));
        cJSON *answer = await(c, 40 + n);
        free(status);
        status =
            answer ? strdup(status_of(cJSON_GetObjectItemCaseSensitive(answer, "result"))) : NULL;
        cJSON_Delete(answer);
    }
    bool ask = status && (strcmp(status, "input_required") == 0 ? !rc_on(c, RC_FAULT_TASK_NO_RESULT)
                                                                : strcmp(status, "working") != 0);
    free(status);
    if (!ask)
        return;
    cJSON *params = cJSON_CreateObject();
    cJSON_AddStringToObject(params, "taskId", tid->valuestring);
    send_json(c, request(70, "tasks/result", params, false));
    cJSON_Delete(await(c, 70));
}

/* A request it has no business sending (undeclared-prompts, newer-method), and its answer. */
static void send_extra(rc_client *c, int id, const char *method)
{
    send_json(c, request(id, method, NULL, false));
    cJSON_Delete(await(c, id));
}

static void list_and_call(rc_client *c)
{
    cJSON *list = list_tools(c);
    if (list)
        next_pages(c, list, NULL);
    if (list && rc_on(c, RC_FAULT_UNDECLARED_PROMPTS))
        send_extra(c, 5, "prompts/list");
    if (list && rc_on(c, RC_FAULT_NEWER_METHOD))
        send_extra(c, 6, "tasks/list");
    char *tool = list ? first_tool(list) : NULL;
    bool as_task = c->server_tasks && tool_takes_task(list) && !rc_on(c, RC_FAULT_TASK_PLAIN_CALL);
    cJSON *params = cJSON_CreateObject();
    cJSON_AddStringToObject(params, "name", tool ? tool : "");
    add_arguments(c, params);
    if (tool && !rc_on(c, RC_FAULT_CALL_ARGS_ARRAY)) /* tuples (prefixItems: GEN-JSCH-001) */
        rc_schema_fill(
            c,
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
                                   cJSON_GetObjectItemCaseSensitive(list, "result"), "tools"),
                               0),
            cJSON_GetObjectItemCaseSensitive(params, "arguments"));
    cJSON_Delete(list);
    if (!tool) {
        cJSON_Delete(params);
        return;
    }
    add_progress_token(c, params);
    if (as_task || rc_on(c, RC_FAULT_TASK_CALL))
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(params, "task"), "ttl", 60000);
    free(tool);
    int id = rc_on(c, RC_FAULT_REUSE_ID) ? 2 : 3;
    send_call(c, request(id, "tools/call", params, rc_on(c, RC_FAULT_JSONRPC_1)));
    cJSON *answer = await(c, id);
    const cJSON *task = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(answer, "result"), "task");
    if (as_task && cJSON_IsObject(task)) /* a CreateTaskResult */
        run_task(c, id, task);
    cJSON_Delete(answer);
}

/* ---- 2026-07-28 (--protocol-version 2026-07-28): no handshake, every request carries its
 * version, capabilities and identity in _meta (VER-001, STATE-001, STATE-003). refclient is
 * then modern-only: a server that does not know server/discover is not one it can use. */

static cJSON *stateless_params(const rc_client *c, const char *version, bool tools_call)
{
    cJSON *p = cJSON_CreateObject();
    cJSON *meta = cJSON_AddObjectToObject(p, "_meta");
    if (!(tools_call && rc_on(c, RC_FAULT_META_NO_VERSION)))
        cJSON_AddStringToObject(meta, "io.modelcontextprotocol/protocolVersion", version);
    cJSON *caps = cJSON_AddObjectToObject(meta, "io.modelcontextprotocol/clientCapabilities");
    if (declares_modern(c, "roots")) /* deprecated there (VER-011): --deprecated-caps only */
        cJSON_AddObjectToObject(caps, "roots");
    if (declares_modern(c, "sampling") && c->sampling_tools)
        cJSON_AddObjectToObject(cJSON_AddObjectToObject(caps, "sampling"), "tools");
    else if (declares_modern(c, "sampling"))
        cJSON_AddObjectToObject(caps, "sampling");
    if (declares(c, "elicitation"))
        cJSON_AddObjectToObject(cJSON_AddObjectToObject(caps, "elicitation"), "form");
    if (rc_on(c, RC_FAULT_LOG_LEVEL_VERBOSE)) /* not an RFC 5424 level (LOG-002) */
        cJSON_AddStringToObject(meta, "io.modelcontextprotocol/logLevel", "verbose");
    if (rc_on(c, RC_FAULT_EXTENSION_NO_PREFIX)) /* an identifier needs a prefix (VER-009) */
        cJSON_AddObjectToObject(cJSON_AddObjectToObject(caps, "extensions"), "refclient-ext");
    if (!rc_on(c, RC_FAULT_META_NO_CLIENTINFO)) {
        cJSON *info = cJSON_AddObjectToObject(meta, "io.modelcontextprotocol/clientInfo");
        cJSON_AddStringToObject(info, "name", "refclient");
        cJSON_AddStringToObject(info, "version", MCPS_VERSION);
    }
    return p;
}

/* Whether list (an array of strings) names version. */
static bool lists_version(const cJSON *list, const char *version)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, list)
    {
        if (cJSON_IsString(v) && strcmp(v->valuestring, version) == 0)
            return true;
    }
    return false;
}

/* A request and its answer; a -32022 naming a version refclient speaks is retried once with
 * it and a new id (VER-003). NULL: no usable answer. */
static cJSON *stateless_call(rc_client *c, int id, const char *method, cJSON *params)
{
    send_json(c, request(id, method, cJSON_Duplicate(params, true), false));
    cJSON *answer = await(c, id);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(answer, "error");
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
    if (!cJSON_IsNumber(code) || code->valuedouble != -32022) {
        cJSON_Delete(params);
        return answer;
    }
    const cJSON *supported =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "data"), "supported");
    bool retry = lists_version(supported, c->version) && !rc_on(c, RC_FAULT_NO_VERSION_RETRY);
    cJSON_Delete(answer);
    if (!retry) {
        fprintf(stderr, "refclient: %s refused (-32022) and no version to retry with\n", method);
        cJSON_Delete(params);
        return NULL;
    }
    send_json(c, request(id + 10, method, params, false));
    return await(c, id + 10);
}

static bool result_of(const cJSON *answer)
{
    return cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(answer, "result"));
}

/* --sampling-tools: a sampling request carrying tools is answered by using the first tool
 * (a canned call, no arguments), a tool_use block (SAMP-014). */
static cJSON *tool_use_result(const rc_client *c, const cJSON *params)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(params, "tools"), 0), "name");
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "role", "assistant");
    cJSON *use = cJSON_CreateObject();
    cJSON_AddStringToObject(use, "type", "tool_use");
    if (!rc_on(c, RC_FAULT_TOOL_USE_NO_ID))
        cJSON_AddStringToObject(use, "id", "refclient-tool-use-1");
    cJSON_AddStringToObject(use, "name", cJSON_IsString(name) ? name->valuestring : "tool");
    if (!rc_on(c, RC_FAULT_TOOL_USE_NO_INPUT))
        cJSON_AddObjectToObject(use, "input");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "content"), use);
    cJSON_AddStringToObject(r, "model", "refclient-canned");
    cJSON_AddStringToObject(r, "stopReason", "toolUse");
    return r;
}

/* The answers to an InputRequiredResult's inputRequests, each as the server request it
 * stands for would be answered; a request it does not serve gets no entry, and neither does one
 * it would refuse (2026-07-28 has no error slot in inputResponses: a sampling request carrying
 * tools, SAMP-009). */
static cJSON *input_responses(const rc_client *c, const cJSON *asks)
{
    cJSON *out = cJSON_CreateObject();
    const cJSON *ask;
    cJSON_ArrayForEach(ask, asks)
    {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(ask, "method");
        const char *method = cJSON_IsString(m) ? m->valuestring : "";
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(ask, "params");
        if (strcmp(method, "elicitation/create") == 0 && serves(c, "elicitation"))
            cJSON_AddItemToObject(out, ask->string, elicit_result(c));
        else if (strcmp(method, "roots/list") == 0 && declares_modern(c, "roots"))
            cJSON_AddItemToObject(out, ask->string, roots_result(c));
        else if (strcmp(method, "sampling/createMessage") == 0 && declares_modern(c, "sampling") &&
                 sampling_tools_asked(params) && c->sampling_tools)
            cJSON_AddItemToObject(out, ask->string, tool_use_result(c, params));
        else if (strcmp(method, "sampling/createMessage") == 0 && declares_modern(c, "sampling") &&
                 (!sampling_tools_asked(params) || rc_on(c, RC_FAULT_MRTR_SAMPLING_TOOLS)))
            cJSON_AddItemToObject(out, ask->string, sampling_result(c));
    }
    return out;
}

/* The mrtr-*-undeclared faults: the retry's clientCapabilities lose what it answers. */
static void drop_declared(const rc_client *c, cJSON *params)
{
    cJSON *caps =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(params, "_meta"),
                                         "io.modelcontextprotocol/clientCapabilities");
    if (rc_on(c, RC_FAULT_MRTR_ROOTS_UNDECLARED))
        cJSON_DeleteItemFromObjectCaseSensitive(caps, "roots");
    if (rc_on(c, RC_FAULT_MRTR_SAMPLING_UNDECLARED))
        cJSON_DeleteItemFromObjectCaseSensitive(caps, "sampling");
}

/* An InputRequiredResult (MRTR) for request `params` (id): retried once, a new request with
 * the same params, the answers asked for and the requestState as given (MRTR-010..014). */
static cJSON *mrtr_retry(rc_client *c, int id, cJSON *params, cJSON *answer)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(answer, "result");
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(r, "requestState");
    if (!rc_on(c, RC_FAULT_MRTR_NO_INPUTS))
        cJSON_AddItemToObject(
            params, "inputResponses",
            input_responses(c, cJSON_GetObjectItemCaseSensitive(r, "inputRequests")));
    if (cJSON_IsString(state)) {
        cJSON *copy = cJSON_CreateString(state->valuestring);
        if (rc_on(c, RC_FAULT_MRTR_STATE_ALTERED) && copy->valuestring[0])
            copy->valuestring[0] = copy->valuestring[0] == 'x' ? 'y' : 'x';
        cJSON_AddItemToObject(params, "requestState", copy);
    }
    drop_declared(c, params);
    if (rc_on(c, RC_FAULT_MRTR_ARGS_CHANGED))
        cJSON_ReplaceItemInObjectCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(params, "arguments"), "text",
            cJSON_CreateString("hello again"));
    if (rc_on(c, RC_FAULT_MRTR_STATE_LEAK)) { /* another request carrying them meanwhile */
        cJSON *other = stateless_params(c, c->version, false);
        cJSON_AddItemToObject(other, "requestState", cJSON_Duplicate(state, true));
        send_json(c, request(id + 30, "tools/list", other, false));
        cJSON_Delete(await(c, id + 30));
    }
    cJSON_Delete(answer);
    int again = rc_on(c, RC_FAULT_MRTR_SAME_ID) ? id : id + 20;
    send_json(c, request(again, "tools/call", params, false));
    return await(c, again);
}

/* Whether answer is an InputRequiredResult. */
static bool input_required(const cJSON *answer)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(answer, "result"), "resultType");
    return cJSON_IsString(t) && strcmp(t->valuestring, "input_required") == 0;
}

/* The first tool's x-mcp-header arguments (top-level properties; at most 4), for http.c to
 * mirror into Mcp-Param-* headers on its tools/call (HDR-009). */
static void note_mirrors(rc_client *c, const cJSON *list)
{
    const cJSON *tool = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(list, "result"), "tools"),
        0);
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(tool, "inputSchema"), "properties");
    const cJSON *p;
    c->nmirror = 0;
    cJSON_ArrayForEach(p, props)
    {
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(p, "x-mcp-header");
        if (!cJSON_IsString(h) || !p->string || c->nmirror >= 4)
            continue;
        snprintf(c->mirror_prop[c->nmirror], sizeof c->mirror_prop[0], "%s", p->string);
        snprintf(c->mirror_header[c->nmirror], sizeof c->mirror_header[0], "%s", h->valuestring);
        c->nmirror++;
    }
}

/* server/discover, or with the modern-batch fault the same inside a one-element array
 * (HTTP-048: a 2026-07-28 POST body is one message). */
static cJSON *discover(rc_client *c)
{
    int id = c->auto_era ? 90 : 1; /* auto: not initialize's id, which may follow on stdio */
    if (!rc_on(c, RC_FAULT_MODERN_BATCH))
        return stateless_call(c, id, "server/discover", stateless_params(c, c->version, false));
    cJSON *batch = cJSON_CreateArray();
    cJSON_AddItemToArray(
        batch, request(id, "server/discover", stateless_params(c, c->version, false), false));
    send_json(c, batch);
    return await(c, id);
}

/* The code of answer's error; 0 when it is no error. */
static int error_code(const cJSON *answer)
{
    const cJSON *code =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(answer, "error"), "code");
    return cJSON_IsNumber(code) ? code->valueint : 0;
}

/* Whether a DiscoverResult advertises extensions (the leave-on-extension fault's cue). */
static bool extensions_of(const cJSON *d)
{
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(d, "result"), "capabilities");
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(caps, "extensions");
    return cJSON_IsObject(ext) && ext->child;
}

/* An error only a 2026-07-28 server sends (HTTP-058): -32022, -32021 or -32020. */
static bool modern_error(const cJSON *answer)
{
    const cJSON *code =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(answer, "error"), "code");
    return cJSON_IsNumber(code) && code->valuedouble >= -32022 && code->valuedouble <= -32020;
}

/* The probe-code-ignored fault: an error other than -32601 not taken for a legacy server's. */
static bool probe_code_ignored(const rc_client *c, const cJSON *d)
{
    return rc_on(c, RC_FAULT_PROBE_CODE_IGNORED) && error_code(d) && error_code(d) != -32601;
}

/* --protocol-version auto: whether the discover answer d says "a legacy server" (an error
 * that is not a modern one, or none): then it falls back to initialize (STDIO-009, HTTP-058). */
static bool legacy_answer(const rc_client *c, const cJSON *d)
{
    return c->auto_era && !result_of(d) && !modern_error(d) && !rc_on(c, RC_FAULT_ERA_IGNORE_400) &&
           !probe_code_ignored(c, d);
}

/* Whether a DiscoverResult declares tools.listChanged: the changes come on a subscription. */
static bool list_changes(const cJSON *d)
{
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "result"),
                                         "capabilities"),
        "tools");
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(tools, "listChanged"));
}

/* Serve the server until its acknowledgment of a subscription arrives (or the timeout). */
static void await_ack(rc_client *c)
{
    char *line;
    cJSON *none = NULL;
    while (!c->ack && (line = rc_read_line(c))) {
        bool ok = on_line(c, line, -1, &none);
        free(line);
        cJSON_Delete(none);
        none = NULL;
        if (!ok) {
            fprintf(stderr, "refclient: giving up on a message from the server (fault)\n");
            exit(1);
        }
    }
}

/* stdio: subscriptions/listen for tool list changes (SUB-001), left open; the acknowledged
 * filter compared with the one asked (SUB-005): a type left out is refreshed by the list's
 * ttlMs instead. False: give up (the listen-leave-narrowed fault). */
static bool subscribe(rc_client *c)
{
    cJSON *p = stateless_params(c, c->version, false);
    cJSON *f = cJSON_AddObjectToObject(p, "notifications");
    if (rc_on(c, RC_FAULT_LISTEN_FILTER_STRING))
        cJSON_AddStringToObject(f, "toolsListChanged", "true");
    else
        cJSON_AddTrueToObject(f, "toolsListChanged");
    cJSON_Delete(c->ack);
    c->ack = NULL;
    send_json(c, request(80, "subscriptions/listen", p, false));
    await_ack(c);
    if (!c->ack || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c->ack, "toolsListChanged")))
        return true;
    if (rc_on(c, RC_FAULT_LISTEN_LEAVE_NARROWED)) {
        fprintf(stderr, "refclient: the server honours no tools/list_changed: leaving (fault)\n");
        return false;
    }
    fprintf(stderr, "refclient: no tools/list_changed from this server: the list's ttlMs "
                    "decides when to list again\n");
    return true;
}

/* Whether the stdio server died while refclient waited for an answer. */
static bool server_lost(const rc_client *c)
{
    return !c->url && c->server_gone;
}

/* The first tool's tuple arguments (prefixItems), from a tools/list answer. */
static cJSON *tuple_arguments(const rc_client *c, const cJSON *list)
{
    cJSON *out = cJSON_CreateObject();
    rc_schema_fill(
        c,
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
                               cJSON_GetObjectItemCaseSensitive(list, "result"), "tools"),
                           0),
        out);
    return out;
}

/* The structured-object-only fault's cue: a structuredContent that is not an object. */
static bool structured_not_object(const cJSON *answer)
{
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(answer, "result"), "structuredContent");
    return sc && !cJSON_IsObject(sc);
}

/* A tools/call refused with -32020 (HeaderMismatch) over HTTP: the tool's x-mcp-header may
 * have changed, so the tools are listed again (their new Mcp-Param-* headers noted) and the
 * call sent again, once, with a new id (HDR-014). answer is consumed. */
static cJSON *header_retry(rc_client *c, const cJSON *params, const char *v, cJSON *answer)
{
    cJSON_Delete(answer);
    fprintf(stderr, "refclient: tools/call refused with -32020: %s\n",
            rc_on(c, RC_FAULT_HEADER_NO_RELIST) ? "sending it again (fault)"
                                                : "listing the tools again");
    if (!rc_on(c, RC_FAULT_HEADER_NO_RELIST)) {
        cJSON *list = stateless_call(c, 70, "tools/list", stateless_params(c, v, false));
        if (result_of(list))
            note_mirrors(c, list);
        cJSON_Delete(list);
    }
    return stateless_call(c, 71, "tools/call", cJSON_Duplicate(params, true));
}

/* 0 done, 1 unusable, 2 a legacy server (auto), 3 the stdio server died mid-request. */
static int stateless_session(rc_client *c)
{
    bool listen = false;
    if (!rc_on(c, RC_FAULT_NO_DISCOVER)) {
        cJSON *d = discover(c);
        if (!d && server_lost(c))
            return 3;
        listen = !c->url && list_changes(d) && !(c->restarted && rc_on(c, RC_FAULT_NO_RELISTEN));
        const cJSON *versions = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(d, "result"), "supportedVersions");
        bool ok = result_of(d) && lists_version(versions, c->version) &&
                  !(rc_on(c, RC_FAULT_LEAVE_ON_EXTENSION) && extensions_of(d)) &&
                  !(rc_on(c, RC_FAULT_MODERN_REJECT_UNKNOWN_META) &&
                    unknown_reserved_meta(cJSON_GetObjectItemCaseSensitive(d, "result")));
        bool legacy = legacy_answer(c, d);
        /* the era-ignore-400 fault goes on as if the refusal said nothing */
        ok |= c->auto_era && (rc_on(c, RC_FAULT_ERA_IGNORE_400) || probe_code_ignored(c, d)) &&
              !modern_error(d);
        cJSON_Delete(d);
        if (legacy)
            return 2;
        if (!ok) {
            fprintf(stderr, "refclient: the server does not speak %s: disconnecting\n", c->version);
            return 1;
        }
        if (rc_on(c, RC_FAULT_MODERN_RESPONSE))
            rc_write_line(c, "{\"jsonrpc\":\"2.0\",\"id\":\"refclient-stray\",\"result\":{}}");
        if (rc_on(c, RC_FAULT_REDISCOVER))
            cJSON_Delete(
                stateless_call(c, 7, "server/discover", stateless_params(c, c->version, false)));
        if (rc_on(c, RC_FAULT_MODERN_PING))
            cJSON_Delete(stateless_call(c, 8, "ping", stateless_params(c, c->version, false)));
        if (rc_on(c, RC_FAULT_INITIALIZE_AFTER_DISCOVER)) {
            send_json(c, request(9, "initialize", initialize_params(c), false));
            cJSON_Delete(await(c, 9));
        }
    }
    if (listen && !subscribe(c))
        return 1;
    /* the other-version fault names a version the server did not list (DISC-006) */
    const char *v = rc_on(c, RC_FAULT_META_OTHER_VERSION) ? "2025-11-25" : c->version;
    cJSON *list = stateless_call(c, 2, "tools/list", stateless_params(c, v, false));
    if (!list && server_lost(c))
        return 3;
    rc_schema_fetch_refs(c, list);
    if (rc_on(c, RC_FAULT_DEEP_SCHEMA_CRASH) && rc_schema_depth(list) > 64) {
        fprintf(stderr, "refclient: a tool schema nested too deep: giving up (fault)\n");
        cJSON_Delete(list);
        return 1;
    }
    if (legacy_answer(c, list)) { /* -32601 for server/discover from a dual-era server */
        cJSON_Delete(list);
        return 2;
    }
    char *tool = result_of(list) ? first_tool(list) : NULL;
    note_mirrors(c, list);
    cJSON *tuples = tuple_arguments(c, list);
    if (tool)
        next_pages(c, list, v);
    cJSON_Delete(list);
    if (!tool) {
        cJSON_Delete(tuples);
        return 0;
    }
    cJSON *params = stateless_params(c, v, true);
    cJSON_AddStringToObject(params, "name", tool);
    add_arguments(c, params);
    cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments"), *t;
    while (cJSON_IsObject(args) && (t = cJSON_DetachItemFromArray(tuples, 0)))
        cJSON_AddItemToObject(args, t->string, t);
    cJSON_Delete(tuples);
    add_progress_token(c, params);
    free(tool);
    cJSON *keep = cJSON_Duplicate(params, true);
    cJSON *answer = stateless_call(c, 3, "tools/call", params);
    if (!answer && server_lost(c)) {
        cJSON_Delete(keep);
        return 3;
    }
    if (rc_on(c, RC_FAULT_STRUCTURED_OBJECT_ONLY) && structured_not_object(answer)) {
        fprintf(stderr,
                "refclient: a structuredContent that is not an object: giving up (fault)\n");
        cJSON_Delete(keep);
        cJSON_Delete(answer);
        return 1;
    }
    if (input_required(answer))
        answer = mrtr_retry(c, 3, cJSON_Duplicate(keep, true), answer);
    if (c->url && error_code(answer) == -32020)
        answer = header_retry(c, keep, v, answer);
    if (rc_on(c, RC_FAULT_CODE_REDISCOVER) && error_code(answer) == -32001) /* read as "stale" */
        cJSON_Delete(stateless_call(c, 60, "server/discover", stateless_params(c, v, false)));
    cJSON_Delete(keep);
    cJSON_Delete(answer);
    return 0;
}

/* stateless_session, and once more on a new server process when the first died mid-request
 * (STDIO-013): the lost request is sent again there, and the subscription opened again
 * (SUB-011), since a new process keeps no state. */
static int modern_session(rc_client *c)
{
    int r = stateless_session(c);
    if (r != 3)
        return r;
    if (rc_on(c, RC_FAULT_NO_RESTART)) {
        fprintf(stderr, "refclient: the server died mid-request: giving up (fault)\n");
        return 1;
    }
    fprintf(stderr, "refclient: the server died mid-request: starting it again\n");
    rc_stop_server(c);
    if (!rc_start_server(c, c->server_argv))
        return 1;
    c->restarted = true;
    c->id_base = 100;
    r = stateless_session(c);
    return r == 3 ? 1 : r;
}

int rc_session(rc_client *c)
{
    if (c->auto_era) { /* 2026-07-28 first; a legacy server's refusal: the handshake instead */
        c->version = "2026-07-28";
        int r = modern_session(c);
        if (r != 2)
            return r;
        fprintf(stderr, "refclient: not a 2026-07-28 server: initializing with 2025-11-25\n");
        c->version = "2025-11-25";
    }
    if (mcps_rev_parse(c->version) == MCPS_REV_2026_07_28)
        return modern_session(c);
    if (!handshake(c))
        return 1;
    list_and_call(c);
    return 0;
}
