/*
 * http.h - MCP over HTTP: Streamable HTTP (2025-03-26 on) and the legacy
 * HTTP+SSE transport (2024-11-05), as an mcps_transport beside stdio.
 *
 * One transport is one MCP session on a server someone else started (or the
 * engine's host, below): its own Mcp-Session-Id, its own connections. The
 * client is libcurl's multi interface, so every stream the session has open
 * (the POSTs in flight, the GET stream) is served by one poll loop, and every
 * wait is bounded by the caller's deadline and the run's guard. Bodies and
 * SSE events longer than max_message are cut (OVERSIZE) and their transfer
 * aborted (but for the legacy stream, which the session lives on). No proxy
 * from the environment and no redirects unless asked, and never to another
 * host.
 *
 * ops->name is "streamable-http" or "sse" (for the report). What the session
 * sees through next():
 *  - MCPS_TEV_MESSAGE for each JSON-RPC message: an application/json body, or
 *    the data of an SSE event whose type is "message" (or absent);
 *  - MCPS_TEV_HTTP for what HTTP itself said, as one line of JSON text (see
 *    below), so the wire log shows it and suites can match it;
 *  - MCPS_TEV_OVERSIZE instead of MESSAGE when the body or event data passed
 *    max_message: data holds its first max_message bytes;
 *  - MCPS_TEV_ERROR when a request could not be made at all, i.e. it failed
 *    before a response's headers came (the JSON record with "event":"error"
 *    comes first); a failure mid-body gives the record only. Also when the
 *    legacy endpoint event names a URI on another origin.
 * MESSAGE and OVERSIZE carry request = the request whose response (or stream)
 * held them, line = their 1-based number within it and offset = the response
 * body bytes read when they were complete; terminated is always true.
 * There is no process: CLOSED and EXITED never come, GONE only after
 * shutdown, once the queue is empty. shutdown() drops every transfer (no
 * DELETE: suites end sessions themselves) and reports MCPS_SHUT_EXITED_BEFORE,
 * 0 s, exit code 0; close_input() makes later sends (both kinds) fail.
 */
#ifndef MCPS_TRANSPORT_HTTP_H
#define MCPS_TRANSPORT_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "transport/transport.h"

/*
 * One HTTP request a suite spells out (`--> http {...}`). Headers given here
 * replace the transport's defaults of the same name (compared without
 * regard to case); "Name:" with nothing after the colon removes that
 * default. body may be NULL (no body).
 */
typedef struct mcps_http_request {
    const char *method;         /* "POST", "GET", "DELETE", ... */
    const char *const *headers; /* "Name: value" strings, NULL-terminated; NULL: none */
    const char *body;
    size_t body_len;
    const char *path; /* NULL: the endpoint; else a path or URL resolved
                         against it (same origin only) */
} mcps_http_request;

/*
 * Connect to cfg->url; nothing is sent yet (Streamable HTTP) or the GET of
 * the SSE endpoint is started (legacy). Never blocks beyond setting up.
 * NULL with err filled for a malformed or non-HTTP URL.
 */
mcps_transport *mcps_http_open(const mcps_target_config *cfg, char *err, size_t errlen);

/*
 * Send one request as written. Returns its number (1, 2, ... per transport;
 * send() uses the same numbering), or 0 with err filled when it cannot be
 * started (the legacy endpoint event has not come within send_timeout, the
 * transport was shut down, the guard stopped).
 */
unsigned mcps_http_send(mcps_transport *t, const mcps_http_request *rq, char *err, size_t errlen);

/*
 * Set (value non-NULL) or remove (NULL) a header sent with every later
 * request: the session sets MCP-Protocol-Version once the handshake settled
 * the revision. Mcp-Session-Id is kept by the transport itself: taken from
 * the first response that carries one, sent on every later request, dropped
 * after a 404 to a request that carried it. A name holding ':', CR or LF, or a
 * value holding CR or LF, is ignored.
 */
void mcps_http_set_header(mcps_transport *t, const char *name, const char *value);

/* The number of the last request started (0 before the first). */
unsigned mcps_http_last_request(const mcps_transport *t);
/* Whether request n has ended and every event of it has been handed out by next(). */
bool mcps_http_request_done(const mcps_transport *t, unsigned n);

/* The session id the server issued, or NULL. */
const char *mcps_http_session_id(const mcps_transport *t);

/*
 * Wait until something accepts TCP connections at url's host and port, up to
 * deadline_ms (and the guard's). False with err filled when nothing does.
 */
bool mcps_http_wait_listening(const char *url, int64_t deadline_ms, const mcps_guard *guard,
                              char *err, size_t errlen);

/*
 * The MCPS_TEV_HTTP record, one JSON object per event, members in this order:
 *   {"request":N,"event":"response","method":"POST","status":200,
 *    "headers":{"content-type":"text/event-stream", ...}}   names in lower case;
 *      a credential header we sent is never echoed, and response headers
 *      named authorization / cookie / set-cookie are given as "(redacted)"
 *   "event":"response" comes when the headers arrive for an SSE response and
 *      when the body is complete otherwise, with "body":"text" (the first
 *      4 KiB, as a JSON string) when the body is not JSON-RPC that went on as
 *      a MESSAGE (empty bodies give "body":""). JSON-RPC means: the response's
 *      Content-Type is application/json (or +json) and the body is not blank,
 *      and the request went to the endpoint: a body from another URL (a request
 *      with a path, e.g. a metadata document) is always given as "body".
 *      Then, when present: "body_bytes":N (the body passed max_message: the
 *      bytes read before the transfer was aborted, see "error") and
 *      "headers_dropped":N (headers beyond 64 or 16 KiB); string values are
 *      valid JSON whatever the bytes (bad UTF-8 as U+FFFD);
 *   {"request":N,"event":"sse","id":"7","type":"message","retry":3000,
 *    "data_bytes":120}  one per SSE block (codec/sse.h: every block with a
 *      line, dispatched or not), before its MESSAGE: "id" when the block had
 *      an id field, "type" always ("message" when the block set none),
 *      "retry" when it had a valid one, "data_bytes" when WHATWG dispatches it
 *      (0 for the priming event), then "comments":N and "oversize":true when
 *      so. A MESSAGE follows for a dispatched "message" block with data;
 *   {"request":N,"event":"end","bytes":1234}  an SSE response stream ended
 *      (the server closed it);
 *   {"request":N,"event":"error","error":"Connection refused"}  the request
 *      failed below HTTP (connect, reset mid-body, timeout), or we aborted it
 *      ("redirect to another host refused", headers over 256 KiB, a body or
 *      an SSE event past max_message: what was kept came first, oversize).
 * For the legacy transport the GET of the SSE endpoint is request 1; its
 * first "endpoint" event (resolved against url, same origin only) is where
 * every send() POSTs, and send() waits up to send_timeout for it.
 */

#endif
