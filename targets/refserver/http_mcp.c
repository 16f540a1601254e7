/*
 * http_mcp.c - Streamable HTTP (2025-03-26 to 2025-11-25) on /mcp: POST
 * carries JSON-RPC (initialize, ping and batches answered as one JSON body,
 * other requests as an SSE stream, notifications and responses with 202), GET
 * opens the session's stream for server-initiated messages or resumes one
 * with Last-Event-ID, DELETE ends the session.
 */
#include "http.h"

#include "codec/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum msg_kind { MSG_INVALID, MSG_REQUEST, MSG_NOTIFICATION, MSG_RESPONSE } msg_kind;

/* The front end's own reading: just enough to route; the child judges the rest. */
static msg_kind classify(const cJSON *m)
{
    if (!cJSON_IsObject(m))
        return MSG_INVALID;
    const cJSON *jsonrpc = cJSON_GetObjectItemCaseSensitive(m, "jsonrpc");
    if (!cJSON_IsString(jsonrpc) || strcmp(jsonrpc->valuestring, "2.0") != 0)
        return MSG_INVALID;
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
    if (id && !cJSON_IsString(id) && !cJSON_IsNumber(id))
        return MSG_INVALID;
    if (method)
        return !cJSON_IsString(method) ? MSG_INVALID : id ? MSG_REQUEST : MSG_NOTIFICATION;
    bool result = cJSON_HasObjectItem(m, "result"), error = cJSON_HasObjectItem(m, "error");
    return id && result != error ? MSG_RESPONSE : MSG_INVALID;
}

static bool is_method(const cJSON *m, const char *name)
{
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
    return cJSON_IsString(method) && strcmp(method->valuestring, name) == 0;
}

static enum MHD_Result invalid(rs_hserver *h, struct MHD_Connection *conn, int code,
                               const char *message)
{
    if (rs_hfault(h, RS_FAULT_HTTP_ACCEPT_INVALID))
        return rs_hreply(conn, 202, NULL, NULL, 0, NULL, NULL);
    return rs_hreply_error(conn, 400, code, message);
}

/* MCP-Protocol-Version: absent is fine (the session knows its revision); else supported and
 * the negotiated one. */
static bool version_ok(const rs_hserver *h, struct MHD_Connection *conn, const rs_hsession *s)
{
    const char *value = rs_hheader(conn, "MCP-Protocol-Version");
    if (!value && rs_hfault(h, RS_FAULT_HTTP_REQUIRE_PROTOCOL_VERSION) && s && s->initialized &&
        s->rev >= MCPS_REV_2025_06_18)
        return false;
    if (value && rs_hfault(h, RS_FAULT_FUZZ_HEADER_CRASH) && strlen(value) >= 32)
        abort(); /* fuzz-header-crash: the copy into a 32-byte buffer, asserted */
    if (!value || rs_hfault(h, RS_FAULT_HTTP_IGNORE_PROTOCOL_VERSION))
        return true;
    mcps_rev rev = mcps_rev_parse(value);
    if (rev == MCPS_REV_NONE || !mcps_rev_is_handshake(rev))
        return false;
    return !s || !s->initialized || rev == s->rev;
}

/* The session named by Mcp-Session-Id; NULL with *ret set when there is none to use. */
static rs_hsession *session_of(rs_hserver *h, struct MHD_Connection *conn, enum MHD_Result *ret)
{
    const char *sid = rs_hheader(conn, "Mcp-Session-Id");
    rs_hsession *s = NULL;
    if (!sid && rs_hfault(h, RS_FAULT_HTTP_NO_SESSION_CHECK) && (s = rs_hsession_newest(h)))
        return s;
    if (!sid) {
        *ret = rs_hreply_error(conn, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
        return NULL;
    }
    s = rs_hsession_find(h, sid);
    if (!s || s->legacy) {
        *ret = rs_hreply_error(conn, 404, -32001, "Session not found");
        return NULL;
    }
    if (!version_ok(h, conn, s)) {
        *ret = rs_hreply_error(conn, 400, -32000,
                               "Bad Request: unsupported or mismatched MCP-Protocol-Version");
        return NULL;
    }
    return s;
}

static enum MHD_Result unavailable(struct MHD_Connection *conn)
{
    return rs_hreply_error(conn, 503, -32000, "Service Unavailable: too many sessions or messages");
}

/* The body as one line for the child: as sent when it is one already. */
static bool relay(rs_hsession *s, const rs_hreq *r, const cJSON *msg)
{
    const char *body = r->body.data ? r->body.data : "";
    if (!memchr(body, '\n', r->body.len) && !memchr(body, '\r', r->body.len))
        return rs_hsession_send(s, body, r->body.len);
    size_t n;
    char *line = mcps_json_print(msg, &n);
    bool ok = line && rs_hsession_send(s, line, n);
    free(line);
    return ok;
}

static bool expect_all(rs_hsession *s, const cJSON *msg, rs_hstream *st)
{
    const cJSON *el;
    if (!cJSON_IsArray(msg)) {
        char *key = rs_hid_key(cJSON_GetObjectItemCaseSensitive(msg, "id"));
        bool ok = key && rs_hsession_expect(s, key, st);
        free(key);
        return ok;
    }
    cJSON_ArrayForEach(el, msg)
    {
        if (classify(el) != MSG_REQUEST)
            continue;
        char *key = rs_hid_key(cJSON_GetObjectItemCaseSensitive(el, "id"));
        bool ok = key && rs_hsession_expect(s, key, st);
        free(key);
        if (!ok)
            return false;
    }
    return true;
}

/* Wait (suspended) for the answer, then rs_hmcp_answer sends it as one JSON body. */
static enum MHD_Result answer_as_json(rs_hsession *s, struct MHD_Connection *conn, rs_hreq *r,
                                      const cJSON *msg, bool batch)
{
    rs_hstream *st = rs_hstream_new(s, RS_HS_JSON);
    if (!st)
        return unavailable(conn);
    st->batch = batch;
    st->modern = s->stateless;
    if (!expect_all(s, msg, st) || !relay(s, r, msg)) {
        rs_hsession_drop_stream(s, st);
        return unavailable(conn);
    }
    st->conn = conn;
    st->suspended = true;
    r->wait = st;
    MHD_suspend_connection(conn);
    return MHD_YES;
}

static char *progress_token(const cJSON *msg)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    return rs_hid_key(cJSON_GetObjectItemCaseSensitive(meta, "progressToken"));
}

static enum MHD_Result answer_as_stream(rs_hserver *h, rs_hsession *s, struct MHD_Connection *conn,
                                        rs_hreq *r, const cJSON *msg)
{
    rs_hstream *st = rs_hstream_new(s, RS_HS_POST);
    if (!st)
        return unavailable(conn);
    st->modern = s->stateless;
    st->progress_token = progress_token(msg);
    if (!expect_all(s, msg, st) || !relay(s, r, msg)) {
        rs_hsession_drop_stream(s, st);
        return unavailable(conn);
    }
    if (!rs_hstream_respond(h, conn, st, 200)) {
        st->finished = true; /* its answer still arrives; the sweep frees it */
        return MHD_NO;
    }
    rs_hstream_prime(h, st);
    return MHD_YES;
}

enum MHD_Result rs_hmcp_relay(rs_hserver *h, rs_hsession *s, struct MHD_Connection *conn,
                              rs_hreq *r, const cJSON *msg, bool json)
{
    return json ? answer_as_json(s, conn, r, msg, false) : answer_as_stream(h, s, conn, r, msg);
}

enum MHD_Result rs_hmcp_accepted(rs_hserver *h, struct MHD_Connection *conn)
{
    if (rs_hfault(h, RS_FAULT_HTTP_NOTIFICATION_200))
        return rs_hreply(conn, 200, "application/json", "{}", 2, NULL, NULL);
    return rs_hreply(conn, 202, NULL, NULL, 0, NULL, NULL);
}

/* What a POST holds: requests (and whether one is initialize or ping), or none. */
static bool post_shape(const cJSON *msg, size_t *requests, bool *json_form)
{
    *requests = 0;
    *json_form = false;
    if (!cJSON_IsArray(msg)) {
        msg_kind k = classify(msg);
        if (k == MSG_INVALID)
            return false;
        *requests = k == MSG_REQUEST;
        *json_form = k == MSG_REQUEST && (is_method(msg, "initialize") || is_method(msg, "ping"));
        return true;
    }
    const cJSON *el;
    cJSON_ArrayForEach(el, msg)
    {
        if (classify(el) == MSG_REQUEST)
            (*requests)++;
    }
    *json_form = true;
    return true;
}

static enum MHD_Result post_in_session(rs_hserver *h, struct MHD_Connection *conn, rs_hreq *r,
                                       rs_hsession *s, const cJSON *msg)
{
    size_t requests;
    bool json_form;
    post_shape(msg, &requests, &json_form);
    if (cJSON_IsArray(msg) && s->rev != MCPS_REV_2025_03_26 && !rs_hfault(h, RS_FAULT_BATCH_ALWAYS))
        return rs_hreply_error(conn, 400, -32600,
                               "Invalid Request: batches are only accepted in 2025-03-26");
    if (cJSON_IsArray(msg) && !msg->child) /* JSON-RPC: one Invalid Request error, no id */
        return invalid(h, conn, -32600, "Invalid Request: an empty batch");
    if (!requests) {
        if (!relay(s, r, msg))
            return unavailable(conn);
        return rs_hmcp_accepted(h, conn);
    }
    if (json_form)
        return answer_as_json(s, conn, r, msg, cJSON_IsArray(msg));
    return answer_as_stream(h, s, conn, r, msg);
}

enum MHD_Result rs_hmcp_post(rs_hserver *h, struct MHD_Connection *conn, rs_hreq *r)
{
    if (r->too_big)
        return rs_hreply_error(conn, 413, -32000, "Payload Too Large: 16 MiB at most");
    if (!rs_his_json_type(rs_hheader(conn, "Content-Type")))
        return rs_hreply_error(conn, 415, -32000,
                               "Unsupported Media Type: Content-Type must be application/json");
    const char *accept = rs_hheader(conn, "Accept");
    if (!rs_haccepts(accept, "application/json") || !rs_haccepts(accept, "text/event-stream"))
        return rs_hreply_error(
            conn, 406, -32000,
            "Not Acceptable: Accept must list both application/json and text/event-stream");
    cJSON *msg = mcps_json_parse_simple(r->body.data ? r->body.data : "", r->body.len);
    if (!msg)
        return invalid(h, conn, -32700, "Parse error: the body is not JSON");
    size_t requests;
    bool json_form;
    enum MHD_Result ret;
    if (!post_shape(msg, &requests, &json_form)) {
        ret = invalid(h, conn, -32600, "Invalid Request: not a JSON-RPC message");
    } else if (rs_hmodern_wants(h, conn, msg)) {
        ret = rs_hmodern_post(h, conn, r, msg);
    } else if (!rs_hheader(conn, "Mcp-Session-Id") && is_method(msg, "initialize") &&
               !cJSON_IsArray(msg) && requests == 1) {
        if (!version_ok(h, conn, NULL)) {
            ret =
                rs_hreply_error(conn, 400, -32000, "Bad Request: unsupported MCP-Protocol-Version");
        } else {
            rs_hsession *s = rs_hsession_new(h, false);
            ret = s ? answer_as_json(s, conn, r, msg, false) : unavailable(conn);
            r->new_session = s != NULL;
            if (s && !r->wait)
                rs_hsession_end(h, s, false);
        }
    } else {
        rs_hsession *s = session_of(h, conn, &ret);
        if (s)
            ret = post_in_session(h, conn, r, s, msg);
    }
    mcps_json_delete(msg);
    return ret;
}

/* A batch refused whole: a single error object whose id is null. */
static bool refused_batch(const char *answer, size_t len)
{
    cJSON *m = mcps_json_parse_simple(answer, len);
    bool refused = cJSON_IsObject(m) && cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(m, "id")) &&
                   cJSON_HasObjectItem(m, "error");
    mcps_json_delete(m);
    return refused;
}

/* initialize answered: a result makes the session, an error ends it. */
static bool session_made(rs_hserver *h, rs_hsession *s, const rs_hstream *st)
{
    cJSON *m = mcps_json_parse_simple(st->answer, st->answer_len);
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(m, "result");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(result, "protocolVersion");
    bool made = cJSON_IsObject(result);
    if (made) {
        s->initialized = true;
        s->rev = cJSON_IsString(version) ? mcps_rev_parse(version->valuestring) : MCPS_REV_NONE;
    } else {
        rs_hsession_end(h, s, false);
    }
    mcps_json_delete(m);
    return made;
}

enum MHD_Result rs_hmcp_answer(rs_hserver *h, struct MHD_Connection *conn, rs_hreq *r)
{
    rs_hstream *st = r->wait;
    rs_hsession *s = st->session;
    enum MHD_Result ret;
    r->wait = NULL;
    if (!st->answer) {
        ret = st->ended_by_child
                  ? rs_hreply_error(conn, 500, -32603, "the session's server process exited")
                  : rs_hreply_error(conn, 404, -32001, "Session not found");
    } else {
        unsigned status = st->batch && refused_batch(st->answer, st->answer_len) ? 400 : 200;
        if (st->modern)
            status = rs_hmodern_status(h, st->answer, st->answer_len);
        const char *type =
            rs_hfault(h, RS_FAULT_HTTP_WRONG_CONTENT_TYPE) ? "text/plain" : "application/json";
        bool made = r->new_session && s && session_made(h, s, st);
        /* http-modern-session-id: a 2026-07-28 answer with a session id all the same. */
        if (st->modern && rs_hfault(h, RS_FAULT_HTTP_MODERN_SESSION_ID))
            made = true;
        ret = rs_hreply(conn, status, type, st->answer, st->answer_len,
                        made ? "Mcp-Session-Id" : NULL, made ? (s ? s->id : "mcp-modern") : NULL);
    }
    st->conn = NULL;
    rs_hsession_drop_stream(st->session, st);
    return ret;
}

/* Last-Event-ID "<stream>-<n>"; false when it is not one of ours. */
static bool parse_event_id(const rs_hsession *s, const char *text, unsigned long *number,
                           unsigned long *n)
{
    char tail;
    if (sscanf(text, "%lu-%lu%c", number, n, &tail) != 2)
        return false;
    return *number > 0 && *number <= s->stream_seq;
}

/* A POST stream still waiting for its response: the resuming GET takes it over. Its old
 * connection may not have been noticed gone yet (that takes a failed write), so a stream
 * still read by it is handed on to a successor with the same number and pending answers. */
static rs_hstream *take_over(rs_hsession *s, unsigned long number)
{
    rs_hstream *st = s->streams;
    while (st && !(st->number == number && st->kind == RS_HS_POST && !st->finished &&
                   st->outstanding > 0))
        st = st->next;
    if (!st || !st->conn) {
        if (st) {
            mcps_buf_clear(&st->out);
            st->sent = 0;
        }
        return st;
    }
    rs_hstream *next = rs_hstream_new(s, RS_HS_POST);
    if (!next)
        return NULL;
    next->number = st->number;
    next->seq = st->seq;
    next->outstanding = st->outstanding;
    next->progress_token = st->progress_token;
    st->progress_token = NULL;
    for (size_t i = 0; i < s->npending; i++) {
        if (s->pending[i].stream == st)
            s->pending[i].stream = next;
    }
    st->outstanding = 0;
    rs_hstream_finish(st);
    return next;
}

enum MHD_Result rs_hmcp_get(rs_hserver *h, struct MHD_Connection *conn)
{
    if (rs_hmodern_refuses(h, conn))
        return rs_hmodern_not_allowed(h, conn);
    if (!rs_haccepts(rs_hheader(conn, "Accept"), "text/event-stream"))
        return rs_hreply_error(conn, 406, -32000,
                               "Not Acceptable: Accept must list text/event-stream");
    enum MHD_Result ret;
    rs_hsession *s = session_of(h, conn, &ret);
    if (!s)
        return ret;
    const char *last = rs_hheader(conn, "Last-Event-ID");
    unsigned long number = 0, n = 0;
    if (last && !parse_event_id(s, last, &number, &n))
        return rs_hreply_error(conn, 400, -32000, "Bad Request: unknown Last-Event-ID");
    rs_hstream *st = last ? take_over(s, number) : NULL;
    if (st) {
        rs_hstream_raw(st, ": resumed\n\n"); /* headers go out even if nothing is replayed */
        rs_hstream_replay(h, st, number, n);
        return rs_hstream_respond(h, conn, st, 200) ? MHD_YES : MHD_NO;
    }
    /* One GET stream per session: a new one replaces the old, so no message goes on two. */
    if (s->get) {
        rs_hstream *old = s->get;
        s->get = NULL;
        rs_hstream_finish(old);
    }
    st = rs_hstream_new(s, RS_HS_GET);
    if (!st)
        return unavailable(conn);
    if (!rs_hstream_respond(h, conn, st, 200)) {
        st->finished = true;
        return MHD_NO;
    }
    s->get = st;
    rs_hstream_prime(h, st);
    if (last)
        rs_hstream_replay(h, st, number, n);
    rs_hsession_flush_waiting(h, s);
    return MHD_YES;
}

enum MHD_Result rs_hmcp_delete(rs_hserver *h, struct MHD_Connection *conn)
{
    if (rs_hmodern_refuses(h, conn))
        return rs_hmodern_not_allowed(h, conn);
    enum MHD_Result ret;
    rs_hsession *s = session_of(h, conn, &ret);
    if (!s)
        return ret;
    if (!rs_hfault(h, RS_FAULT_HTTP_SESSION_SURVIVES_DELETE))
        rs_hsession_end(h, s, false);
    return rs_hreply(conn, 200, NULL, NULL, 0, NULL, NULL);
}
