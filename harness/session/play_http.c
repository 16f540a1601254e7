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
 */
#include "session/play_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/array.h"
#include "base/clock.h"
#include "codec/rpc.h"

#define MAX_PENDING 32
#define MAX_SEEN    2000

typedef struct pending {
    uint64_t handle;
    cJSON *id;
    bool initialize;
    size_t seen; /* its record */
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
    char *body; /* the last body handed out */
};

bool mcps_play_http_init(mcps_play *p, mcps_httpd *h)
{
    p->http = calloc(1, sizeof *p->http);
    if (p->http)
        p->http->h = h;
    return p->http != NULL;
}

void mcps_play_http_free(mcps_play *p)
{
    if (!p->http)
        return;
    for (size_t i = 0; i < p->http->nopen; i++)
        cJSON_Delete(p->http->open[i].id);
    free(p->http->seen);
    free(p->http->body);
    free(p->http);
    p->http = NULL;
}

const mcps_http_seen *mcps_play_http_seen(const mcps_play *p, size_t *n)
{
    *n = p->http ? p->http->nseen : 0;
    return p->http ? p->http->seen : NULL;
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
    e->has_session = mcps_httpd_header(req, "Mcp-Session-Id", sid, sizeof sid);
    e->session_ok = e->has_session && s->session[0] && strcmp(sid, s->session) == 0;
    e->expired_session =
        e->has_session && !e->session_ok && s->ended[0] && strcmp(sid, s->ended) == 0;
    e->has_version = mcps_httpd_header(req, "MCP-Protocol-Version", e->version, sizeof e->version);
    e->has_accept = mcps_httpd_header(req, "Accept", e->accept, sizeof e->accept);
    mcps_play_event(p, "HTTP %s %s (Mcp-Session-Id: %s; MCP-Protocol-Version: %s; Accept: %s)",
                    req->verb, req->target, e->has_session ? sid : "-",
                    e->has_version ? e->version : "-", e->has_accept ? e->accept : "-");
    return s->nseen++;
}

static void answer(mcps_play *p, const mcps_httpd_req *req, size_t seen, int status,
                   const char *headers)
{
    mcps_httpd_respond(p->http->h, req->handle, status, headers, NULL, NULL, 0);
    set_status(p->http, seen, status);
}

static void new_session(struct mcps_play_http *s, char *out, size_t n)
{
    unsigned long long salt = (unsigned long long)mcps_clock_us() ^ (unsigned long long)getpid();
    snprintf(out, n, "mcpspec-%u-%llx", s->session_no + 1, salt);
}

/* A POST body: classify it, keep its request open, answer the rest. */
static mcps_tevent_kind on_post(mcps_play *p, const mcps_httpd_req *req, size_t seen, cJSON **msg)
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
    mcps_http_seen *e = seen < s->nseen ? &s->seen[seen] : NULL;
    mcps_rpc_info info = {0};
    if (*msg)
        mcps_rpc_classify(*msg, MCPS_REV_NONE, &info);
    const char *what = !*msg                           ? "(not JSON)"
                       : cJSON_IsArray(*msg)           ? "(batch)"
                       : info.method                   ? info.method
                       : info.kind != MCPS_RPC_REQUEST ? "(response)"
                                                       : "";
    if (e)
        snprintf(e->rpc, sizeof e->rpc, "%s", what);
    if (!*msg || cJSON_IsArray(*msg)) {
        answer(p, req, seen, 400, NULL); /* mcpspec's scripted server takes no batches */
        return MCPS_TEV_MESSAGE;
    }
    if (info.kind != MCPS_RPC_REQUEST || s->nopen >= MAX_PENDING) {
        answer(p, req, seen, info.kind == MCPS_RPC_REQUEST ? 503 : 202, NULL);
        return MCPS_TEV_MESSAGE;
    }
    pending *o = &s->open[s->nopen++];
    *o = (pending){.handle = req->handle, .id = cJSON_Duplicate(info.id, true), .seen = seen};
    o->initialize = info.method && strcmp(info.method, "initialize") == 0;
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

static mcps_tevent_kind on_request(mcps_play *p, const mcps_httpd_req *req, cJSON **msg)
{
    size_t seen = note(p, req);
    bool expired = seen < p->http->nseen && p->http->seen[seen].expired_session;
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
    char id[64];
    mcps_rpc_id_text(s->open[i].id, id, sizeof id);
    mcps_play_event(p,
                    "the answer to the client's request %s is an SSE stream, from the "
                    "message above on",
                    id);
    return mcps_httpd_stream_open(s->h, s->open[i].handle, headers[0] ? headers : NULL);
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

static bool final(mcps_play *p, size_t i, const char *bytes, size_t len, bool stream)
{
    struct mcps_play_http *s = p->http;
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
        ok = mcps_httpd_respond(s->h, s->open[i].handle, 200, headers, "application/json", bytes,
                                len);
        set_status(s, s->open[i].seen, 200);
    }
    drop(s, i);
    return ok;
}

bool mcps_play_http_send(mcps_play *p, const char *bytes, size_t len, bool stream)
{
    struct mcps_play_http *s = p->http;
    size_t i = answered_by(s, bytes, len);
    bool ok;
    if (i < s->nopen)
        ok = final(p, i, bytes, len, stream);
    else {
        /* the server's own message: on the newest POST still waiting, as an SSE event */
        while (s->nopen && !mcps_httpd_open(s->h, s->open[s->nopen - 1].handle))
            drop(s, s->nopen - 1);
        if (!s->nopen) {
            mcps_play_event(p, "no request of the client's is open to carry the message above");
            return false;
        }
        char headers[128] = "";
        if (!mcps_httpd_streaming(s->h, s->open[s->nopen - 1].handle))
            answer_headers(s, s->nopen - 1, headers, sizeof headers);
        ok = ensure_stream(p, s->nopen - 1, headers) &&
             mcps_httpd_stream_event(s->h, s->open[s->nopen - 1].handle, NULL, bytes, len);
    }
    p->sent++;
    if (!ok)
        mcps_play_event(p, "the message could not be delivered: the client went away");
    return ok;
}

bool mcps_play_expire(mcps_play *p, const cJSON *id)
{
    struct mcps_play_http *s = p->http;
    if (!s)
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
