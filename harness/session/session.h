/*
 * session.h - one connection to a target: send, receive, observe, log.
 *
 * A session owns a transport and sits between it and the suite engine. What
 * it sends is serialized, logged and remembered (for id matching); what it
 * receives is logged, judged by the observer and queued in an inbox where the
 * engine looks for the messages its steps expect. Batches are queued whole
 * and element by element. The inbox is bounded by count and by memory, more
 * tightly for what is not a response, so a flood of notifications is logged
 * and judged but not kept for the steps (the log says so). Server pings are
 * answered on the spot, as a client must. The wire log is bounded per session
 * (stderr within that more tightly) and, through the run's guard, over the
 * whole run, so a flood cannot grow the report. A deadline given to poll is
 * absolute: however much keeps arriving, poll says "deadline passed" soon
 * after it.
 */
#ifndef MCPS_SESSION_SESSION_H
#define MCPS_SESSION_SESSION_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/rev.h"
#include "codec/rpc.h"
#include "session/observe.h"
#include "session/wirelog.h"
#include "transport/transport.h"

/* The shape a message has, whatever is wrong with it: what the engine waits for. */
/* stalled_seconds of a request whose HTTP exchange ended without an answer: it never will. */
#define MCPS_STALLED_FOR_GOOD 1e9

typedef enum mcps_shape {
    MCPS_SHAPE_OTHER,        /* not an object the engine can correlate */
    MCPS_SHAPE_REQUEST,      /* method and id */
    MCPS_SHAPE_NOTIFICATION, /* method, no id */
    MCPS_SHAPE_RESPONSE,     /* result or error */
    MCPS_SHAPE_BATCH,        /* an array (its elements are queued too) */
    MCPS_SHAPE_HTTP,         /* what HTTP said about a request: a record of transport/http.h */
} mcps_shape;

typedef struct mcps_inmsg {
    cJSON *msg; /* owned; a batch element is its own copy */
    mcps_shape shape;
    bool in_batch; /* an element of a batch array */
    bool consumed; /* an expectation took it */
    size_t line;   /* line in the target's output */
    int64_t t_us;
    unsigned request; /* HTTP: the request whose response or stream carried it; stdio: 0 */
    size_t bytes;     /* the memory msg takes, estimated (of s->inbox_bytes) */
} mcps_inmsg;

/* Counts of what the observer judged, for observer checks that saw nothing to judge. */
typedef struct mcps_session_counts {
    size_t lines, requests, notifications, responses, results, errors;
    size_t sent;           /* messages (or raw lines) we sent */
    size_t progress;       /* notifications/progress received */
    size_t canary_logs;    /* log messages judged for planted secrets (engine) */
    size_t task_reports;   /* task statuses seen (engine) */
    size_t input_required; /* 2026-07-28 results with resultType "input_required" */
    size_t mcp_headers;    /* x-mcp-header annotations in tools/list results */
} mcps_session_counts;

typedef void (*mcps_session_finding_fn)(void *ctx, const mcps_finding *finding,
                                        const char *excerpt);

typedef struct mcps_session_config {
    mcps_target_config target;
    mcps_rev rev;
    size_t wire_max_bytes;   /* per session, bytes kept in the log (default 48 KiB), of
                                which stderr at most 8 KiB; beyond 4 KiB, only while the
                                run's guard has wire budget left */
    size_t wire_entry_bytes; /* per entry (default 4 KiB) */
    size_t max_notes;        /* observer notes kept (default 32) */
    bool wire_no_messages;   /* log stderr and events only: a caller that judges each message as
                                it comes (the fuzz loop) and keeps no transcript saves a copy */
    mcps_session_finding_fn on_finding;
    void *ctx;
} mcps_session_config;

/* A request id as written in the suite and as sent on a shared session (see begin_case). */
typedef struct mcps_session_id {
    cJSON *wire, *written;
    unsigned case_no;
} mcps_session_id;

typedef struct mcps_session {
    mcps_session_config cfg;
    mcps_transport *t;
    mcps_observer obs;
    int64_t t0_us;
    /* the wire log */
    mcps_wire_entry *wire;
    size_t nwire, cap_wire, wire_bytes, wire_dropped, stderr_bytes, http_bytes;
    bool stderr_cut_noted, budget_cut_noted, http_cut_noted;
    /* findings of this session, as notes for the case */
    mcps_wire_note *notes;
    size_t nnotes, notes_dropped;
    /* received messages not yet consumed by an expectation */
    mcps_inmsg *inbox;
    size_t ninbox, cap_inbox;
    size_t inbox_bytes;   /* the memory its messages take, estimated */
    size_t inbox_dropped; /* messages left out of it in this case (the log says so) */
    mcps_session_counts counts;
    /* what the target did */
    bool stream_closed, exited, gone, input_closed;
    bool cut;                 /* a wait or send was cut short because the run stopped */
    int64_t pending_since_us; /* oldest request sent since the target's last response; 0: none */
    bool pending_init;        /* that request was initialize */
    bool responsive;          /* a response came while a request other than initialize waited */
    double stalled_seconds;   /* at shutdown (or take_log): no response that long since an
                                 unanswered request; MCPS_STALLED_FOR_GOOD when over HTTP
                                 every exchange had ended without its answer */
    bool stall_measured;
    int64_t late_deadline; /* the deadline polls have been made past, and how many */
    size_t late_polls;
    int exit_code, term_signal;
    char last_event[160];
    /* a process shared by several cases: request ids get a per-case mark on the wire */
    unsigned case_no; /* 0: ids go out as written */
    mcps_session_id *ids;
    size_t nids, cap_ids;
    /* HTTP (transport/http.h) */
    bool http;
    unsigned request; /* the request the message being received came on */
    cJSON *init_id;   /* the id of the last initialize we sent */
    int http_status;  /* status of the last HTTP response, 0 before one (or after an error) */
    bool http_failed; /* the last request failed below HTTP */
    bool lingering;   /* a stream outlived its case once: cases here end with a ping */
    /* 2026-07-28 (session_stateless.c): the capabilities every request declares; NULL: {} */
    cJSON *client_caps;
    /* the line being judged, so findings can quote it */
    const char *judging;
    size_t judging_len;
} mcps_session;

/* Start the target. NULL with err filled when it cannot be started. */
mcps_session *mcps_session_open(const mcps_session_config *cfg, char *err, size_t errlen);

bool mcps_session_send(mcps_session *s, const cJSON *msg, char *err, size_t errlen);
/* Bytes as given (the caller adds any newline). */
bool mcps_session_send_raw(mcps_session *s, const char *bytes, size_t len, char *err,
                           size_t errlen);
/* n raw lines one after the other in bytes, each ending with its newline, line i lens[i] bytes
 * long: each is logged and tracked as send_raw does, and over stdio they go in one write (a
 * pipelined sequence costs one system call, not one per line). Over HTTP, a POST each. */
bool mcps_session_send_lines(mcps_session *s, const char *bytes, const size_t *lens, size_t n,
                             char *err, size_t errlen);

/*
 * Handle the next thing the target does, waiting until deadline_ms at most.
 * Returns false when the deadline passed or nothing more can ever come (gone,
 * which includes the run being stopped: then s->cut is set). Past the
 * deadline, only a bounded number of already-queued events is still handled.
 */
bool mcps_session_poll(mcps_session *s, int64_t deadline_ms);

/* Whether nothing can arrive until something is sent: over HTTP, every request
 * has ended and its events are handed on (a server cannot speak unasked), so a
 * wait for more may end now. Never over stdio. */
bool mcps_session_idle(const mcps_session *s);

/* A line of the harness's own in the wire log ("event"), e.g. a timeout. */
void mcps_session_event(mcps_session *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void mcps_session_close_input(mcps_session *s);
void mcps_session_shutdown(mcps_session *s, mcps_shutdown_report *report);

/* The revision the observer grades by (set once initialize settles it). */
void mcps_session_set_rev(mcps_session *s, mcps_rev rev);

/*
 * The next case on a process shared by several (case_no counts them from 1):
 * findings go to fn/ctx from now on, the inbox is emptied, and the ids of the
 * requests it sends are made unique on the wire: "list" goes out as
 * "list~N", a string of digits gets N in six digits ("42" as "42000007"), an
 * integer below 10^6 gets N * 10^7 added, other ids go as written. Answers
 * are mapped back to the ids as written before they reach the inbox; an
 * answer to an earlier case's request is logged and observed but kept out.
 * case_no 0 sends ids as written (a process of the case's own).
 */
void mcps_session_begin_case(mcps_session *s, unsigned case_no, mcps_session_finding_fn fn,
                             void *ctx);
/* Drop the first n messages of the inbox and keep the rest, for a caller that has already
 * written what comes next (the fuzz loop's pipeline: the answers of the next sequence). */
void mcps_session_inbox_shift(mcps_session *s, size_t n);

/* Hand over the wire log and notes (the session keeps none), with whether the
 * case was cut short and how the target answered (for the run's liveness
 * judgement); what the judgement needs is measured at shutdown, or here for a
 * session that goes on to serve another case. */
void mcps_session_take_log(mcps_session *s, mcps_wire_log *out);

/*
 * HTTP only: send one request as a suite spells it, {"method":"GET",
 * "headers":{"Name":"value"|null},"body":{...}|"text","path":"..."}: a header
 * given replaces the transport's own of that name, null removes it; a JSON
 * body is sent as its text (and tracked like any request), a string as its
 * bytes. False with err filled when it cannot be sent (or on stdio).
 */
bool mcps_session_send_http(mcps_session *s, const cJSON *spec, char *err, size_t errlen);

/* The number of the last HTTP request sent (1, 2, ...; stdio: 0). */
unsigned mcps_session_last_request(const mcps_session *s);
/* Whether HTTP request n has ended and all it brought is in the inbox (stdio: true). */
bool mcps_session_request_done(const mcps_session *s, unsigned n);

/*
 * The stateless model of 2026-07-28 (session_stateless.c). A session whose
 * revision is 2026-07-28 has no handshake: every request it sends gets
 * params._meta io.modelcontextprotocol/protocolVersion, clientCapabilities
 * (set_client's, default {}) and clientInfo, unless the message already has
 * the key (kept as written) or has it as null (left out).
 */
bool mcps_session_stateless(const mcps_session *s);
void mcps_session_set_client(mcps_session *s, const cJSON *client_caps);
/* msg with the per-request _meta added (the caller frees it), or NULL when nothing changes. */
cJSON *mcps_session_stamp(const mcps_session *s, const cJSON *msg);
/* The same in place, without a session: each request of msg (a batch's too) gets the _meta of
 * revision rev, capabilities caps (NULL: {}) and mcpspec's clientInfo, beside what is there. */
void mcps_stateless_stamp(cJSON *msg, mcps_rev rev, const cJSON *caps);
/* The seam for the 2026-07-28 HTTP headers: MCP-Protocol-Version (the _meta version, or NULL),
 * Mcp-Method and Mcp-Name (NULL for methods without one) of a stamped request. */
bool mcps_stateless_header_values(const cJSON *request, const char **version, const char **method,
                                  const char **name);
/* The header lines ("Name: value", each malloc'd, NULL after the last; the count returned) a
 * 2026-07-28 POST of msg carries: MCP-Protocol-Version (the _meta version, else the session's),
 * Mcp-Method and Mcp-Name as msg gives them, and "Mcp-Session-Id:" (none). */
#define MCPS_STATELESS_HEADERS 5
size_t mcps_stateless_header_lines(const mcps_session *s, const cJSON *msg,
                                   char *lines[MCPS_STATELESS_HEADERS]);

/* Shut down if needed and free everything. */
void mcps_session_free(mcps_session *s);

const char *mcps_shape_name(mcps_shape shape);

#endif
