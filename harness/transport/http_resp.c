/*
 * http_resp.c - what the HTTP transport makes of responses: curl's header and
 * body callbacks, the SSE blocks of a stream, and the events and
 * MCPS_TEV_HTTP records they become (see http.h for the records). Everything
 * is parsed as it arrives and queued; nothing here waits.
 */
#include "transport/http.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "transport/http_int.h"

#define HEADER_RAW_MAX  (256 * 1024)
#define BODY_RECORD_MAX 4096

/* ---- queueing ---- */

void mcps_http_event(mcps_http_transport *t, mcps_tevent_kind kind, unsigned n, const char *data,
                     size_t len, const char *detail)
{
    if (!mcps_http_evq_push(&t->q, kind, n, data, len, detail) && kind != MCPS_TEV_ERROR)
        mcps_http_event(t, MCPS_TEV_ERROR, n, NULL, 0, "HTTP transport: out of memory");
}

void mcps_http_record(mcps_http_transport *t, unsigned n, const mcps_buf *json)
{
    if (json->oom)
        mcps_http_event(t, MCPS_TEV_ERROR, n, NULL, 0, "HTTP transport: out of memory");
    else
        mcps_http_event(t, MCPS_TEV_HTTP, n, json->data, json->len, NULL);
}

static void message(mcps_http_req *r, const char *data, size_t len, bool cut)
{
    mcps_http_transport *t = r->t;
    if (!mcps_http_evq_push(&t->q, cut ? MCPS_TEV_OVERSIZE : MCPS_TEV_MESSAGE, r->n, data, len,
                            NULL)) {
        mcps_http_event(t, MCPS_TEV_ERROR, r->n, NULL, 0, "HTTP transport: out of memory");
        return;
    }
    t->q.tail->line = ++r->events;
    t->q.tail->offset = r->bytes;
}

static void begin_record(mcps_buf *b, const mcps_http_req *r, const char *event)
{
    mcps_buf_printf(b, "{\"request\":%u,\"event\":\"%s\"", r->n, event);
}

static void error_record(mcps_http_req *r, const char *why, bool also_error)
{
    mcps_buf b = {0};
    begin_record(&b, r, "error");
    mcps_buf_puts(&b, ",\"error\":");
    mcps_http_json_str(&b, why, strlen(why));
    mcps_buf_putc(&b, '}');
    mcps_http_record(r->t, r->n, &b);
    mcps_buf_free(&b);
    if (also_error) {
        char detail[160];
        snprintf(detail, sizeof detail, "HTTP request %u (%s): %s", r->n, r->method, why);
        mcps_http_event(r->t, MCPS_TEV_ERROR, r->n, NULL, 0, detail);
    }
}

/* The "response" record; body NULL when the body went on as a message or is a stream. */
static void response_record(mcps_http_req *r, const char *body, size_t len)
{
    mcps_buf b = {0};
    begin_record(&b, r, "response");
    mcps_buf_puts(&b, ",\"method\":");
    mcps_http_json_str(&b, r->method, strlen(r->method));
    mcps_buf_printf(&b, ",\"status\":%ld", r->status);
    mcps_http_hdrs_render(&r->hdrs_in, &b);
    if (body) {
        mcps_buf_puts(&b, ",\"body\":");
        mcps_http_json_str(&b, body, len < BODY_RECORD_MAX ? len : BODY_RECORD_MAX);
    }
    if (r->body_cut)
        mcps_buf_printf(&b, ",\"body_bytes\":%llu", (unsigned long long)r->bytes);
    mcps_buf_putc(&b, '}');
    mcps_http_record(r->t, r->n, &b);
    mcps_buf_free(&b);
}

/* ---- SSE ---- */

static bool is_type(const mcps_sse_event *e, const char *type)
{
    return e->type_len == strlen(type) && memcmp(e->type, type, e->type_len) == 0;
}

static void sse_record(mcps_http_req *r, const mcps_sse_event *e)
{
    mcps_buf b = {0};
    begin_record(&b, r, "sse");
    if (e->has_id_field) {
        mcps_buf_puts(&b, ",\"id\":");
        mcps_http_json_str(&b, e->id, e->id_len);
    }
    mcps_buf_puts(&b, ",\"type\":");
    mcps_http_json_str(&b, e->type, e->type_len);
    if (e->retry_ms >= 0)
        mcps_buf_printf(&b, ",\"retry\":%ld", e->retry_ms);
    if (e->dispatched)
        mcps_buf_printf(&b, ",\"data_bytes\":%zu", e->data_len);
    if (e->comments)
        mcps_buf_printf(&b, ",\"comments\":%zu", e->comments);
    if (e->oversize)
        mcps_buf_puts(&b, ",\"oversize\":true");
    mcps_buf_putc(&b, '}');
    mcps_http_record(r->t, r->n, &b);
    mcps_buf_free(&b);
}

/* Legacy HTTP+SSE: the first endpoint event says where to POST (same origin only). */
static void endpoint_event(mcps_http_transport *t, const mcps_sse_event *e)
{
    if (t->endpoint || t->legacy_fail[0])
        return;
    char *ref = strndup(e->data, e->data_len);
    char *url = ref ? mcps_http_resolve(t->url, ref, true) : NULL;
    if (url) {
        t->endpoint = strdup(url);
        curl_free(url);
    } else {
        snprintf(t->legacy_fail, sizeof t->legacy_fail,
                 "the endpoint event names '%.80s', not a URI on the origin of the SSE URL",
                 ref ? ref : "?");
        mcps_http_event(t, MCPS_TEV_ERROR, 1, NULL, 0, t->legacy_fail);
    }
    free(ref);
}

static void on_sse(void *ctx, const mcps_sse_event *e)
{
    mcps_http_req *r = ctx;
    sse_record(r, e);
    if (r->legacy_stream && is_type(e, "endpoint") && e->dispatched)
        endpoint_event(r->t, e);
    else if (e->dispatched && e->data_len && is_type(e, "message"))
        message(r, e->data, e->data_len, e->oversize);
}

/* ---- curl callbacks ---- */

static bool media_is(const char *ct, const char *type)
{
    size_t n = strlen(type);
    return ct && strncasecmp(ct, type, n) == 0 && (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

static bool media_json(const char *ct)
{
    if (!ct)
        return false;
    size_t n = strcspn(ct, "; ");
    return (n == 16 && strncasecmp(ct, "application/json", 16) == 0) ||
           (n > 5 && strncasecmp(ct + n - 5, "+json", 5) == 0);
}

static void refuse(mcps_http_req *r, const char *why)
{
    if (!r->refused[0])
        snprintf(r->refused, sizeof r->refused, "%s", why);
}

/* Past max_message nothing more is judged, so the rest is not downloaded either. */
static void refuse_cut(mcps_http_req *r, const char *what)
{
    char why[160];
    snprintf(why, sizeof why,
             "%s passed --max-message (%zu bytes): the transfer was aborted after %llu bytes", what,
             r->t->max_message, (unsigned long long)r->bytes);
    refuse(r, why);
}

/* Whether curl follows this status (with FOLLOWLOCATION) when a Location comes with it. */
static bool followed_status(long status)
{
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

/* A redirect curl is about to follow: allowed only to the same host. curl keeps
 * CURLINFO_REDIRECT_URL for redirects it does not follow, so the Location header
 * is resolved here against the URL it answered. */
static bool redirect_allowed(mcps_http_req *r, const char *location)
{
    char *here = NULL;
    curl_easy_getinfo(r->easy, CURLINFO_EFFECTIVE_URL, &here);
    char *to = here ? mcps_http_resolve(here, location, false) : NULL;
    bool same = to && mcps_http_same(r->t->url, to, false);
    curl_free(to);
    if (!same)
        refuse(r, "redirect to another host refused");
    return same;
}

static void take_session_id(mcps_http_req *r)
{
    mcps_http_transport *t = r->t;
    const char *sid = mcps_http_hdrs_get(&r->hdrs_in, "mcp-session-id");
    if (r->status == 404 && r->carried_sid) {
        free(t->sid);
        t->sid = NULL;
    } else if (!t->sid && sid && *sid) {
        t->sid = strdup(sid);
    }
}

/* The blank line after a response's headers; false aborts the transfer. */
static bool headers_done(mcps_http_req *r)
{
    if (r->final)
        return true; /* the end of chunked trailers */
    long status = 0;
    curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200) /* 1xx: the real response follows */
        return true;
    const char *loc = mcps_http_hdrs_get(&r->hdrs_in, "location");
    if (r->t->follow && followed_status(status) && loc && *loc)
        return redirect_allowed(r, loc);
    r->status = status;
    r->final = true;
    const char *ct = mcps_http_hdrs_get(&r->hdrs_in, "content-type");
    r->sse = media_is(ct, "text/event-stream");
    r->json = media_json(ct);
    take_session_id(r);
    if (r->sse) {
        response_record(r, NULL, 0);
        mcps_sse_init(&r->parser, r->t->max_message, on_sse, r);
        r->parser_on = true;
    }
    return true;
}

size_t mcps_http_on_header(char *buf, size_t size, size_t nitems, void *ud)
{
    mcps_http_req *r = ud;
    size_t len = size * nitems;
    r->header_bytes += len;
    if (r->header_bytes > HEADER_RAW_MAX) {
        refuse(r, "response headers longer than 256 KiB");
        return 0;
    }
    if (!r->final && len >= 5 && memcmp(buf, "HTTP/", 5) == 0) {
        mcps_http_hdrs_reset(&r->hdrs_in); /* a new response (after a 1xx or a redirect) */
        return len;
    }
    if ((len == 2 && buf[0] == '\r') || (len == 1 && buf[0] == '\n'))
        return headers_done(r) ? len : 0;
    mcps_http_hdrs_add(&r->hdrs_in, buf, len);
    return len;
}

void mcps_http_big_release(mcps_http_req *r)
{
    mcps_guard_give_big(r->t->guard, r->big);
    r->big = 0;
}

/* Room to hold len more bytes beside the held ones: past MCPS_HTTP_BIG, only with max_message
 * of the run's budget for large messages, so that --jobs sessions reading huge messages at
 * once do not hold --jobs times max_message; false: pause until it has room. */
static bool big_room(mcps_http_req *r, size_t held, size_t len)
{
    mcps_http_transport *t = r->t;
    if (r->big || held + len <= MCPS_HTTP_BIG)
        return true;
    if (mcps_guard_take_big(t->guard, t->max_message)) {
        r->big = t->max_message;
        return true;
    }
    r->paused = true;
    t->big_waiting = true;
    return false;
}

size_t mcps_http_on_body(char *buf, size_t size, size_t nitems, void *ud)
{
    mcps_http_req *r = ud;
    mcps_http_transport *t = r->t;
    size_t len = size * nitems;
    if (!r->final)
        return len; /* the body of a redirect being followed */
    if (r->sse) {
        if (t->q.bytes > MCPS_HTTP_QUEUE_PAUSE) {
            r->paused = true;
            return CURL_WRITEFUNC_PAUSE; /* curl hands us the same bytes again on resume */
        }
        if (!big_room(r, mcps_sse_held(&r->parser), len))
            return CURL_WRITEFUNC_PAUSE;
        r->bytes += len;
        if (!mcps_sse_feed(&r->parser, buf, len))
            refuse(r, "out of memory parsing the event stream");
        else if (!r->legacy_stream && mcps_sse_end_cut(&r->parser))
            refuse_cut(r, "an SSE event"); /* the legacy stream is all the session has: read on */
        if (r->big && mcps_sse_held(&r->parser) <= MCPS_HTTP_BIG)
            mcps_http_big_release(r); /* the large event went on */
        return r->refused[0] ? 0 : len;
    }
    if (!big_room(r, r->body.len, len))
        return CURL_WRITEFUNC_PAUSE;
    size_t room = t->max_message - r->body.len;
    mcps_buf_append(&r->body, buf, len < room ? len : room);
    r->bytes += len;
    if (len > room) {
        r->body_cut = true;
        refuse_cut(r, "the body");
    }
    return r->body.oom || r->refused[0] ? 0 : len;
}

/* ---- completion ---- */

static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)s[i]))
            return false;
    return true;
}

/* A JSON text under another Content-Type: handed on all the same, for the checks to judge the
 * header (HTTP-011) while everything else still runs. */
static bool looks_like_json(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    return i < n && (s[i] == '{' || s[i] == '[');
}

/* A body from elsewhere than the MCP endpoint (a metadata document, say) is no JSON-RPC
 * message: it goes in the record for the checks to match, and no observer judges it. */
static void body_complete(mcps_http_req *r)
{
    const char *data = r->body.data ? r->body.data : "";
    bool msg = !r->off_endpoint && (r->json || looks_like_json(data, r->body.len)) &&
               !blank(data, r->body.len);
    response_record(r, msg ? NULL : data, r->body.len);
    if (msg)
        message(r, data, r->body.len, r->body_cut);
}

static void end_record(mcps_http_req *r)
{
    mcps_buf b = {0};
    begin_record(&b, r, "end");
    mcps_buf_printf(&b, ",\"bytes\":%llu}", (unsigned long long)r->bytes);
    mcps_http_record(r->t, r->n, &b);
    mcps_buf_free(&b);
}

static void legacy_stream_over(mcps_http_transport *t, const mcps_http_req *r, CURLcode rc)
{
    if (t->endpoint || t->legacy_fail[0])
        return;
    if (rc != CURLE_OK)
        snprintf(t->legacy_fail, sizeof t->legacy_fail,
                 "the SSE stream ended before its endpoint event: %.100s",
                 r->errbuf[0] ? r->errbuf : curl_easy_strerror(rc));
    else
        snprintf(t->legacy_fail, sizeof t->legacy_fail,
                 "the SSE stream (HTTP %ld) ended before its endpoint event", r->status);
}

void mcps_http_finished(mcps_http_transport *t, mcps_http_req *r, CURLcode rc)
{
    if (r->parser_on)
        mcps_sse_finish(&r->parser); /* an unterminated last block is dropped, as WHATWG says */
    if (r->body_cut)
        body_complete(r); /* what was kept goes on, oversize, before the error that cut it */
    if (r->refused[0])
        error_record(r, r->refused, !r->final);
    else if (rc != CURLE_OK)
        error_record(r, r->errbuf[0] ? r->errbuf : curl_easy_strerror(rc), !r->final);
    else if (r->sse)
        end_record(r);
    else
        body_complete(r);
    if (r->legacy_stream)
        legacy_stream_over(t, r, rc);
    mcps_http_req_drop(t, r);
}
