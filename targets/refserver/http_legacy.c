/*
 * http_legacy.c - the HTTP+SSE transport of 2024-11-05: GET /sse starts a
 * session and its stream, whose first event names the POST endpoint
 * (/messages?session=ID); POSTs there are answered 202 and their responses
 * travel on the stream as message events. The session ends when the stream's
 * reader goes away.
 */
#include "http.h"

#include "codec/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum MHD_Result rs_hlegacy_get(rs_hserver *h, struct MHD_Connection *conn)
{
    rs_hsession *s = rs_hsession_new(h, true);
    if (!s)
        return rs_hreply_error(conn, 503, -32000, "Service Unavailable: too many sessions");
    rs_hstream *st = rs_hstream_new(s, RS_HS_LEGACY);
    if (!st || !rs_hstream_respond(h, conn, st, 200)) {
        rs_hsession_end(h, s, false);
        return MHD_NO;
    }
    s->get = st;
    if (rs_hfault(h, RS_FAULT_SSE_ENDPOINT_NOT_FIRST))
        rs_hstream_raw(st, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":"
                           "\"notifications/message\",\"params\":{\"level\":\"info\","
                           "\"data\":\"before the endpoint\"}}\n\n");
    char event[128];
    snprintf(event, sizeof event, "event: endpoint\ndata: /messages?session=%s\n\n", s->id);
    rs_hstream_raw(st, event);
    return MHD_YES;
}

static bool single_request(const cJSON *m)
{
    return cJSON_IsObject(m) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(m, "method")) &&
           cJSON_GetObjectItemCaseSensitive(m, "id") &&
           !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(m, "id"));
}

/* sse-response-in-post: hold the POST until its response, which then is its body. */
static enum MHD_Result answer_in_post(rs_hsession *s, struct MHD_Connection *conn, rs_hreq *r,
                                      const char *key, const char *line, size_t len)
{
    rs_hstream *st = rs_hstream_new(s, RS_HS_JSON);
    if (!st || !rs_hsession_expect(s, key, st) || !rs_hsession_send(s, line, len)) {
        if (st)
            rs_hsession_drop_stream(s, st);
        return rs_hreply_error(conn, 503, -32000, "Service Unavailable");
    }
    st->conn = conn;
    st->suspended = true;
    r->wait = st;
    MHD_suspend_connection(conn);
    return MHD_YES;
}

enum MHD_Result rs_hlegacy_post(rs_hserver *h, struct MHD_Connection *conn, rs_hreq *r)
{
    const char *sid = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "session");
    if (!sid)
        return rs_hreply_error(conn, 400, -32000, "Bad Request: the session parameter is missing");
    rs_hsession *s = rs_hsession_find(h, sid);
    if (!s || !s->legacy)
        return rs_hreply_error(conn, 404, -32001, "Session not found");
    if (r->too_big)
        return rs_hreply_error(conn, 413, -32000, "Payload Too Large: 16 MiB at most");
    if (!rs_his_json_type(rs_hheader(conn, "Content-Type")))
        return rs_hreply_error(conn, 415, -32000,
                               "Unsupported Media Type: Content-Type must be application/json");
    cJSON *msg = mcps_json_parse_simple(r->body.data ? r->body.data : "", r->body.len);
    if (!msg)
        return rs_hreply_error(conn, 400, -32700, "Parse error: the body is not JSON");
    /* As sent when it is one line already, so the child judges the client's own bytes. */
    size_t len = r->body.len;
    bool one_line = !memchr(r->body.data, '\n', len) && !memchr(r->body.data, '\r', len);
    char *line = one_line ? strndup(r->body.data, len) : mcps_json_print(msg, &len);
    char *key = rs_hid_key(cJSON_GetObjectItemCaseSensitive(msg, "id"));
    enum MHD_Result ret;
    if (!line) {
        ret = rs_hreply_error(conn, 503, -32000, "Service Unavailable: out of memory");
    } else if (rs_hfault(h, RS_FAULT_SSE_RESPONSE_IN_POST) && key && single_request(msg)) {
        ret = answer_in_post(s, conn, r, key, line, len);
    } else if (!rs_hsession_send(s, line, len)) {
        ret = rs_hreply_error(conn, 503, -32000, "Service Unavailable: too much queued");
    } else {
        ret = rs_hreply(conn, 202, "text/plain", "Accepted", 8, NULL, NULL);
    }
    free(key);
    free(line);
    mcps_json_delete(msg);
    return ret;
}
