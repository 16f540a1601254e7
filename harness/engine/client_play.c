/*
 * client_play.c - one scenario against one start of the client under test:
 * launch it, accept the connections its server command makes, play the
 * scripted server, and record what it sent (client_internal.h).
 *
 * The client is launched through the stdio transport (its own process group,
 * reaped, killed with its group at the end, watched by the run's watchdog);
 * its own stdout and stderr go to the wire log as diagnostics. The loop waits
 * in 50 ms slices on whichever side is due, so every wait has a deadline:
 * the case ends when the client exits, stays silent for the timeout, never
 * starts its server, or overruns its budget.
 *
 * Over Streamable HTTP ({url}) there are no relay connections: mcpspec serves
 * an endpoint on loopback (transport/httpd.h, session/play_http.c), each
 * initialize starts a session (counted as a connection), a DELETE ends it,
 * and the case ends a moment after the client exits. Over HTTP+SSE
 * ({sse-url}) the same, the session's end being the client closing its
 * SSE stream.
 */
#include "engine/client_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/array.h"
#include "base/clock.h"
#include "codec/json.h"
#include "codec/rev.h"
#include "codec/rpc.h"
#include "session/play.h"
#include "transport/httpd.h"
#include "transport/relay.h"

#define SLICE_MS        50
#define MAX_CONNECTIONS 16  /* a client restarting its server in a loop stops being served */
#define SLOW_INIT_MS    300 /* long enough for a client that does not wait to show it */
#define HTTP_LINGER_MS  10  /* after an HTTP client exits: a last look for requests it left */
#define UNSUPPORTED_REV "1999-01-01"
/* From one client in one case, past these it is flooding: what is kept for grading (parsed
 * trees cost several times their text) stays within a few tens of MiB. */
#define MAX_MESSAGES 10000
#define MAX_BYTES    ((size_t)256 * 1024)

typedef struct player {
    const mcps_client_config *cfg;
    mcps_client_trace *t;
    mcps_play play;
    mcps_relay relay;
    mcps_httpd httpd; /* cfg->http */
    int64_t exited_ms;
    bool quiet_after_exit; /* HTTP: nothing more came after the client exited */
    mcps_transport *client;
    bool answered;       /* initialize answered on the current connection */
    int64_t answered_ms; /* when */
    cJSON *held_init;    /* SLOW_INIT: the initialize we answer at init_due */
    cJSON *init_answer;  /* our last initialize answer (JUNK_DUP sends it again) */
    int64_t init_due;
    cJSON *held; /* a request of the client's held while our own request waits */
    int64_t held_until;
    int64_t last_ms; /* the client's last move */
    /* TASKS: the one task's state and how often the client asked for it */
    const char *task_status;
    int task_gets;
    int step;         /* the receiver script's next step (mcps_client_task_step) */
    mcps_httpd fetch; /* MODERN_SERVE: the listener its network $ref points at */
    int sstep;        /* SAMPLING: the next further request (mcps_client_sampling_step) */
    bool swait;       /* ...one of them awaits its answer */
} player;

const char *mcps_client_scenario_name(mcps_client_scenario sc)
{
    static const char *const names[MCPS_CSC_COUNT] = {
        "plain",          "slow-init",      "older",  "unsupported",  "ping",
        "roots",          "sampling",       "elicit", "junk-id",      "junk-json",
        "junk-notif",     "junk-duplicate", "huge",   "unknown",      "paged",
        "cancel",         "progress",       "batch",  "session-404",  "modern",
        "modern-refuse",  "modern-input",   "resume", "modern-break", "modern-paged",
        "modern-odd",     "probe-code",     "tasks",  "oddities",     "modern-deprecated",
        "modern-serve",   "modern-drop",    "auth",   "auth-issuer",  "legacy-server",
        "modern-headers",
    };
    return sc < MCPS_CSC_COUNT ? names[sc] : "?";
}

static cJSON *response(const cJSON *id, cJSON *result)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
    cJSON_AddItemToObject(m, "result", result);
    return m;
}

static void send_owned(player *p, cJSON *m)
{
    mcps_play_send(&p->play, m);
    cJSON_Delete(m);
}

static void send_error(player *p, const cJSON *id, int code, const char *message)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
    cJSON *e = cJSON_AddObjectToObject(m, "error");
    cJSON_AddNumberToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", message);
    send_owned(p, m);
}

/* The revision the scripted server answers with in this scenario. */
static const char *answer_version(const player *p, const char *asked)
{
    mcps_rev r = mcps_rev_parse(asked);
    bool known = r != MCPS_REV_NONE && mcps_rev_is_handshake(r);
    if (p->t->scenario == MCPS_CSC_UNSUPPORTED)
        return UNSUPPORTED_REV;
    if (p->t->scenario == MCPS_CSC_OLDER && known && r > MCPS_REV_2024_11_05)
        return mcps_rev_name((mcps_rev)(r - 1));
    /* batches exist in 2025-03-26 alone: a client asking a later revision is offered it */
    if (p->t->scenario == MCPS_CSC_BATCH && known && r > MCPS_REV_2025_03_26)
        return mcps_rev_name(MCPS_REV_2025_03_26);
    return known ? asked : mcps_rev_name(MCPS_REV_2025_11_25);
}

static void answer_initialize(player *p, const cJSON *req)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(req, "params");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
    const char *asked = cJSON_IsString(v) ? v->valuestring : "";
    const char *version = answer_version(p, asked);
    if (!p->t->answered[0])
        snprintf(p->t->answered, sizeof p->t->answered, "%s", version);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "protocolVersion", version);
    cJSON *caps = cJSON_AddObjectToObject(r, "capabilities");
    cJSON_AddFalseToObject(cJSON_AddObjectToObject(caps, "tools"), "listChanged");
    if (p->t->scenario == MCPS_CSC_TASKS && strcmp(version, "2025-11-25") == 0) {
        cJSON *tasks = cJSON_AddObjectToObject(caps, "tasks");
        cJSON_AddObjectToObject(tasks, "list");
        cJSON_AddObjectToObject(tasks, "cancel");
        cJSON_AddObjectToObject(
            cJSON_AddObjectToObject(cJSON_AddObjectToObject(tasks, "requests"), "tools"), "call");
        p->t->tasks_offered = true;
    }
    cJSON *info = cJSON_AddObjectToObject(r, "serverInfo");
    cJSON_AddStringToObject(info, "name", "mcpspec-scripted-server");
    cJSON_AddStringToObject(info, "version", MCPS_VERSION);
    cJSON *m = response(cJSON_GetObjectItemCaseSensitive(req, "id"), r);
    mcps_play_send(&p->play, m);
    cJSON_Delete(p->init_answer);
    p->init_answer = m;
    p->answered = true;
    p->answered_ms = mcps_clock_ms();
}

cJSON *mcps_client_echo_tool_list(const char *name, const char *header)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *tool = cJSON_CreateObject();
    cJSON_AddStringToObject(tool, "name", name);
    cJSON_AddStringToObject(tool, "description", "Returns its text argument");
    cJSON *schema = cJSON_AddObjectToObject(tool, "inputSchema");
    cJSON_AddStringToObject(schema, "type", "object");
    cJSON *text = cJSON_AddObjectToObject(cJSON_AddObjectToObject(schema, "properties"), "text");
    cJSON_AddStringToObject(text, "type", "string");
    if (header)
        cJSON_AddStringToObject(text, "x-mcp-header", header);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "tools"), tool);
    return r;
}

static cJSON *tool_list_of(const char *name)
{
    return mcps_client_echo_tool_list(name, NULL);
}

static cJSON *tool_list(void)
{
    return tool_list_of("echo");
}

/* 2026-07-28's tool list: its text argument is mirrored into a header (HDR-009). */
static cJSON *mirrored_tool_list(void)
{
    return mcps_client_echo_tool_list("echo", MCPS_CLIENT_PARAM_HEADER);
}

cJSON *mcps_client_tool_result(void)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *text = cJSON_CreateObject();
    cJSON_AddStringToObject(text, "type", "text");
    cJSON_AddStringToObject(text, "text", "ok");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "content"), text);
    cJSON_AddFalseToObject(r, "isError");
    return r;
}

const char *mcps_client_meta_version(const cJSON *m)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(m, "params");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, MCPS_CLIENT_META_VERSION);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* What every 2026-07-28 result carries: resultType (RPC-RT-001), serverInfo (STATE-004). */
static cJSON *stamped(cJSON *result)
{
    cJSON_AddStringToObject(result, "resultType", "complete");
    cJSON *info = cJSON_AddObjectToObject(cJSON_AddObjectToObject(result, "_meta"),
                                          "io.modelcontextprotocol/serverInfo");
    cJSON_AddStringToObject(info, "name", "mcpspec-scripted-server");
    cJSON_AddStringToObject(info, "version", MCPS_VERSION);
    return result;
}

cJSON *mcps_client_stamp(cJSON *result)
{
    return stamped(result);
}

/* The caching hints of a cacheable result (CACHE-001): the scripted server's lists do not
 * change, but a client need not keep them. */
static cJSON *cacheable(cJSON *result, int ttl_ms)
{
    cJSON_AddNumberToObject(result, "ttlMs", ttl_ms);
    cJSON_AddStringToObject(result, "cacheScope", "public");
    return stamped(result);
}

cJSON *mcps_client_cacheable(cJSON *result, int ttl_ms)
{
    return cacheable(result, ttl_ms);
}

/* MODERN_ODD's also advertises an extension nobody knows: the client goes on with the core
 * (VER-010). */
static cJSON *discover_result(mcps_client_scenario sc)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "supportedVersions"),
                         cJSON_CreateString(MCPS_CLIENT_MODERN));
    cJSON *caps = cJSON_AddObjectToObject(r, "capabilities");
    cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "tools"), "listChanged",
                          mcps_client_serve_list_changed(sc));
    if (sc == MCPS_CSC_MODERN_ODD)
        cJSON_AddObjectToObject(cJSON_AddObjectToObject(caps, "extensions"),
                                MCPS_CLIENT_ODD_EXTENSION);
    cacheable(r, 60000);
    if (sc == MCPS_CSC_MODERN_DEPRECATED) /* a reserved key no revision defines: GEN-META-005 */
        cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(r, "_meta"), MCPS_CLIENT_ODD_META,
                                1);
    return r;
}

/* -32022 naming the one version the scripted server speaks (VER-002). */
static void refuse_version(player *p, const cJSON *id, const char *requested)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, true) : cJSON_CreateNull());
    cJSON *e = cJSON_AddObjectToObject(m, "error");
    cJSON_AddNumberToObject(e, "code", -32022);
    cJSON_AddStringToObject(e, "message", "Unsupported protocol version");
    cJSON *data = cJSON_AddObjectToObject(e, "data");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(data, "supported"),
                         cJSON_CreateString(MCPS_CLIENT_MODERN));
    cJSON_AddStringToObject(data, "requested", requested ? requested : "");
    send_owned(p, m);
}

bool mcps_client_modern_scenario(mcps_client_scenario sc)
{
    return sc == MCPS_CSC_MODERN || sc == MCPS_CSC_MODERN_REFUSE || sc == MCPS_CSC_MODERN_INPUT ||
           sc == MCPS_CSC_MODERN_BREAK || sc == MCPS_CSC_MODERN_PAGED ||
           sc == MCPS_CSC_MODERN_ODD || sc == MCPS_CSC_MODERN_DEPRECATED ||
           mcps_client_serve_list_changed(sc) || sc == MCPS_CSC_AUTH_ISSUER ||
           sc == MCPS_CSC_MODERN_HEADERS;
}

const cJSON *mcps_client_declared_cap(const cJSON *m, const char *name)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(m, "params");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(meta, MCPS_CLIENT_META_CAPS);
    return cJSON_GetObjectItemCaseSensitive(caps, name);
}

bool mcps_client_input_elicits(const cJSON *m)
{
    return cJSON_IsObject(mcps_client_declared_cap(m, "elicitation"));
}

static cJSON *elicit_params(void);

/* An InputRequiredResult (MRTR): a requestState always, an elicitation only of a client that
 * declared it; the retry is served plainly. */
static cJSON *input_required(const cJSON *req)
{
    cJSON *r = cJSON_CreateObject();
    if (mcps_client_input_elicits(req)) {
        cJSON *ask = cJSON_AddObjectToObject(cJSON_AddObjectToObject(r, "inputRequests"),
                                             MCPS_CLIENT_INPUT_KEY);
        cJSON_AddStringToObject(ask, "method", "elicitation/create");
        cJSON_AddItemToObject(ask, "params", elicit_params());
    }
    cJSON_AddStringToObject(r, "requestState", MCPS_CLIENT_REQUEST_STATE);
    stamped(r);
    cJSON_ReplaceItemInObjectCaseSensitive(r, "resultType", cJSON_CreateString("input_required"));
    return r;
}

static cJSON *sampling_params(void);

/* MODERN_DEPRECATED's InputRequiredResult: roots/list and sampling/createMessage, each only of a
 * client whose tools/call declares it (MRTR-005), and to one declaring sampling a sampling
 * request carrying tools as well: fulfilled with well-formed tool_use blocks by one declaring
 * sampling.tools (SAMP-014), not fulfilled by one without (SAMP-009: the scripted server breaks
 * SAMP-008 on purpose); NULL when it declares neither (the call is served plainly). */
static cJSON *deprecated_input_required(const cJSON *req)
{
    const cJSON *sampling = mcps_client_declared_cap(req, "sampling");
    bool roots = cJSON_IsObject(mcps_client_declared_cap(req, "roots"));
    if (!roots && !cJSON_IsObject(sampling))
        return NULL;
    cJSON *r = cJSON_CreateObject();
    cJSON *asks = cJSON_AddObjectToObject(r, "inputRequests");
    if (roots)
        cJSON_AddStringToObject(cJSON_AddObjectToObject(asks, MCPS_CLIENT_ROOTS_KEY), "method",
                                "roots/list");
    if (cJSON_IsObject(sampling)) {
        cJSON *ask = cJSON_AddObjectToObject(asks, MCPS_CLIENT_SAMPLING_KEY);
        cJSON_AddStringToObject(ask, "method", "sampling/createMessage");
        cJSON_AddItemToObject(ask, "params", sampling_params());
    }
    if (cJSON_IsObject(sampling)) {
        cJSON *ask = cJSON_AddObjectToObject(asks, MCPS_CLIENT_TOOLS_KEY);
        cJSON *p = sampling_params();
        cJSON *tool = cJSON_CreateObject();
        cJSON_AddStringToObject(tool, "name", "get_weather");
        cJSON_AddStringToObject(cJSON_AddObjectToObject(tool, "inputSchema"), "type", "object");
        cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "tools"), tool);
        cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "toolChoice"), "mode", "auto");
        cJSON_AddStringToObject(ask, "method", "sampling/createMessage");
        cJSON_AddItemToObject(ask, "params", p);
    }
    cJSON_AddStringToObject(r, "requestState", MCPS_CLIENT_REQUEST_STATE);
    stamped(r);
    cJSON_ReplaceItemInObjectCaseSensitive(r, "resultType", cJSON_CreateString("input_required"));
    return r;
}

/* RESUME and MODERN_BREAK (HTTP): break the stream of the client's request msg after one event
 * with an id. RESUME keeps the request (its answer goes on the GET resuming it); MODERN_BREAK
 * drops it (2026-07-28 has no resumption). True when it was broken. */
static bool break_stream(player *p, const cJSON *msg, const char *method)
{
    mcps_client_trace *t = p->t;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    bool keep = t->scenario == MCPS_CSC_RESUME;
    if (!p->cfg->http || t->injected ||
        !mcps_play_break(&p->play, id, MCPS_CLIENT_EVENT_ID, MCPS_CLIENT_RETRY_MS, keep))
        return false;
    t->injected = true;
    t->inject_at = t->nmsgs;
    t->inject_method = keep ? "a broken stream to resume" : "a broken stream";
    t->broke_ms = mcps_clock_ms();
    mcps_rpc_id_text(id, t->broke_id, sizeof t->broke_id);
    snprintf(t->broke_method, sizeof t->broke_method, "%s", method);
    return true;
}

/* A legacy (handshake-era) Streamable HTTP server's answer to a 2026-07-28 request: 400, as
 * a request without a session gets there (the body no modern error: HTTP-058 has the client
 * fall back to initialize). */
static bool legacy_probe(player *p, const cJSON *msg, const char *method, const char *version)
{
    if (!p->cfg->http || mcps_client_modern_scenario(p->t->scenario) ||
        strcmp(method, "initialize") == 0 || !(version || strcmp(method, "server/discover") == 0))
        return false;
    send_error(p, cJSON_GetObjectItemCaseSensitive(msg, "id"), -32000,
               "Bad Request: no valid session ID provided");
    return true;
}

/* MODERN_PAGED's tools/list: page 1 (no cursor) leads to page 2, whose nextCursor is "" (a real
 * cursor, PAGE-008) so that only a client that pages meets it; page 3 is empty but not the last
 * (PAGE-003); page 4 is (PAGE-007). Any other cursor is invalid (-32602). */
static cJSON *modern_page(const cJSON *cursor)
{
    const char *c = cJSON_IsString(cursor) ? cursor->valuestring : NULL;
    cJSON *r = NULL;
    if (!cursor) {
        r = mirrored_tool_list();
        cJSON_AddStringToObject(r, "nextCursor", MCPS_CLIENT_MODERN_CURSOR);
    } else if (c && strcmp(c, MCPS_CLIENT_MODERN_CURSOR) == 0) {
        r = tool_list_of("echo-2");
        cJSON_AddStringToObject(r, "nextCursor", "");
    } else if (c && !c[0]) {
        r = cJSON_CreateObject();
        cJSON_AddArrayToObject(r, "tools");
        cJSON_AddStringToObject(r, "nextCursor", MCPS_CLIENT_MODERN_CURSOR4);
    } else if (c && strcmp(c, MCPS_CLIENT_MODERN_CURSOR4) == 0)
        r = tool_list_of("echo-3");
    return r;
}

static void answer_modern_page(player *p, const cJSON *req)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    cJSON *r = modern_page(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(req, "params"), "cursor"));
    if (r)
        send_owned(p, response(id, cacheable(r, 0)));
    else
        send_error(p, id, -32602, "Invalid params: unknown cursor");
}

/* Whether MODERN_ODD's first tools/call is due its opaque error: none was asked before. */
static bool odd_call(const player *p, const char *method)
{
    if (p->t->scenario != MCPS_CSC_MODERN_ODD || strcmp(method, "tools/call") != 0)
        return false;
    size_t calls = 0;
    for (size_t i = 0; i < p->t->nmsgs; i++) {
        const cJSON *m = p->t->msgs[i].json
                             ? cJSON_GetObjectItemCaseSensitive(p->t->msgs[i].json, "method")
                             : NULL;
        calls += cJSON_IsString(m) && strcmp(m->valuestring, "tools/call") == 0;
    }
    return calls == 1; /* the one being answered is in the trace already */
}

/* PROBE_CODE (stdio): a legacy server that answers a 2026-07-28 request before initialize with
 * a code of its own, not -32601 (STDIO-010: a client's fallback hangs on no one code). */
static bool odd_probe(player *p, const cJSON *msg, const char *method, const char *version)
{
    if (p->t->scenario != MCPS_CSC_PROBE_CODE || p->cfg->http || p->answered ||
        strcmp(method, "initialize") == 0 || !(version || strcmp(method, "server/discover") == 0))
        return false;
    send_error(p, cJSON_GetObjectItemCaseSensitive(msg, "id"), MCPS_CLIENT_PROBE_CODE,
               "Invalid Request: the server is not initialized");
    return true;
}

/* MODERN_DEPRECATED's first tools/call: an InputRequiredResult when the client declares roots
 * or sampling; false (served plainly) when it declares neither. */
static bool deprecated_asks(player *p, const cJSON *req, const cJSON *id)
{
    cJSON *r = deprecated_input_required(req);
    if (!r)
        return false;
    p->t->input_asked = true;
    send_owned(p, response(id, r));
    return true;
}

/* A 2026-07-28 server: every request judged on its own _meta; the refuse scenario turns
 * the first one down with -32022 whatever it names, so that the client has to retry. */
static void answer_modern(player *p, const cJSON *req, const char *method, const char *version)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    bool discover = strcmp(method, "server/discover") == 0;
    if (p->t->scenario == MCPS_CSC_MODERN_REFUSE && !p->t->refused) {
        p->t->refused = true;
        refuse_version(p, id, version);
    } else if (!version && !discover)
        send_error(p, id, -32602, "Invalid params: _meta protocolVersion is required");
    else if (version && strcmp(version, MCPS_CLIENT_MODERN) != 0)
        refuse_version(p, id, version);
    else if (discover) {
        p->t->discovered = true;
        send_owned(p, response(id, discover_result(p->t->scenario)));
    } else if (mcps_client_serve_request(&p->play, p->t, req, method) ||
               mcps_client_headers_request(&p->play, p->t, req, method))
        return;
    else if (strcmp(method, "tools/list") == 0 && p->t->scenario == MCPS_CSC_MODERN_PAGED)
        answer_modern_page(p, req);
    else if (odd_call(p, method))
        send_error(p, id, MCPS_CLIENT_ODD_CODE, "mcpspec: an error whose code means nothing");
    else if (strcmp(method, "tools/list") == 0)
        send_owned(p, response(id, cacheable(mirrored_tool_list(), 0)));
    else if (strcmp(method, "tools/call") == 0 && p->t->scenario == MCPS_CSC_MODERN_INPUT &&
             !p->t->input_asked) {
        p->t->input_asked = true;
        send_owned(p, response(id, input_required(req)));
    } else if (strcmp(method, "tools/call") == 0 && p->t->scenario == MCPS_CSC_MODERN_DEPRECATED &&
               !p->t->input_asked && deprecated_asks(p, req, id))
        return;
    else if (strcmp(method, "tools/call") == 0)
        send_owned(p, response(id, stamped(mcps_client_tool_result())));
    else
        send_error(p, id, -32601, "Method not found");
}

/* The paged scenario's tools/list: without a cursor, page 1 and nextCursor; with that cursor,
 * page 2, empty but with a nextCursor; with that one page 3, the last (no nextCursor); any
 * other cursor is invalid (-32602). */
static void answer_page(player *p, const cJSON *req)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(req, "params");
    const cJSON *cursor = cJSON_GetObjectItemCaseSensitive(params, "cursor");
    if (!cursor) {
        cJSON *r = tool_list();
        cJSON_AddStringToObject(r, "nextCursor", MCPS_CLIENT_CURSOR);
        send_owned(p, response(id, r));
    } else if (cJSON_IsString(cursor) && strcmp(cursor->valuestring, MCPS_CLIENT_CURSOR) == 0) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddArrayToObject(r, "tools");
        cJSON_AddStringToObject(r, "nextCursor", MCPS_CLIENT_CURSOR2);
        send_owned(p, response(id, r));
    } else if (cJSON_IsString(cursor) && strcmp(cursor->valuestring, MCPS_CLIENT_CURSOR2) == 0)
        send_owned(p, response(id, tool_list_of("echo-2")));
    else
        send_error(p, id, -32602, "Invalid params: unknown cursor");
}

/* ---- TASKS (2025-11-25): one task, driven by the client's tasks/get and tasks/result ---- */

static cJSON *server_request(const char *method, cJSON *params);

static void iso_now(char *buf, size_t n)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The Task as every task answer carries it (TASK-013: timestamps, ttl; pollInterval). */
static cJSON *task_object(const player *p)
{
    char now[32];
    iso_now(now, sizeof now);
    cJSON *task = cJSON_CreateObject();
    cJSON_AddStringToObject(task, "taskId", MCPS_CLIENT_TASK_ID);
    cJSON_AddStringToObject(task, "status", p->task_status);
    cJSON_AddStringToObject(task, "createdAt", now);
    cJSON_AddStringToObject(task, "lastUpdatedAt", now);
    cJSON_AddNumberToObject(task, "ttl", 60000);
    cJSON_AddNumberToObject(task, "pollInterval", MCPS_CLIENT_POLL_MS);
    return task;
}

static cJSON *related_meta(cJSON *result)
{
    cJSON *meta = cJSON_AddObjectToObject(result, "_meta");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(meta, MCPS_CLIENT_RELATED_TASK), "taskId",
                            MCPS_CLIENT_TASK_ID);
    return result;
}

static bool terminal(const char *status)
{
    return strcmp(status, "completed") == 0 || strcmp(status, "failed") == 0 ||
           strcmp(status, "cancelled") == 0;
}

/* The tool requires tasks (TASK-005): a call as a task creates the one task; a plain call is
 * refused as the spec says a server does (TASK-006). */
static void task_call(player *p, const cJSON *req)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    const cJSON *task =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(req, "params"), "task");
    if (!cJSON_IsObject(task) || p->t->task_created) {
        send_error(p, id, -32601, "Method not found: this tool is run as a task only");
        return;
    }
    p->task_status = "working";
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "task", task_object(p));
    send_owned(p, response(id, r));
    p->t->task_created = true;
    p->t->task_created_at = p->t->nmsgs;
    p->t->task_created_ms = mcps_clock_ms();
    mcps_rpc_id_text(id, p->t->task_call_id, sizeof p->t->task_call_id);
}

/* tasks/get: working, then input_required (a client declaring elicitation) or completed. */
static void task_get(player *p, const cJSON *id)
{
    bool elicits = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(p->t->init_params, "capabilities"), "elicitation"));
    if (++p->task_gets >= 2 && strcmp(p->task_status, "working") == 0 && !p->t->inject_answer)
        p->task_status = elicits ? "input_required" : "completed";
    p->t->task_input_required |= strcmp(p->task_status, "input_required") == 0;
    cJSON *r = task_object(p);
    send_owned(p, response(id, r));
}

/* tasks/result: held while the task needs input (the elicitation goes out, tied to the task:
 * TASK-017, TASK-020); the tool's result once it is done, with the related-task _meta
 * (TASK-016). release_held answers it again when the client has answered. */
static void task_result(player *p, const cJSON *req)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    if (strcmp(p->task_status, "input_required") == 0 && !p->t->injected) {
        cJSON *params = elicit_params();
        related_meta(params);
        p->t->inject_at = p->t->nmsgs;
        send_owned(p, server_request("elicitation/create", params));
        p->t->injected = p->t->task_input_asked = true;
        p->t->inject_method = "elicitation/create for the task";
        p->held = cJSON_Duplicate(req, true);
        p->held_until = mcps_clock_deadline(p->cfg->timeout);
        return;
    }
    if (strcmp(p->task_status, "cancelled") == 0) {
        send_error(p, id, -32602, "Invalid params: the task was cancelled");
        return;
    }
    p->task_status = "completed";
    send_owned(p, response(id, related_meta(mcps_client_tool_result())));
}

static void task_cancel(player *p, const cJSON *id)
{
    if (terminal(p->task_status)) {
        send_error(p, id, -32602, "Invalid params: the task is already terminal");
        return;
    }
    p->task_status = "cancelled";
    send_owned(p, response(id, task_object(p)));
}

/* A tasks request or the tool's call in the tasks scenario; false: not one of these. */
static bool answer_task(player *p, const cJSON *req, const char *method)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    const cJSON *tid =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(req, "params"), "taskId");
    bool known = p->t->task_created && cJSON_IsString(tid) &&
                 strcmp(tid->valuestring, MCPS_CLIENT_TASK_ID) == 0;
    if (strcmp(method, "tools/list") == 0) {
        cJSON *r = tool_list();
        cJSON *tool = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "tools"), 0);
        cJSON_AddStringToObject(cJSON_AddObjectToObject(tool, "execution"), "taskSupport",
                                "required");
        send_owned(p, response(id, r));
    } else if (strcmp(method, "tools/call") == 0)
        task_call(p, req);
    else if (strcmp(method, "tasks/list") == 0) {
        cJSON *r = cJSON_CreateObject();
        cJSON *tasks = cJSON_AddArrayToObject(r, "tasks");
        if (p->t->task_created)
            cJSON_AddItemToArray(tasks, task_object(p));
        send_owned(p, response(id, r));
    } else if (strncmp(method, "tasks/", 6) != 0)
        return false;
    else if (!known)
        send_error(p, id, -32602, "Invalid params: unknown taskId");
    else if (strcmp(method, "tasks/get") == 0)
        task_get(p, id);
    else if (strcmp(method, "tasks/result") == 0)
        task_result(p, req);
    else if (strcmp(method, "tasks/cancel") == 0)
        task_cancel(p, id);
    else
        send_error(p, id, -32601, "Method not found");
    return true;
}

/* The plain server: tools only, everything else is a method it does not have. */
static void answer_request(player *p, const cJSON *req, const char *method)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    if (p->t->tasks_offered && answer_task(p, req, method))
        return;
    if (strcmp(method, "ping") == 0)
        send_owned(p, response(id, cJSON_CreateObject()));
    else if (strcmp(method, "tools/list") == 0 && p->t->scenario == MCPS_CSC_PAGED)
        answer_page(p, req);
    else if (strcmp(method, "tools/list") == 0 && p->t->scenario == MCPS_CSC_ODDITIES &&
             strcmp(p->t->answered, "2025-11-25") == 0) /* GEN-JSCH-001 */
        send_owned(p, response(id, mcps_client_schema_tool_list(p->t)));
    else if (strcmp(method, "tools/list") == 0)
        send_owned(p, response(id, tool_list()));
    else if (strcmp(method, "tools/call") == 0) {
        /* over HTTP as an SSE stream, the rest as JSON bodies: clients meet both (HTTP-012) */
        cJSON *m = response(id, mcps_client_tool_result());
        mcps_play_send_stream(&p->play, m);
        cJSON_Delete(m);
    } else
        send_error(p, id, -32601, "Method not found");
}

static cJSON *request_with_id(const char *id, const char *method, cJSON *params)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddStringToObject(m, "id", id);
    cJSON_AddStringToObject(m, "method", method);
    if (params)
        cJSON_AddItemToObject(m, "params", params);
    return m;
}

/* ---- TASKS, the client as a receiver: the script of mcps_client_task_step ---- */

/* Whether capabilities (of initialize) declare tasks for the request type method. */
static bool tasks_for(const cJSON *caps, const char *method)
{
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(caps, "tasks"),
                                         "requests"),
        strcmp(method, "sampling/createMessage") == 0 ? "sampling" : "elicitation");
    return cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(
        req, strcmp(method, "sampling/createMessage") == 0 ? "createMessage" : "create"));
}

static cJSON *kind_params(const char *method, bool as_task)
{
    cJSON *p = strcmp(method, "sampling/createMessage") == 0 ? sampling_params() : elicit_params();
    if (as_task)
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(p, "task"), "ttl", 60000);
    return p;
}

/* The taskId of a CreateTaskResult answer; NULL when it is none. */
static const char *created_id(const cJSON *answer)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(answer, "result"),
                                         "task"),
        "taskId");
    return cJSON_IsString(id) ? id->valuestring : NULL;
}

static cJSON *task_params(const char *task_id)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "taskId", task_id);
    return p;
}

/* Step k's request; NULL when it cannot be sent (no task to ask about, no plain type). */
static cJSON *step_message(const mcps_client_trace *t, int k)
{
    const char *a = created_id(t->task_steps[MCPS_CTS_CREATE]);
    const char *b = created_id(t->task_steps[MCPS_CTS_CREATE2]);
    char id[32];
    snprintf(id, sizeof id, "mcpspec-t%d", k + 1);
    cJSON *p = NULL;
    const char *method = NULL;
    switch ((mcps_client_task_step)k) {
    case MCPS_CTS_CREATE:
    case MCPS_CTS_CREATE2:
        method = t->task_kind;
        p = kind_params(method, true);
        if (k == MCPS_CTS_CREATE) /* its progress may outlive the CreateTaskResult: PROG-010 */
            cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "_meta"), "progressToken",
                                    MCPS_CLIENT_TASK_TOKEN);
        break;
    case MCPS_CTS_GET:
        method = a ? "tasks/get" : NULL;
        p = a ? task_params(a) : NULL;
        if (p)
            cJSON_AddStringToObject(cJSON_AddObjectToObject(cJSON_AddObjectToObject(p, "_meta"),
                                                            MCPS_CLIENT_RELATED_TASK),
                                    "taskId", MCPS_CLIENT_OTHER_TASK);
        break;
    case MCPS_CTS_LIST:
        method = a ? "tasks/list" : NULL;
        p = a ? cJSON_CreateObject() : NULL;
        break;
    case MCPS_CTS_RESULT:
    case MCPS_CTS_CANCEL_DONE:
        method = !a ? NULL : k == MCPS_CTS_RESULT ? "tasks/result" : "tasks/cancel";
        p = a ? task_params(a) : NULL;
        break;
    case MCPS_CTS_UNKNOWN:
        method = "tasks/get";
        p = task_params(MCPS_CLIENT_UNKNOWN_TASK);
        break;
    case MCPS_CTS_CANCEL:
    case MCPS_CTS_GET2:
        method = !b ? NULL : k == MCPS_CTS_CANCEL ? "tasks/cancel" : "tasks/get";
        p = b ? task_params(b) : NULL;
        break;
    case MCPS_CTS_PLAIN:
        method = t->task_plain_kind;
        p = method ? kind_params(method, true) : NULL;
        break;
    default:
        break;
    }
    return method ? request_with_id(id, method, p) : NULL;
}

/* Send the next step that can be sent; false when the script is over. */
static bool next_step(player *p)
{
    while (p->step < MCPS_CTS_COUNT) {
        cJSON *m = step_message(p->t, p->step++);
        if (m) {
            send_owned(p, m);
            return true;
        }
    }
    return false;
}

/* The client's first request after initialize, in the tasks scenario: when it declared tasks
 * for sampling or elicitation, hold it and play the script; true when it was held. */
static bool start_script(player *p, const cJSON *req)
{
    mcps_client_trace *t = p->t;
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(t->init_params, "capabilities");
    bool elicits = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(caps, "elicitation"));
    bool samples = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(caps, "sampling"));
    if (t->scenario != MCPS_CSC_TASKS || !t->tasks_offered || p->step || p->held)
        return false;
    if (elicits && tasks_for(caps, "elicitation/create"))
        t->task_kind = "elicitation/create";
    else if (samples && tasks_for(caps, "sampling/createMessage"))
        t->task_kind = "sampling/createMessage";
    else
        return false;
    if (strcmp(t->task_kind, "elicitation/create") == 0 && samples &&
        !tasks_for(caps, "sampling/createMessage"))
        t->task_plain_kind = "sampling/createMessage";
    else if (strcmp(t->task_kind, "sampling/createMessage") == 0 && elicits &&
             !tasks_for(caps, "elicitation/create"))
        t->task_plain_kind = "elicitation/create";
    p->held = cJSON_Duplicate(req, true);
    p->held_until = mcps_clock_deadline(p->cfg->timeout);
    mcps_play_event(&p->play, "the client declared tasks for %s: playing the receiver's steps",
                    t->task_kind);
    return next_step(p);
}

/* An answer to a step: kept; the next step goes, or the held request is answered. */
static bool step_answer(player *p, const cJSON *msg, const char *id)
{
    int k;
    if (p->t->scenario != MCPS_CSC_TASKS || sscanf(id, "mcpspec-t%d", &k) != 1 || k < 1 ||
        k > MCPS_CTS_COUNT || p->t->task_steps[k - 1])
        return false;
    p->t->task_steps[k - 1] = cJSON_Duplicate(msg, true);
    if (k == p->step && !next_step(p) && p->held) {
        cJSON *held = p->held;
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(held, "method");
        p->held = NULL;
        answer_request(p, held, cJSON_IsString(m) ? m->valuestring : "");
        cJSON_Delete(held);
    }
    return true;
}

/* SAMPLING, stdio: the next further request due, once the one before is answered (the held
 * request waits a timeout more); false when none is left. */
static bool next_sampling(player *p)
{
    p->swait = false;
    if (p->t->scenario != MCPS_CSC_SAMPLING || p->cfg->http || !p->held)
        return false;
    while (p->sstep < MCPS_CSS_COUNT) {
        int k = p->sstep++;
        cJSON *m = mcps_client_sampling_step_request(p->t, k);
        if (m) {
            send_owned(p, m);
            p->t->sampling_sent[k] = p->swait = true;
            p->held_until = mcps_clock_deadline(p->cfg->timeout);
            return true;
        }
    }
    return false;
}

/* An answer to a further sampling request: kept; the next one goes. */
static bool sampling_answer(player *p, const cJSON *msg, const char *id)
{
    int k;
    char tail;
    if (p->t->scenario != MCPS_CSC_SAMPLING ||
        sscanf(id, MCPS_CLIENT_SAMPLING_STEP_ID "%c", &k, &tail) != 1 || k < 1 ||
        k > MCPS_CSS_COUNT || !p->t->sampling_sent[k - 1] || p->t->sampling_steps[k - 1])
        return false;
    p->t->sampling_steps[k - 1] = cJSON_Duplicate(msg, true);
    if (k == p->sstep)
        next_sampling(p);
    return true;
}

static cJSON *server_request(const char *method, cJSON *params)
{
    return request_with_id(MCPS_CLIENT_INJECT_ID, method, params);
}

/* notifications/cancelled for request_id; NULL: a malformed one, without requestId. */
static cJSON *cancellation(const char *request_id)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddStringToObject(m, "method", "notifications/cancelled");
    cJSON *params = cJSON_AddObjectToObject(m, "params");
    if (request_id)
        cJSON_AddStringToObject(params, "requestId", request_id);
    cJSON_AddStringToObject(params, "reason", "mcpspec no longer needs the answer");
    return m;
}

/* A ping's params padded to about MCPS_CLIENT_HUGE_BYTES under a _meta key of ours. */
static cJSON *huge_params(void)
{
    cJSON *p = cJSON_CreateObject();
    char *pad = malloc(MCPS_CLIENT_HUGE_BYTES + 1);
    if (pad) {
        memset(pad, 'x', MCPS_CLIENT_HUGE_BYTES);
        pad[MCPS_CLIENT_HUGE_BYTES] = '\0';
        cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "_meta"), "dev.mcpspec/padding", pad);
        free(pad);
    }
    return p;
}

static cJSON *progress_params(void)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "_meta"), "progressToken",
                            MCPS_CLIENT_PROGRESS_TOKEN);
    return p;
}

/* The batch scenario's request: two pings in one line. */
static const char batch_line[] =
    "[{\"jsonrpc\":\"2.0\",\"id\":\"" MCPS_CLIENT_INJECT_ID
    "\",\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":\"" MCPS_CLIENT_BATCH_ID2
    "\",\"method\":\"ping\"}]";

static cJSON *sampling_params(void)
{
    cJSON *p = cJSON_CreateObject();
    cJSON *msg = cJSON_CreateObject();
    cJSON_AddStringToObject(msg, "role", "user");
    cJSON *c = cJSON_AddObjectToObject(msg, "content");
    cJSON_AddStringToObject(c, "type", "text");
    cJSON_AddStringToObject(c, "text", "Say hello.");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "messages"), msg);
    cJSON_AddNumberToObject(p, "maxTokens", 20);
    return p;
}

static cJSON *elicit_params(void)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "message", "Which name should the greeting use?");
    cJSON *s = cJSON_AddObjectToObject(p, "requestedSchema");
    cJSON_AddStringToObject(s, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(s, "properties");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(props, "name"), "type", "string");
    return p;
}

/* The line a robustness scenario sends before its ping. */
static const char *junk_line(mcps_client_scenario sc)
{
    switch (sc) {
    case MCPS_CSC_JUNK_ID:
        return "{\"jsonrpc\":\"2.0\",\"id\":\"mcpspec-nobody-asked\",\"result\":{}}";
    case MCPS_CSC_JUNK_JSON:
        return "{\"jsonrpc\":\"2.0\",\"method\": this is not JSON";
    case MCPS_CSC_JUNK_NOTIF:
        return "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}";
    default:
        return NULL;
    }
}

/* The scenario's own request to the client; NULL for scenarios without one. */
static cJSON *inject_message(mcps_client_scenario sc, const char **method)
{
    switch (sc) {
    case MCPS_CSC_ROOTS:
        *method = "roots/list";
        return server_request(*method, NULL);
    case MCPS_CSC_SAMPLING:
        *method = "sampling/createMessage";
        return server_request(*method, sampling_params());
    case MCPS_CSC_ELICIT:
        *method = "elicitation/create";
        return server_request(*method, elicit_params());
    case MCPS_CSC_PROGRESS:
        *method = "ping";
        return server_request(*method, progress_params());
    case MCPS_CSC_HUGE:
        *method = "ping";
        return server_request(*method, huge_params());
    case MCPS_CSC_UNKNOWN:
        *method = "mcpspec/no-such-method";
        return server_request(*method, NULL);
    case MCPS_CSC_ODDITIES: {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(p, "_meta"), MCPS_CLIENT_ODD_META, 1);
        *method = "ping";
        return server_request(*method, p);
    }
    case MCPS_CSC_PING:
    case MCPS_CSC_CANCEL:
    case MCPS_CSC_JUNK_DUP:
    case MCPS_CSC_JUNK_ID:
    case MCPS_CSC_JUNK_JSON:
    case MCPS_CSC_JUNK_NOTIF:
        *method = "ping";
        return server_request(*method, NULL);
    default:
        return NULL;
    }
}

/* What a scenario sends before its request: a bad line, or a ping cancelled at once (then a
 * malformed cancellation, which must be ignored too: CANC-007). */
static void prelude(player *p, mcps_client_scenario sc)
{
    const char *junk = junk_line(sc);
    if (junk)
        mcps_play_send_raw(&p->play, junk, strlen(junk));
    if (sc == MCPS_CSC_UNKNOWN) {
        static const char invalid[] =
            "{\"jsonrpc\":\"2.0\",\"id\":\"" MCPS_CLIENT_CANCELLED_ID "\",\"method\":42}";
        mcps_play_send_raw(&p->play, invalid, sizeof invalid - 1);
    }
    if (sc == MCPS_CSC_ODDITIES) {
        static const char complete[] =
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/elicitation/complete\","
            "\"params\":{\"elicitationId\":\"mcpspec-nobody-asked\"}}";
        mcps_play_send_raw(&p->play, complete, sizeof complete - 1);
        cJSON *url = cJSON_CreateObject();
        cJSON_AddStringToObject(url, "mode", "url");
        cJSON_AddStringToObject(url, "message", "Open this page to go on.");
        cJSON_AddStringToObject(url, "url", "https://example.com/mcpspec");
        cJSON_AddStringToObject(url, "elicitationId", "mcpspec-e1");
        send_owned(p, request_with_id(MCPS_CLIENT_CANCELLED_ID, "elicitation/create", url));
    }
    if (sc == MCPS_CSC_BATCH) { /* BATCH-004's edges, before the batch of two pings */
        static const char empty[] = "[]";
        static const char notes[] =
            "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/mcpspec-batch-probe\"}]";
        mcps_play_send_raw(&p->play, empty, sizeof empty - 1);
        mcps_play_send_raw(&p->play, notes, sizeof notes - 1);
    }
    if (sc == MCPS_CSC_JUNK_DUP && p->init_answer)
        mcps_play_send(&p->play, p->init_answer);
    if (sc == MCPS_CSC_CANCEL) {
        send_owned(p, request_with_id(MCPS_CLIENT_CANCELLED_ID, "ping", NULL));
        send_owned(p, cancellation(MCPS_CLIENT_CANCELLED_ID));
        send_owned(p, cancellation(NULL));
    }
}

/* While the client waits on its first request after initialize, send ours and hold its. */
static bool inject(player *p, const cJSON *req)
{
    mcps_client_scenario sc = p->t->scenario;
    const char *method = NULL;
    bool batch = sc == MCPS_CSC_BATCH && strcmp(p->t->answered, "2025-03-26") == 0;
    cJSON *m = p->t->injected || batch ? NULL : inject_message(sc, &method);
    if (!m && (!batch || p->t->injected))
        return false;
    p->t->inject_at = p->t->nmsgs;
    prelude(p, sc);
    if (m)
        send_owned(p, m);
    else {
        mcps_play_send_raw(&p->play, batch_line, sizeof batch_line - 1);
        method = "a batch of two pings";
    }
    p->t->injected = true;
    p->t->inject_method = method;
    p->held = cJSON_Duplicate(req, true);
    p->held_until = mcps_clock_deadline(p->cfg->timeout);
    return true;
}

static void record(player *p, cJSON *json, const char *raw, size_t len)
{
    mcps_client_trace *t = p->t;
    if (!mcps_array_reserve(&t->msgs, &t->cap, t->nmsgs + 1, sizeof *t->msgs, 16)) {
        cJSON_Delete(json);
        return;
    }
    mcps_client_msg *m = &t->msgs[t->nmsgs++];
    t->bytes += len;
    *m = (mcps_client_msg){.json = json, .conn = t->connections, .before_answer = !p->answered};
    m->at_ms = mcps_clock_ms();
    if (!json) {
        m->raw = malloc(len + 1);
        if (m->raw) {
            memcpy(m->raw, raw, len);
            m->raw[len] = '\0';
        }
    }
}

static void on_request(player *p, const cJSON *msg, const char *method)
{
    mcps_client_trace *t = p->t;
    const char *version = mcps_client_meta_version(msg);
    if (version && !t->modern[0])
        snprintf(t->modern, sizeof t->modern, "%s", version);
    /* server/discover in a handshake-era scenario is a legacy server's -32601 (below): a
     * dual-era client falls back to initialize there (STDIO-009) */
    if (mcps_client_modern_scenario(t->scenario) && strcmp(method, "initialize") != 0 &&
        (version || t->modern[0] || strcmp(method, "server/discover") == 0)) {
        if (t->scenario == MCPS_CSC_MODERN_BREAK && strcmp(method, "server/discover") != 0 &&
            break_stream(p, msg, method))
            return;
        answer_modern(p, msg, method, version);
        return;
    }
    if (legacy_probe(p, msg, method, version) || odd_probe(p, msg, method, version))
        return;
    if (strcmp(method, "initialize") == 0) {
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
        if (!t->init_params) {
            t->init_params = params ? params : msg;
            t->init_conn = t->connections;
            snprintf(t->asked, sizeof t->asked, "%s", cJSON_IsString(v) ? v->valuestring : "");
        }
        if (t->scenario == MCPS_CSC_SLOW_INIT && !p->held_init) {
            p->held_init = cJSON_Duplicate(msg, true);
            p->init_due = mcps_clock_ms() + SLOW_INIT_MS;
        } else
            answer_initialize(p, msg);
        return;
    }
    if (p->answered && strcmp(method, "ping") != 0) {
        t->waited = true;
        if (t->scenario == MCPS_CSC_SESSION_404 && !t->injected) {
            t->injected = mcps_play_expire(&p->play, cJSON_GetObjectItemCaseSensitive(msg, "id"));
            t->inject_method = "a 404 for the session";
            p->answered = false;
            return;
        }
        if (start_script(p, msg))
            return;
        if (t->scenario == MCPS_CSC_RESUME)
            break_stream(p, msg, method); /* answered below: the answer waits for the GET */
        else if (!p->held && inject(p, msg))
            return;
    }
    answer_request(p, msg, method);
}

/* Over HTTP each initialize starts a session: a connection, as the checks count them. A
 * 2026-07-28 request before any (server/discover, or _meta protocolVersion) starts the first
 * one too: that revision has no sessions, and a dual-era client that falls back to initialize
 * then opens the second, as over stdio. */
static void http_session(player *p, const cJSON *msg)
{
    if (cJSON_IsArray(msg)) /* a batch: its first message (2025-03-26; a fault later) */
        msg = msg->child;
    const cJSON *m = msg ? cJSON_GetObjectItemCaseSensitive(msg, "method") : NULL;
    if (!p->cfg->http || !cJSON_IsString(m) || !cJSON_GetObjectItemCaseSensitive(msg, "id") ||
        p->t->connections >= MAX_CONNECTIONS)
        return;
    bool init = strcmp(m->valuestring, "initialize") == 0;
    bool stateless = !p->t->connections && (strcmp(m->valuestring, "server/discover") == 0 ||
                                            mcps_client_meta_version(msg));
    if (!init && !stateless)
        return;
    p->t->connections++;
    p->answered = false;
    if (init)
        mcps_play_event(&p->play, "session %u: the client sent initialize", p->t->connections);
    else
        mcps_play_event(&p->play, "the client spoke 2026-07-28 first (no session)");
}

/* One JSON-RPC object from the client: a request is served, the answer to ours kept. */
static void on_object(player *p, const cJSON *msg)
{
    mcps_rpc_info info;
    mcps_rpc_classify(msg, MCPS_REV_NONE, &info);
    if (info.kind == MCPS_RPC_REQUEST && info.method)
        on_request(p, msg, info.method);
    else if ((info.kind == MCPS_RPC_RESULT || info.kind == MCPS_RPC_ERROR) && info.id &&
             cJSON_IsString(info.id) && step_answer(p, msg, info.id->valuestring))
        return;
    else if ((info.kind == MCPS_RPC_RESULT || info.kind == MCPS_RPC_ERROR) && info.id &&
             cJSON_IsString(info.id) && sampling_answer(p, msg, info.id->valuestring))
        return;
    else if ((info.kind == MCPS_RPC_RESULT || info.kind == MCPS_RPC_ERROR) && info.id &&
             cJSON_IsString(info.id) && strcmp(info.id->valuestring, MCPS_CLIENT_INJECT_ID) == 0 &&
             !p->t->inject_answer) {
        p->t->inject_answer = cJSON_Duplicate(msg, true);
        next_sampling(p);
    }
}

static void on_message(player *p, cJSON *msg, const char *raw, size_t len)
{
    http_session(p, msg);
    record(p, msg, raw, len); /* the trace owns msg from here */
    const cJSON *e;
    if (cJSON_IsArray(msg)) { /* a batch (2025-03-26): served one by one; the checks judge it */
        cJSON_ArrayForEach(e, msg)
        {
            on_object(p, e);
        }
    } else if (msg)
        on_object(p, msg);
}

/* Answer what was held back once its time has come. */
static void release_held(player *p)
{
    int64_t now = mcps_clock_ms();
    if (p->held_init && now >= p->init_due) {
        answer_initialize(p, p->held_init);
        cJSON_Delete(p->held_init);
        p->held_init = NULL;
    }
    if (p->held && ((p->t->inject_answer && !p->swait) || now >= p->held_until)) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(p->held, "method");
        answer_request(p, p->held, cJSON_IsString(m) ? m->valuestring : "");
        cJSON_Delete(p->held);
        p->held = NULL;
    }
}

/* The client's own output and its exit, without waiting. */
static void drain_client(player *p)
{
    for (;;) {
        mcps_tevent ev;
        p->client->ops->next(p->client, mcps_clock_ms(), &ev);
        switch (ev.kind) {
        case MCPS_TEV_MESSAGE:
        case MCPS_TEV_OVERSIZE:
        case MCPS_TEV_STDERR:
            mcps_play_log(&p->play, MCPS_WIRE_STDERR, ev.data, ev.len);
            break;
        case MCPS_TEV_EXITED:
            p->t->exited = true;
            p->t->exit_code = ev.exit_code;
            p->t->term_signal = ev.term_signal;
            mcps_play_event(&p->play, "client: %s", ev.detail);
            break;
        case MCPS_TEV_CLOSED:
            break;
        case MCPS_TEV_STOPPED:
            p->t->stopped = true;
            return;
        case MCPS_TEV_ERROR:
            mcps_play_event(&p->play, "client transport: %s", ev.detail);
            return;
        default:
            return;
        }
    }
}

static void on_connection_event(player *p, mcps_tevent_kind k, cJSON *msg)
{
    mcps_client_trace *t = p->t;
    p->last_ms = mcps_clock_ms();
    if (k == MCPS_TEV_MESSAGE)
        on_message(p, msg, p->play.raw ? p->play.raw : "", p->play.raw_len);
    else if (k == MCPS_TEV_OVERSIZE)
        record(p, NULL, "(over-long line, cut)", 21);
    else if (k == MCPS_TEV_CLOSED) {
        if (!t->closed) {
            t->closed = true;
            t->deleted = p->cfg->http;
            t->peer_gone = p->play.peer_gone;
            t->closed_after = p->answered ? (double)(p->last_ms - p->answered_ms) / 1000.0 : 0;
        }
        p->answered = false;
    } else if (k == MCPS_TEV_STOPPED)
        t->stopped = true;
}

static void try_accept(player *p)
{
    char err[200];
    mcps_relay_conn c;
    int64_t until = mcps_clock_ms() + SLICE_MS;
    if (p->t->connections >= MAX_CONNECTIONS) {
        mcps_tevent ev; /* served enough: only watch the client from now on */
        p->client->ops->next(p->client, until, &ev);
        if (ev.kind == MCPS_TEV_EXITED) {
            p->t->exited = true;
            p->t->exit_code = ev.exit_code;
            p->t->term_signal = ev.term_signal;
        }
        return;
    }
    int r = mcps_relay_accept(&p->relay, until, p->cfg->target.max_message, &c, err, sizeof err);
    if (r < 0)
        mcps_play_event(&p->play, "%s", err);
    if (r != 1)
        return;
    mcps_play_attach(&p->play, &c);
    p->t->connections++;
    p->answered = false;
    p->last_ms = mcps_clock_ms();
    mcps_play_event(&p->play, "connection %u: the client started its server", p->t->connections);
}

/* Whether the case is over; says why in the log. */
static bool finished(player *p, int64_t start, int64_t end)
{
    mcps_client_trace *t = p->t;
    int64_t now = mcps_clock_ms();
    if (t->stopped)
        return true;
    if (t->exited && !p->cfg->http && !mcps_play_connected(&p->play))
        return true;
    if (t->exited && p->cfg->http && p->quiet_after_exit)
        return true;
    if (!t->connections && now - start > (int64_t)(p->cfg->connect_timeout * 1000)) {
        snprintf(t->error, sizeof t->error,
                 p->cfg->sse    ? "the client sent no initialize to {sse-url} within %.0f s"
                 : p->cfg->http ? "the client sent no initialize to {url} within %.0f s"
                                : "the client did not start its server ({server}) within %.0f s",
                 p->cfg->connect_timeout);
        return true;
    }
    if (t->connections && !p->held && !p->held_init &&
        now - p->last_ms > (int64_t)(p->cfg->timeout * 1000)) {
        mcps_play_event(&p->play, "the client did nothing for %.1f s: case ended", p->cfg->timeout);
        return true;
    }
    if (t->nmsgs >= MAX_MESSAGES || t->bytes >= MAX_BYTES) {
        mcps_play_event(&p->play, "the client sent %zu messages (%zu bytes) in one case: ended",
                        t->nmsgs, t->bytes);
        return true;
    }
    if (now > end) {
        mcps_play_event(&p->play, "the case's time ran out");
        return true;
    }
    return false;
}

static void loop(player *p)
{
    int64_t start = mcps_clock_ms();
    int64_t end = start + (int64_t)((p->cfg->connect_timeout + 4 * p->cfg->timeout) * 1000);
    p->last_ms = start;
    while (!finished(p, start, end)) {
        drain_client(p);
        if (p->t->exited && !p->exited_ms)
            p->exited_ms = mcps_clock_ms();
        release_held(p);
        mcps_client_fetch_poll(&p->fetch, &p->play, p->t);
        if (!p->cfg->http && !mcps_play_connected(&p->play)) {
            try_accept(p);
            continue;
        }
        cJSON *msg;
        bool gone = p->cfg->http && p->exited_ms; /* what it sent before exiting is readable now */
        mcps_tevent_kind k =
            mcps_play_next(&p->play, mcps_clock_ms() + (gone ? HTTP_LINGER_MS : SLICE_MS), &msg);
        if (k != MCPS_TEV_TIMEOUT)
            on_connection_event(p, k, msg);
        else if (gone)
            p->quiet_after_exit = true;
    }
}

/* The endpoint (HTTP) or the relay socket (stdio), and the argv naming it. */
static char **listen_and_expand(player *p, char *err, size_t n)
{
    const mcps_client_config *cfg = p->cfg;
    if (!cfg->http) {
        if (!mcps_relay_listen(&p->relay, cfg->target.guard, err, n))
            return NULL;
        return mcps_client_expand(cfg->target.argv, cfg->self, p->relay.path);
    }
    if (!mcps_httpd_listen(&p->httpd, cfg->target.guard, cfg->target.max_message, err, n))
        return NULL;
    if (cfg->sse) {
        if (!mcps_play_sse_init(&p->play, &p->httpd)) {
            snprintf(err, n, "out of memory");
            return NULL;
        }
        const char *url = mcps_play_sse_url(&p->play);
        mcps_play_event(&p->play, "serving HTTP+SSE (2024-11-05) at %s", url);
        return mcps_client_expand_url(cfg->target.argv, "{sse-url}", url);
    }
    if (!mcps_play_http_init(&p->play, &p->httpd)) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    if (p->t->scenario == MCPS_CSC_PLAIN || p->t->scenario == MCPS_CSC_MODERN)
        mcps_play_http_forms(&p->play); /* both forms of answer (client/http-answer-forms) */
    if (p->t->scenario == MCPS_CSC_LEGACY_SERVER)
        mcps_play_http_legacy(&p->play); /* client/http-sse-fallback */
    if (p->t->scenario == MCPS_CSC_AUTH || p->t->scenario == MCPS_CSC_AUTH_ISSUER) {
        p->httpd.any_path = true; /* the discovery URLs are at the origin */
        if (p->t->scenario == MCPS_CSC_AUTH)
            mcps_play_http_auth(&p->play);
        else
            mcps_play_http_auth_wrong_issuer(&p->play);
    }
    mcps_play_event(&p->play, "serving Streamable HTTP at %s", p->httpd.url);
    return mcps_client_expand_url(cfg->target.argv, "{url}", p->httpd.url);
}

static bool start(player *p)
{
    const mcps_client_config *cfg = p->cfg;
    char err[300] = "out of memory";
    char **argv = listen_and_expand(p, err, sizeof err);
    if (!argv) {
        snprintf(p->t->error, sizeof p->t->error, "%s", err);
        return false;
    }
    mcps_target_config tc = cfg->target;
    tc.argv = argv;
    p->client = mcps_stdio_open(&tc, err, sizeof err);
    mcps_argv_free(argv);
    if (!p->client) {
        snprintf(p->t->error, sizeof p->t->error, "%s", err);
        return false;
    }
    mcps_play_event(&p->play, "client started (pid %d)", mcps_stdio_pid(p->client));
    if (p->t->scenario == MCPS_CSC_MODERN_SERVE &&
        !mcps_client_fetch_open(&p->fetch, cfg->target.guard, p->t))
        mcps_play_event(&p->play, "no loopback listener for the network $ref");
    return true;
}

static void stop(player *p)
{
    if (p->client) {
        mcps_shutdown_report rep;
        bool exited = p->t->exited;
        p->client->ops->shutdown(p->client, &rep);
        drain_client(p);
        if (!exited && (rep.exit_code >= 0 || rep.term_signal)) {
            p->t->exit_code = rep.exit_code;
            p->t->term_signal = rep.term_signal;
        }
        /* "exited" is what the client did by itself: not the end mcpspec put to it here */
        p->t->exited = exited || rep.how == MCPS_SHUT_EXITED_BEFORE;
        if (rep.killed_leftovers)
            mcps_play_event(&p->play, "processes the client left behind were killed");
        p->client->ops->destroy(p->client);
    }
    mcps_play_hang_up(&p->play);
    mcps_relay_close(&p->relay);
    size_t n;
    const mcps_http_seen *seen = mcps_play_http_seen(&p->play, &n);
    if (n && (p->t->http_reqs = malloc(n * sizeof *seen))) {
        memcpy(p->t->http_reqs, seen, n * sizeof *seen);
        p->t->nhttp = n;
    }
    seen = mcps_play_auth_seen(&p->play, &n);
    if (n && (p->t->auth_reqs = malloc(n * sizeof *seen))) {
        memcpy(p->t->auth_reqs, seen, n * sizeof *seen);
        p->t->nauth = n;
    }
    if (p->cfg->http)
        mcps_httpd_close(&p->httpd);
    if (p->fetch.fd >= 0)
        mcps_httpd_close(&p->fetch);
    cJSON_Delete(p->held);
    cJSON_Delete(p->held_init);
    cJSON_Delete(p->init_answer);
}

void mcps_client_play(const mcps_client_config *cfg, mcps_client_scenario sc, mcps_client_trace *t)
{
    int64_t t0 = mcps_clock_us();
    *t = (mcps_client_trace){
        .scenario = sc, .stays = cfg->stays, .http = cfg->http, .sse = cfg->sse};
    player p = {.cfg = cfg, .t = t};
    p.relay.fd = -1;
    p.httpd.fd = -1;
    p.fetch.fd = -1;
    mcps_play_init(&p.play, cfg->target.guard);
    if (start(&p))
        loop(&p);
    stop(&p);
    t->sent = p.play.sent;
    t->received = p.play.received;
    mcps_play_take_log(&p.play, &t->log);
    mcps_play_free(&p.play);
    t->seconds = (double)(mcps_clock_us() - t0) / 1e6;
}

void mcps_client_trace_free(mcps_client_trace *t)
{
    for (size_t i = 0; i < t->nmsgs; i++) {
        cJSON_Delete(t->msgs[i].json);
        free(t->msgs[i].raw);
    }
    free(t->msgs);
    free(t->http_reqs);
    free(t->auth_reqs);
    cJSON_Delete(t->inject_answer);
    cJSON_Delete(t->echo_schema);
    for (size_t i = 0; i < sizeof t->task_steps / sizeof *t->task_steps; i++)
        cJSON_Delete(t->task_steps[i]);
    for (size_t i = 0; i < MCPS_CSS_COUNT; i++)
        cJSON_Delete(t->sampling_steps[i]);
    for (size_t i = 0; i < t->log.nentries; i++)
        free(t->log.entries[i].bytes);
    free(t->log.entries);
    for (size_t i = 0; i < t->log.nnotes; i++) {
        free(t->log.notes[i].reqs);
        free(t->log.notes[i].message);
    }
    free(t->log.notes);
    *t = (mcps_client_trace){0};
}
