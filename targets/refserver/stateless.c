/*
 * stateless.c - protocol revision 2026-07-28 on stdio: no handshake, every
 * request self-describing.
 *
 * A process that has not been initialized serves any request whose
 * params._meta names a protocol version (and server/discover always) the
 * 2026-07-28 way: the version must be 2026-07-28 (else -32022 with
 * data.supported and data.requested, VER-002), clientCapabilities must be
 * there (else -32602, STATE-002), and the request is handled with only what
 * it carries (STATE-006): its capabilities replace any earlier request's.
 * Methods 2026-07-28 removed (ping, logging/setLevel, resources/subscribe,
 * tasks/...) are unknown (-32601, PING-004, TASK-028). Every result gets
 * resultType (RPC-RT-001) and serverInfo in _meta (STATE-004); the cacheable
 * ones get ttlMs and cacheScope (CACHE-001). Nothing is sent that is not
 * request-scoped: no log messages (LOG-009: refserver checks a logLevel,
 * LOG-006, but sends none), list_changed and updated notifications only on the
 * subscriptions/listen streams that opted into them (listen.c), and no
 * requests to the client (RPC-DIR-001): the tools that would ask the client
 * answer -32021 without the capability they need (STATE-008), and with it an
 * InputRequiredResult (MRTR): the retry carries the answer in inputResponses
 * and the requestState refserver gave, which it checks (MRTR-007).
 *
 * By default refserver is dual-era (VER-007): `initialize` (which carries no
 * per-request version) still starts a handshake-era session, and from then on
 * the process is that revision's (VER-008). With --modern-only
 * every request is a 2026-07-28 one, and initialize is refused naming the
 * supported versions (VER-006).
 */
#include "server.h"
#include "tools.h"

#include "codec/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPS    "io.modelcontextprotocol/clientCapabilities"
#define META_SERVER  "io.modelcontextprotocol/serverInfo"
#define META_CLIENT  "io.modelcontextprotocol/clientInfo"
#define META_LEVEL   "io.modelcontextprotocol/logLevel"
#define MODERN       "2026-07-28"

bool rs_stateless(const rs_server *s)
{
    return !s->initialized && s->rev == MCPS_REV_2026_07_28;
}

static const cJSON *meta_of(const rs_req *req)
{
    return cJSON_GetObjectItemCaseSensitive(req->params, "_meta");
}

/* Is req a 2026-07-28 request? A dual-era process decides by the request (VER-008). */
static bool modern_request(const rs_server *s, const rs_req *req)
{
    if (s->initialized)
        return false;
    if (s->modern_only || rs_streq(req->method, "server/discover"))
        return true;
    return cJSON_GetObjectItemCaseSensitive(meta_of(req), META_VERSION) != NULL;
}

static bool removed_method(const char *method)
{
    static const char *const removed[] = {
        "ping",       "logging/setLevel", "resources/subscribe", "resources/unsubscribe",
        "tasks/get",  "tasks/result",     "tasks/list",          "tasks/cancel",
        "initialize",
    };
    for (size_t i = 0; i < sizeof removed / sizeof *removed; i++)
        if (strcmp(method, removed[i]) == 0)
            return true;
    return false;
}

static bool cacheable(const char *method)
{
    static const char *const methods[] = {
        "server/discover",          "tools/list",    "prompts/list", "resources/list",
        "resources/templates/list", "resources/read"};
    for (size_t i = 0; i < sizeof methods / sizeof *methods; i++)
        if (strcmp(method, methods[i]) == 0)
            return true;
    return false;
}

/* -32022 (VER-002); the unsupported-version-bare fault leaves out data. */
static void refuse_version(const rs_server *s, const char *requested, rs_reply *r)
{
    rs_fail(r, RS_UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version");
    if (rs_fault_on(s, RS_FAULT_UNSUPPORTED_VERSION_BARE))
        return;
    r->data = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r->data, "supported"), cJSON_CreateString(MODERN));
    cJSON_AddStringToObject(r->data, "requested", requested ? requested : "");
}

/* The optional _meta keys refserver reads: a logLevel it does not know rejects the whole
 * request (LOG-006); trace context is someone else's business and must not hurt (GEN-META-006),
 * except under the trace-context-rejected fault. True when the request may go on. */
static bool check_optional_meta(const rs_server *s, const cJSON *meta, rs_reply *r)
{
    const cJSON *level = cJSON_GetObjectItemCaseSensitive(meta, META_LEVEL);
    rs_level parsed;
    if (level && !(cJSON_IsString(level) && rs_level_parse(level->valuestring, &parsed)) &&
        !rs_fault_on(s, RS_FAULT_META_LOG_LEVEL_UNCHECKED)) {
        rs_fail(r, RS_INVALID_PARAMS, "Invalid params: _meta \"%s\" is no log level", META_LEVEL);
        return false;
    }
    if (cJSON_HasObjectItem(meta, "traceparent") &&
        rs_fault_on(s, RS_FAULT_TRACE_CONTEXT_REJECTED)) {
        rs_fail(r, RS_INVALID_PARAMS, "Invalid params: unexpected _meta \"traceparent\"");
        return false;
    }
    return true;
}

/* The version and capabilities every request carries; false with r failed. */
static bool check_meta(rs_server *s, const rs_req *req, rs_reply *r)
{
    const cJSON *meta = meta_of(req);
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(meta, META_VERSION);
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(meta, META_CAPS);
    if (!cJSON_IsString(version)) {
        rs_fail(r, RS_INVALID_PARAMS, "Invalid params: _meta \"%s\" is required", META_VERSION);
        return false;
    }
    if (strcmp(version->valuestring, MODERN) != 0) {
        refuse_version(s, version->valuestring, r);
        return false;
    }
    if (!cJSON_IsObject(caps) && !rs_fault_on(s, RS_FAULT_MISSING_CAPS_ACCEPTED)) {
        rs_fail(r, RS_INVALID_PARAMS, "Invalid params: _meta \"%s\" is required", META_CAPS);
        return false;
    }
    if (!check_optional_meta(s, meta, r))
        return false;
    /* This request's capabilities, and nobody else's (STATE-006). */
    mcps_json_delete(s->client_caps);
    s->client_caps = cJSON_IsObject(caps) ? cJSON_Duplicate(caps, true) : NULL;
    return true;
}

static void discover(rs_server *s, rs_reply *r)
{
    cJSON *result = cJSON_CreateObject();
    cJSON *versions = cJSON_AddArrayToObject(result, "supportedVersions");
    if (!rs_fault_on(s, RS_FAULT_DISCOVER_NO_VERSION))
        cJSON_AddItemToArray(versions, cJSON_CreateString(MODERN));
    else
        cJSON_AddItemToArray(versions, cJSON_CreateString("2025-11-25"));
    cJSON *caps = rs_capabilities(s);
    /* One prefixed extension (VER-009), so that there is a key to judge; it names refserver's
     * own namespace and promises nothing a client could use. */
    const char *ext =
        rs_fault_on(s, RS_FAULT_EXTENSION_UNPREFIXED) ? "reference" : "dev.mcpspec/reference";
    cJSON_AddObjectToObject(cJSON_AddObjectToObject(caps, "extensions"), ext);
    cJSON_AddItemToObject(result, "capabilities", caps);
    cJSON_AddStringToObject(result, "instructions",
                            "Reference MCP server of the mcpspec conformance harness.");
    rs_ok(r, result);
}

/* CACHE-001: refserver's lists and resources can change with any tool call, so at once stale.
 * Every page of a listing has the same scope (CACHE-010) but under cache-scope-per-page. */
static void cache_hints(const rs_server *s, const rs_req *req, cJSON *result)
{
    const char *method = req->method;
    if (!cJSON_IsObject(result) || !cacheable(method) ||
        (rs_streq(method, "server/discover") && rs_fault_on(s, RS_FAULT_DISCOVER_NO_CACHE_HINTS)))
        return;
    bool later_page = cJSON_HasObjectItem(req->params, "cursor");
    cJSON_AddNumberToObject(result, "ttlMs", rs_streq(method, "server/discover") ? 60000 : 0);
    cJSON_AddStringToObject(result, "cacheScope",
                            later_page && rs_fault_on(s, RS_FAULT_CACHE_SCOPE_PER_PAGE) ? "private"
                                                                                        : "public");
}

/* The client-info-tailored fault: clientInfo, a self-description, decides what is listed
 * (STATE-005 says it must not). */
static void tailor(const rs_server *s, const rs_req *req, cJSON *result)
{
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(meta_of(req), META_CLIENT);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(info, "name");
    cJSON *tools = cJSON_GetObjectItemCaseSensitive(result, "tools");
    if (!rs_streq(req->method, "tools/list") || !rs_fault_on(s, RS_FAULT_CLIENT_INFO_TAILORED) ||
        !cJSON_IsString(name) || !rs_streq(name->valuestring, "claude-ai") ||
        !cJSON_IsArray(tools) || !tools->child)
        return;
    mcps_json_delete(cJSON_DetachItemViaPointer(tools, tools->child));
}

/* The tools-order-unstable fault: every other listing comes reversed (TOOL-019). */
static void shuffle(rs_server *s, const char *method, cJSON *result)
{
    if (!rs_streq(method, "tools/list") || !rs_fault_on(s, RS_FAULT_TOOLS_ORDER_UNSTABLE))
        return;
    cJSON *tools = cJSON_GetObjectItemCaseSensitive(result, "tools");
    if (!cJSON_IsArray(tools) || s->listings++ % 2 == 0)
        return;
    cJSON *reversed = cJSON_CreateArray();
    while (tools->child)
        cJSON_InsertItemInArray(reversed, 0, cJSON_DetachItemViaPointer(tools, tools->child));
    cJSON_ReplaceItemInObjectCaseSensitive(result, "tools", reversed);
}

/* The faults that bend an answer's code or resultType. */
static void misshape(const rs_server *s, const rs_req *req, rs_reply *r)
{
    if (r->result && rs_streq(req->method, "tools/list") &&
        rs_fault_on(s, RS_FAULT_RESULT_TYPE_UNKNOWN))
        cJSON_AddStringToObject(r->result, "resultType", "partial");
    if (r->code == RS_METHOD_NOT_FOUND && rs_fault_on(s, RS_FAULT_RESERVED_ERROR_CODE))
        r->code = -32050;
    if (r->code == RS_INVALID_PARAMS && rs_streq(req->method, "prompts/get") &&
        rs_fault_on(s, RS_FAULT_LEGACY_ERROR_CODE))
        r->code = -32001;
}

static void write_notification(rs_server *s, const char *method, cJSON *params)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddStringToObject(m, "method", method);
    cJSON_AddItemToObject(m, "params", params);
    rs_write_response(s, m);
}

/* The faults that send what 2026-07-28 forbids around a tools/list. */
static void stray_messages(rs_server *s, const rs_req *req, bool answered)
{
    if (!rs_streq(req->method, "tools/list"))
        return;
    if (!answered && rs_fault_on(s, RS_FAULT_LOG_WITHOUT_LEVEL)) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "level", "info");
        cJSON_AddStringToObject(p, "data", "listing the tools");
        write_notification(s, "notifications/message", p);
    }
    if (answered && rs_fault_on(s, RS_FAULT_CANCELLED_NOT_LISTEN) && req->id) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddItemToObject(p, "requestId", cJSON_Duplicate(req->id, true));
        write_notification(s, "notifications/cancelled", p);
    }
    if (answered && rs_fault_on(s, RS_FAULT_SERVER_REQUEST_SENT))
        rs_ask_roots_early(s);
}

bool rs_stateless_request(rs_server *s, const rs_req *req, rs_method_finder *find)
{
    if (!modern_request(s, req))
        return false;
    s->rev = MCPS_REV_2026_07_28; /* shapes every answer; no handshake will change it now */
    rs_reply r = {0};
    if (s->modern_only && rs_streq(req->method, "initialize")) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(req->params, "protocolVersion");
        refuse_version(s, cJSON_IsString(v) ? v->valuestring : NULL, &r);
        rs_answer(s, req->id, req->batch, &r);
        return true;
    }
    if (!check_meta(s, req, &r)) {
        rs_answer(s, req->id, req->batch, &r);
        return true;
    }
    rs_handler *handle = NULL;
    if (rs_streq(req->method, "server/discover"))
        discover(s, &r);
    else if (rs_streq(req->method, "subscriptions/listen"))
        rs_listen_open(s, req, &r);
    else if (removed_method(req->method) &&
             !(rs_streq(req->method, "ping") && rs_fault_on(s, RS_FAULT_REMOVED_METHOD_SERVED)))
        rs_fail(&r, RS_METHOD_NOT_FOUND, "Method not found");
    else if ((handle = find(s, req->method)) != NULL) {
        rs_fuzz_before(s, req); /* the fuzz faults hold across requests: stdio keeps one process */
        handle(s, req, &r);
        rs_fuzz_after(s, req, &r);
    } else {
        rs_fail(&r, RS_METHOD_NOT_FOUND, "Method not found");
    }
    shuffle(s, req->method, r.result);
    tailor(s, req, r.result);
    cache_hints(s, req, r.result);
    misshape(s, req, &r);
    stray_messages(s, req, false);
    rs_answer(s, req->id, req->batch, &r);
    stray_messages(s, req, true);
    return true;
}

/* serverInfo's icons (GEN-ICON-001), as initialize gives them; icon-bad-theme breaks one. */
static void add_icons(const rs_server *s, cJSON *info)
{
    cJSON *icon = cJSON_CreateObject();
    cJSON_AddStringToObject(icon, "src", "https://mcpspec.example/refserver.png");
    cJSON_AddStringToObject(icon, "mimeType", "image/png");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(icon, "sizes"), cJSON_CreateString("48x48"));
    cJSON_AddStringToObject(icon, "theme",
                            rs_fault_on(s, RS_FAULT_ICON_BAD_THEME) ? "sepia" : "light");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(info, "icons"), icon);
}

void rs_stateless_result(const rs_server *s, cJSON *msg)
{
    cJSON *result = cJSON_GetObjectItemCaseSensitive(msg, "result");
    if (!rs_stateless(s) || !cJSON_IsObject(result))
        return;
    if (!cJSON_HasObjectItem(result, "resultType") && !rs_fault_on(s, RS_FAULT_NO_RESULT_TYPE))
        cJSON_AddStringToObject(result, "resultType", "complete");
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(result, "_meta");
    if (!meta)
        meta = cJSON_AddObjectToObject(result, "_meta");
    if (cJSON_IsObject(meta) && !cJSON_HasObjectItem(meta, META_SERVER) &&
        !rs_fault_on(s, RS_FAULT_NO_SERVER_INFO)) {
        cJSON *info = cJSON_AddObjectToObject(meta, META_SERVER);
        cJSON_AddStringToObject(info, "name", RS_NAME);
        cJSON_AddStringToObject(info, "version", MCPS_VERSION);
        add_icons(s, info);
    }
}

bool rs_stateless_notification_ok(const rs_server *s, const char *method)
{
    return !rs_stateless(s) || strcmp(method, "notifications/progress") == 0;
}

/* {"sampling":{}} or {"elicitation":{"url":{}}}: what a tool needs, as requiredCapabilities. */
static cJSON *required(const char *cap, const char *sub)
{
    cJSON *caps = cJSON_CreateObject();
    cJSON *c = cJSON_AddObjectToObject(caps, cap);
    if (sub)
        cJSON_AddObjectToObject(c, sub);
    return caps;
}

/* -32021 when the request did not declare what a tool needs (STATE-008); false to go on. */
bool rs_stateless_ask_client(rs_server *s, const char *cap, const char *sub, rs_reply *r)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(s->client_caps, cap);
    bool declared = cJSON_IsObject(c) && (!sub || cJSON_HasObjectItem(c, sub));
    if (declared || rs_fault_on(s, RS_FAULT_INPUT_REQUEST_UNDECLARED))
        return false;
    int code = rs_fault_on(s, RS_FAULT_MISSING_CAPABILITY_WRONG_CODE) ? RS_INTERNAL_ERROR
                                                                      : RS_MISSING_CAPABILITY;
    rs_fail(r, code, "Missing required client capability: %s%s%s", cap, sub ? "." : "",
            sub ? sub : "");
    r->data = cJSON_CreateObject();
    cJSON_AddItemToObject(r->data, "requiredCapabilities", required(cap, sub));
    return true;
}

/* ---- multi round-trip requests (MRTR) ---- */

/* FNV-1a over the text, from h: a keyed digest, enough for a test server's requestState. */
static uint64_t digest(uint64_t h, const char *text)
{
    for (; *text; text++)
        h = (h ^ (unsigned char)*text) * 1099511628211u;
    return h;
}

/* The requestState that binds this tool (or method) and input key. The key is shared by every
 * process one parent starts (the HTTP front end's per-request children, a harness's processes),
 * so a retry that another process serves still verifies, as a stateless server's must. */
static void state_for(rs_server *s, const rs_req *req, const char *key, char *out, size_t n)
{
    if (!s->state_key)
        s->state_key = ((uint64_t)getppid() << 20) ^ 14695981039346656037u;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(req->params, "name");
    uint64_t h = digest(s->state_key, req->method);
    h = digest(h, cJSON_IsString(name) ? name->valuestring : "");
    snprintf(out, n, "rs1.%016llx", (unsigned long long)digest(h, key));
}

static void input_required(const rs_server *s, const char *key, cJSON *input_request,
                           const char *state, rs_reply *r)
{
    cJSON *result = cJSON_CreateObject();
    cJSON_AddStringToObject(result, "resultType", "input_required");
    if (rs_fault_on(s, RS_FAULT_INPUT_REQUEST_JSONRPC)) {
        cJSON_AddStringToObject(input_request, "jsonrpc", "2.0");
        cJSON_AddNumberToObject(input_request, "id", 1);
    }
    if (!rs_fault_on(s, RS_FAULT_INPUT_REQUIRED_EMPTY)) {
        cJSON_AddItemToObject(cJSON_AddObjectToObject(result, "inputRequests"), key, input_request);
        cJSON_AddStringToObject(result, "requestState", state);
    } else {
        mcps_json_delete(input_request);
    }
    if (rs_fault_on(s, RS_FAULT_INPUT_REQUIRED_CACHED)) {
        cJSON_AddNumberToObject(result, "ttlMs", 0);
        cJSON_AddStringToObject(result, "cacheScope", "private");
    }
    rs_ok(r, result);
}

static bool only_key(const cJSON *responses, const char *key)
{
    for (const cJSON *e = responses->child; e; e = e->next)
        if (strcmp(e->string, key) != 0)
            return false;
    return true;
}

const cJSON *rs_mrtr_answer(rs_server *s, const rs_req *req, const char *key, cJSON *input_request,
                            bool (*well_formed)(const cJSON *answer), rs_reply *r)
{
    const cJSON *responses = cJSON_GetObjectItemCaseSensitive(req->params, "inputResponses");
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(req->params, "requestState");
    bool unchecked = rs_fault_on(s, RS_FAULT_INPUT_RESPONSES_UNCHECKED);
    const cJSON *answer =
        cJSON_IsObject(responses) ? cJSON_GetObjectItemCaseSensitive(responses, key) : NULL;
    char want[40];
    state_for(s, req, key, want, sizeof want);
    if (responses && !cJSON_IsObject(responses) && !unchecked)
        rs_fail(r, RS_INVALID_PARAMS, "Invalid params: inputResponses must be an object");
    else if (answer && !well_formed(answer) && !unchecked)
        rs_fail(r, RS_INVALID_PARAMS, "Invalid params: inputResponses[\"%s\"] is malformed", key);
    else if (cJSON_IsObject(responses) && !only_key(responses, key) &&
             rs_fault_on(s, RS_FAULT_EXTRA_RESPONSES_REJECTED))
        rs_fail(r, RS_INVALID_PARAMS, "Invalid params: inputResponses has unknown entries");
    else if (answer && !(cJSON_IsString(state) && strcmp(state->valuestring, want) == 0) &&
             !rs_fault_on(s, RS_FAULT_REQUEST_STATE_UNCHECKED))
        rs_fail(r, RS_INVALID_PARAMS, "Invalid params: requestState failed verification");
    else if (answer) {
        mcps_json_delete(input_request);
        return answer;
    } else if (responses && rs_fault_on(s, RS_FAULT_REASK_AS_ERROR))
        rs_fail(r, RS_INVALID_PARAMS, "Invalid params: inputResponses[\"%s\"] is missing", key);
    else {
        input_required(s, key, input_request, want, r);
        return NULL;
    }
    mcps_json_delete(input_request);
    return NULL;
}
