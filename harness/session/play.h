/*
 * play.h - the session layer's side of `mcpspec run --client`: one client
 * case, with mcpspec playing the server over relay connections
 * (transport/relay.h).
 *
 * It frames and parses what the client sends, writes what the scripted
 * server says, and keeps the case's wire log in the same records a server
 * run keeps (wirelog.h), so every report format shows client runs too. A
 * case may see several connections (a client restarting its server); the
 * log spans them all.
 */
#ifndef MCPS_SESSION_PLAY_H
#define MCPS_SESSION_PLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "session/wirelog.h"
#include "transport/httpd.h"
#include "transport/relay.h"

/* One HTTP request the client made to {url}, as the HTTP checks read it (play_http.c). */
typedef struct mcps_http_seen {
    char verb[12];
    char rpc[48];         /* the body's method, or "(response)", "(not JSON)", "(batch)", "" */
    bool initialize;      /* the body is an initialize request */
    unsigned session_no;  /* the session live when it came (0: none issued yet) */
    bool expired_session; /* it named a session we had ended: answered 404 */
    bool has_session, session_ok; /* Mcp-Session-Id sent; equal to the live session's */
    bool has_version;
    char version[40]; /* MCP-Protocol-Version */
    bool has_accept;
    char accept[160];
    int status; /* what we answered (0: nothing yet) */
    /* 2026-07-28's standard headers (HDR-001, HDR-005) and the body's _meta version */
    bool has_mcp_method, has_mcp_name;
    char mcp_method[64], mcp_name[128];
    char meta_version[40]; /* params._meta protocolVersion of the body ("" none) */
    char body_name[128];   /* params.name (resources/read: params.uri), what Mcp-Name mirrors */
    char mcp_params[256];  /* the Mcp-Param-* headers (HDR-009), "Name: value\n" each */
    bool has_last_event_id;
    char last_event_id[64]; /* a resumption (HTTP-030) */
    char rpc_id[64];        /* the body's request id, as text ("" none) */
    int64_t at_ms;          /* when it came (mcps_clock_ms) */
    bool sse;               /* it was answered with an SSE stream (else a JSON body, if any) */
    /* AUTH-003: an Authorization header (its scheme Bearer), a token in the query string; the
     * token itself is never kept */
    bool has_auth, auth_bearer, query_token;
    char path[128];    /* the request target without its query */
    char app_type[24]; /* a POST /register: its body's application_type ("" none) */
    bool refused_401;  /* answered 401 for want of a token (mcps_play_http_auth) */
    /* HTTP+SSE (mcps_play_sse_init): the request target as sent; a POST: whether it is the
     * endpoint event's URI byte for byte (SSE-003); a GET of the SSE URL: the URI it was given */
    char target[200];
    bool to_endpoint;
    char endpoint[200];
    char init_version[40]; /* an initialize body's protocolVersion ("" none) */
} mcps_http_seen;

struct mcps_play_http; /* play_http.c */

typedef struct mcps_play {
    mcps_guard *guard; /* NULL: none */
    int64_t t0_us;
    mcps_relay_conn conn; /* the current connection; conn.fd < 0: none */
    mcps_wire_entry *wire;
    size_t nwire, cap_wire, wire_dropped, wire_bytes;
    mcps_wire_note *notes;
    size_t nnotes, cap_notes;
    size_t sent, received; /* messages, over all connections */
    bool peer_gone;        /* the last connection ended without its stdin being closed */
    const char *raw;       /* the bytes of the last message handed out */
    size_t raw_len;
    struct mcps_play_http *http; /* Streamable HTTP ({url}); NULL: the stdio relay */
} mcps_play;

void mcps_play_init(mcps_play *p, mcps_guard *guard);
/* Take over an accepted connection (closing the previous one). */
void mcps_play_attach(mcps_play *p, mcps_relay_conn *c);
/* Close the current connection, if any. */
void mcps_play_hang_up(mcps_play *p);
bool mcps_play_connected(const mcps_play *p);

/*
 * The next thing the client did on the connection, waiting until deadline_ms:
 * MESSAGE (*msg the parsed JSON, owned by the caller, or NULL when the line is
 * not JSON; of a line past 64 KiB only the members of up to 4 KiB), OVERSIZE,
 * CLOSED, TIMEOUT, STOPPED. Logged either way.
 */
mcps_tevent_kind mcps_play_next(mcps_play *p, int64_t deadline_ms, cJSON **msg);
/* Send one message (or raw bytes, newline added), logged; false when it could not go. */
bool mcps_play_send(mcps_play *p, const cJSON *msg);
bool mcps_play_send_raw(mcps_play *p, const char *bytes, size_t len);

/*
 * Streamable HTTP: serve the client on h (owned by the caller) instead of relay connections.
 * Then next() hands out POST bodies (answering notifications and responses 202, a batch of
 * responses too, GET 405 unless it resumes a broken stream) and CLOSED for a DELETE of the
 * session; send() routes a response to the POST that carried its request (a JSON body, or the
 * last event of its SSE stream; for a 2026-07-28 request an error goes with 404 for -32601,
 * else 400) and anything else as an SSE event on the newest open POST; the initialize answer
 * issues Mcp-Session-Id.
 */
bool mcps_play_http_init(mcps_play *p, mcps_httpd *h);
/*
 * The legacy HTTP+SSE transport (2024-11-05, {sse-url}) on h instead: a GET of
 * mcps_play_sse_url() opens the SSE stream, whose first event, `endpoint`, names the URI to POST
 * messages to (the endpoint's path, a session query parameter); next() hands out POST bodies,
 * answered 202 (a POST elsewhere than the endpoint's path is refused, one to that path whatever
 * its query is served, and recorded), and CLOSED when the client closes its stream; send() writes
 * every message as an `event: message` on the newest stream. A new GET is a new session.
 */
bool mcps_play_sse_init(mcps_play *p, mcps_httpd *h);
/* Streamable HTTP's endpoint turned a 2024-11-05 HTTP+SSE server at the same URL (a legacy
 * server, HTTP-046): a POST there gets 405, a GET the SSE stream, as above. */
void mcps_play_http_legacy(mcps_play *p);
/* The SSE URL to give the client (NULL: not HTTP+SSE). */
const char *mcps_play_sse_url(const mcps_play *p);
/* Send msg; over HTTP as an SSE stream even when it is the only message of its POST. */
bool mcps_play_send_stream(mcps_play *p, const cJSON *msg);
/* Answer the open request with this id 404 and forget the live session (HTTP-039). */
bool mcps_play_expire(mcps_play *p, const cJSON *id);
/* Break the SSE stream of the open request with this id: one event (id event_id, `retry:`
 * retry_ms, no data), then the connection closes. keep: its answer, once sent, waits for a GET
 * carrying Last-Event-ID: event_id, which gets it on an SSE stream (HTTP-030); else the request
 * is dropped (2026-07-28 has no resumption: HTTP-057). False when no such request is open. */
bool mcps_play_break(mcps_play *p, const cJSON *id, const char *event_id, int retry_ms, bool keep);
/* Answer the client's requests alternately with a JSON body and an SSE stream, first JSON
 * (HTTP-012); its 2026-07-28 requests' JSON answers spell their header names in lower case
 * (HDR-013), and their SSE streams open with a comment line (HTTP-052). Errors stay JSON. */
void mcps_play_http_forms(mcps_play *p);
/* The endpoint wants a token: a request without Authorization is answered 401 with
 * WWW-Authenticate naming resource_metadata (MCPS_PLAY_AUTH_PRM, not the well-known URI), and
 * the authorization discovery URLs are served beside it on the same origin: protected resource
 * metadata (at both), authorization server metadata (issuer: the origin) and a registration
 * endpoint (POST /register). No authorization endpoint: a client stops short of a user. */
void mcps_play_http_auth(mcps_play *p);
/* ...with authorization server metadata whose issuer is not the URL it was asked at (the
 * origin): a client must not use it (AUTH-016). */
void mcps_play_http_auth_wrong_issuer(mcps_play *p);
#define MCPS_PLAY_AUTH_OTHER_ISSUER "/mcpspec/other-issuer"
#define MCPS_PLAY_AUTH_PRM          "/mcpspec/resource-metadata"
/* The requests to those URLs, apart from the endpoint's (p keeps them). */
const mcps_http_seen *mcps_play_auth_seen(const mcps_play *p, size_t *n);
/* Every HTTP request seen so far (p keeps them). */
const mcps_http_seen *mcps_play_http_seen(const mcps_play *p, size_t *n);
/* Whether a POST is waiting on us (the client expects more). */
bool mcps_play_http_busy(const mcps_play *p);

/* Add an entry to the log: the client's own output (STDERR), or an EVENT. */
void mcps_play_log(mcps_play *p, mcps_wire_dir dir, const char *bytes, size_t len);
void mcps_play_event(mcps_play *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hand the log over (p keeps none of it). */
void mcps_play_take_log(mcps_play *p, mcps_wire_log *out);
void mcps_play_free(mcps_play *p);

#endif
