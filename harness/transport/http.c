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
 * http_req.c, the callbacks and what they queue in http_resp.c, the queue
 * and the records' pieces in http_rec.c.
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
#define QUEUE_RESUME        (MCPS_HTTP_QUEUE_PAUSE / 2)

static const mcps_transport_ops http_ops, sse_ops;

/* Whether base is one of ours (the two kinds differ only in their name). */
static bool is_http(const mcps_transport *base)
{
    return base && (base->ops == &http_ops || base->ops == &sse_ops);
}

static void resume_paused(mcps_http_transport *t)
{
    if (t->q.bytes > QUEUE_RESUME)
        return;
    t->big_waiting = false; /* set again by a transfer that still finds no room */
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
            mcps_http_finished(t, r, m->data.result);
    }
}

/* Sleep until a socket is ready, curl's next timer, the deadline or the guard's stop. */
static void wait_io(mcps_http_transport *t, int64_t deadline)
{
    deadline = mcps_guard_clamp(t->guard, deadline);
    int64_t left = deadline - mcps_clock_ms();
    if (left < 0)
        left = 0;
    if (t->big_waiting && left > MCPS_HTTP_BIG_WAIT)
        left = MCPS_HTTP_BIG_WAIT;
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

static bool http_idle(const mcps_transport *base)
{
    const mcps_http_transport *t = (const mcps_http_transport *)base;
    return !t->reqs && !t->q.head && !t->stopped;
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
    if (!is_http(base)) {
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
static bool in_flight(const mcps_http_transport *t, unsigned n)
{
    for (const mcps_http_req *r = t->reqs; r; r = r->next)
        if (r->n == n)
            return true;
    return false;
}

/*
 * A client that is done with a session says so with DELETE (HTTP-040), so
 * that a run of hundreds of cases does not leave hundreds of sessions open
 * on the server. Best effort, bounded by END_SESSION_SECONDS; never once the
 * run has stopped.
 */
#define END_SESSION_SECONDS 1.0

static void end_session(mcps_http_transport *t)
{
    if (t->legacy || !t->sid || mcps_guard_stopped(t->guard))
        return;
    while (t->reqs)
        mcps_http_req_drop(t, t->reqs);
    char err[160];
    unsigned n = mcps_http_start(t, t->url, "DELETE", NULL, NULL, 0, false, err, sizeof err);
    int64_t deadline = mcps_clock_deadline(END_SESSION_SECONDS);
    pump(t);
    while (n && in_flight(t, n) && mcps_clock_ms() < deadline && !mcps_guard_stopped(t->guard)) {
        wait_io(t, deadline);
        pump(t);
    }
}

static void http_shutdown(mcps_transport *base, mcps_shutdown_report *report)
{
    mcps_http_transport *t = (mcps_http_transport *)base;
    if (!t->shut) {
        end_session(t);
        while (t->reqs)
            mcps_http_req_drop(t, t->reqs);
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
    .name = "streamable-http",
    .send = http_send_op,
    .next = http_next,
    .idle = http_idle,
    .close_input = http_close_input,
    .shutdown = http_shutdown,
    .destroy = http_destroy,
};

static const mcps_transport_ops sse_ops = {
    .name = "sse",
    .send = http_send_op,
    .next = http_next,
    .idle = http_idle,
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
    if (!is_http(base) || !name || strpbrk(name, ":\r\n") || (value && strpbrk(value, "\r\n")))
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
    if (!is_http(base))
        return 0;
    return ((const mcps_http_transport *)base)->last_n;
}

bool mcps_http_request_done(const mcps_transport *base, unsigned n)
{
    if (!is_http(base))
        return true;
    const mcps_http_transport *t = (const mcps_http_transport *)base;
    for (const mcps_http_req *r = t->reqs; r; r = r->next)
        if (r->n == n)
            return false;
    for (const mcps_http_ev *e = t->q.head; e; e = e->next)
        if (e->request == n)
            return false;
    return true;
}

const char *mcps_http_session_id(const mcps_transport *base)
{
    if (!is_http(base))
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
    t->legacy = cfg->kind == MCPS_TRANSPORT_SSE;
    t->base.ops = t->legacy ? &sse_ops : &http_ops;
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
