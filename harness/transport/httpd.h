/*
 * httpd.h - a minimal HTTP/1.1 server on loopback: the Streamable HTTP
 * endpoint ({url}) that `mcpspec run --client` serves to the client under
 * test, in place of the stdio relay (relay.h).
 *
 * Our own rather than libmicrohttpd (see httpd.c for the measurements and
 * the reasons): one thread, non-blocking sockets polled with deadlines like
 * every other wait of the harness, every byte of the request in our hands.
 * It serves exactly what the scripted server needs: requests with a
 * Content-Length (or chunked) body; answers that are either whole (status,
 * headers, body) or an SSE stream held open until we end it. Every answer
 * closes its connection (`Connection: close`), so there is no keep-alive or
 * pipelining to track.
 */
#ifndef MCPS_TRANSPORT_HTTPD_H
#define MCPS_TRANSPORT_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "transport/guard.h"

#define MCPS_HTTPD_CONNS 32 /* connections open at once; past it, 503 and close */

typedef enum mcps_httpd_state {
    MCPS_HTTPD_FREE,
    MCPS_HTTPD_READING,   /* the request is still arriving */
    MCPS_HTTPD_WAITING,   /* handed out, not answered yet */
    MCPS_HTTPD_STREAMING, /* an SSE stream is open on it */
} mcps_httpd_state;

typedef struct mcps_httpd_conn {
    int fd;
    mcps_httpd_state state;
    uint64_t handle;  /* names this request for the answer; 0: none */
    mcps_buf in;      /* the request as read (head, then body) */
    size_t head_len;  /* bytes of the head, blank line included; 0: not complete yet */
    size_t body_len;  /* Content-Length, or the decoded length of a chunked body */
    bool chunked;     /* Transfer-Encoding: chunked */
    char *body;       /* the body, NUL-terminated (owned) */
    int64_t started;  /* when it connected, for the read deadline */
    bool peer_closed; /* the client closed its side while we held it */
} mcps_httpd_conn;

typedef struct mcps_httpd {
    int fd; /* the listening socket, or -1 */
    int port;
    char path[40]; /* /mcp/TOKEN: 64 random bits, as only the client is told */
    char url[80];  /* http://127.0.0.1:PORT/mcp/TOKEN */
    size_t max_body;
    bool any_path; /* hand on requests for other paths too (authorization discovery URLs) */
    bool
        sub_paths; /* hand on requests for paths under it too (HTTP+SSE: PATH/sse, PATH/messages) */
    uint64_t next_handle;
    const mcps_guard *guard;
    mcps_httpd_conn conns[MCPS_HTTPD_CONNS];
} mcps_httpd;

/* One complete request; pointers valid until it is answered (or the server closes). */
typedef struct mcps_httpd_req {
    uint64_t handle;
    char verb[12];
    char target[256];
    const char *head; /* header lines, "Name: value\r\n" each */
    size_t head_len;
    const char *body; /* NUL-terminated */
    size_t body_len;
} mcps_httpd_req;

/* Listen on 127.0.0.1, a port the kernel picks; false with err filled. */
bool mcps_httpd_listen(mcps_httpd *h, const mcps_guard *guard, size_t max_body, char *err,
                       size_t errlen);
/* Close every connection and the socket. */
void mcps_httpd_close(mcps_httpd *h);

/* Wait until deadline_ms for a complete request: 1 (req filled), 0 none by then, -2 the run
 * stopped, -1 failure (err filled). Malformed requests are answered (400, 413, 431) here. */
int mcps_httpd_next(mcps_httpd *h, int64_t deadline_ms, mcps_httpd_req *req, char *err,
                    size_t errlen);

/* The value of header name (case-insensitive) in req, trimmed, into out; false when absent. */
bool mcps_httpd_header(const mcps_httpd_req *req, const char *name, char *out, size_t n);

/* Answer a waiting request whole and close it; headers are extra "Name: value\r\n" lines
 * (NULL: none). False when it could not all go (the client went away). */
bool mcps_httpd_respond(mcps_httpd *h, uint64_t handle, int status, const char *headers,
                        const char *content_type, const char *body, size_t len);
/* Answer a waiting request with 200 and an SSE stream, held open. */
bool mcps_httpd_stream_open(mcps_httpd *h, uint64_t handle, const char *headers);
/* One SSE event (data split on its newlines; id when not NULL) on an open stream. */
bool mcps_httpd_stream_event(mcps_httpd *h, uint64_t handle, const char *id, const char *data,
                             size_t len);
/* One SSE event of a named type (`event: NAME`, then data split on its newlines). */
bool mcps_httpd_stream_named(mcps_httpd *h, uint64_t handle, const char *event, const char *data,
                             size_t len);
/* Raw SSE text on an open stream (fields such as `retry:` or comment lines), as given. */
bool mcps_httpd_stream_raw(mcps_httpd *h, uint64_t handle, const char *text, size_t len);
/* End the stream (close the connection). */
void mcps_httpd_stream_close(mcps_httpd *h, uint64_t handle);
/* Whether the request is still waiting or streaming with its client there. */
bool mcps_httpd_open(const mcps_httpd *h, uint64_t handle);
/* Whether a stream is open on it. */
bool mcps_httpd_streaming(const mcps_httpd *h, uint64_t handle);

#endif
