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
 *
 * When the SSE stream of a request ends after an event with an id but
 * before the answer, the request is recovered: up to 2025-11-25 by a GET
 * with Last-Event-ID after the event's `retry` (HTTP-030, HTTP-021), never by
 * cancelling it (HTTP-017); on 2026-07-28, whose streams are not resumable,
 * by POSTing it again under a new id (HTTP-057), whose answer is handed to
 * session.c under the old one. On 2026-07-28 every POST also carries
 * MCP-Protocol-Version equal to its _meta version (HDR-001), Mcp-Method and,
 * for what names something, Mcp-Name (HDR-005), and the x-mcp-header
 * arguments of the tool it calls as Mcp-Param-* headers (HDR-009).
 * Answers are read in either form, a JSON body or an SSE stream (HTTP-012),
 * header names matched without regard to case (HDR-013) and SSE comment
 * lines skipped (HTTP-052); a --token goes as Authorization: Bearer on every
 * request (AUTH-003). Without one, a 401 starts authorization discovery:
 * authorization server metadata at the origin (2025-03-26, AUTH-005), else
 * protected resource metadata at the header's resource_metadata (AUTH-008)
 * leading to the authorization server's, whose issuer must match (AUTH-016),
 * then dynamic client registration as a native application (AUTH-014); the
 * authorization itself needs a user in a browser, so refclient stops there.
 *
 * With --sse-url it speaks 2024-11-05's HTTP+SSE instead: one GET holds the
 * SSE stream open, its `endpoint` event names the URI (resolved against the
 * SSE URL, kept as given: SSE-003) that every message is POSTed to, and the
 * server's messages come as `message` events on that stream. With --url,
 * an initialize refused with 400, 404 or 405 takes the URL for such an
 * HTTP+SSE endpoint (a server of 2024-11-05, HTTP-046): a GET of it, then
 * initialize again to its endpoint, and HTTP+SSE from there on.
 */
#include "refclient.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "codec/header.h"
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
    bool typed;        /* a Content-Type came */
    bool initialize;   /* it carries initialize: its answer issues the session */
    bool with_session; /* it carried Mcp-Session-Id */
    char *body;        /* the message POSTed (NULL for a GET) */
    double req_id;     /* its request id, when has_id (refclient's ids are integers) */
    bool has_id;
    bool answered;               /* a response to it came on this transfer */
    char last_event_id[64];      /* the last SSE event id seen */
    char resource_metadata[256]; /* a 401's WWW-Authenticate resource_metadata ("" none) */
    long retry_ms;               /* the last SSE retry field (-1: none) */
    const char *url;             /* where it goes (NULL: c->url) */
    bool remap;                  /* a request sent again: its answer's id becomes remap_to */
    double remap_to;
    char event[32]; /* HTTP+SSE: the type of the event being framed */
    bool endless;   /* HTTP+SSE: the GET stream, under no timeout */
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

static bool xfer_start(rc_client *c, rc_xfer *x);
static rc_xfer *xfer_new(rc_client *c);
static void pump(rc_client *c, int wait_ms);

/* HTTP+SSE: GET the SSE URL for its stream. */
static bool sse_get(rc_client *c)
{
    rc_xfer *x = xfer_new(c);
    if (!x)
        return false;
    x->headers = curl_slist_append(NULL, "Accept: text/event-stream");
    curl_easy_setopt(x->easy, CURLOPT_HTTPGET, 1L);
    x->endless = true; /* the stream lasts the session */
    return xfer_start(c, x);
}

/* ...and wait for its endpoint event. */
static bool legacy_connect(rc_client *c)
{
    if (!sse_get(c))
        return false;
    long long end = now_ms() + (long long)(c->timeout * 1000);
    while (!c->endpoint[0] && c->http->nxfers && now_ms() < end)
        pump(c, 100);
    if (!c->endpoint[0])
        fprintf(stderr, "refclient: no endpoint event on the SSE stream at %s\n", c->url);
    return c->endpoint[0] != '\0';
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
    return !c->legacy || legacy_connect(c);
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

/* A message from the server on x: a response to x's request marks it answered (and a request
 * sent again gets its first id back), then it is queued. */
static void deliver(rc_xfer *x, const char *bytes, size_t len)
{
    if (x->c->broken)
        return;
    cJSON *m = mcps_json_parse_simple(bytes, len);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
    if (m && !cJSON_GetObjectItemCaseSensitive(m, "method") && cJSON_IsNumber(id) && x->has_id &&
        id->valuedouble == x->req_id) {
        x->answered = true;
        if (x->remap) {
            cJSON_ReplaceItemInObjectCaseSensitive(m, "id", cJSON_CreateNumber(x->remap_to));
            char *s = mcps_json_print(m, NULL);
            if (s)
                push(x->c->http, s, strlen(s));
            free(s);
            cJSON_Delete(m);
            return;
        }
    }
    cJSON_Delete(m);
    push(x->c->http, bytes, len);
}

/* The value of SSE field name on line p (l bytes), or NULL. */
static const char *sse_field(const char *p, size_t l, const char *name, size_t *vl)
{
    size_t n = strlen(name);
    if (l < n + 1 || strncmp(p, name, n) != 0 || p[n] != ':')
        return NULL;
    const char *v = p + n + 1 + (l > n + 1 && p[n + 1] == ' ');
    *vl = l - (size_t)(v - p);
    return v;
}

/* A fault gives up on an answer: nothing more is read, and the session ends with exit 1. */
static void give_up(rc_client *c, const char *why)
{
    if (!c->broken)
        fprintf(stderr, "refclient: %s: giving up (fault)\n", why);
    c->broken = true;
}

/* HTTP+SSE: the endpoint event's URI (len bytes), resolved against the SSE URL: an absolute
 * URL as is, an absolute path on its origin, else beside its last path segment. */
static void set_endpoint(rc_client *c, const char *uri, size_t len)
{
    bool drop = rc_on(c, RC_FAULT_SSE_ENDPOINT_NO_QUERY) ||
                (c->fell_back && rc_on(c, RC_FAULT_FALLBACK_NO_QUERY));
    if (drop && memchr(uri, '?', len))
        len = (size_t)((const char *)memchr(uri, '?', len) - uri);
    const char *scheme = strstr(c->url, "://");
    const char *path = scheme ? strchr(scheme + 3, '/') : NULL;
    size_t origin = path ? (size_t)(path - c->url) : strlen(c->url);
    const char *slash = strrchr(c->url, '/');
    size_t dir = path && slash ? (size_t)(slash - c->url) + 1 : origin;
    if (len >= 7 && (strncmp(uri, "http://", 7) == 0 || strncmp(uri, "https://", 8) == 0))
        snprintf(c->endpoint, sizeof c->endpoint, "%.*s", (int)len, uri);
    else if (len && uri[0] == '/')
        snprintf(c->endpoint, sizeof c->endpoint, "%.*s%.*s", (int)origin, c->url, (int)len, uri);
    else
        snprintf(c->endpoint, sizeof c->endpoint, "%.*s%s%.*s", (int)dir, c->url, path ? "" : "/",
                 (int)len, uri);
}

/* One SSE event: its data lines joined by newlines, queued unless empty (a priming event);
 * its id and retry remembered; comments and other fields ignored. */
static void sse_event(rc_xfer *x, const char *ev, size_t len)
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
        size_t vl;
        const char *v;
        if (l && *p == ':' && rc_on(x->c, RC_FAULT_SSE_COMMENT_FATAL))
            give_up(x->c, "a comment line on the SSE stream");
        if ((v = sse_field(p, l, "data", &vl))) {
            if (any)
                data[n++] = '\n';
            memcpy(data + n, v, vl);
            n += vl;
            any = true;
        } else if ((v = sse_field(p, l, "id", &vl)))
            snprintf(x->last_event_id, sizeof x->last_event_id, "%.*s", (int)vl, v);
        else if ((v = sse_field(p, l, "event", &vl)))
            snprintf(x->event, sizeof x->event, "%.*s", (int)vl, v);
        else if ((v = sse_field(p, l, "retry", &vl)))
            x->retry_ms = strtol(v, NULL, 10);
        p = stop + 1;
    }
    if (data && any && strcmp(x->event, "endpoint") == 0)
        set_endpoint(x->c, data, n);
    else if (data && any && n)
        deliver(x, data, n);
    x->event[0] = '\0';
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
        sse_event(x, x->in, n);
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
    bool exact =
        !rc_on(x->c, RC_FAULT_HEADER_CASE_EXACT) || strncmp(line, "Content-Type:", 13) == 0;
    if (exact && header_is(line, n, "Content-Type", value, sizeof value)) {
        x->typed = true;
        x->sse = strncasecmp(value, "text/event-stream", 17) == 0;
        if (x->sse && rc_on(x->c, RC_FAULT_JSON_ANSWERS_ONLY))
            give_up(x->c, "an answer on an SSE stream");
    } else if (x->initialize && header_is(line, n, "Mcp-Session-Id", value, sizeof value))
        snprintf(x->c->session, sizeof x->c->session, "%s", value);
    else if (header_is(line, n, "WWW-Authenticate", value, sizeof value)) {
        const char *rm = strstr(value, "resource_metadata=\"");
        const char *end = rm ? strchr(rm + 19, '"') : NULL;
        if (end)
            snprintf(x->resource_metadata, sizeof x->resource_metadata, "%.*s",
                     (int)(end - rm - 19), rm + 19);
    }
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

static const char *string_of(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static struct curl_slist *header(struct curl_slist *l, const char *name, const char *value)
{
    char line[300];
    snprintf(line, sizeof line, "%s: %s", name, value);
    return curl_slist_append(l, line);
}

/* A header mirroring a body value, in 2026-07-28's Value Encoding (HDR-007); a value that
 * cannot be encoded (out of memory) goes as is, which the server sees as a mismatch. */
static struct curl_slist *mirrored(struct curl_slist *l, const char *name, const char *value)
{
    char *enc = mcps_header_encode(value);
    l = header(l, name, enc ? enc : value);
    free(enc);
    return l;
}

/* 2026-07-28's standard headers of request m (HDR-001, HDR-005, HDR-009); l unchanged for an
 * earlier revision's message. */
static struct curl_slist *modern_headers(const rc_client *c, const cJSON *m, struct curl_slist *l)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(m, "params");
    const char *v = string_of(cJSON_GetObjectItemCaseSensitive(params, "_meta"),
                              "io.modelcontextprotocol/protocolVersion");
    const char *method = string_of(m, "method");
    if (!v || !method)
        return l;
    l = header(l, "MCP-Protocol-Version",
               rc_on(c, RC_FAULT_HEADER_VERSION_MISMATCH) ? "2025-11-25" : v);
    if (!rc_on(c, RC_FAULT_NO_MCP_METHOD))
        l = header(l, "Mcp-Method", method);
    const char *name = string_of(params, strcmp(method, "resources/read") == 0 ? "uri" : "name");
    if (name && (strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0 ||
                 strcmp(method, "resources/read") == 0))
        l = rc_on(c, RC_FAULT_NAME_HEADER_RAW) ? header(l, "Mcp-Name", name)
                                               : mirrored(l, "Mcp-Name", name);
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    for (int i = 0; strcmp(method, "tools/call") == 0 && i < c->nmirror; i++) {
        char buf[32], hname[100];
        const char *value = mcps_json_scalar_text(
            cJSON_GetObjectItemCaseSensitive(args, c->mirror_prop[i]), buf, sizeof buf);
        snprintf(hname, sizeof hname, "Mcp-Param-%s", c->mirror_header[i]);
        if (value && !rc_on(c, RC_FAULT_NO_PARAM_HEADER))
            l = mirrored(l, hname, value);
    }
    return l;
}

static void xfer_free(rc_xfer *x)
{
    curl_easy_cleanup(x->easy);
    curl_slist_free_all(x->headers);
    free(x->in);
    free(x->body);
    free(x);
}

/* A new transfer on c's endpoint (its handlers set, not started); NULL when none can be. */
static rc_xfer *xfer_new(rc_client *c)
{
    rc_xfer *x = calloc(1, sizeof *x);
    if (!x || c->http->nxfers >= MAX_XFERS || !(x->easy = curl_easy_init())) {
        free(x);
        return NULL;
    }
    x->c = c;
    x->retry_ms = -1;
    x->with_session = c->session[0] && !rc_on(c, RC_FAULT_NO_SESSION_ID);
    return x;
}

/* Start x; false (x freed) when it could not be. */
static bool xfer_start(rc_client *c, rc_xfer *x)
{
    rc_http *h = c->http;
    curl_easy_setopt(x->easy, CURLOPT_URL, x->url ? x->url : c->url);
    curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->headers);
    curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x);
    curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, x->endless ? 0L : (long)(c->timeout * 3000));
    if (curl_multi_add_handle(h->multi, x->easy) != CURLM_OK) {
        xfer_free(x);
        return false;
    }
    h->xfers[h->nxfers++] = x;
    int running;
    curl_multi_perform(h->multi, &running);
    return true;
}

/* The Authorization header of a --token (AUTH-003); l unchanged without one. */
static struct curl_slist *token_header(rc_client *c, struct curl_slist *l)
{
    if (!c->token || (c->token_sent && rc_on(c, RC_FAULT_TOKEN_FIRST_ONLY)))
        return l;
    char line[300];
    snprintf(line, sizeof line, "Authorization: Bearer %s", c->token);
    c->token_sent = true;
    return curl_slist_append(l, line);
}

/* The two-in-one-post fault: notifications/initialized is held and goes in front of the next
 * message, in one body. line itself when not at work; else malloc'd (into *owned) or NULL
 * when held. */
static const char *packed(rc_client *c, const char *line, char **owned)
{
    *owned = NULL;
    if (!rc_on(c, RC_FAULT_TWO_IN_ONE_POST))
        return line;
    if (!c->held && strstr(line, "\"notifications/initialized\"")) {
        c->held = strdup(line);
        return c->held ? NULL : line;
    }
    if (!c->held)
        return line;
    size_t a = strlen(c->held), b = strlen(line);
    if ((*owned = malloc(a + b + 2))) {
        memcpy(*owned, c->held, a);
        (*owned)[a] = '\n';
        memcpy(*owned + a + 1, line, b + 1);
    }
    free(c->held);
    c->held = NULL;
    return *owned ? *owned : line;
}

bool rc_http_post(rc_client *c, const char *message)
{
    char *owned;
    const char *line = packed(c, message, &owned);
    if (!line)
        return true; /* held for the next body */
    rc_xfer *x = xfer_new(c);
    cJSON *m = x ? mcps_json_parse_simple(message, strlen(message)) : NULL;
    bool ok = x && (x->body = strdup(line));
    free(owned);
    if (!ok) {
        if (x)
            xfer_free(x);
        cJSON_Delete(m);
        return false;
    }
    const char *method = string_of(m, "method");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
    x->initialize = method && strcmp(method, "initialize") == 0;
    x->has_id = method && cJSON_IsNumber(id);
    x->req_id = x->has_id ? id->valuedouble : 0;
    x->headers = curl_slist_append(NULL, "Content-Type: application/json");
    if (c->legacy) { /* HTTP+SSE: to the endpoint event's URI; the answer comes on the stream */
        x->url = c->endpoint;
        x->headers = curl_slist_append(x->headers, "Expect:");
        cJSON_Delete(m);
        curl_easy_setopt(x->easy, CURLOPT_COPYPOSTFIELDS, x->body);
        return xfer_start(c, x);
    }
    x->headers = curl_slist_append(x->headers, rc_on(c, RC_FAULT_ACCEPT_JSON_ONLY)
                                                   ? "Accept: application/json"
                                                   : "Accept: application/json, text/event-stream");
    x->headers = curl_slist_append(x->headers, "Expect:");
    x->headers = session_headers(c, x->headers);
    x->headers = modern_headers(c, m, x->headers);
    x->headers = token_header(c, x->headers);
    cJSON_Delete(m);
    curl_easy_setopt(x->easy, CURLOPT_COPYPOSTFIELDS, x->body);
    return xfer_start(c, x);
}

/* GET the endpoint with Last-Event-ID: the stream of a request, resumed (HTTP-030). */
static void resume_get(rc_client *c, const rc_xfer *broken)
{
    rc_xfer *x = xfer_new(c);
    if (!x)
        return;
    x->has_id = broken->has_id;
    x->req_id = broken->req_id;
    x->headers = curl_slist_append(NULL, "Accept: text/event-stream");
    x->headers = header(x->headers, "Last-Event-ID", broken->last_event_id);
    x->headers = session_headers(c, x->headers);
    x->headers = token_header(c, x->headers);
    curl_easy_setopt(x->easy, CURLOPT_HTTPGET, 1L);
    xfer_start(c, x);
}

/* ---- a 401: authorization discovery ---- */

static size_t into_buf(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    char **buf = userdata;
    size_t n = size * nmemb, have = *buf ? strlen(*buf) : 0;
    if (have + n > 65536) /* a discovery document is small */
        return 0;
    char *grown = realloc(*buf, have + n + 1);
    if (!grown)
        return 0;
    memcpy(grown + have, ptr, n);
    grown[have + n] = '\0';
    *buf = grown;
    return n;
}

/* GET (body NULL) or POST a JSON body to url: the JSON answer of a 2xx, or NULL. */
static cJSON *fetch_json(const char *url, const char *body)
{
    CURL *e = curl_easy_init();
    char *got = NULL;
    long status = 0;
    struct curl_slist *l = curl_slist_append(NULL, "Accept: application/json");
    if (body)
        l = curl_slist_append(l, "Content-Type: application/json");
    if (!e || !l) {
        curl_easy_cleanup(e);
        curl_slist_free_all(l);
        return NULL;
    }
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, l);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, into_buf);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &got);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 3000L);
    if (body)
        curl_easy_setopt(e, CURLOPT_COPYPOSTFIELDS, body);
    if (curl_easy_perform(e) == CURLE_OK)
        curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(e);
    curl_slist_free_all(l);
    cJSON *m =
        status >= 200 && status < 300 && got ? mcps_json_parse_simple(got, strlen(got)) : NULL;
    free(got);
    return m;
}

/* url's origin ("http://host:port") into origin; its path returned ("" for none). */
static const char *split_url(const char *url, char *origin, size_t n)
{
    const char *scheme = strstr(url, "://");
    const char *path = strchr(scheme ? scheme + 3 : url, '/');
    if (!path)
        path = url + strlen(url);
    snprintf(origin, n, "%.*s", (int)(path - url), url);
    return path;
}

/* The authorization server metadata URL of issuer (RFC 8414: the well-known suffix goes
 * between its origin and its path). */
static void as_metadata_url(const char *issuer, char *out, size_t n)
{
    char origin[256];
    const char *path = split_url(issuer, origin, sizeof origin);
    snprintf(out, n, "%s/.well-known/oauth-authorization-server%s", origin,
             strcmp(path, "/") == 0 ? "" : path);
}

/* Register at the registration endpoint as a native application (AUTH-014). */
static void register_client(const rc_client *c, const char *endpoint)
{
    char body[400];
    snprintf(body, sizeof body,
             "{\"client_name\":\"refclient\",\"redirect_uris\":[\"http://127.0.0.1/callback\"],"
             "\"grant_types\":[\"authorization_code\"],\"response_types\":[\"code\"],"
             "\"token_endpoint_auth_method\":\"none\"%s}",
             rc_on(c, RC_FAULT_REGISTER_NO_APP_TYPE) ? "" : ",\"application_type\":\"native\"");
    cJSON_Delete(fetch_json(endpoint, body));
}

/* The authorization server's issuer, from protected resource metadata (2025-06-18 on: at the
 * 401's resource_metadata, else the well-known URI of the endpoint); "" when none. */
static void find_issuer(const rc_client *c, const char *resource_metadata, char *out, size_t n)
{
    char origin[256], url[512];
    const char *path = split_url(c->url, origin, sizeof origin);
    if (resource_metadata[0] && !rc_on(c, RC_FAULT_AUTH_PRM_WELL_KNOWN))
        snprintf(url, sizeof url, "%s", resource_metadata);
    else
        snprintf(url, sizeof url, "%s/.well-known/oauth-protected-resource%s", origin, path);
    cJSON *prm = fetch_json(url, NULL);
    const cJSON *as =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(prm, "authorization_servers"), 0);
    snprintf(out, n, "%s", cJSON_IsString(as) ? as->valuestring : "");
    cJSON_Delete(prm);
}

/* A 401: discover the authorization server and register; the rest needs a user. */
static void authorize(rc_client *c, const char *resource_metadata)
{
    char origin[256], issuer[256] = "", url[600];
    const char *path = split_url(c->url, origin, sizeof origin);
    bool legacy = mcps_rev_parse(c->version) == MCPS_REV_2025_03_26;
    if (legacy) /* 2025-03-26: the metadata of the endpoint's origin, its path dropped */
        snprintf(url, sizeof url, "%s/.well-known/oauth-authorization-server%s", origin,
                 rc_on(c, RC_FAULT_AUTH_PATH_KEPT) ? path : "");
    else {
        find_issuer(c, resource_metadata, issuer, sizeof issuer);
        as_metadata_url(issuer, url, sizeof url);
    }
    cJSON *meta = legacy || issuer[0] ? fetch_json(url, NULL) : NULL;
    const char *got = string_of(meta, "issuer");
    const char *reg = string_of(meta, "registration_endpoint");
    bool trusted =
        legacy || (got && strcmp(got, issuer) == 0) || rc_on(c, RC_FAULT_ISSUER_UNCHECKED);
    if (meta && trusted && reg) /* AUTH-016: the issuer it was asked for */
        register_client(c, reg);
    cJSON_Delete(meta);
    fprintf(stderr, "refclient: the server wants authorization, which needs a user: giving up\n");
    c->broken = true;
}

/* The legacy-fallback-on-error fault: GET the endpoint for an HTTP+SSE endpoint event. */
static void legacy_get(rc_client *c)
{
    rc_xfer *x = xfer_new(c);
    if (!x)
        return;
    x->headers = curl_slist_append(NULL, "Accept: text/event-stream");
    x->headers = token_header(c, x->headers);
    curl_easy_setopt(x->easy, CURLOPT_HTTPGET, 1L);
    xfer_start(c, x);
}

/* POST a request again under a new id (2026-07-28: the lost stream is not resumable). */
static void send_again(rc_client *c, const rc_xfer *broken)
{
    cJSON *m = mcps_json_parse_simple(broken->body, strlen(broken->body));
    double fresh = broken->req_id + 1000;
    /* replaced, not set: the codec prints a number as the text it was parsed from */
    cJSON_ReplaceItemInObjectCaseSensitive(m, "id", cJSON_CreateNumber(fresh));
    char *line = m ? mcps_json_print(m, NULL) : NULL;
    cJSON_Delete(m);
    if (line && rc_http_post(c, line)) {
        rc_xfer *x = c->http->xfers[c->http->nxfers - 1];
        x->remap = true;
        x->remap_to = broken->req_id;
    }
    free(line);
}

/* notifications/cancelled for the request of x (only the cancel-on-drop fault does). */
static void cancel(rc_client *c, const rc_xfer *x)
{
    char line[200];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
             "\"requestId\":%.0f,\"reason\":\"the stream closed\"}}",
             x->req_id);
    rc_http_post(c, line);
}

/* The stream of x's request ended after an event with an id, unanswered: recover it. */
static void recover(rc_client *c, const rc_xfer *x)
{
    bool modern = mcps_rev_parse(c->version) == MCPS_REV_2026_07_28;
    if (modern && !rc_on(c, RC_FAULT_RESUME_MODERN)) {
        send_again(c, x);
        return;
    }
    if (rc_on(c, RC_FAULT_NO_RESUME)) {
        fprintf(stderr, "refclient: a stream closed before its answer: giving up (fault)\n");
        return;
    }
    if (rc_on(c, RC_FAULT_CANCEL_ON_DROP))
        cancel(c, x);
    if (x->retry_ms > 0 && !rc_on(c, RC_FAULT_RESUME_EARLY)) { /* at most 10 s: bounded */
        long ms = x->retry_ms < 10000 ? x->retry_ms : 10000;
        struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    resume_get(c, x);
}

/* A transfer ended: queue a JSON body, note a lost session. */
static void finish(rc_client *c, CURL *easy)
{
    rc_http *h = c->http;
    rc_xfer *x = NULL;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&x);
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    if (status == 401 && !c->broken)
        authorize(c, x->resource_metadata);
    bool refused = status == 400 || status == 404 || status == 405;
    if (x->initialize && !c->legacy && refused && (c->resend = strdup(x->body))) {
        c->legacy = c->fell_back = true; /* HTTP-046: perhaps a server of HTTP+SSE */
        fprintf(stderr, "refclient: initialize refused with %ld: trying HTTP+SSE\n", status);
        sse_get(c);
        x->inlen = 0; /* its body is no message */
    }
    if (status == 404 && x->with_session) {
        c->session_lost = true;
        c->session[0] = '\0';
    }
    if (!x->sse && !x->typed && x->inlen && rc_on(c, RC_FAULT_HEADER_CASE_EXACT))
        give_up(c, "an answer without Content-Type");
    if (!x->sse && x->inlen && (status == 200 || (x->has_id && status >= 400 && status < 500)))
        deliver(x, x->in, x->inlen); /* 2026-07-28 errors come with 4xx (HTTP-053, VER-002) */
    if (status == 400 && x->has_id && mcps_rev_parse(c->version) == MCPS_REV_2026_07_28 &&
        rc_on(c, RC_FAULT_LEGACY_FALLBACK))
        legacy_get(c);
    if (x->sse && status == 200 && x->has_id && !x->answered && x->last_event_id[0])
        recover(c, x);
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
    if (c->resend && c->endpoint[0]) { /* the fallback's endpoint came: initialize there */
        char *line = c->resend;
        c->resend = NULL;
        rc_http_post(c, line);
        free(line);
    }
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
        if (!h->nxfers || c->session_lost || c->broken || left <= 0)
            return NULL;
        pump(c, left > 100 ? 100 : (int)left);
    }
}

static void delete_session(rc_client *c)
{
    CURL *e = curl_easy_init();
    if (!e)
        return;
    struct curl_slist *l = token_header(c, session_headers(c, NULL));
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
    free(c->held);
    c->held = NULL;
    free(c->resend);
    c->resend = NULL;
    curl_multi_cleanup(h->multi);
    free(h);
    c->http = NULL;
    curl_global_cleanup();
}
