/*
 * client_cases_http.c - the client checks that only Streamable HTTP ({url})
 * shows: 2026-07-28's standard headers against the body (HDR-001, HDR-005),
 * the shape of POST bodies (batches on 2025-03-26, no batches and no
 * responses on 2026-07-28), and what a client does when the SSE stream of its
 * request breaks after an event with an id (resume with GET and
 * Last-Event-ID up to 2025-11-25; send the request again, fresh, on
 * 2026-07-28).
 *
 * A table of its own, appended to client_cases.c's by mcps_client_check_at,
 * so that the stdio checks and these grow apart. Verdicts go through
 * client_grade.c, as every table's do.
 */
#include "engine/client_cases.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "codec/json.h"
#include "codec/rev.h"
#include "codec/rpc.h"

static const cJSON *member(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

/* ---- POST bodies ---- */

/* A body of 2026-07-28's: the trace's client spoke it and initialized nothing. */
static bool modern_trace(const mcps_client_trace *t)
{
    return t->modern[0] && !t->answered[0];
}

/* A 2025-03-26 batch body: non-empty, requests and notifications or else responses only, never
 * initialize (HTTP-007, BATCH-003). NULL when it holds; what is wrong otherwise. */
static const char *batch_wrong(const cJSON *batch, const char **id)
{
    const cJSON *e;
    size_t requests = 0, responses = 0;
    *id = "HTTP-007";
    if (!batch->child)
        return "an empty batch";
    cJSON_ArrayForEach(e, batch)
    {
        mcps_rpc_info in;
        mcps_rpc_classify(e, MCPS_REV_NONE, &in);
        if (in.kind == MCPS_RPC_INVALID || in.kind == MCPS_RPC_BATCH)
            return "a batch element that is no JSON-RPC message";
        if (in.method && strcmp(in.method, "initialize") == 0) {
            *id = "BATCH-003";
            return "initialize inside a batch";
        }
        requests += in.kind == MCPS_RPC_REQUEST || in.kind == MCPS_RPC_NOTIFICATION;
        responses += in.kind == MCPS_RPC_RESULT || in.kind == MCPS_RPC_ERROR;
    }
    return requests && responses ? "a batch mixing requests or notifications with responses" : NULL;
}

/* One body: false once it graded a break. */
static bool body_ok(const mcps_client_trace *t, const cJSON *m, mcps_client_grade *g, size_t *n)
{
    const char *id, *wrong;
    if (cJSON_IsArray(m) && strcmp(t->answered, "2025-03-26") == 0) {
        (*n)++;
        if ((wrong = batch_wrong(m, &id)))
            return mcps_client_broke(g, id, "on 2025-03-26, %s", wrong), false;
        return true;
    }
    if (!modern_trace(t) || !m)
        return true;
    mcps_rpc_info in;
    mcps_rpc_classify(m, MCPS_REV_NONE, &in);
    (*n)++;
    if (cJSON_IsArray(m))
        return mcps_client_broke(g, "HTTP-048", "a batch (JSON array) body to a 2026-07-28 server"),
               false;
    if (in.kind == MCPS_RPC_RESULT || in.kind == MCPS_RPC_ERROR)
        return mcps_client_broke(g, "HTTP-048",
                                 "a JSON-RPC response POSTed to a 2026-07-28 server"),
               false;
    return true;
}

static int http_bodies(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t judged = 0;
    for (size_t i = 0; i < t->nmsgs; i++)
        if (!body_ok(t, t->msgs[i].json, g, &judged))
            return 0;
    if (!judged)
        return mcps_client_skip(
            g, "no body to judge here: no batch on 2025-03-26, no 2026-07-28 request");
    return mcps_client_pass(g, "%zu bodies, each %s", judged,
                            modern_trace(t) ? "one request or notification (2026-07-28)"
                                            : "a well-formed 2025-03-26 batch or a single message");
}

/* ---- 2026-07-28's standard headers ---- */

/* A POST of a 2026-07-28 request: its body names a version in _meta, or is server/discover. */
static bool modern_post(const mcps_http_seen *e)
{
    return strcmp(e->verb, "POST") == 0 &&
           (e->meta_version[0] || strcmp(e->rpc, "server/discover") == 0);
}

static int http_version_header(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t judged = 0;
    for (size_t i = 0; i < t->nhttp; i++) {
        const mcps_http_seen *e = &t->http_reqs[i];
        if (!modern_post(e))
            continue;
        judged++;
        if (!e->has_version)
            return mcps_client_broke(g, "HDR-001", "a POST of %s came without MCP-Protocol-Version",
                                     e->rpc);
        if (e->meta_version[0] && strcmp(e->version, e->meta_version) != 0)
            return mcps_client_broke(g, "HDR-001",
                                     "a POST of %s: MCP-Protocol-Version: %s, but _meta names %s",
                                     e->rpc, e->version, e->meta_version);
    }
    if (!judged)
        return mcps_client_skip(g, "the client POSTed no 2026-07-28 request");
    return mcps_client_pass(
        g, "%zu POSTs, each with MCP-Protocol-Version equal to its _meta version", judged);
}

/* The methods whose Mcp-Name mirrors params.name (params.uri for resources/read). */
static bool named(const char *method)
{
    return strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0 ||
           strcmp(method, "resources/read") == 0;
}

static int http_method_header(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t judged = 0;
    for (size_t i = 0; i < t->nhttp; i++) {
        const mcps_http_seen *e = &t->http_reqs[i];
        if (!modern_post(e) || !e->rpc_id[0])
            continue;
        judged++;
        if (!e->has_mcp_method || strcmp(e->mcp_method, e->rpc) != 0)
            return mcps_client_broke(g, "HDR-005", "a POST of %s with Mcp-Method: %s", e->rpc,
                                     e->has_mcp_method ? e->mcp_method : "(none)");
        /* the scripted server's names are plain ASCII: no =?base64?...?= form to decode */
        if (named(e->rpc) && (!e->has_mcp_name || strcmp(e->mcp_name, e->body_name) != 0))
            return mcps_client_broke(g, "HDR-005", "a POST of %s naming \"%s\" with Mcp-Name: %s",
                                     e->rpc, e->body_name,
                                     e->has_mcp_name ? e->mcp_name : "(none)");
    }
    if (!judged)
        return mcps_client_skip(g, "the client POSTed no 2026-07-28 request");
    return mcps_client_pass(
        g,
        "%zu requests, each with Mcp-Method (and Mcp-Name where it names something) "
        "equal to the body",
        judged);
}

/* One tools/call POST: its Mcp-Param-Text against the body's text argument. */
static bool param_ok(const mcps_http_seen *e, const cJSON *call, mcps_client_grade *g)
{
    char want_buf[32], got[160];
    const cJSON *text = member(member(member(call, "params"), "arguments"), "text");
    const char *want = mcps_json_scalar_text(text, want_buf, sizeof want_buf);
    const char *have = mcps_client_header_in(e->mcp_params, "Mcp-Param-" MCPS_CLIENT_PARAM_HEADER,
                                             got, sizeof got);
    /* plain ASCII only: a value that needs =?base64?...?= (HDR-007) is not judged here */
    bool plain = !want || strspn(want, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789-_.~ ") == strlen(want);
    if (want && !have)
        return mcps_client_broke(g, "HDR-009",
                                 "tools/call with text \"%.60s\" came without Mcp-Param-%s", want,
                                 MCPS_CLIENT_PARAM_HEADER),
               false;
    if (!want && have)
        return mcps_client_broke(g, "HDR-009",
                                 "tools/call without a text argument came with Mcp-Param-%s: %s",
                                 MCPS_CLIENT_PARAM_HEADER, have),
               false;
    if (want && plain && strcmp(want, have) != 0)
        return mcps_client_broke(g, cJSON_IsString(text) ? "HDR-009" : "HDR-010",
                                 "tools/call with text %.60s came with Mcp-Param-%s: %s", want,
                                 MCPS_CLIENT_PARAM_HEADER, have),
               false;
    return true;
}

static int http_param_headers(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t judged = 0;
    for (size_t i = 0; i < t->nhttp; i++) {
        const mcps_http_seen *e = &t->http_reqs[i];
        const cJSON *call = modern_post(e) && strcmp(e->rpc, "tools/call") == 0
                                ? mcps_client_call_with_id(t, e->rpc_id)
                                : NULL;
        if (!call)
            continue;
        judged++;
        if (!param_ok(e, call, g))
            return 0;
    }
    if (!judged)
        return mcps_client_skip(
            g, "the client sent no 2026-07-28 tools/call (the scripted tool's text "
               "argument is the x-mcp-header one)");
    return mcps_client_pass(
        g, "%zu tools/call POSTs, each mirroring its text argument into Mcp-Param-%s", judged,
        MCPS_CLIENT_PARAM_HEADER);
}

/* HTTP-058: a dual-era client whose 2026-07-28 request a legacy endpoint refused (400, no
 * modern error in the body) falls back to initialize. */
static int http_era_fallback(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t i = 0;
    while (i < t->nhttp && !(modern_post(&t->http_reqs[i]) && t->http_reqs[i].status == 400))
        i++;
    if (i == t->nhttp)
        return mcps_client_skip(
            g, "no 2026-07-28 request of the client's was refused by the legacy endpoint");
    const char *what = t->http_reqs[i].rpc;
    for (i++; i < t->nhttp; i++) {
        const mcps_http_seen *e = &t->http_reqs[i];
        if (e->initialize)
            return mcps_client_pass(
                g,
                "%s refused with 400 and no modern error: the client fell back to "
                "initialize",
                what);
        if (modern_post(e))
            return mcps_client_broke(
                g, "HTTP-058",
                "%s refused with 400 and no modern error (-32022, -32021, -32020); the "
                "client went on with %s, a 2026-07-28 request, not initialize",
                what, e->rpc);
    }
    return mcps_client_info(
        g,
        "%s refused with 400 and no modern error; the client did not go on (allowed "
        "for a client that speaks 2026-07-28 only)",
        what);
}

/* ---- a broken stream ---- */

/* The first GET with Last-Event-ID after the stream was broken; NULL when none. */
static const mcps_http_seen *resuming_get(const mcps_client_trace *t)
{
    for (size_t i = 0; i < t->nhttp; i++) {
        const mcps_http_seen *e = &t->http_reqs[i];
        if (strcmp(e->verb, "GET") == 0 && e->has_last_event_id && e->at_ms >= t->broke_ms)
            return e;
    }
    return NULL;
}

/* Whether the client cancelled the request whose stream broke. */
static bool cancelled_broken(const mcps_client_trace *t)
{
    for (size_t i = t->inject_at; i < t->nmsgs; i++) {
        const cJSON *m = t->msgs[i].json;
        const cJSON *method = member(m, "method");
        char id[64];
        if (!cJSON_IsString(method) || strcmp(method->valuestring, "notifications/cancelled") != 0)
            continue;
        mcps_rpc_id_text(member(member(m, "params"), "requestId"), id, sizeof id);
        if (strcmp(id, t->broke_id) == 0)
            return true;
    }
    return false;
}

/* The first request after the break sending the broken one's method again; NULL when none. */
static const cJSON *sent_again(const mcps_client_trace *t)
{
    for (size_t i = t->inject_at; i < t->nmsgs; i++) {
        const cJSON *m = t->msgs[i].json;
        const cJSON *method = member(m, "method");
        if (cJSON_IsString(method) && member(m, "id") &&
            strcmp(method->valuestring, t->broke_method) == 0)
            return m;
    }
    return NULL;
}

static int http_resume(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->answered[0])
        return mcps_client_skip(g, "the client sent no initialize request");
    if (!t->injected)
        return mcps_client_skip(g,
                                "the client sent no request after initialize: no stream to break");
    const mcps_http_seen *get = resuming_get(t);
    if (cancelled_broken(t))
        return mcps_client_broke(
            g, "HTTP-017",
            "the stream of %s (id %s) closed after an event, and the client cancelled "
            "the request: a dropped connection is no cancellation",
            t->broke_method, t->broke_id);
    if (!get)
        return mcps_client_broke(
            g, "HTTP-030",
            "the stream of %s closed after event %s, before the answer; the client did "
            "not GET with Last-Event-ID%s",
            t->broke_method, MCPS_CLIENT_EVENT_ID,
            sent_again(t) ? " (it POSTed the request again)" : "");
    if (strcmp(get->last_event_id, MCPS_CLIENT_EVENT_ID) != 0)
        return mcps_client_broke(g, "HTTP-030", "the client resumed with Last-Event-ID: %s, not %s",
                                 get->last_event_id, MCPS_CLIENT_EVENT_ID);
    long long waited = (long long)(get->at_ms - t->broke_ms);
    bool retry_rule = strcmp(t->answered, "2025-11-25") == 0;
    if (retry_rule && waited < MCPS_CLIENT_RETRY_MS - 50) /* 50 ms: our clock reads late */
        return mcps_client_broke(g, "HTTP-021",
                                 "the event said retry: %d; the client came back after %lld ms",
                                 MCPS_CLIENT_RETRY_MS, waited);
    return mcps_client_pass(g, "the client resumed with GET and Last-Event-ID: %s after %lld ms%s",
                            MCPS_CLIENT_EVENT_ID, waited, retry_rule ? " (retry honoured)" : "");
}

static int http_stream_retry(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->injected)
        return mcps_client_skip(
            g, "the client sent no 2026-07-28 request but server/discover: no stream "
               "to break");
    const mcps_http_seen *get = resuming_get(t);
    if (get)
        return mcps_client_broke(
            g, "HTTP-057",
            "the stream of %s broke; the client tried to resume it with GET and "
            "Last-Event-ID: %s (2026-07-28 streams are not resumable)",
            t->broke_method, get->last_event_id);
    const cJSON *again = sent_again(t);
    char id[64];
    if (!again)
        return mcps_client_info(
            g,
            "the stream of %s broke; the client did not send it again (allowed if it "
            "surfaced an error)",
            t->broke_method);
    mcps_rpc_id_text(member(again, "id"), id, sizeof id);
    if (strcmp(id, t->broke_id) == 0)
        return mcps_client_broke(g, "HTTP-057",
                                 "the client sent %s again with the lost request's id %s",
                                 t->broke_method, id);
    return mcps_client_pass(
        g,
        "the stream of %s broke; the client sent it again as a fresh request (id %s, "
        "was %s)",
        t->broke_method, id, t->broke_id);
}

#define HTTP_HS         (MCPS_CLIENT_HTTP_REVS & ~MCPS_REV_BIT(MCPS_REV_2026_07_28))
#define HTTP_MODERN     MCPS_REV_BIT(MCPS_REV_2026_07_28)
#define HTTP_BATCH_ERAS (MCPS_REV_BIT(MCPS_REV_2025_03_26) | HTTP_MODERN)

static const mcps_client_check http_checks[] = {
    {"client/http-bodies",
     "POST bodies: a 2025-03-26 batch well formed; to 2026-07-28, one request or notification",
     "basic/transports", "HTTP-007 HTTP-048 BATCH-003", MCPS_CSC_PLAIN, true, http_bodies,
     MCPS_CT_HTTP, false, HTTP_BATCH_ERAS},
    {"client/http-version-header",
     "2026-07-28: MCP-Protocol-Version on every POST, equal to the body's _meta version",
     "basic/transports", "HDR-001", MCPS_CSC_MODERN, false, http_version_header, MCPS_CT_HTTP, true,
     HTTP_MODERN},
    {"client/http-method-header",
     "2026-07-28: Mcp-Method on every request, Mcp-Name where the request names something",
     "basic/transports", "HDR-005", MCPS_CSC_MODERN, false, http_method_header, MCPS_CT_HTTP, true,
     HTTP_MODERN},
    {"client/http-param-headers",
     "2026-07-28: an x-mcp-header argument is mirrored into its Mcp-Param-* header",
     "basic/transports", "HDR-009 HDR-010", MCPS_CSC_MODERN, false, http_param_headers,
     MCPS_CT_HTTP, true, HTTP_MODERN},
    {"client/http-era-fallback",
     "2026-07-28 refused by a legacy endpoint (400, no modern error): a dual-era client "
     "initializes",
     "basic/transports", "HTTP-058", MCPS_CSC_PLAIN, false, http_era_fallback, MCPS_CT_HTTP, true,
     HTTP_MODERN},
    {"client/http-resume",
     "A stream closed after an event with an id is resumed with GET and Last-Event-ID",
     "basic/transports", "HTTP-030 HTTP-021 HTTP-017", MCPS_CSC_RESUME, false, http_resume,
     MCPS_CT_HTTP, false, HTTP_HS},
    {"client/http-stream-retry",
     "2026-07-28: a request whose stream broke is sent again with a new id, not resumed",
     "basic/transports", "HTTP-057", MCPS_CSC_MODERN_BREAK, false, http_stream_retry, MCPS_CT_HTTP,
     true, HTTP_MODERN},
};

const mcps_client_check *mcps_client_http_check_at(size_t i)
{
    size_t n = sizeof http_checks / sizeof *http_checks;
    return i < n ? &http_checks[i] : NULL;
}
