/*
 * http.c - refclient over Streamable HTTP (--url), with libcurl's multi
 * interface so that a POST whose answer is an SSE stream can stay open while
 * refclient POSTs its answers to the server's requests on that stream.
 *
 * Every message is its own POST (HTTP-005) accepting JSON and SSE (HTTP-006);
 * after initialize each carries Mcp-Session-Id (HTTP-036) and, from
 * 2025-06-18, MCP-Protocol-Version (HTTP-042); a 404 for a request carrying
 * the session marks it lost, and session.c starts over (HTTP-039); the
 * session ends with DELETE (HTTP-040). What arrives (JSON bodies, SSE data)
 * is queued as messages, so session.c reads them as it reads stdio lines.
 */
#include "refclient.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "codec/json.h"
#include "codec/rev.h"

#define MAX_XFERS 16
#define MAX_QUEUE 256

typedef struct rc_xfer {
    rc_client *c;
    CURL *easy;
    struct curl_slist *headers;
    char *in; /* the body so far (for SSE: not yet framed) */
    size_t inlen;
    bool sse;          /* Content-Type: text/event-stream */
    bool initialize;   /* it carries initialize: its answer issues the session */
    bool with_session; /* it carried Mcp-Session-Id */
} rc_xfer;

typedef struct rc_http {
    CURLM *multi;
    rc_xfer *xfers[MAX_XFERS];
    size_t nxfers;
    char *queue[MAX_QUEUE];
    size_t qlen;
} rc_http;

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool rc_http_open(rc_client *c)
{
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return false;
    c->http = calloc(1, sizeof *c->http);
    if (!c->http || !(c->http->multi = curl_multi_init())) {
        fprintf(stderr, "refclient: cannot set up libcurl\n");
        return false;
    }
    return true;
}

static void push(rc_http *h, const char *bytes, size_t len)
{
    if (h->qlen >= MAX_QUEUE)
        return;
    char *m = malloc(len + 1);
    if (!m)
        return;
    memcpy(m, bytes, len);
    m[len] = '\0';
    h->queue[h->qlen++] = m;
}

/* One SSE event's data lines, joined by newlines; comments and other fields ignored. */
static void sse_event(rc_http *h, const char *ev, size_t len)
{
    char *data = malloc(len + 1);
    size_t n = 0;
    bool any = false;
    for (const char *p = ev, *end = ev + len; data && p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        size_t l = (size_t)(stop - p);
        if (l && p[l - 1] == '\r')
            l--;
        if (l >= 5 && strncmp(p, "data:", 5) == 0) {
            const char *v = p + 5 + (l > 5 && p[5] == ' ');
            size_t vl = l - (size_t)(v - p);
            if (any)
                data[n++] = '\n';
            memcpy(data + n, v, vl);
            n += vl;
            any = true;
        }
        p = stop + 1;
    }
    if (data && any)
        push(h, data, n);
    free(data);
}

/* Frame the complete events buffered on x. */
static void sse_frame(rc_xfer *x)
{
    for (;;) {
        char *end = NULL;
        size_t sep = 0;
        for (size_t i = 0; i + 1 < x->inlen && !end; i++) {
            if (x->in[i] == '\n' && x->in[i + 1] == '\n')
                end = x->in + i, sep = 2;
            else if (i + 3 < x->inlen && memcmp(x->in + i, "\r\n\r\n", 4) == 0)
                end = x->in + i, sep = 4;
        }
        if (!end)
            return;
        size_t n = (size_t)(end - x->in);
        sse_event(x->c->http, x->in, n);
        memmove(x->in, end + sep, x->inlen - n - sep);
        x->inlen -= n + sep;
    }
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    rc_xfer *x = userdata;
    size_t n = size * nmemb;
    char *grown = realloc(x->in, x->inlen + n + 1);
    if (!grown)
        return 0;
    x->in = grown;
    memcpy(x->in + x->inlen, ptr, n);
    x->inlen += n;
    if (x->sse)
        sse_frame(x);
    return n;
}

/* The value of header line `line` if it is name, trimmed, into out. */
static bool header_is(const char *line, size_t len, const char *name, char *out, size_t n)
{
    size_t nl = strlen(name);
    if (len <= nl || line[nl] != ':' || strncasecmp(line, name, nl) != 0)
        return false;
    const char *v = line + nl + 1, *e = line + len;
    while (v < e && (*v == ' ' || *v == '\t'))
        v++;
    while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' '))
        e--;
    snprintf(out, n, "%.*s", (int)(e - v), v);
    return true;
}

static size_t on_header(char *line, size_t size, size_t nmemb, void *userdata)
{
    rc_xfer *x = userdata;
    size_t n = size * nmemb;
    char value[128];
    if (header_is(line, n, "Content-Type", value, sizeof value))
        x->sse = strncasecmp(value, "text/event-stream", 17) == 0;
    else if (x->initialize && header_is(line, n, "Mcp-Session-Id", value, sizeof value))
        snprintf(x->c->session, sizeof x->c->session, "%s", value);
    return n;
}

/* The headers every request after initialize carries (HTTP-036, HTTP-042). */
static struct curl_slist *session_headers(const rc_client *c, struct curl_slist *l)
{
    char line[200];
    if (c->session[0] && !rc_on(c, RC_FAULT_NO_SESSION_ID)) {
        snprintf(line, sizeof line, "Mcp-Session-Id: %s", c->session);
        l = curl_slist_append(l, line);
    }
    mcps_rev r = mcps_rev_parse(c->negotiated);
    if (r != MCPS_REV_NONE && r >= MCPS_REV_2025_06_18 && !rc_on(c, RC_FAULT_NO_PROTOCOL_VERSION)) {
        snprintf(line, sizeof line, "MCP-Protocol-Version: %s", c->negotiated);
        l = curl_slist_append(l, line);
    }
    return l;
}

static bool is_initialize(const char *line)
{
    cJSON *m = mcps_json_parse_simple(line, strlen(line));
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
    bool yes = cJSON_IsString(method) && strcmp(method->valuestring, "initialize") == 0;
    cJSON_Delete(m);
    return yes;
}

static void xfer_free(rc_xfer *x)
{
    curl_easy_cleanup(x->easy);
    curl_slist_free_all(x->headers);
    free(x->in);
    free(x);
}

bool rc_http_post(rc_client *c, const char *line)
{
    rc_http *h = c->http;
    rc_xfer *x = calloc(1, sizeof *x);
    if (!x || h->nxfers >= MAX_XFERS || !(x->easy = curl_easy_init())) {
        free(x);
        return false;
    }
    x->c = c;
    x->initialize = is_initialize(line);
    x->with_session = c->session[0] && !rc_on(c, RC_FAULT_NO_SESSION_ID);
    x->headers = curl_slist_append(NULL, "Content-Type: application/json");
    x->headers = curl_slist_append(x->headers, rc_on(c, RC_FAULT_ACCEPT_JSON_ONLY)
                                                   ? "Accept: application/json"
                                                   : "Accept: application/json, text/event-stream");
    x->headers = curl_slist_append(x->headers, "Expect:");
    x->headers = session_headers(c, x->headers);
    curl_easy_setopt(x->easy, CURLOPT_URL, c->url);
    curl_easy_setopt(x->easy, CURLOPT_COPYPOSTFIELDS, line);
    curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->headers);
    curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x);
    curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, (long)(c->timeout * 3000));
    if (curl_multi_add_handle(h->multi, x->easy) != CURLM_OK) {
        xfer_free(x);
        return false;
    }
    h->xfers[h->nxfers++] = x;
    int running;
    curl_multi_perform(h->multi, &running);
    return true;
}

/* A transfer ended: queue a JSON body, note a lost session. */
static void finish(rc_client *c, CURL *easy)
{
    rc_http *h = c->http;
    rc_xfer *x = NULL;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&x);
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    if (status == 404 && x->with_session) {
        c->session_lost = true;
        c->session[0] = '\0';
    }
    if (!x->sse && status == 200 && x->inlen)
        push(h, x->in, x->inlen);
    curl_multi_remove_handle(h->multi, easy);
    for (size_t i = 0; i < h->nxfers; i++)
        if (h->xfers[i] == x) {
            h->xfers[i] = h->xfers[--h->nxfers];
            break;
        }
    xfer_free(x);
}

static void pump(rc_client *c, int wait_ms)
{
    rc_http *h = c->http;
    int running, left;
    curl_multi_perform(h->multi, &running);
    CURLMsg *m;
    while ((m = curl_multi_info_read(h->multi, &left)))
        if (m->msg == CURLMSG_DONE)
            finish(c, m->easy_handle);
    if (!h->qlen && h->nxfers && wait_ms > 0)
        curl_multi_poll(h->multi, NULL, 0, wait_ms, NULL);
}

char *rc_http_read(rc_client *c)
{
    rc_http *h = c->http;
    long long end = now_ms() + (long long)(c->timeout * 1000);
    for (;;) {
        if (h->qlen) {
            char *m = h->queue[0];
            memmove(h->queue, h->queue + 1, --h->qlen * sizeof *h->queue);
            return m;
        }
        long long left = end - now_ms();
        if (!h->nxfers || c->session_lost || left <= 0)
            return NULL;
        pump(c, left > 100 ? 100 : (int)left);
    }
}

static void delete_session(rc_client *c)
{
    CURL *e = curl_easy_init();
    if (!e)
        return;
    struct curl_slist *l = session_headers(c, NULL);
    curl_easy_setopt(e, CURLOPT_URL, c->url);
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, l);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 2000L);
    curl_easy_perform(e);
    curl_slist_free_all(l);
    curl_easy_cleanup(e);
}

void rc_http_close(rc_client *c)
{
    rc_http *h = c->http;
    if (!h)
        return;
    if (c->session[0] && !rc_on(c, RC_FAULT_NO_DELETE))
        delete_session(c);
    for (size_t i = 0; i < h->nxfers; i++) {
        curl_multi_remove_handle(h->multi, h->xfers[i]->easy);
        xfer_free(h->xfers[i]);
    }
    for (size_t i = 0; i < h->qlen; i++)
        free(h->queue[i]);
    curl_multi_cleanup(h->multi);
    free(h);
    c->http = NULL;
    curl_global_cleanup();
}
