/*
 * http_req.c - starting one HTTP request of the transport: its header list
 * (defaults, --header, mcps_http_set_header, the session id, then what a
 * suite wrote, later ones replacing earlier ones of the same name), the curl
 * handle with the transport's limits (no proxy, no redirect to another host,
 * connect bounded by send_timeout), and the URL helpers the same-origin rules
 * need.
 */
#include "transport/http_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_REDIRS 5

/* ---- URLs ---- */

char *mcps_http_resolve(const char *base, const char *ref, bool same_origin)
{
    CURLU *u = curl_url();
    char *out = NULL;
    if (u && curl_url_set(u, CURLUPART_URL, base, 0) == CURLUE_OK &&
        curl_url_set(u, CURLUPART_URL, ref, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_URL, &out, 0) == CURLUE_OK && same_origin &&
        !mcps_http_same(base, out, true)) {
        curl_free(out);
        out = NULL;
    }
    curl_url_cleanup(u);
    return out;
}

static bool part_eq(CURLU *a, CURLU *b, CURLUPart part, unsigned flags)
{
    char *x = NULL, *y = NULL;
    bool eq = curl_url_get(a, part, &x, flags) == CURLUE_OK &&
              curl_url_get(b, part, &y, flags) == CURLUE_OK && strcasecmp(x, y) == 0;
    curl_free(x);
    curl_free(y);
    return eq;
}

bool mcps_http_same(const char *a, const char *b, bool origin)
{
    CURLU *ua = curl_url(), *ub = curl_url();
    bool same = ua && ub && curl_url_set(ua, CURLUPART_URL, a, 0) == CURLUE_OK &&
                curl_url_set(ub, CURLUPART_URL, b, 0) == CURLUE_OK &&
                part_eq(ua, ub, CURLUPART_HOST, 0) &&
                (!origin || (part_eq(ua, ub, CURLUPART_SCHEME, 0) &&
                             part_eq(ua, ub, CURLUPART_PORT, CURLU_DEFAULT_PORT)));
    curl_url_cleanup(ua);
    curl_url_cleanup(ub);
    return same;
}

/* ---- headers ---- */

typedef struct hlist {
    char *v[96];
    size_t n;
    bool oom, bad;
} hlist;

static size_t name_len(const char *h)
{
    const char *c = strchr(h, ':');
    return c ? (size_t)(c - h) : 0;
}

static bool well_formed(const char *h)
{
    size_t n = name_len(h);
    if (n == 0 || strpbrk(h, "\r\n"))
        return false;
    for (size_t i = 0; i < n; i++)
        if (h[i] <= ' ' || h[i] >= 0x7f)
            return false;
    return true;
}

/* "Name: value" replaces any earlier Name; "Name:" (nothing after) makes curl send none. */
static void hset(hlist *l, const char *h)
{
    if (!well_formed(h)) {
        l->bad = true;
        return;
    }
    size_t n = name_len(h);
    char *copy = strdup(h);
    if (!copy) {
        l->oom = true;
        return;
    }
    for (size_t i = 0; i < l->n; i++)
        if (name_len(l->v[i]) == n && strncasecmp(l->v[i], h, n) == 0) {
            free(l->v[i]);
            l->v[i] = copy;
            return;
        }
    if (l->n == sizeof l->v / sizeof *l->v) {
        free(copy);
        l->bad = true;
        return;
    }
    l->v[l->n++] = copy;
}

static void hset_all(hlist *l, const char *const *v)
{
    for (; v && *v; v++)
        hset(l, *v);
}

static const char *hget(const hlist *l, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < l->n; i++)
        if (name_len(l->v[i]) == n && strncasecmp(l->v[i], name, n) == 0) {
            const char *v = l->v[i] + n + 1;
            while (*v == ' ')
                v++;
            return v;
        }
    return NULL;
}

static void hfree(hlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    l->n = 0;
}

static void build_headers(mcps_http_transport *t, hlist *l, const char *method, bool body_given,
                          const char *const *given)
{
    bool stream_get = t->legacy && t->last_n == 0;
    hset(l, "User-Agent: mcpspec/" MCPS_VERSION);
    hset(l,
         stream_get ? "Accept: text/event-stream" : "Accept: application/json, text/event-stream");
    hset(l, body_given ? "Content-Type: application/json" : "Content-Type:");
    hset(l, "Expect:"); /* no 100-continue round trip */
    (void)method;
    hset_all(l, (const char *const *)t->fixed);
    hset_all(l, (const char *const *)t->extra);
    if (t->sid) {
        mcps_buf b = {0};
        mcps_buf_printf(&b, "Mcp-Session-Id: %s", t->sid);
        if (b.oom)
            l->oom = true;
        else
            hset(l, b.data);
        mcps_buf_free(&b);
    }
    hset_all(l, given);
}

static struct curl_slist *to_slist(const hlist *l)
{
    struct curl_slist *s = NULL;
    for (size_t i = 0; i < l->n; i++) {
        struct curl_slist *more = curl_slist_append(s, l->v[i]);
        if (!more) {
            curl_slist_free_all(s);
            return NULL;
        }
        s = more;
    }
    return s;
}

/* ---- the curl handle ---- */

static void set_method(CURL *e, const char *method, const char *body, size_t len, bool given)
{
    if (given || strcmp(method, "POST") == 0) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(given ? len : 0));
        curl_easy_setopt(e, CURLOPT_COPYPOSTFIELDS, given && body ? body : "");
    } else if (strcmp(method, "HEAD") == 0) {
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    } else {
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    }
    if (strcmp(method, "POST") != 0 && strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
}

static bool setup_easy(mcps_http_transport *t, mcps_http_req *r, const char *url)
{
    CURL *e = r->easy;
    long connect_ms = (long)(t->send_timeout * 1000);
    bool ok = curl_easy_setopt(e, CURLOPT_URL, url) == CURLE_OK &&
              curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK &&
              curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->hdrs) == CURLE_OK;
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->errbuf);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, connect_ms > 0 ? connect_ms : 1L);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, mcps_http_on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, mcps_http_on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(e, CURLOPT_PRIVATE, r);
    /* What the server sent, as it sent it: no decoding behind the checks' back. */
    curl_easy_setopt(e, CURLOPT_HTTP_CONTENT_DECODING, 0L);
    if (!t->env_proxy)
        curl_easy_setopt(e, CURLOPT_PROXY, "");
    if (t->follow) {
        curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(e, CURLOPT_MAXREDIRS, (long)MAX_REDIRS);
        curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    }
    return ok;
}

static mcps_http_req *new_req(mcps_http_transport *t, const char *method)
{
    mcps_http_req *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->t = t;
    snprintf(r->method, sizeof r->method, "%s", method);
    r->easy = curl_easy_init();
    if (!r->easy) {
        free(r);
        return NULL;
    }
    return r;
}

static void free_req(mcps_http_req *r)
{
    curl_easy_cleanup(r->easy);
    curl_slist_free_all(r->hdrs);
    free(r);
}

static bool valid_method(const char *m)
{
    size_t n = strlen(m);
    if (n == 0 || n >= 16)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((m[i] >= 'A' && m[i] <= 'Z') || (m[i] >= 'a' && m[i] <= 'z') || m[i] == '-'))
            return false;
    return true;
}

unsigned mcps_http_start(mcps_http_transport *t, const char *url, const char *method,
                         const char *const *headers, const char *body, size_t body_len,
                         bool body_given, char *err, size_t errlen)
{
    if (!valid_method(method)) {
        snprintf(err, errlen, "cannot send: '%.20s' is not an HTTP method", method);
        return 0;
    }
    hlist l = {0};
    build_headers(t, &l, method, body_given, headers);
    mcps_http_req *r = l.oom || l.bad ? NULL : new_req(t, method);
    if (r) {
        const char *sid = hget(&l, "Mcp-Session-Id");
        r->carried_sid = t->sid && sid && strcmp(sid, t->sid) == 0;
        r->off_endpoint =
            strcmp(url, t->url) != 0 && !(t->endpoint && strcmp(url, t->endpoint) == 0);
        r->hdrs = to_slist(&l);
    }
    bool bad = l.bad;
    hfree(&l);
    if (!r || !r->hdrs || !setup_easy(t, r, url)) {
        snprintf(err, errlen, "cannot send: %s",
                 bad ? "a header is malformed (no name, a control character, or too many)"
                     : "out of memory or unusable URL");
        if (r)
            free_req(r);
        return 0;
    }
    set_method(r->easy, method, body, body_len, body_given);
    if (curl_multi_add_handle(t->multi, r->easy) != CURLM_OK) {
        snprintf(err, errlen, "cannot send: curl refused the transfer");
        free_req(r);
        return 0;
    }
    r->n = ++t->last_n;
    r->next = t->reqs;
    t->reqs = r;
    return r->n;
}

void mcps_http_req_drop(mcps_http_transport *t, mcps_http_req *r)
{
    for (mcps_http_req **p = &t->reqs; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    curl_multi_remove_handle(t->multi, r->easy);
    mcps_http_big_release(r);
    curl_easy_cleanup(r->easy);
    curl_slist_free_all(r->hdrs);
    mcps_http_hdrs_reset(&r->hdrs_in);
    mcps_buf_free(&r->body);
    if (r->parser_on)
        mcps_sse_free(&r->parser);
    free(r);
}
