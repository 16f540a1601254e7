/*
 * http.h - refserver's HTTP front end (refserver --http PORT).
 *
 * refserver is one process = one MCP session over stdio, and all its logic and
 * faults hang on that. So over HTTP it is a relay: each MCP session (an
 * initialize POST without a session id, or a legacy GET /sse) gets its own
 * child, refserver itself in stdio mode with the same arguments minus the HTTP
 * ones, and JSON-RPC lines travel between HTTP requests and that child.
 * Responses go to the HTTP request that carried their id; server-initiated
 * messages go to an open POST stream, else the GET stream, else wait (bounded)
 * for the next GET stream. One thread: libmicrohttpd runs in external epoll
 * mode inside our own poll loop, with suspended connections for streams that
 * wait for data.
 */
#ifndef RS_HTTP_H
#define RS_HTTP_H

#include "server.h"

#include "base/buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>

#define RS_HTTP_MAX_SESSIONS 256
#define RS_HTTP_MAX_BODY     ((size_t)16 * 1024 * 1024) /* a POST body */
#define RS_HTTP_MAX_QUEUED   ((size_t)32 * 1024 * 1024) /* bytes waiting for a child or a stream */
#define RS_HTTP_HISTORY      256                        /* events kept per session for resumption */
#define RS_HTTP_HISTORY_SIZE ((size_t)4 * 1024 * 1024)
#define RS_HTTP_WAITING      64 /* messages kept for a GET stream that is not open */
#define RS_HTTP_KEEPALIVE_MS 15000
/* How often standing streams are checked for a client that went away. */
#define RS_HTTP_PROBE_MS  100
#define RS_HTTP_LINGER_MS 30000 /* http-stream-lingers */
#define RS_HTTP_GRACE_MS  1000  /* a child's time to exit after its stdin closed */
#define RS_HTTP_SCOPE     "mcp" /* the one scope --auth's token stands for */

typedef struct rs_http_opts {
    unsigned port;          /* 0: any free port */
    const char *bind;       /* listening address (IPv4 dotted quad) */
    const char *port_file;  /* written with the port once listening, or NULL */
    const char *auth;       /* required bearer token, or NULL */
    const char *child_path; /* the stdio refserver each session runs */
    char **child_argv;      /* NULL-terminated: refserver's own arguments minus the HTTP ones */
} rs_http_opts;

/* Run the HTTP front end until SIGTERM, SIGINT or SIGHUP; the process exit status. */
int rs_http_run(const rs_server *cfg, const rs_http_opts *opts);

/* ---- internal: shared by the http_*.c files ---- */

typedef enum rs_hs_kind {
    RS_HS_POST,   /* an SSE stream answering one POST */
    RS_HS_JSON,   /* one application/json answer to a POST (initialize, ping, batches) */
    RS_HS_GET,    /* the session's standalone GET stream */
    RS_HS_LEGACY, /* the HTTP+SSE (2024-11-05) stream */
} rs_hs_kind;

typedef struct rs_hsession rs_hsession;

/* Something that receives a session's messages, read by one HTTP connection. */
typedef struct rs_hstream {
    struct rs_hstream *next;     /* in the session's list */
    rs_hsession *session;        /* NULL once the session has let go of it */
    struct MHD_Connection *conn; /* the connection reading it; NULL once detached */
    rs_hs_kind kind;
    unsigned long number; /* event ids are "<number>-<n>" */
    unsigned long seq;    /* the last n given out */
    mcps_buf out;         /* bytes not yet handed to libmicrohttpd */
    size_t sent;          /* of out */
    size_t outstanding;   /* responses still to come for it */
    bool finished;        /* nothing more: end once out is drained */
    bool suspended;       /* its connection waits in MHD_suspend_connection */
    bool batch;           /* a JSON answer that is a batch reply */
    bool ended_by_child;  /* the session ended because its child exited */
    bool modern;          /* answers a 2026-07-28 request (http_modern.c) */
    char *answer;         /* RS_HS_JSON: the answer line, once it came */
    size_t answer_len;
    char *progress_token; /* the POSTed request's progress token, as JSON text */
    int64_t linger_until; /* http-stream-lingers: finish then; 0 when not lingering */
} rs_hstream;

typedef struct rs_hpending {
    char *key; /* the request id as JSON text */
    rs_hstream *stream;
} rs_hpending;

typedef struct rs_hevent {
    unsigned long stream, n;
    char *data;
    size_t len;
} rs_hevent;

struct rs_hsession {
    char id[48];
    bool legacy;        /* HTTP+SSE: everything goes on the one stream */
    bool ended;         /* DELETEd or its child exited: freed at the end of the loop turn */
    bool orphaned;      /* legacy: the SSE stream's connection closed, so the session ends */
    bool initialized;   /* initialize was answered with a result */
    bool stateless;     /* 2026-07-28: one request's child, no id, ends once answered */
    mcps_rev rev;       /* from the initialize result */
    pid_t pid;          /* the child (0 once handed to the reaper) */
    int to_child;       /* its stdin; -1 once closed */
    int from_child;     /* its stdout; -1 once closed */
    mcps_framer framer; /* lines from the child */
    mcps_buf inbuf;     /* bytes to write to the child */
    size_t insent;
    rs_hstream *streams;
    rs_hstream *get; /* the open GET (or legacy) stream, or NULL */
    rs_hpending *pending;
    size_t npending, cap_pending;
    char *waiting[RS_HTTP_WAITING]; /* messages for the next GET stream */
    size_t nwaiting;
    rs_hevent history[RS_HTTP_HISTORY]; /* a ring, oldest at hist_start */
    size_t hist_start, nhist, hist_bytes;
    unsigned long stream_seq;
    int64_t created_ms;
};

typedef struct rs_hdying {
    pid_t pid;
    int64_t kill_at;
} rs_hdying;

typedef struct rs_hserver {
    const rs_server *cfg; /* faults and --verbose */
    const rs_http_opts *opts;
    struct MHD_Daemon *daemon;
    unsigned port;
    char base[64]; /* "http://127.0.0.1:PORT" */
    rs_hsession *sessions[RS_HTTP_MAX_SESSIONS];
    size_t nsessions;
    unsigned long sessions_made; /* for http-session-id-counter */
    int64_t probe_at;            /* next check of standing streams for a client gone */
    rs_hdying dying[RS_HTTP_MAX_SESSIONS * 2];
    size_t ndying;
    int sigfd;
    bool stop;
} rs_hserver;

/* The per-request state libmicrohttpd keeps for us (its con_cls). */
typedef struct rs_hreq {
    mcps_buf body;
    bool too_big;
    rs_hstream *wait; /* a JSON answer being waited for (connection suspended) */
    bool new_session; /* the initialize that created wait's session */
    bool seen;        /* the headers-only first call is past */
} rs_hreq;

static inline bool rs_hfault(const rs_hserver *h, rs_fault f)
{
    return h->cfg->faults[f];
}

/* ---- http_session.c: children, relaying and routing ---- */
rs_hsession *rs_hsession_new(rs_hserver *h, bool legacy);
rs_hsession *rs_hsession_find(rs_hserver *h, const char *id);
rs_hsession *rs_hsession_newest(rs_hserver *h);
/* End it: child's stdin closed, streams finished, pending answers released. */
void rs_hsession_end(rs_hserver *h, rs_hsession *s, bool by_child);
/* Queue a line (without newline) for the child; false when too much is queued. */
bool rs_hsession_send(rs_hsession *s, const char *data, size_t len);
/* Expect the response with this id (JSON text) on st. */
bool rs_hsession_expect(rs_hsession *s, const char *key, rs_hstream *st);
void rs_hsession_readable(rs_hserver *h, rs_hsession *s);
void rs_hsession_writable(rs_hsession *s);
/* Unlink a stream from its session (list and pending answers) and free it. */
void rs_hsession_drop_stream(rs_hsession *s, rs_hstream *st);
/* Free ended sessions and streams nobody can read any more. */
void rs_hsession_sweep(rs_hserver *h);
void rs_hsession_flush_waiting(rs_hserver *h, rs_hsession *s);
void rs_hreap(rs_hserver *h, bool block);
void rs_hdying_add(rs_hserver *h, pid_t pid);

/* ---- http_stream.c: SSE streams, history, suspension ---- */
rs_hstream *rs_hstream_new(rs_hsession *s, rs_hs_kind kind);
void rs_hstream_free(rs_hstream *st);
/* One message as an SSE event (with an id unless legacy; stored for resumption). */
void rs_hstream_event(rs_hserver *h, rs_hstream *st, const char *data, size_t len);
/* The 2025-11-25 priming event (an id and empty data); else a comment, so headers go out. */
void rs_hstream_prime(rs_hserver *h, rs_hstream *st);
void rs_hstream_raw(rs_hstream *st, const char *text);
void rs_hstream_finish(rs_hstream *st);
void rs_hstream_wake(rs_hstream *st);
/* The session lets go; the stream is freed now or when its connection is done. */
void rs_hstream_release(rs_hstream *st);
/* Queue an SSE response reading st on conn; false when libmicrohttpd refused. */
bool rs_hstream_respond(rs_hserver *h, struct MHD_Connection *conn, rs_hstream *st,
                        unsigned status);
/* Replay the events of stream number after n (and, with http-resume-foreign, of others). */
void rs_hstream_replay(rs_hserver *h, rs_hstream *to, unsigned long number, unsigned long n);
void rs_hhistory_free(rs_hsession *s);

/* ---- http_front.c: the request handler ---- */
enum MHD_Result rs_hhandle(void *cls, struct MHD_Connection *conn, const char *url,
                           const char *method, const char *version, const char *upload,
                           size_t *upload_size, void **con_cls);
void rs_hcompleted(void *cls, struct MHD_Connection *conn, void **con_cls,
                   enum MHD_RequestTerminationCode toe);
/* Answer a plain response: body (may be NULL), its content type, optional extra header. */
enum MHD_Result rs_hreply(struct MHD_Connection *conn, unsigned status, const char *type,
                          const char *body, size_t len, const char *hname, const char *hvalue);
/* A JSON-RPC error body without id. */
enum MHD_Result rs_hreply_error(struct MHD_Connection *conn, unsigned status, int code,
                                const char *message);

/* ---- http_mcp.c / http_legacy.c ---- */
enum MHD_Result rs_hmcp_post(rs_hserver *h, struct MHD_Connection *conn, rs_hreq *r);
enum MHD_Result rs_hmcp_get(rs_hserver *h, struct MHD_Connection *conn);
enum MHD_Result rs_hmcp_delete(rs_hserver *h, struct MHD_Connection *conn);
/* Called again once a waited-for JSON answer came (or its session ended). */
enum MHD_Result rs_hmcp_answer(rs_hserver *h, struct MHD_Connection *conn, rs_hreq *r);
/* Relay msg (a request) to s's child; its answer as one JSON body (json) or an SSE stream. */
enum MHD_Result rs_hmcp_relay(rs_hserver *h, rs_hsession *s, struct MHD_Connection *conn,
                              rs_hreq *r, const cJSON *msg, bool json);
/* A POST with nothing to answer (notifications, responses): 202 and no body. */
enum MHD_Result rs_hmcp_accepted(rs_hserver *h, struct MHD_Connection *conn);

/* ---- http_modern.c: 2026-07-28 ---- */
/* Whether a POST (msg its body) is a 2026-07-28 request. */
bool rs_hmodern_wants(const rs_hserver *h, struct MHD_Connection *conn, const cJSON *msg);
enum MHD_Result rs_hmodern_post(rs_hserver *h, struct MHD_Connection *conn, rs_hreq *r,
                                const cJSON *msg);
/* Whether a GET or DELETE is a 2026-07-28 one (or the server speaks nothing else): 405. */
bool rs_hmodern_refuses(const rs_hserver *h, struct MHD_Connection *conn);
enum MHD_Result rs_hmodern_not_allowed(const rs_hserver *h, struct MHD_Connection *conn);
/* The HTTP status of a 2026-07-28 answer (a JSON-RPC line). */
unsigned rs_hmodern_status(const rs_hserver *h, const char *answer, size_t len);

enum MHD_Result rs_hlegacy_get(rs_hserver *h, struct MHD_Connection *conn);
enum MHD_Result rs_hlegacy_post(rs_hserver *h, struct MHD_Connection *conn, rs_hreq *r);

/* ---- http_util.c ---- */
/* A header's value (case-insensitive name), or NULL. */
const char *rs_hheader(struct MHD_Connection *conn, const char *name);
/* Whether an Accept value admits type ("application/json"), wildcards included. */
bool rs_haccepts(const char *accept, const char *type);
/* Whether a Content-Type value is application/json (parameters allowed). */
bool rs_his_json_type(const char *type);
/* 32 random hex digits (getrandom), NUL-terminated; false when no randomness. */
bool rs_hrandom_hex(char out[33]);
/* The id member of msg as JSON text (malloc'd), or NULL. */
char *rs_hid_key(const cJSON *id);

#endif
