/*
 * relay.h - the stdio relay that lets mcpspec play the server to a client
 * under test (`mcpspec run --client`).
 *
 * The client launches its "server" itself, from a command line we give it:
 * `mcpspec serve --connect SOCKET`. That process copies its stdin to a Unix
 * socket and the socket to its stdout (mcps_relay_serve); the controller
 * listens on the socket (in a private temporary folder), so it sees every
 * byte the client sends, answers as the scripted server, and outlives each
 * connection: a client that restarts its server simply connects again.
 * Every wait takes a deadline; memory per connection is bounded by
 * max_message (a longer line is cut and reported as OVERSIZE).
 */
#ifndef MCPS_TRANSPORT_RELAY_H
#define MCPS_TRANSPORT_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "transport/guard.h"
#include "transport/transport.h"

typedef struct mcps_relay {
    int fd;         /* the listening socket, or -1 */
    char dir[96];   /* the private folder holding it */
    char path[128]; /* the socket's path, what {server} names */
    const mcps_guard *guard;
} mcps_relay;

/* One accepted connection: the client's server stdio, seen from our side. */
typedef struct mcps_relay_conn {
    int fd;      /* -1 once closed */
    mcps_buf in; /* bytes read, not yet framed */
    size_t max_message;
    size_t line;     /* lines framed so far */
    uint64_t offset; /* bytes consumed so far */
    bool eof;        /* the stream ended */
    bool peer_gone;  /* ...because the relay process went away (killed, or it could not
                        write), not because the client closed its stdin */
    bool skipping;   /* inside an over-long line, dropping up to its newline */
    char *msg;       /* the last message handed out (owned) */
} mcps_relay_conn;

/* Listen on a fresh socket in a private folder; false with err filled. */
bool mcps_relay_listen(mcps_relay *r, const mcps_guard *guard, char *err, size_t errlen);
/* Wait until deadline_ms for a connection: 1 accepted (c set up), 0 none by then (or the run
 * stopped), -1 failure (err filled). */
int mcps_relay_accept(mcps_relay *r, int64_t deadline_ms, size_t max_message, mcps_relay_conn *c,
                      char *err, size_t errlen);
/* Close the socket and remove the folder; connections already accepted stay open. */
void mcps_relay_close(mcps_relay *r);

/* The next line from the client, waiting until deadline_ms: MCPS_TEV_MESSAGE or OVERSIZE
 * (data valid until the next call), CLOSED (end of stream; then forever), TIMEOUT, STOPPED,
 * ERROR. */
void mcps_relay_next(mcps_relay_conn *c, const mcps_guard *guard, int64_t deadline_ms,
                     mcps_tevent *ev);
/* Write bytes (framing included) until deadline_ms; false when they could not all go. */
bool mcps_relay_send(mcps_relay_conn *c, const char *bytes, size_t len, int64_t deadline_ms);
/* Close our end: the relay process sees end of stream and closes the client's pipe. */
void mcps_relay_conn_close(mcps_relay_conn *c);

/*
 * The relay process: connect to path, then copy in_fd to the socket and the
 * socket to out_fd until the socket ends (the controller hung up) or in_fd
 * ends and the controller has closed too. Returns the exit code: 0, or 1 with
 * err filled when it could not connect.
 */
int mcps_relay_serve(const char *path, int in_fd, int out_fd, char *err, size_t errlen);

#endif
