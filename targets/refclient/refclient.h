/*
 * refclient.h - the reference MCP client: what its files share.
 *
 * refclient launches its server from its argv, speaks stdio to it (newline
 * framed JSON-RPC, on mcpspec's codec), or speaks Streamable HTTP to a URL
 * (--url, with libcurl: http.c) or 2024-11-05's HTTP+SSE (--sse-url), does
 * what most clients do when
 * started (initialize, list tools, call one, exit) and answers the server's
 * requests as its declared capabilities say. It exists to prove mcpspec's
 * client checks (targets/refclient/README.md).
 */
#ifndef RC_REFCLIENT_H
#define RC_REFCLIENT_H

#include <stdbool.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "faults.h"

/* A task it runs as a receiver (a task-augmented elicitation/create): its result is ready at
 * once, but it stays working until asked about (tasks/get, tasks/result). */
typedef struct rc_task {
    char id[48];
    const char *status; /* working, completed, cancelled */
    char created[32];   /* ISO 8601 */
    double ttl;
    cJSON *result; /* owned */
    cJSON *token;  /* the request's progressToken (owned), or NULL */
} rc_task;

#define RC_MAX_TASKS 8

typedef struct rc_client {
    bool faults[RC_FAULT_COUNT];
    const char *version; /* the protocolVersion it asks for */
    bool auto_era;       /* --protocol-version auto: 2026-07-28 first, else the handshake */
    bool caps;           /* declare roots, sampling, elicitation (--no-caps: none) */
    bool deprecated;     /* 2026-07-28: declare roots and sampling too (--deprecated-caps) */
    bool sampling_tools; /* ...and sampling.tools, using a tool when offered (--sampling-tools) */
    bool accept;         /* accept elicitations with canned content (--accept-elicitation) */
    double timeout;      /* seconds to wait for each answer */
    pid_t server;
    int to_server, from_server; /* pipe ends; -1 when closed */
    char *inbuf;                /* bytes read, not yet framed */
    size_t inlen;
    bool verbose;
    const char *url;             /* Streamable HTTP to this endpoint instead of a stdio server */
    bool legacy;                 /* --sse-url: url is 2024-11-05's HTTP+SSE SSE endpoint */
    char endpoint[512];          /* ...and the endpoint event's URI, resolved ("" before) */
    bool fell_back;              /* --url: initialize refused with 400/404/405, it took the
                                    URL for an HTTP+SSE one (HTTP-046) */
    char *resend;                /* ...and the initialize to POST again once the endpoint came */
    struct rc_http *http;        /* its transfers (http.c) */
    char session[128];           /* Mcp-Session-Id issued ("" none) */
    char negotiated[32];         /* the revision the server answered ("" before) */
    bool session_lost;           /* a request carrying the session was answered 404 */
    bool server_tasks;           /* 2025-11-25: the server declared tasks.requests.tools.call */
    rc_task tasks[RC_MAX_TASKS]; /* its own tasks as a receiver (tasks.c) */
    int ntasks;
    /* 2026-07-28 over HTTP: the first tool's x-mcp-header arguments, mirrored into
     * Mcp-Param-{header} on its tools/call (HDR-009) */
    char mirror_prop[4][64], mirror_header[4][64];
    int nmirror;
    /* 2026-07-28 over stdio: the server's command (started again when it dies mid-request,
     * STDIO-013), whether its output ended, and the acknowledged filter of its subscription */
    char **server_argv;
    bool server_gone;
    bool restarted;    /* it was started again once */
    int id_base;       /* ...and its requests' ids are offset by this there */
    cJSON *ack;        /* owned; NULL until acknowledged */
    const char *token; /* --token: sent as Authorization: Bearer on every request (AUTH-003) */
    bool token_sent;   /* ...once at least (the token-first-only fault) */
    bool broken;       /* HTTP: a fault gave up on an answer; no more messages are read */
    char *held;        /* HTTP: a message the two-in-one-post fault keeps for the next body */
} rc_client;

bool rc_on(const rc_client *c, rc_fault f);
/* Start the server (argv); false with a message on stderr. */
bool rc_start_server(rc_client *c, char **argv);
/* Close its stdin, wait, then SIGTERM and SIGKILL if it lingers; reap it. */
void rc_stop_server(rc_client *c);
/* One line to the server (newline added); false when it is gone. */
bool rc_write_line(rc_client *c, const char *line);
/* The next line from the server within the timeout: malloc'd, NULL at end or timeout. */
char *rc_read_line(rc_client *c);

/* HTTP (http.c): the same three steps over the endpoint at c->url. rc_http_post sends one
 * message as a POST; rc_http_read returns the next message from any response (a JSON body
 * or an SSE event), NULL when none can come or the timeout passed. */
bool rc_http_open(rc_client *c);
bool rc_http_post(rc_client *c, const char *line);
char *rc_http_read(rc_client *c);
/* DELETE the session (unless no-delete), then free everything. */
void rc_http_close(rc_client *c);

/* Tasks as a receiver (tasks.c), 2025-11-25: whether it declares tasks for elicitation/create
 * (capabilities.tasks); a task-augmented request it declared tasks for becomes a task whose
 * CreateTaskResult is returned (result owned, the real one); tasks/get, list, result, cancel
 * answered as a JSON-RPC result (returned) or an error (*code, *message). */
bool rc_tasks_declared(const rc_client *c);
cJSON *rc_tasks_capability(const rc_client *c);
cJSON *rc_task_create(rc_client *c, const cJSON *params, cJSON *result);
cJSON *rc_task_request(rc_client *c, const char *method, const cJSON *params, int *code,
                       const char **message);
void rc_tasks_free(rc_client *c);
/* The progressToken of the task named by the params of a tasks request, or NULL. */
const cJSON *rc_task_token(rc_client *c, const cJSON *params);

/* A tool list's schemas (schemas.c): fill the tuple (prefixItems) arguments of tool into
 * arguments; how deep a JSON value nests; the fetch-ref fault's fetches of http(s) $refs. */
void rc_schema_fill(const rc_client *c, const cJSON *tool, cJSON *arguments);
int rc_schema_depth(const cJSON *v);
void rc_schema_fetch_refs(const rc_client *c, const cJSON *list);

/* The session (session.c): 0 done, 1 the server could not be used. */
int rc_session(rc_client *c);

#endif
