/*
 * http_int.h - what the HTTP transport's files share and nobody else sees:
 * the queue of events next() hands out, and the builders of the MCPS_TEV_HTTP
 * records (JSON text whose member order http.h fixes).
 *
 * The queue owns copies of everything it holds, so the curl callbacks can
 * queue whatever they parse at once and next() hands it out later; its byte
 * count is what the transport pauses reading on.
 */
#ifndef MCPS_TRANSPORT_HTTP_INT_H
#define MCPS_TRANSPORT_HTTP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

#include "base/buf.h"
#include "codec/sse.h"
#include "transport/transport.h"

typedef struct mcps_http_ev {
    struct mcps_http_ev *next;
    mcps_tevent_kind kind;
    unsigned request;
    uint64_t offset;
    size_t line;
    char detail[160];
    size_t len;
    char data[]; /* len bytes and a NUL */
} mcps_http_ev;

typedef struct mcps_http_evq {
    mcps_http_ev *head, *tail;
    size_t bytes; /* bytes the queued events take, headers included */
} mcps_http_evq;

/* What one queued event of len payload bytes takes: a flood of small SSE events
 * costs its ~200-byte headers too, so the pause threshold must count them. */
static inline size_t mcps_http_ev_size(size_t len)
{
    return sizeof(mcps_http_ev) + len + 1;
}

/* Queue a copy; false when memory ran out (the event is lost). */
bool mcps_http_evq_push(mcps_http_evq *q, mcps_tevent_kind kind, unsigned request, const char *data,
                        size_t len, const char *detail);
/* The oldest event (the caller frees it), or NULL. */
mcps_http_ev *mcps_http_evq_pop(mcps_http_evq *q);
void mcps_http_evq_free(mcps_http_evq *q);

/* s[0..len) as a JSON string: control characters escaped, ill-formed UTF-8
 * replaced by U+FFFD, so a record is valid JSON whatever the server sent. */
void mcps_http_json_str(mcps_buf *b, const char *s, size_t len);

/* Whether a header of this name carries a credential (never echoed). */
bool mcps_http_is_secret(const char *name, size_t len);

/*
 * Response headers, kept while they arrive: names lower-cased, a repeated
 * name's values joined with ", ", bounded in count and bytes (what does not
 * fit is counted, not kept). Rendered into a record with credentials redacted.
 */
#define MCPS_HTTP_HDR_MAX 64

typedef struct mcps_http_hdrs {
    char *name[MCPS_HTTP_HDR_MAX];
    char *value[MCPS_HTTP_HDR_MAX];
    size_t count, bytes, dropped;
} mcps_http_hdrs;

/* One header line as curl gives it ("Name: value\r\n"); others are ignored. */
void mcps_http_hdrs_add(mcps_http_hdrs *h, const char *line, size_t len);
/* The value of a (lower-case) name, or NULL. */
const char *mcps_http_hdrs_get(const mcps_http_hdrs *h, const char *name);
/* ,"headers":{...} */
void mcps_http_hdrs_render(const mcps_http_hdrs *h, mcps_buf *b);
void mcps_http_hdrs_reset(mcps_http_hdrs *h);

/* ---- the transport and its requests ---- */

typedef struct mcps_http_transport mcps_http_transport;

/* One transfer in flight. */
typedef struct mcps_http_req {
    struct mcps_http_req *next;
    mcps_http_transport *t;
    unsigned n;
    CURL *easy;
    struct curl_slist *hdrs;
    char method[16];
    char errbuf[CURL_ERROR_SIZE];
    char refused[160]; /* why we aborted it ourselves (a foreign redirect, huge headers) */
    bool carried_sid;  /* it was sent with the transport's session id */
    bool legacy_stream;
    bool off_endpoint; /* sent to a URL that is not the MCP endpoint (a suite's "path") */
    bool final;        /* the final response's headers are complete */
    bool sse, json;
    bool paused;
    size_t big; /* bytes of the run's budget for large messages it holds (guard.h) */
    long status;
    size_t header_bytes;
    mcps_http_hdrs hdrs_in;
    mcps_buf body; /* the first max_message bytes of a non-SSE body */
    uint64_t bytes;
    bool body_cut;
    size_t events; /* messages handed on, for the line numbers */
    mcps_sse_parser parser;
    bool parser_on;
} mcps_http_req;

struct mcps_http_transport {
    mcps_transport base;
    CURLM *multi;
    bool legacy;
    char *url;      /* as configured */
    char *endpoint; /* where POSTs go: url, or the legacy endpoint event's URI */
    char **fixed;   /* cfg->headers, copied */
    char **extra;   /* set by mcps_http_set_header: "Name: value" */
    size_t nextra;
    char *sid;
    unsigned last_n;
    mcps_http_req *reqs;
    mcps_http_evq q;
    bool big_waiting;  /* a transfer is paused until the run's large-message budget has room */
    mcps_http_ev *cur; /* handed out by the last next(), freed by the next call */
    size_t max_message;
    double send_timeout;
    bool follow, env_proxy;
    bool input_closed, shut;
    char stopped;
    char legacy_fail[160]; /* the legacy stream can give no endpoint (ended, foreign) */
    mcps_guard *guard;
    mcps_shutdown_report report;
};

/* Start a request (http_req.c): its number, or 0 with err filled. */
unsigned mcps_http_start(mcps_http_transport *t, const char *url, const char *method,
                         const char *const *headers, const char *body, size_t body_len,
                         bool body_given, char *err, size_t errlen);
/* Resolve ref against base; NULL when it cannot be (or is not same-origin, with
 * same_origin set). Free with curl_free. */
char *mcps_http_resolve(const char *base, const char *ref, bool same_origin);
/* Whether two URLs name the same host (and, with origin, scheme and port). */
bool mcps_http_same(const char *a, const char *b, bool origin);
/* Queue an MCPS_TEV_HTTP record (http_resp.c). */
void mcps_http_record(mcps_http_transport *t, unsigned n, const mcps_buf *json);
/* Queue an event of another kind. */
void mcps_http_event(mcps_http_transport *t, mcps_tevent_kind kind, unsigned n, const char *data,
                     size_t len, const char *detail);
/* A transfer ended (http_resp.c): its last records and events, then it is dropped. */
void mcps_http_finished(mcps_http_transport *t, mcps_http_req *r, CURLcode rc);
/* Abort and free a transfer (http_req.c). */
void mcps_http_req_drop(mcps_http_transport *t, mcps_http_req *r);
/* Pause above this many queued bytes (http.c resumes below half): per session, so --jobs 32
 * sessions of a flooding server hold 8 MiB of events at most. */
#define MCPS_HTTP_QUEUE_PAUSE ((size_t)256 * 1024)
/* A transfer holding more than this of one message takes max_message from the run's budget for
 * large messages first (guard.h), or waits; http.c retries that often. */
#define MCPS_HTTP_BIG      ((size_t)256 * 1024)
#define MCPS_HTTP_BIG_WAIT 20 /* ms */
/* Give back what r holds of that budget (a message handed on, the transfer dropped). */
void mcps_http_big_release(mcps_http_req *r);
/* Callbacks (http_resp.c) */
size_t mcps_http_on_header(char *buf, size_t size, size_t nitems, void *ud);
size_t mcps_http_on_body(char *buf, size_t size, size_t nitems, void *ud);

#endif
