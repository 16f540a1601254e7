/*
 * play_http.c - a client case over Streamable HTTP ({url}): the session
 * layer's side of the scripted server's endpoint (play.h), on the loopback
 * server of transport/httpd.h.
 *
 * It keeps the MCP session (the Mcp-Session-Id it issues at each initialize
 * answer, and the one it ended, whose requests get 404), which POST carries
 * which open request, and a record of every HTTP request with the headers
 * the HTTP checks judge. It is lenient by design: a POST without the session
 * id or the protocol version header is served all the same (a real server
 * would say 400), so one missing header does not hide the rest of what the
 * client does; the checks read the record instead.
 *
 * For 2026-07-28 requests (a body with _meta protocolVersion, or server/discover) it
 * answers as that revision's endpoint does: no session, an error -32601 with 404 (HTTP-053)
 * and other errors with 400. A stream it is told to break (mcps_play_break) ends after one
 * event with an id; a kept request's answer then waits for the client's GET with that
 * Last-Event-ID (resumption, 2025-03-26 to 2025-11-25).
 *
 * The same record and the same server serve 2024-11-05's HTTP+SSE transport
 * ({sse-url}, mcps_play_sse_init): a GET stream whose first event names the
 * endpoint to POST to, every POST answered 202 and every message of ours an
 * `event: message` on the stream.
 */
#include "session/play_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/array.h"
#include "base/buf.h"
#include "base/clock.h"
#include "codec/rpc.h"

#define MAX_PENDING 32
#define MAX_SEEN    2000

typedef struct pending {
    uint64_t handle;
    cJSON *id;
    bool initialize;
    bool modern;       /* a 2026-07-28 request: errors get 4xx statuses */
    bool unauthorized; /* it came without a token: its answer is a 401 */
    size_t seen;       /* its record */
    char event_id[64]; /* its stream was broken after this event; it waits for a GET resuming */
    bool resumed;      /* ...and the GET came: handle is the GET's */
    char *queued;      /* its answer, sent before the GET came */
    size_t queued_len;
} pending;

struct mcps_play_http {
    mcps_httpd *h;
    pending open[MAX_PENDING];
    size_t nopen;
    char session[64]; /* the live session ("" none) */
    char ended[64];   /* the last one ended (by us or by DELETE) */
    unsigned session_no;
    mcps_http_seen *seen;
    size_t nseen, cap;
    char *body;                /* the last body handed out */
    bool forms;                /* mcps_play_http_forms: results alternate JSON and SSE */
    unsigned results;          /* ...how many have been answered so */
    bool auth;                 /* mcps_play_http_auth: the endpoint wants a token */
    bool wrong_issuer;         /* ...and its authorization server metadata names another issuer */
    mcps_http_seen *auth_seen; /* the requests to its discovery URLs */
    size_t nauth, cap_auth;
    /* HTTP+SSE (mcps_play_sse_init) */
    bool legacy;
    uint64_t stream;    /* the newest SSE stream (0: none) */
    char sse_path[64];  /* PATH/sse: GET it for the stream */
    char msg_path[64];  /* PATH/messages: the endpoint event's path */
    char sse_url[128];  /* what the client is given */
    char endpoint[200]; /* the newest endpoint event's URI: msg_path?session_id=... */
};

bool mcps_play_http_init(mcps_play *p, mcps_httpd *h)
{
    p->http = calloc(1, sizeof *p->http);
    if (p->http)
        p->http->h = h;
    return p->http != NULL;
}

/* HTTP+SSE on s: the stream at the endpoint's path + stream (a suffix), messages under it. */
static void go_legacy(struct mcps_play_http *s, const char *stream)
{
    s->legacy = true;
    s->h->sub_paths = true;
    snprintf(s->sse_path, sizeof s->sse_path, "%s%s", s->h->path, stream);
    snprintf(s->msg_path, sizeof s->msg_path, "%s/messages", s->h->path);
    snprintf(s->sse_url, sizeof s->sse_url, "%s%s", s->h->url, stream);
}

bool mcps_play_sse_init(mcps_play *p, mcps_httpd *h)
{
    if (!mcps_play_http_init(p, h))
        return false;
    go_legacy(p->http, "/sse");
    return true;
}

void mcps_play_http_legacy(mcps_play *p)
{
    if (p->http)
        go_legacy(p->http, "");
}

const char *mcps_play_sse_url(const mcps_play *p)
{
    return p->http && p->http->legacy ? p->http->sse_url : NULL;
}

void mcps_play_http_free(mcps_play *p)
{
    if (!p->http)
        return;
    for (size_t i = 0; i < p->http->nopen; i++) {
        cJSON_Delete(p->http->open[i].id);
        free(p->http->open[i].queued);
    }
    free(p->http->seen);
    free(p->http->auth_seen);
    free(p->http->body);
    free(p->http);
    p->http = NULL;
}

const mcps_http_seen *mcps_play_http_seen(const mcps_play *p, size_t *n)
{
    *n = p->http ? p->http->nseen : 0;
    return p->http ? p->http->seen : NULL;
}

void mcps_play_http_auth(mcps_play *p)
{
    if (p->http)
        p->http->auth = true;
}

void mcps_play_http_auth_wrong_issuer(mcps_play *p)
{
    if (p->http)
        p->http->auth = p->http->wrong_issuer = true;
}

const mcps_http_seen *mcps_play_auth_seen(const mcps_play *p, size_t *n)
{
    *n = p->http ? p->http->nauth : 0;
    return p->http ? p->http->auth_seen : NULL;
}

void mcps_play_http_forms(mcps_play *p)
{
    if (p->http)
        p->http->forms = true;
}

bool mcps_play_http_busy(const mcps_play *p)
{
    return p->http && p->http->nopen > 0;
}

static void set_status(struct mcps_play_http *s, size_t seen, int status)
{
    if (seen < s->nseen)
        s->seen[seen].status = status;
}

/* The Mcp-Param-* header lines of req into out, "Name: value\n" each (as many as fit). */
static void param_headers(const mcps_httpd_req *req, char *out, size_t n)
{
    const char *p = req->head, *end = req->head + req->head_len;
    size_t used = 0;
    out[0] = '\0';
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t len = (size_t)((eol ? eol : end) - p);
        if (len && p[len - 1] == '\r')
            len--;
        if (len > 10 && strncasecmp(p, "Mcp-Param-", 10) == 0 && used + len + 2 <= n) {
            memcpy(out + used, p, len);
            used += len;
            out[used++] = '\n';
            out[used] = '\0';
        }
        p = eol ? eol + 1 : end;
    }
}

/* Record req's headers; the index of the record (nseen when it could not be kept). */
static size_t note(mcps_play *p, const mcps_httpd_req *req)
{
    struct mcps_play_http *s = p->http;
    if (s->nseen >= MAX_SEEN ||
        !mcps_array_reserve(&s->seen, &s->cap, s->nseen + 1, sizeof *s->seen, 16))
        return s->nseen;
    mcps_http_seen *e = &s->seen[s->nseen];
    char sid[128] = "";
    *e = (mcps_http_seen){.session_no = s->session[0] ? s->session_no : 0};
    snprintf(e->verb, sizeof e->verb, "%s", req->verb);
    snprintf(e->target, sizeof e->target, "%.199s", req->target);
    e->has_session = mcps_httpd_header(req, "Mcp-Session-Id", sid, sizeof sid);
    e->session_ok = e->has_session && s->session[0] && strcmp(sid, s->session) == 0;
    e->expired_session =
        e->has_session && !e->session_ok && s->ended[0] && strcmp(sid, s->ended) == 0;
    e->has_version = mcps_httpd_header(req, "MCP-Protocol-Version", e->version, sizeof e->version);
    e->has_accept = mcps_httpd_header(req, "Accept", e->accept, sizeof e->accept);
    e->has_mcp_method = mcps_httpd_header(req, "Mcp-Method", e->mcp_method, sizeof e->mcp_method);
    e->has_mcp_name = mcps_httpd_header(req, "Mcp-Name", e->mcp_name, sizeof e->mcp_name);
    e->has_last_event_id =
        mcps_httpd_header(req, "Last-Event-ID", e->last_event_id, sizeof e->last_event_id);
    e->at_ms = mcps_clock_ms();
    param_headers(req, e->mcp_params, sizeof e->mcp_params);
    char auth[16] = "";
    e->has_auth = mcps_httpd_header(req, "Authorization", auth, sizeof auth);
    e->auth_bearer = e->has_auth && strncasecmp(auth, "Bearer ", 7) == 0;
    const char *query = strchr(req->target, '?');
    e->query_token = query && strstr(query, "access_token=") != NULL;
    snprintf(e->path, sizeof e->path, "%.*s",
             (int)(query ? (size_t)(query - req->target) : strlen(req->target)), req->target);
    mcps_play_event(
        p, "HTTP %s %s (Mcp-Session-Id: %s; MCP-Protocol-Version: %s; Accept: %s%s%s%s%s)",
        req->verb, req->target, e->has_session ? sid : "-", e->has_version ? e->version : "-",
        e->has_accept ? e->accept : "-", e->has_mcp_method ? "; Mcp-Method: " : "",
        e->has_mcp_method ? e->mcp_method : "", e->has_last_event_id ? "; Last-Event-ID: " : "",
        e->has_last_event_id ? e->last_event_id : "");
    return s->nseen++;
}

static void answer(mcps_play *p, const mcps_httpd_req *req, size_t seen, int status,
                   const char *headers)
{
    mcps_httpd_respond(p->http->h, req->handle, status, headers, NULL, NULL, 0);
    set_status(p->http, seen, status);
}

/* A batch body (2025-03-26) of responses and notifications only: accepted like one of them. */
static bool answers_only(const cJSON *batch)
{
    const cJSON *e;
    if (!batch->child)
        return false;
    cJSON_ArrayForEach(e, batch)
    {
        mcps_rpc_info info;
        mcps_rpc_classify(e, MCPS_REV_NONE, &info);
        if (info.kind == MCPS_RPC_REQUEST || info.kind == MCPS_RPC_INVALID ||
            info.kind == MCPS_RPC_BATCH)
            return false;
    }
    return true;
}

/* What the request in body msg says of itself: its _meta version and id, in its record. */
static bool describe(mcps_http_seen *e, const cJSON *msg, const mcps_rpc_info *info)
{
    const cJSON *meta =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(msg, "params"), "_meta");
    const cJSON *v =
        cJSON_GetObjectItemCaseSensitive(meta, "io.modelcontextprotocol/protocolVersion");
    if (!e)
        return cJSON_IsString(v);
    snprintf(e->meta_version, sizeof e->meta_version, "%s",
             cJSON_IsString(v) ? v->valuestring : "");
    if (info->kind == MCPS_RPC_REQUEST)
        mcps_rpc_id_text(info->id, e->rpc_id, sizeof e->rpc_id);
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(
        params, info->method && strcmp(info->method, "resources/read") == 0 ? "uri" : "name");
    if (cJSON_IsString(name))
        snprintf(e->body_name, sizeof e->body_name, "%s", name->valuestring);
    return cJSON_IsString(v);
}

static void new_session(struct mcps_play_http *s, char *out, size_t n)
{
    unsigned long long salt = (unsigned long long)mcps_clock_us() ^ (unsigned long long)getpid();
    snprintf(out, n, "mcpspec-%u-%llx", s->session_no + 1, salt);
}

static void unauthorized(struct mcps_play_http *s, uint64_t handle, size_t seen);

/* The body of POST req: kept, logged, parsed into *msg (NULL: not JSON) and classified into
 * info; what it is noted in its record e (NULL: none). */
static void take_body(mcps_play *p, const mcps_httpd_req *req, mcps_http_seen *e, cJSON **msg,
                      mcps_rpc_info *info)
{
    struct mcps_play_http *s = p->http;
    free(s->body);
    s->body = malloc(req->body_len + 1);
    if (s->body)
        memcpy(s->body, req->body, req->body_len + 1);
    p->raw = s->body ? s->body : "";
    p->raw_len = s->body ? req->body_len : 0;
    p->received++;
    mcps_play_log(p, MCPS_WIRE_RECEIVED, p->raw, p->raw_len);
    *msg = mcps_play_parse(p->raw, p->raw_len);
    *info = (mcps_rpc_info){0};
    if (*msg)
        mcps_rpc_classify(*msg, MCPS_REV_NONE, info);
    const char *what = !*msg                            ? "(not JSON)"
                       : cJSON_IsArray(*msg)            ? "(batch)"
                       : info->method                   ? info->method
                       : info->kind != MCPS_RPC_REQUEST ? "(response)"
                                                        : "";
    if (e)
        snprintf(e->rpc, sizeof e->rpc, "%s", what);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(*msg, "params"), "protocolVersion");
    if (e && info->method && strcmp(info->method, "initialize") == 0 && cJSON_IsString(v))
        snprintf(e->init_version, sizeof e->init_version, "%s", v->valuestring);
}

/* A POST body: classify it, keep its request open, answer the rest. */
static mcps_tevent_kind on_post(mcps_play *p, const mcps_httpd_req *req, size_t seen, cJSON **msg)
{
    struct mcps_play_http *s = p->http;
    mcps_http_seen *e = seen < s->nseen ? &s->seen[seen] : NULL;
    mcps_rpc_info info;
    take_body(p, req, e, msg, &info);
    if (*msg && cJSON_IsArray(*msg) && answers_only(*msg)) {
        answer(p, req, seen, 202, NULL); /* answers to a batch of ours (2025-03-26) */
        return MCPS_TEV_MESSAGE;
    }
    if (!*msg || cJSON_IsArray(*msg)) {
        answer(p, req, seen, 400, NULL); /* mcpspec's scripted server takes no batch requests */
        return MCPS_TEV_MESSAGE;
    }
    bool modern =
        describe(e, *msg, &info) || (info.method && strcmp(info.method, "server/discover") == 0);
    bool no_token = s->auth && e && !e->has_auth;
    if (no_token && info.kind != MCPS_RPC_REQUEST) {
        unauthorized(s, req->handle, seen);
        return MCPS_TEV_MESSAGE;
    }
    if (info.kind != MCPS_RPC_REQUEST || s->nopen >= MAX_PENDING) {
        answer(p, req, seen, info.kind == MCPS_RPC_REQUEST ? 503 : 202, NULL);
        return MCPS_TEV_MESSAGE;
    }
    pending *o = &s->open[s->nopen++];
    *o = (pending){.handle = req->handle, .id = cJSON_Duplicate(info.id, true), .seen = seen};
    o->initialize = info.method && strcmp(info.method, "initialize") == 0;
    o->modern = modern && !o->initialize;
    o->unauthorized = no_token;
    if (e)
        e->initialize = o->initialize;
    return MCPS_TEV_MESSAGE;
}

/* DELETE: the client ends its session. */
static mcps_tevent_kind on_delete(mcps_play *p, const mcps_httpd_req *req, size_t seen)
{
    struct mcps_play_http *s = p->http;
    if (seen >= s->nseen || !s->seen[seen].session_ok) {
        answer(p, req, seen, 404, NULL);
        return MCPS_TEV_TIMEOUT;
    }
    answer(p, req, seen, 200, NULL);
    snprintf(s->ended, sizeof s->ended, "%s", s->session);
    s->session[0] = '\0';
    mcps_play_event(p, "the client ended its session (HTTP DELETE)");
    return MCPS_TEV_CLOSED;
}

static bool stream_answer(mcps_play *p, size_t i, const char *bytes, size_t len);
static void drop(struct mcps_play_http *s, size_t i);

/* A GET with Last-Event-ID naming a stream we broke: it carries that request's answer. */
static bool resume(mcps_play *p, const mcps_httpd_req *req, size_t seen)
{
    struct mcps_play_http *s = p->http;
    const mcps_http_seen *e = seen < s->nseen ? &s->seen[seen] : NULL;
    for (size_t i = 0; e && e->has_last_event_id && i < s->nopen; i++) {
        pending *o = &s->open[i];
        if (!o->event_id[0] || o->resumed || strcmp(o->event_id, e->last_event_id) != 0)
            continue;
        o->handle = req->handle;
        o->resumed = true;
        set_status(s, seen, 200);
        mcps_play_event(p, "the client resumed the broken stream (Last-Event-ID: %s)", o->event_id);
        if (!mcps_httpd_stream_open(s->h, o->handle, NULL))
            return true;
        if (o->queued) {
            stream_answer(p, i, o->queued, o->queued_len);
            drop(s, i);
        }
        return true;
    }
    return false;
}

/* ---- authorization discovery (mcps_play_http_auth) ---- */

/* The endpoint's URL split: origin ("http://127.0.0.1:PORT") and path ("/mcp/..."). */
static const char *endpoint_path(const struct mcps_play_http *s, char *origin, size_t n)
{
    const char *url = s->h->url, *path = strchr(url + strlen("http://"), '/');
    if (!path)
        path = url + strlen(url);
    snprintf(origin, n, "%.*s", (int)(path - url), url);
    return *path ? path : "/";
}

/* The application_type of a registration body into e ("(none)" without one). */
static void note_registration(mcps_http_seen *e, const mcps_httpd_req *req)
{
    cJSON *m = mcps_play_parse(req->body, req->body_len);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "application_type");
    snprintf(e->app_type, sizeof e->app_type, "%s", cJSON_IsString(v) ? v->valuestring : "(none)");
    cJSON_Delete(m);
}

/* A discovery URL's document (malloc'd), or NULL for a 404. */
static char *auth_document(const struct mcps_play_http *s, const mcps_http_seen *e)
{
    char origin[96], prm_well_known[200];
    const char *path = endpoint_path(s, origin, sizeof origin);
    snprintf(prm_well_known, sizeof prm_well_known, "/.well-known/oauth-protected-resource%s",
             path);
    mcps_buf b = {0};
    if (strcmp(e->verb, "GET") == 0 &&
        (strcmp(e->path, MCPS_PLAY_AUTH_PRM) == 0 || strcmp(e->path, prm_well_known) == 0))
        mcps_buf_printf(&b, "{\"resource\":\"%s\",\"authorization_servers\":[\"%s\"]}", s->h->url,
                        origin);
    else if (strcmp(e->verb, "GET") == 0 &&
             (strcmp(e->path, "/.well-known/oauth-authorization-server") == 0 ||
              strcmp(e->path, "/.well-known/openid-configuration") == 0))
        mcps_buf_printf(&b,
                        "{\"issuer\":\"%s%s\",\"authorization_endpoint\":\"%s/authorize\","
                        "\"token_endpoint\":\"%s/token\",\"registration_endpoint\":\"%s/register\","
                        "\"response_types_supported\":[\"code\"],"
                        "\"code_challenge_methods_supported\":[\"S256\"]}",
                        origin, s->wrong_issuer ? MCPS_PLAY_AUTH_OTHER_ISSUER : "", origin, origin,
                        origin);
    else if (strcmp(e->verb, "POST") == 0 && strcmp(e->path, "/register") == 0)
        mcps_buf_puts(&b, "{\"client_id\":\"mcpspec-client\",\"redirect_uris\":[]}");
    return b.oom ? (mcps_buf_free(&b), NULL) : mcps_buf_take(&b);
}

/* A request off the endpoint, in auth mode: served from the discovery documents and kept
 * apart from the endpoint's records. */
static void serve_auth(mcps_play *p, const mcps_httpd_req *req, size_t seen)
{
    struct mcps_play_http *s = p->http;
    if (seen >= s->nseen)
        return (void)mcps_httpd_respond(s->h, req->handle, 503, NULL, NULL, NULL, 0);
    mcps_http_seen e = s->seen[--s->nseen];
    if (strcmp(e.path, "/register") == 0)
        note_registration(&e, req);
    char *doc = auth_document(s, &e);
    e.status = doc ? (strcmp(e.verb, "POST") == 0 ? 201 : 200) : 404;
    mcps_httpd_respond(s->h, req->handle, e.status, "Cache-Control: no-store\r\n",
                       doc ? "application/json" : NULL, doc, doc ? strlen(doc) : 0);
    free(doc);
    if (s->nauth < MAX_SEEN &&
        mcps_array_reserve(&s->auth_seen, &s->cap_auth, s->nauth + 1, sizeof e, 8))
        s->auth_seen[s->nauth++] = e;
}

/* The 401 a request without a token gets (AUTH-008: resource_metadata, not the well-known). */
static void unauthorized(struct mcps_play_http *s, uint64_t handle, size_t seen)
{
    char origin[96], headers[256];
    endpoint_path(s, origin, sizeof origin);
    snprintf(headers, sizeof headers,
             "WWW-Authenticate: Bearer resource_metadata=\"%s" MCPS_PLAY_AUTH_PRM "\"\r\n", origin);
    mcps_httpd_respond(s->h, handle, 401, headers, NULL, NULL, 0);
    set_status(s, seen, 401);
    if (seen < s->nseen)
        s->seen[seen].refused_401 = true;
}

/* ---- HTTP+SSE (mcps_play_sse_init) ---- */

/* Whether target, its query aside, is path. */
static bool at_path(const char *target, const char *path)
{
    size_t n = strcspn(target, "?");
    return n == strlen(path) && strncmp(target, path, n) == 0;
}

/* A GET of the SSE URL: a new session, whose stream opens with the endpoint event. */
static void legacy_stream(mcps_play *p, const mcps_httpd_req *req, size_t seen)
{
    struct mcps_play_http *s = p->http;
    if (s->stream) {
        mcps_httpd_stream_close(s->h, s->stream);
        mcps_play_event(p, "a new SSE stream: the previous one is closed");
    }
    new_session(s, s->session, sizeof s->session);
    s->session_no++;
    snprintf(s->endpoint, sizeof s->endpoint, "%s?session_id=%s", s->msg_path, s->session);
    s->stream = req->handle;
    set_status(s, seen, 200);
    if (seen < s->nseen) {
        s->seen[seen].sse = true;
        snprintf(s->seen[seen].endpoint, sizeof s->seen[seen].endpoint, "%s", s->endpoint);
    }
    if (mcps_httpd_stream_open(s->h, req->handle, NULL) &&
        mcps_httpd_stream_named(s->h, req->handle, "endpoint", s->endpoint, strlen(s->endpoint)))
        mcps_play_event(p, "SSE stream %u: event endpoint, data %s", s->session_no, s->endpoint);
    else
        mcps_play_event(p, "the endpoint event could not be sent: the client went away");
}

/* A POST to the endpoint's path: 202 (400 when not JSON), its body handed out; whether it went
 * to the endpoint event's URI as given is the record's (SSE-003). */
static mcps_tevent_kind legacy_post(mcps_play *p, const mcps_httpd_req *req, size_t seen,
                                    cJSON **msg)
{
    struct mcps_play_http *s = p->http;
    mcps_http_seen *e = seen < s->nseen ? &s->seen[seen] : NULL;
    mcps_rpc_info info;
    if (e)
        e->to_endpoint = s->endpoint[0] && strcmp(req->target, s->endpoint) == 0;
    take_body(p, req, e, msg, &info);
    answer(p, req, seen, *msg ? 202 : 400, NULL);
    if (!s->stream)
        mcps_play_event(p, "no SSE stream is open: nothing can answer that POST");
    return MCPS_TEV_MESSAGE;
}

static mcps_tevent_kind on_legacy(mcps_play *p, const mcps_httpd_req *req, size_t seen, cJSON **msg)
{
    struct mcps_play_http *s = p->http;
    bool sse = at_path(req->target, s->sse_path), messages = at_path(req->target, s->msg_path);
    if (strcmp(req->verb, "GET") == 0 && sse) {
        legacy_stream(p, req, seen);
        return MCPS_TEV_TIMEOUT;
    }
    if (strcmp(req->verb, "POST") == 0 && messages)
        return legacy_post(p, req, seen, msg);
    if (strcmp(req->verb, "POST") == 0) { /* what it is, for the record; not served */
        mcps_rpc_info info;
        take_body(p, req, seen < s->nseen ? &s->seen[seen] : NULL, msg, &info);
        cJSON_Delete(*msg);
        *msg = NULL;
    }
    answer(p, req, seen, sse || messages ? 405 : 404,
           sse        ? "Allow: GET\r\n"
           : messages ? "Allow: POST\r\n"
                      : NULL);
    mcps_play_event(p, "answered %d: HTTP+SSE takes GET %s and POST %s?session_id=...",
                    sse || messages ? 405 : 404, s->sse_path, s->msg_path);
    return MCPS_TEV_TIMEOUT;
}

/* Every message of the scripted server's: an `event: message` on the newest stream. */
static bool legacy_send(mcps_play *p, const char *bytes, size_t len)
{
    struct mcps_play_http *s = p->http;
    bool ok = s->stream && mcps_httpd_stream_named(s->h, s->stream, "message", bytes, len);
    p->sent++;
    if (!s->stream)
        mcps_play_event(p, "no SSE stream is open to carry the message above");
    else if (!ok)
        mcps_play_event(p, "the message could not be delivered: the client went away");
    return ok;
}

/* The client closed its stream: the session is over (once). */
static bool legacy_closed(mcps_play *p)
{
    struct mcps_play_http *s = p->http;
    if (!s->legacy || !s->stream || mcps_httpd_open(s->h, s->stream))
        return false;
    mcps_httpd_stream_close(s->h, s->stream);
    s->stream = 0;
    mcps_play_event(p, "the client closed its SSE stream");
    return true;
}

static mcps_tevent_kind on_request(mcps_play *p, const mcps_httpd_req *req, cJSON **msg)
{
    size_t seen = note(p, req);
    if (p->http->legacy)
        return on_legacy(p, req, seen, msg);
    char origin[96];
    if (p->http->auth && seen < p->http->nseen &&
        strcmp(p->http->seen[seen].path, endpoint_path(p->http, origin, sizeof origin)) != 0) {
        serve_auth(p, req, seen);
        return MCPS_TEV_TIMEOUT;
    }
    bool expired = seen < p->http->nseen && p->http->seen[seen].expired_session;
    if (strcmp(req->verb, "GET") == 0 && resume(p, req, seen))
        return MCPS_TEV_TIMEOUT;
    if (strcmp(req->verb, "GET") == 0) {
        answer(p, req, seen, 405, "Allow: POST, DELETE\r\n"); /* no server-initiated stream */
        return MCPS_TEV_TIMEOUT;
    }
    if (expired) {
        answer(p, req, seen, 404, NULL);
        mcps_play_event(p, "answered 404: that session was ended");
        return MCPS_TEV_TIMEOUT;
    }
    if (strcmp(req->verb, "DELETE") == 0)
        return on_delete(p, req, seen);
    if (strcmp(req->verb, "POST") != 0) {
        answer(p, req, seen, 405, "Allow: GET, POST, DELETE\r\n");
        return MCPS_TEV_TIMEOUT;
    }
    return on_post(p, req, seen, msg);
}

mcps_tevent_kind mcps_play_http_next(mcps_play *p, int64_t deadline_ms, cJSON **msg)
{
    for (;;) {
        mcps_httpd_req req;
        char err[200];
        if (legacy_closed(p))
            return MCPS_TEV_CLOSED;
        int r = mcps_httpd_next(p->http->h, deadline_ms, &req, err, sizeof err);
        if (r == 0)
            return MCPS_TEV_TIMEOUT;
        if (r == -2) {
            mcps_play_event(p, "run stopped");
            return MCPS_TEV_STOPPED;
        }
        if (r < 0) {
            mcps_play_event(p, "%s", err);
            return MCPS_TEV_ERROR;
        }
        mcps_tevent_kind k = on_request(p, &req, msg);
        if (k != MCPS_TEV_TIMEOUT)
            return k;
    }
}

static void drop(struct mcps_play_http *s, size_t i)
{
    cJSON_Delete(s->open[i].id);
    free(s->open[i].queued);
    memmove(&s->open[i], &s->open[i + 1], (s->nopen - i - 1) * sizeof *s->open);
    s->nopen--;
}

/* The open request whose id a response names; nopen when none. */
static size_t answered_by(const struct mcps_play_http *s, const char *bytes, size_t len)
{
    cJSON *m = mcps_play_parse(bytes, len);
    mcps_rpc_info info = {0};
    size_t at = s->nopen;
    if (m)
        mcps_rpc_classify(m, MCPS_REV_NONE, &info);
    if (m && (info.kind == MCPS_RPC_RESULT || info.kind == MCPS_RPC_ERROR))
        for (size_t i = 0; i < s->nopen && at == s->nopen; i++)
            if (info.id && mcps_rpc_id_equal(s->open[i].id, info.id))
                at = i;
    cJSON_Delete(m);
    return at;
}

/* Open the stream of request i (headers: the session, for initialize). */
static bool ensure_stream(mcps_play *p, size_t i, const char *headers)
{
    struct mcps_play_http *s = p->http;
    if (mcps_httpd_streaming(s->h, s->open[i].handle))
        return true;
    set_status(s, s->open[i].seen, 200);
    if (s->open[i].seen < s->nseen)
        s->seen[s->open[i].seen].sse = true;
    char id[64];
    mcps_rpc_id_text(s->open[i].id, id, sizeof id);
    mcps_play_event(p,
                    "the answer to the client's request %s is an SSE stream, from the "
                    "message above on",
                    id);
    if (!mcps_httpd_stream_open(s->h, s->open[i].handle, headers[0] ? headers : NULL))
        return false;
    static const char comment[] = ": mcpspec keep-alive\n\n"; /* HTTP-052: not a message */
    if (s->forms && s->open[i].modern)
        mcps_httpd_stream_raw(s->h, s->open[i].handle, comment, sizeof comment - 1);
    return true;
}

/* Headers for the answer to request i: the new session id when it is initialize. */
static void answer_headers(struct mcps_play_http *s, size_t i, char *out, size_t n)
{
    out[0] = '\0';
    if (!s->open[i].initialize)
        return;
    char sid[64];
    new_session(s, sid, sizeof sid);
    snprintf(out, n, "Mcp-Session-Id: %s\r\n", sid);
    snprintf(s->session, sizeof s->session, "%s", sid);
    s->session_no++;
}

/* The answer to a resumed request, on the GET's stream, with an event id of its own. */
static bool stream_answer(mcps_play *p, size_t i, const char *bytes, size_t len)
{
    struct mcps_play_http *s = p->http;
    char id[80];
    snprintf(id, sizeof id, "%s-2", s->open[i].event_id);
    bool ok = mcps_httpd_stream_event(s->h, s->open[i].handle, id, bytes, len);
    mcps_httpd_stream_close(s->h, s->open[i].handle);
    return ok;
}

/* The HTTP status of a 2026-07-28 answer: an error is 4xx (HTTP-053, VER-002, STATE-002). */
static int modern_status(const char *bytes, size_t len)
{
    cJSON *m = mcps_play_parse(bytes, len);
    const cJSON *code =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "error"), "code");
    int status = !cJSON_IsNumber(code) ? 200 : code->valuedouble == -32601 ? 404 : 400;
    cJSON_Delete(m);
    return status;
}

/* Whether bytes is a JSON-RPC result (not an error). */
static bool is_result(const char *bytes, size_t len)
{
    cJSON *m = mcps_play_parse(bytes, len);
    bool yes = cJSON_GetObjectItemCaseSensitive(m, "result") != NULL;
    cJSON_Delete(m);
    return yes;
}

static bool final(mcps_play *p, size_t i, const char *bytes, size_t len, bool stream)
{
    struct mcps_play_http *s = p->http;
    pending *o = &s->open[i];
    if (o->unauthorized) {
        unauthorized(s, o->handle, o->seen);
        mcps_play_event(p, "answered 401 instead: the request carried no token");
        drop(s, i);
        return true;
    }
    /* forms: every second result goes as an SSE stream (HTTP-012) */
    bool lower = s->forms && o->modern;
    if (s->forms && !o->event_id[0] && is_result(bytes, len) && ++s->results % 2 == 0)
        stream = true;
    if (o->event_id[0] && !o->resumed) { /* its stream is broken: the GET will carry it */
        free(o->queued);
        o->queued = malloc(len);
        if (o->queued)
            memcpy(o->queued, bytes, len);
        o->queued_len = o->queued ? len : 0;
        return true;
    }
    if (o->resumed) {
        bool ok = stream_answer(p, i, bytes, len);
        drop(s, i);
        return ok;
    }
    char headers[128] = "";
    bool streaming = mcps_httpd_streaming(s->h, s->open[i].handle);
    if (!streaming)
        answer_headers(s, i, headers, sizeof headers);
    bool ok;
    if (streaming || stream) {
        ok = ensure_stream(p, i, headers) &&
             mcps_httpd_stream_event(s->h, s->open[i].handle, NULL, bytes, len);
        mcps_httpd_stream_close(s->h, s->open[i].handle);
    } else {
        int status = s->open[i].modern ? modern_status(bytes, len) : 200;
        if (lower) /* HDR-013: header names match without regard to case */
            snprintf(headers + strlen(headers), sizeof headers - strlen(headers),
                     "content-type: application/json\r\n");
        ok = mcps_httpd_respond(s->h, s->open[i].handle, status, headers,
                                lower ? NULL : "application/json", bytes, len);
        set_status(s, s->open[i].seen, status);
    }
    drop(s, i);
    return ok;
}

/* The newest open request whose client is still there (nopen when none); the requests whose
 * client went away are dropped, except a broken stream's, which waits for its GET. */
static size_t newest_open(struct mcps_play_http *s)
{
    for (size_t i = s->nopen; i-- > 0;) {
        if (s->open[i].event_id[0] && !s->open[i].resumed)
            continue;
        if (mcps_httpd_open(s->h, s->open[i].handle))
            return i;
        drop(s, i);
    }
    return s->nopen;
}

bool mcps_play_http_send(mcps_play *p, const char *bytes, size_t len, bool stream)
{
    struct mcps_play_http *s = p->http;
    if (s->legacy)
        return legacy_send(p, bytes, len);
    size_t i = answered_by(s, bytes, len);
    bool ok;
    if (i < s->nopen)
        ok = final(p, i, bytes, len, stream);
    else {
        /* the server's own message: on the newest POST still waiting, as an SSE event */
        size_t n = newest_open(s);
        if (n == s->nopen) {
            mcps_play_event(p, "no request of the client's is open to carry the message above");
            return false;
        }
        char headers[128] = "";
        if (!mcps_httpd_streaming(s->h, s->open[n].handle))
            answer_headers(s, n, headers, sizeof headers);
        ok = ensure_stream(p, n, headers) &&
             mcps_httpd_stream_event(s->h, s->open[n].handle, NULL, bytes, len);
    }
    p->sent++;
    if (!ok)
        mcps_play_event(p, "the message could not be delivered: the client went away");
    return ok;
}

bool mcps_play_expire(mcps_play *p, const cJSON *id)
{
    struct mcps_play_http *s = p->http;
    if (!s || s->legacy)
        return false;
    for (size_t i = 0; i < s->nopen; i++) {
        if (!mcps_rpc_id_equal(s->open[i].id, id))
            continue;
        mcps_httpd_respond(s->h, s->open[i].handle, 404, NULL, NULL, NULL, 0);
        set_status(s, s->open[i].seen, 404);
        drop(s, i);
        snprintf(s->ended, sizeof s->ended, "%s", s->session);
        s->session[0] = '\0';
        mcps_play_event(p, "answered 404: the scripted server forgot the session");
        return true;
    }
    return false;
}

bool mcps_play_break(mcps_play *p, const cJSON *id, const char *event_id, int retry_ms, bool keep)
{
    struct mcps_play_http *s = p->http;
    for (size_t i = 0; s && !s->legacy && i < s->nopen; i++) {
        pending *o = &s->open[i];
        if (!mcps_rpc_id_equal(o->id, id) || o->event_id[0])
            continue;
        char headers[128] = "", prime[160];
        answer_headers(s, i, headers, sizeof headers);
        int n = snprintf(prime, sizeof prime, "id: %s\nretry: %d\ndata: \n\n", event_id, retry_ms);
        if (ensure_stream(p, i, headers))
            mcps_httpd_stream_raw(s->h, o->handle, prime, (size_t)n);
        mcps_httpd_stream_close(s->h, o->handle);
        mcps_play_event(p,
                        "the stream was closed after one event (id %s, retry %d ms), before the "
                        "answer",
                        event_id, retry_ms);
        if (keep)
            snprintf(o->event_id, sizeof o->event_id, "%s", event_id);
        else
            drop(s, i);
        return true;
    }
    return false;
}
