/*
 * http.c - the HTTP transport (see http.h): one curl multi handle per MCP
 * session, driven only from next() and from sends that wait for the legacy
 * endpoint, so a session is single-threaded like stdio.
 *
 * curl's callbacks parse at once (headers, SSE blocks, bounded bodies) and
 * park what they find as events in a queue that next() hands out one by
 * one. A server that floods an SSE stream fills the queue, and the stream is
 * then paused (CURL_WRITEFUNC_PAUSE) until the session has taken the events:
 * memory stays bounded however fast it sends. Request building is in
 * http_req.c, records and the queue in http_rec.c.
 */
#include "transport/http.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/clock.h"
#include "transport/http_int.h"

#define DEFAULT_MAX_MESSAGE ((size_t)4 * 1024 * 1024)
#define DEFAULT_SEND        5.0
#define QUEUE_PAUSE         ((size_t)1024 * 1024) /* stop reading streams above this */
#define QUEUE_RESUME        (QUEUE_PAUSE / 2)
#define HEADER_RAW_MAX      (256 * 1024)
#define BODY_RECORD_MAX     4096

static const mcps_transport_ops http_ops;

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

/* A 3xx curl will follow: allowed only to the same host. */
static bool redirect_allowed(mcps_http_req *r)
{
    char *loc = NULL;
    curl_easy_getinfo(r->easy, CURLINFO_REDIRECT_URL, &loc);
    if (!loc || !r->t->follow)
        return true;
    if (mcps_http_same(r->t->url, loc, false))
        return true;
    refuse(r, "redirect to another host refused");
    return false;
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
    long status = 0;
    curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200) /* 1xx: the real response follows */
        return true;
    char *loc = NULL;
    curl_easy_getinfo(r->easy, CURLINFO_REDIRECT_URL, &loc);
    if (r->t->follow && status >= 300 && status < 400 && loc)
        return redirect_allowed(r);
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
    if (len >= 5 && memcmp(buf, "HTTP/", 5) == 0) {
        mcps_http_hdrs_reset(&r->hdrs_in); /* a new response (after a 1xx or a redirect) */
        return len;
    }
    if ((len == 2 && buf[0] == '\r') || (len == 1 && buf[0] == '\n'))
        return headers_done(r) ? len : 0;
    mcps_http_hdrs_add(&r->hdrs_in, buf, len);
    return len;
}

size_t mcps_http_on_body(char *buf, size_t size, size_t nitems, void *ud)
{
    mcps_http_req *r = ud;
    mcps_http_transport *t = r->t;
    size_t len = size * nitems;
    if (!r->final)
        return len; /* the body of a redirect being followed */
    if (r->sse) {
        if (t->q.bytes > QUEUE_PAUSE) {
            r->paused = true;
            return CURL_WRITEFUNC_PAUSE; /* curl hands us the same bytes again on resume */
        }
        r->bytes += len;
        if (!mcps_sse_feed(&r->parser, buf, len))
            refuse(r, "out of memory parsing the event stream");
        return r->refused[0] ? 0 : len;
    }
    size_t room = t->max_message - r->body.len;
    if (len > room)
        r->body_cut = true;
    mcps_buf_append(&r->body, buf, len < room ? len : room);
    r->bytes += len;
    return r->body.oom ? 0 : len;
}

/* ---- completion ---- */

static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)s[i]))
            return false;
    return true;
}

static void body_complete(mcps_http_req *r)
{
    const char *data = r->body.data ? r->body.data : "";
    bool msg = r->json && !blank(data, r->body.len);
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

static void legacy_stream_over(mcps_http_transport *t)
{
    if (!t->endpoint && !t->legacy_fail[0])
        snprintf(t->legacy_fail, sizeof t->legacy_fail,
                 "the SSE stream ended before its endpoint event");
}

static void unlink_req(mcps_http_transport *t, mcps_http_req *r)
{
    for (mcps_http_req **p = &t->reqs; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    curl_multi_remove_handle(t->multi, r->easy);
    curl_easy_cleanup(r->easy);
    curl_slist_free_all(r->hdrs);
    mcps_http_hdrs_reset(&r->hdrs_in);
    mcps_buf_free(&r->body);
    if (r->parser_on)
        mcps_sse_free(&r->parser);
    free(r);
}

static void finished(mcps_http_transport *t, mcps_http_req *r, CURLcode rc)
{
    if (r->parser_on)
        mcps_sse_finish(&r->parser); /* an unterminated last block is dropped, as WHATWG says */
    if (r->refused[0])
        error_record(r, r->refused, !r->final);
    else if (rc != CURLE_OK)
        error_record(r, r->errbuf[0] ? r->errbuf : curl_easy_strerror(rc), !r->final);
    else if (r->sse)
        end_record(r);
    else
        body_complete(r);
    if (r->legacy_stream)
        legacy_stream_over(t);
    unlink_req(t, r);
}

static void resume_paused(mcps_http_transport *t)
{
    if (t->q.bytes > QUEUE_RESUME)
        return;
    for (mcps_http_req *r = t->reqs; r; r = r->next)
        if (r->paused) {
            r->paused = false;
            curl_easy_pause(r->easy, CURLPAUSE_CONT);
        }
}

/* Let curl do what it can now, then collect finished transfers. */
static void pump(mcps_http_transport *t)
{
    int running, left;
    resume_paused(t);
    curl_multi_perform(t->multi, &running);
    CURLMsg *m;
    while ((m = curl_multi_info_read(t->multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        mcps_http_req *r = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
        if (r)
            finished(t, r, m->data.result);
    }
}

/* Sleep until a socket is ready, curl's next timer, the deadline or the guard's stop. */
static void wait_io(mcps_http_transport *t, int64_t deadline)
{
    deadline = mcps_guard_clamp(t->guard, deadline);
    int64_t left = deadline - mcps_clock_ms();
    if (left < 0)
        left = 0;
    struct curl_waitfd stop = {.fd = mcps_guard_fd(t->guard), .events = CURL_WAIT_POLLIN};
    curl_multi_poll(t->multi, stop.fd >= 0 ? &stop : NULL, stop.fd >= 0 ? 1 : 0,
                    left > INT_MAX ? INT_MAX : (int)left, NULL);
}

/* ---- the ops ---- */

static bool stopped(mcps_http_transport *t)
{
    char why = t->shut ? MCPS_STOP_NONE : mcps_guard_stopped(t->guard);
    if (why)
        t->stopped = why;
    return t->stopped != MCPS_STOP_NONE;
}

static bool deliver(mcps_http_transport *t, mcps_tevent *ev)
{
    if (stopped(t)) {
        ev->kind = MCPS_TEV_STOPPED;
        snprintf(ev->detail, sizeof ev->detail, "%s", mcps_guard_reason(t->stopped));
        return true;
    }
    mcps_http_ev *e = mcps_http_evq_pop(&t->q);
    if (!e) {
        if (!t->shut)
            return false;
        ev->kind = MCPS_TEV_GONE;
        return true;
    }
    t->cur = e;
    ev->kind = e->kind;
    ev->request = e->request;
    ev->data = e->data;
    ev->len = e->len;
    ev->offset = e->offset;
    ev->line = e->line;
    ev->terminated = true;
    snprintf(ev->detail, sizeof ev->detail, "%s", e->detail);
    return true;
}

static void http_next(mcps_transport *base, int64_t deadline_ms, mcps_tevent *ev)
{
    mcps_http_transport *t = (mcps_http_transport *)base;
    free(t->cur);
    t->cur = NULL;
    *ev = (mcps_tevent){.kind = MCPS_TEV_TIMEOUT};
    bool late = false;
    for (;;) {
        if (deliver(t, ev))
            return;
        pump(t);
        if (deliver(t, ev) || late)
            return;
        late = mcps_clock_ms() >= mcps_guard_clamp(t->guard, deadline_ms);
        wait_io(t, deadline_ms);
    }
}

static bool send_refused(mcps_http_transport *t, char *err, size_t errlen)
{
    if (t->shut)
        snprintf(err, errlen, "cannot send: the transport has been shut down");
    else if (stopped(t))
        snprintf(err, errlen, "cannot send: %s", mcps_guard_reason(t->stopped));
    else if (t->input_closed)
        snprintf(err, errlen, "cannot send: the session's input is closed");
    else
        return false;
    return true;
}

/* Legacy: drive the loop until the endpoint event names where to POST. */
static const char *await_endpoint(mcps_http_transport *t, char *err, size_t errlen)
{
    int64_t deadline = mcps_clock_deadline(t->send_timeout);
    while (!t->endpoint && !t->legacy_fail[0] && !stopped(t) && mcps_clock_ms() < deadline) {
        pump(t);
        if (!t->endpoint && !t->legacy_fail[0])
            wait_io(t, deadline);
    }
    if (t->endpoint)
        return t->endpoint;
    if (t->legacy_fail[0])
        snprintf(err, errlen, "cannot send: %s", t->legacy_fail);
    else if (stopped(t))
        snprintf(err, errlen, "cannot send: %s", mcps_guard_reason(t->stopped));
    else
        snprintf(err, errlen, "cannot send: no endpoint event on the SSE stream within %g s",
                 t->send_timeout);
    return NULL;
}

unsigned mcps_http_send(mcps_transport *base, const mcps_http_request *rq, char *err, size_t errlen)
{
    if (!base || base->ops != &http_ops) {
        snprintf(err, errlen, "cannot send: not an HTTP transport");
        return 0;
    }
    mcps_http_transport *t = (mcps_http_transport *)base;
    if (send_refused(t, err, errlen))
        return 0;
    const char *endpoint = t->legacy && !rq->path ? await_endpoint(t, err, errlen)
                                                  : (t->endpoint ? t->endpoint : t->url);
    if (!endpoint)
        return 0;
    char *url = rq->path ? mcps_http_resolve(endpoint, rq->path, true) : NULL;
    if (rq->path && !url) {
        snprintf(err, errlen, "cannot send: '%.80s' is not a URL on the endpoint's origin",
                 rq->path);
        return 0;
    }
    unsigned n =
        mcps_http_start(t, url ? url : endpoint, rq->method ? rq->method : "POST", rq->headers,
                        rq->body, rq->body_len, rq->body != NULL, err, errlen);
    curl_free(url);
    if (n)
        pump(t); /* start connecting now, not at the next wait */
    return n;
}

static bool http_send_op(mcps_transport *base, const char *bytes, size_t len, char *err,
                         size_t errlen)
{
    if (len && bytes[len - 1] == '\n')
        len--; /* the session frames for stdio; HTTP bodies need no newline */
    mcps_http_request rq = {.method = "POST", .body = bytes, .body_len = len};
    return mcps_http_send(base, &rq, err, errlen) != 0;
}

static void http_close_input(mcps_transport *base)
{
    ((mcps_http_transport *)base)->input_closed = true;
}

/* No process to stop: every transfer is dropped; the session (or a suite) ends the
 * MCP session itself with a DELETE when it wants to. */
static void http_shutdown(mcps_transport *base, mcps_shutdown_report *report)
{
    mcps_http_transport *t = (mcps_http_transport *)base;
    if (!t->shut) {
        while (t->reqs)
            unlink_req(t, t->reqs);
        t->shut = true;
        t->input_closed = true;
        t->report = (mcps_shutdown_report){.how = MCPS_SHUT_EXITED_BEFORE};
    }
    if (report)
        *report = t->report;
}

static void free_strv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static void http_destroy(mcps_transport *base)
{
    mcps_http_transport *t = (mcps_http_transport *)base;
    if (!t)
        return;
    http_shutdown(base, NULL);
    mcps_http_evq_free(&t->q);
    free(t->cur);
    if (t->multi)
        curl_multi_cleanup(t->multi);
    free(t->url);
    free(t->endpoint);
    free(t->sid);
    free_strv(t->fixed);
    free_strv(t->extra);
    free(t);
    curl_global_cleanup();
}

static const mcps_transport_ops http_ops = {
    .name = "http",
    .send = http_send_op,
    .next = http_next,
    .close_input = http_close_input,
    .shutdown = http_shutdown,
    .destroy = http_destroy,
};

/* ---- headers set for the session ---- */

static bool header_named(const char *h, const char *name)
{
    size_t n = strlen(name);
    return strncasecmp(h, name, n) == 0 && h[n] == ':';
}

void mcps_http_set_header(mcps_transport *base, const char *name, const char *value)
{
    if (!base || base->ops != &http_ops || !name || strpbrk(name, ":\r\n") ||
        (value && strpbrk(value, "\r\n")))
        return;
    mcps_http_transport *t = (mcps_http_transport *)base;
    for (size_t i = 0; i < t->nextra; i++)
        if (header_named(t->extra[i], name)) {
            free(t->extra[i]);
            t->extra[i] = t->extra[--t->nextra];
            t->extra[t->nextra] = NULL;
            break;
        }
    if (!value)
        return;
    char **grown = realloc(t->extra, (t->nextra + 2) * sizeof *grown);
    if (!grown)
        return;
    t->extra = grown;
    mcps_buf b = {0};
    mcps_buf_printf(&b, "%s: %s", name, value);
    t->extra[t->nextra] = mcps_buf_take(&b);
    if (t->extra[t->nextra])
        t->nextra++;
    t->extra[t->nextra] = NULL;
}

unsigned mcps_http_last_request(const mcps_transport *base)
{
    if (!base || base->ops != &http_ops)
        return 0;
    return ((const mcps_http_transport *)base)->last_n;
}

const char *mcps_http_session_id(const mcps_transport *base)
{
    if (!base || base->ops != &http_ops)
        return NULL;
    return ((const mcps_http_transport *)base)->sid;
}

/* ---- opening ---- */

static char **copy_strv(char *const *v, bool *oom)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    char **c = calloc(n + 1, sizeof *c);
    for (size_t i = 0; c && i < n; i++)
        if (!(c[i] = strdup(v[i])))
            *oom = true;
    if (!c)
        *oom = true;
    return c;
}

static bool url_usable(const char *url)
{
    CURLU *u = curl_url();
    char *scheme = NULL;
    bool ok = u && url && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
              (strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0);
    curl_free(scheme);
    curl_url_cleanup(u);
    return ok;
}

static bool init_transport(mcps_http_transport *t, const mcps_target_config *cfg)
{
    bool oom = false;
    t->base.ops = &http_ops;
    t->legacy = cfg->kind == MCPS_TRANSPORT_SSE;
    t->max_message = cfg->max_message ? cfg->max_message : DEFAULT_MAX_MESSAGE;
    t->send_timeout = cfg->send_timeout > 0 ? cfg->send_timeout : DEFAULT_SEND;
    t->follow = cfg->follow_redirects;
    t->env_proxy = cfg->use_env_proxy;
    t->guard = cfg->guard;
    t->url = strdup(cfg->url);
    t->fixed = copy_strv(cfg->headers, &oom);
    t->multi = curl_multi_init();
    return t->url && !oom && t->multi;
}

mcps_transport *mcps_http_open(const mcps_target_config *cfg, char *err, size_t errlen)
{
    if (!cfg || !url_usable(cfg->url)) {
        snprintf(err, errlen, "'%.100s' is not an http:// or https:// URL",
                 cfg && cfg->url ? cfg->url : "");
        return NULL;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(err, errlen, "HTTP transport: libcurl cannot initialise");
        return NULL;
    }
    mcps_http_transport *t = calloc(1, sizeof *t);
    if (!t || !init_transport(t, cfg)) {
        snprintf(err, errlen, "HTTP transport: out of memory");
        if (t)
            http_destroy(&t->base);
        else
            curl_global_cleanup();
        return NULL;
    }
    if (t->legacy && !mcps_http_start(t, t->url, "GET", NULL, NULL, 0, false, err, errlen)) {
        http_destroy(&t->base);
        return NULL;
    }
    if (t->legacy)
        t->reqs->legacy_stream = true;
    return &t->base;
}
