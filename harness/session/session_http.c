/*
 * session_http.c - the HTTP half of a session: what HTTP said is logged and
 * queued as records (shape HTTP) beside the messages, so suites can expect
 * a status or a header the way they expect a message; suite-written
 * requests go out as written; the answer to initialize settles the
 * MCP-Protocol-Version header every later request carries (HTTP-042).
 * In 2026-07-28 there is no handshake: each POST carries the headers its own
 * request calls for (session_stateless.c), and a suite-written request gets
 * them too, its body stamped, beneath the headers the suite wrote, so a suite
 * can change or drop (null) any of them to probe a mismatch.
 */
#include "session/session_internal.h"

#include "base/buf.h"
#include "codec/json.h"
#include "transport/http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_HEADERS 32

void mcps_session_receive_http(mcps_session *s, const mcps_tevent *ev)
{
    mcps_session_wire_add(s, MCPS_WIRE_HTTP, ev->data, ev->len);
    cJSON *record = mcps_json_parse_simple(ev->data, ev->len);
    if (!cJSON_IsObject(record)) {
        mcps_json_delete(record);
        return;
    }
    const cJSON *event = cJSON_GetObjectItemCaseSensitive(record, "event");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(record, "status");
    if (cJSON_IsString(event) && strcmp(event->valuestring, "response") == 0 &&
        cJSON_IsNumber(status)) {
        s->http_status = (int)status->valuedouble;
        s->http_failed = false;
    } else if (cJSON_IsString(event) && strcmp(event->valuestring, "error") == 0) {
        s->http_status = 0;
        s->http_failed = true;
    }
    s->request = ev->request;
    mcps_session_enqueue(s, record, MCPS_SHAPE_HTTP, false, 0);
}

bool mcps_session_http_error(mcps_session *s, const mcps_tevent *ev)
{
    s->http_failed = true;
    mcps_session_event(s, "HTTP request %u failed: %s", ev->request, ev->detail);
    snprintf(s->last_event, sizeof s->last_event, "HTTP request failed: %.120s", ev->detail);
    if (!mcps_guard_stopped(s->cfg.target.guard))
        return true;
    s->cut = true;
    s->gone = true;
    return false;
}

void mcps_session_http_answer(mcps_session *s, const cJSON *msg)
{
    if (!s->init_id || !mcps_rpc_id_equal(cJSON_GetObjectItemCaseSensitive(msg, "id"), s->init_id))
        return;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(msg, "result"), "protocolVersion");
    mcps_rev rev = cJSON_IsString(v) ? mcps_rev_parse(v->valuestring) : MCPS_REV_NONE;
    /* The header exists from 2025-06-18 on; before, its absence is what the server expects. */
    if (rev >= MCPS_REV_2025_06_18 && mcps_rev_is_handshake(rev))
        mcps_http_set_header(s->t, "MCP-Protocol-Version", mcps_rev_name(rev));
}

unsigned mcps_session_last_request(const mcps_session *s)
{
    return s->http ? mcps_http_last_request(s->t) : 0;
}

bool mcps_session_request_done(const mcps_session *s, unsigned n)
{
    return !s->http || mcps_http_request_done(s->t, n);
}

/* ---- suite-written requests ----------------------------------------------------------------- */

typedef struct http_spec {
    mcps_http_request rq;
    char *lines[MCPS_STATELESS_HEADERS + MAX_HEADERS]; /* "Name: value", owned */
    size_t nlines;
    char *body; /* owned */
} http_spec;

static void spec_free(http_spec *h)
{
    for (size_t i = 0; h->lines[i]; i++)
        free(h->lines[i]);
    free(h->body);
}

static bool spec_headers(http_spec *h, const cJSON *headers, char *err, size_t errlen)
{
    size_t n = h->nlines, first = n;
    for (const cJSON *item = headers ? headers->child : NULL; item; item = item->next) {
        if (n - first == MAX_HEADERS || (!cJSON_IsString(item) && !cJSON_IsNull(item))) {
            snprintf(err, errlen, "headers: at most %d, each a string or null", MAX_HEADERS);
            return false;
        }
        mcps_buf b = {0};
        mcps_buf_printf(&b, "%s:%s%s", item->string, cJSON_IsString(item) ? " " : "",
                        cJSON_IsString(item) ? item->valuestring : "");
        h->lines[n++] = mcps_buf_take(&b);
    }
    h->nlines = n;
    h->rq.headers = (const char *const *)h->lines;
    return true;
}

/* 2026-07-28: the body gets its _meta and the request the headers it calls for. */
static const cJSON *spec_stateless(mcps_session *s, http_spec *h, const cJSON *body,
                                   cJSON **stamped)
{
    *stamped = NULL;
    if (!mcps_session_stateless(s))
        return body;
    if (body && !cJSON_IsString(body) && (*stamped = mcps_session_stamp(s, body)))
        body = *stamped;
    h->nlines = mcps_stateless_header_lines(s, cJSON_IsString(body) ? NULL : body, h->lines);
    return body;
}

static bool spec_body(mcps_session *s, http_spec *h, const cJSON *body)
{
    cJSON *stamped;
    body = spec_stateless(s, h, body, &stamped);
    if (!body)
        return true;
    if (cJSON_IsString(body)) {
        h->body = strdup(body->valuestring);
    } else {
        h->body = mcps_json_print(body, NULL);
        mcps_session_track_sent(s, body);
    }
    mcps_json_delete(stamped);
    h->rq.body = h->body;
    h->rq.body_len = h->body ? strlen(h->body) : 0;
    return h->body != NULL;
}

static bool spec_read(mcps_session *s, const cJSON *spec, http_spec *h, char *err, size_t errlen)
{
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(spec, "method");
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(spec, "path");
    const cJSON *headers = cJSON_GetObjectItemCaseSensitive(spec, "headers");
    if ((method && !cJSON_IsString(method)) || (path && !cJSON_IsString(path)) ||
        (headers && !cJSON_IsObject(headers))) {
        snprintf(err, errlen,
                 "an HTTP request is {\"method\":\"GET\",\"headers\":{...},"
                 "\"body\":...,\"path\":\"...\"}");
        return false;
    }
    h->rq.method = method ? method->valuestring : "POST";
    h->rq.path = path ? path->valuestring : NULL;
    if (!spec_body(s, h, cJSON_GetObjectItemCaseSensitive(spec, "body"))) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    return spec_headers(h, headers, err, errlen);
}

/* The request as the log shows it: method, path, the headers the suite gave (credentials hidden).
 */
static void log_request(mcps_session *s, const http_spec *h)
{
    mcps_buf b = {0};
    mcps_buf_printf(&b, "%s %s", h->rq.method, h->rq.path ? h->rq.path : "(endpoint)");
    for (size_t i = 0; h->lines[i]; i++) {
        bool secret = strncasecmp(h->lines[i], "authorization:", 14) == 0 ||
                      strncasecmp(h->lines[i], "cookie:", 7) == 0;
        mcps_buf_printf(&b, "\n%s", secret ? "Authorization: (redacted)" : h->lines[i]);
    }
    if (b.data)
        mcps_session_wire_add(s, MCPS_WIRE_HTTP, b.data, b.len);
    mcps_buf_free(&b);
    if (h->body)
        mcps_session_wire_add(s, MCPS_WIRE_SENT, h->body, h->rq.body_len);
}

bool mcps_session_send_http(mcps_session *s, const cJSON *spec, char *err, size_t errlen)
{
    if (!s->http) {
        snprintf(err, errlen, "an HTTP request needs an HTTP target");
        return false;
    }
    http_spec h = {0};
    bool ok = spec_read(s, spec, &h, err, errlen);
    if (ok) {
        log_request(s, &h);
        s->counts.sent++;
        ok = mcps_http_send(s->t, &h.rq, err, errlen) != 0;
        if (!ok)
            mcps_session_event(s, "send failed: %s", err);
    }
    spec_free(&h);
    return ok;
}

bool mcps_session_post_stateless(mcps_session *s, const cJSON *msg, const char *bytes, size_t len,
                                 char *err, size_t errlen)
{
    if (len && bytes[len - 1] == '\n')
        len--; /* framed for stdio; an HTTP body needs no newline */
    char *lines[MCPS_STATELESS_HEADERS];
    size_t n = mcps_stateless_header_lines(s, msg, lines);
    mcps_http_request rq = {
        .method = "POST", .headers = (const char *const *)lines, .body = bytes, .body_len = len};
    bool ok = mcps_http_send(s->t, &rq, err, errlen) != 0;
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    return ok;
}
