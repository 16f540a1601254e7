/*
 * transport.h - the seam between a target and the session layer.
 *
 * A transport moves whole messages: send() writes one, next() waits (up to a
 * deadline) for the next thing the target did: a framed message, a stderr
 * line, its stream closing, its exit. The session above never sees pipes,
 * sockets or processes, so Streamable HTTP plugs in beside stdio by providing
 * another mcps_transport_ops. Every wait is bounded by a deadline; every child
 * is reaped.
 *
 * Callers must ignore SIGPIPE (the CLI does): a target that closes its stdin
 * turns our write into EPIPE, which send() reports as an error.
 */
#ifndef MCPS_TRANSPORT_TRANSPORT_H
#define MCPS_TRANSPORT_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "transport/guard.h"

typedef enum mcps_tevent_kind {
    MCPS_TEV_MESSAGE,  /* one framed message (a stdout line; later an HTTP body or SSE event) */
    MCPS_TEV_OVERSIZE, /* a message crossed max_message: data holds its first bytes, rest dropped */
    MCPS_TEV_STDERR,   /* one line of diagnostics from the target, for the wire log */
    MCPS_TEV_CLOSED,   /* the target closed its message stream (stdout EOF) */
    MCPS_TEV_EXITED,   /* the target process exited; see exit_code / term_signal */
    MCPS_TEV_GONE,     /* nothing more can come: stream closed and process reaped */
    MCPS_TEV_TIMEOUT,  /* the deadline passed */
    MCPS_TEV_STOPPED,  /* the run was stopped (its guard); detail says why. Sticky */
    MCPS_TEV_ERROR,    /* the transport itself failed; detail says why */
    MCPS_TEV_HTTP,     /* what HTTP said (status, headers, SSE framing): data is one JSON
                          object, see transport/http.h */
} mcps_tevent_kind;

typedef struct mcps_tevent {
    mcps_tevent_kind kind;
    const char *data; /* MESSAGE, OVERSIZE, STDERR: bytes without the newline; valid until
                         the next call on the transport */
    size_t len;
    uint64_t offset;  /* MESSAGE, OVERSIZE: byte offset in the target's output stream */
    size_t line;      /* MESSAGE, OVERSIZE: 1-based line number in that stream */
    bool terminated;  /* MESSAGE: false for a last line cut off by end of stream */
    unsigned request; /* HTTP: the request the event belongs to (1, 2, ...); stdio: 0 */
    int exit_code;    /* EXITED: exit status, or -1 when killed by a signal */
    int term_signal;  /* EXITED: the signal that killed it, or 0 */
    char detail[160]; /* ERROR, EXITED, CLOSED, STOPPED: a sentence for the wire log; STDERR: empty,
                         or a note that this line was truncated (at 4 KiB) and/or that
                         earlier stderr lines were dropped (more than 256 KiB waited) */
} mcps_tevent;

/* How a target ended when the harness shut it down (LIFE-SHUT-001, STDIO-012). */
typedef enum mcps_shutdown_how {
    MCPS_SHUT_EXITED_BEFORE, /* it had already exited */
    MCPS_SHUT_ON_CLOSE,      /* it exited after its input was closed */
    MCPS_SHUT_SIGTERM,       /* it needed SIGTERM */
    MCPS_SHUT_SIGKILL,       /* it ignored SIGTERM and needed SIGKILL */
} mcps_shutdown_how;

typedef struct mcps_shutdown_report {
    mcps_shutdown_how how;
    double seconds; /* from the start of shutdown to the exit */
    int exit_code;  /* -1 when killed by a signal */
    int term_signal;
    bool killed_leftovers; /* other processes of its group were still alive and got SIGKILL */
} mcps_shutdown_report;

/* How mcpspec reaches the target. */
typedef enum mcps_transport_kind {
    MCPS_TRANSPORT_STDIO,           /* argv is the target; we talk over its stdin/stdout */
    MCPS_TRANSPORT_STREAMABLE_HTTP, /* url is the MCP endpoint (2025-03-26 on) */
    MCPS_TRANSPORT_SSE,             /* url is the legacy HTTP+SSE endpoint (2024-11-05) */
} mcps_transport_kind;

#define MCPS_TRANSPORT_KINDS 3

/* "stdio", "streamable-http", "sse": as suites, options and reports write them. */
const char *mcps_transport_kind_name(mcps_transport_kind kind);
/* The kind called name; false when none is. */
bool mcps_transport_kind_parse(const char *name, mcps_transport_kind *out);

/* What to run and the limits to run it under. */
typedef struct mcps_target_config {
    mcps_transport_kind kind;
    const char *url;        /* HTTP: the endpoint (http:// or https://) */
    char *const *headers;   /* HTTP: "Name: value" sent on every request (--header), NULL-
                               terminated; values of credential headers never reach a log */
    bool follow_redirects;  /* HTTP: follow 3xx on the same host (default: never) */
    bool use_env_proxy;     /* HTTP: honour http_proxy & co (default: no proxy) */
    char *const *argv;      /* program and arguments; argv[0] is searched in PATH */
    const char *cwd;        /* NULL: inherit */
    char *const *env_extra; /* NULL-terminated "K=V" entries added to (or replacing in) our
                               environment, a bare "K" removes K; NULL for none. PATH here
                               is the one argv[0] is searched in. */
    size_t max_message;     /* longest message framed; longer ones are OVERSIZE */
    double close_grace;     /* seconds to wait for exit after closing input (default 2) */
    double term_grace;      /* seconds to wait after SIGTERM before SIGKILL (default 2) */
    double send_timeout;    /* seconds a send may wait for the target to read (default 5) */
    mcps_guard *guard;      /* the run's bounds (deadline, stop switch, watchdog); NULL: none.
                               Once it stops, next() says STOPPED, send() fails and shutdown
                               skips its graces */
} mcps_target_config;

typedef struct mcps_transport mcps_transport;

typedef struct mcps_transport_ops {
    const char *name; /* "stdio" */
    /* Write one message (bytes include the framing, e.g. the newline). While
     * waiting for the target to read, output is still drained so neither side
     * deadlocks. False with err filled when it cannot be delivered; after a
     * message was only partly written, every later send fails too. */
    bool (*send)(mcps_transport *t, const char *bytes, size_t len, char *err, size_t errlen);
    /* The next event, waiting until deadline_ms (mcps_clock_ms() time base; the
     * guard's deadline is earlier when it is; a stopped guard comes first).
     * Order: lines in stream order; every line read before the exit comes
     * before EXITED, every stdout line before CLOSED; GONE only after both,
     * then forever. Events still queued at shutdown are delivered after it. */
    void (*next)(mcps_transport *t, int64_t deadline_ms, mcps_tevent *ev);
    /* Whether nothing can arrive until something is sent: HTTP with no
     * request in flight and nothing queued (a server cannot speak unasked).
     * NULL: never (a process may write at any time). */
    bool (*idle)(const mcps_transport *t);
    /* Close the target's input (stdio: its stdin). Further sends fail. */
    void (*close_input)(mcps_transport *t);
    /* Stop the target politely, then firmly (close input, wait, SIGTERM, wait,
     * SIGKILL), reap it and kill what is left of its process group. */
    void (*shutdown)(mcps_transport *t, mcps_shutdown_report *report);
    /* Free everything; shuts down first if that has not happened. */
    void (*destroy)(mcps_transport *t);
} mcps_transport_ops;

struct mcps_transport {
    const mcps_transport_ops *ops;
};

/*
 * Start a stdio target. Returns NULL with err filled (e.g. "cannot run 'foo':
 * No such file or directory") when it cannot be started; a target that starts
 * and exits at once is reported by next() as EXITED instead.
 */
mcps_transport *mcps_stdio_open(const mcps_target_config *cfg, char *err, size_t errlen);

/* The target's process id (for tests and diagnostics), or -1. */
int mcps_stdio_pid(const mcps_transport *t);

/*
 * Split a command line into argv words, shell-style but without a shell:
 * whitespace separates, single quotes are literal, double quotes allow \" and
 * \\, a backslash escapes the next character. Returns a NULL-terminated
 * malloc'd vector (free with mcps_argv_free) or NULL with err filled for an
 * unterminated quote or an empty command.
 */
char **mcps_argv_split(const char *cmdline, char *err, size_t errlen);
void mcps_argv_free(char **argv);

#endif
