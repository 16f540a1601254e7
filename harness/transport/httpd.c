/*
 * httpd.c - the loopback HTTP/1.1 server behind {url} (httpd.h).
 *
 * Why not libmicrohttpd, which refserver-http uses. (1) Start cost, since
 * mcpspec is started hundreds of times by the tests (each {server} relay is
 * one): measured with `mcpspec --version`, 200 starts each, interleaved, on
 * a loaded 2-core machine: before this file 23.6 ms at best (33-34 ms CPU a
 * start), after it 24.0 ms (33.5-34.1), with libmicrohttpd preloaded 23.9 ms
 * (29.4-33.9): no difference above the noise, because libcurl already loads
 * GnuTLS (ldd: 36 libraries; libmicrohttpd would add one). So start cost did
 * not decide it. (2) Control: libmicrohttpd answers some things itself (100
 * Continue, errors, keep-alive) and needs its own threads, or an external
 * select loop plus suspend/resume, to hold a POST open while the scripted
 * server waits on the client; the client engine is one poll loop with
 * deadlines, and this server is a few hundred lines in that loop's style.
 * (3) Every byte the client sends is ours to log and judge, and later cases
 * (a dropped SSE stream, Last-Event-ID) need to break the protocol on
 * purpose, which a library does not let us do.
 *
 * Loopback is open to every local user, unlike the relay's private folder:
 * the endpoint's path carries 64 random bits, and any other path is 404
 * (with sub_paths, for HTTP+SSE, the paths under it are served too).
 * What a scripted MCP endpoint on loopback needs is small: one request per
 * connection, Content-Length or chunked bodies, whole answers or an SSE
 * stream ended by closing. Bounded: 32 connections, a 16 KiB head, bodies up
 * to max_body, 10 s to send a request, 5 s to take an answer.
 */
#define _GNU_SOURCE /* accept4, memmem */
#include "transport/httpd.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"

#define HEAD_MAX   (16 * 1024)
#define READ_SECS  10 /* to send a whole request */
#define WRITE_SECS 5.0
#define CHUNK      (64 * 1024)

static void set_err(char *err, size_t n, const char *what)
{
    snprintf(err, n, "%s: %s", what, strerror(errno));
}

bool mcps_httpd_listen(mcps_httpd *h, const mcps_guard *guard, size_t max_body, char *err,
                       size_t errlen)
{
    *h = (mcps_httpd){.fd = -1, .guard = guard, .max_body = max_body, .next_handle = 1};
    for (size_t i = 0; i < MCPS_HTTPD_CONNS; i++)
        h->conns[i].fd = -1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    h->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (h->fd < 0 || bind(h->fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(h->fd, 32) != 0 || getsockname(h->fd, (struct sockaddr *)&sa, &len) != 0) {
        set_err(err, errlen, "cannot listen on 127.0.0.1");
        mcps_httpd_close(h);
        return false;
    }
    h->port = ntohs(sa.sin_port);
    unsigned long long token = 0;
    int rnd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (rnd < 0 || read(rnd, &token, sizeof token) != (ssize_t)sizeof token)
        token ^= (unsigned long long)mcps_clock_us() * 0x9e3779b97f4a7c15ULL;
    if (rnd >= 0)
        close(rnd);
    snprintf(h->path, sizeof h->path, "/mcp/%016llx", token);
    snprintf(h->url, sizeof h->url, "http://127.0.0.1:%d%s", h->port, h->path);
    return true;
}

static void conn_free(mcps_httpd_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    mcps_buf_free(&c->in);
    free(c->body);
    *c = (mcps_httpd_conn){.fd = -1};
}

void mcps_httpd_close(mcps_httpd *h)
{
    for (size_t i = 0; i < MCPS_HTTPD_CONNS; i++)
        conn_free(&h->conns[i]);
    if (h->fd >= 0)
        close(h->fd);
    h->fd = -1;
}

static bool write_all(int fd, const char *p, size_t n)
{
    int64_t end = mcps_clock_deadline(WRITE_SECS);
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EINTR)
            return false;
        int64_t left = end - mcps_clock_ms();
        struct pollfd pf = {.fd = fd, .events = POLLOUT};
        if (left <= 0 || poll(&pf, 1, (int)left) < 0)
            return false;
    }
    return true;
}

static const char *reason(int status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 200:
        return "OK";
    case 202:
        return "Accepted";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 413:
        return "Content Too Large";
    case 431:
        return "Request Header Fields Too Large";
    case 503:
        return "Service Unavailable";
    default:
        return "Status";
    }
}

/* Write a whole answer on c and close it. */
static bool answer(mcps_httpd_conn *c, int status, const char *headers, const char *ctype,
                   const char *body, size_t len)
{
    mcps_buf b = {0};
    mcps_buf_printf(&b, "HTTP/1.1 %d %s\r\nConnection: close\r\nContent-Length: %zu\r\n", status,
                    reason(status), len);
    if (ctype)
        mcps_buf_printf(&b, "Content-Type: %s\r\n", ctype);
    mcps_buf_puts(&b, headers ? headers : "");
    mcps_buf_puts(&b, "\r\n");
    mcps_buf_append(&b, body, len);
    bool ok = !b.oom && write_all(c->fd, b.data, b.len);
    mcps_buf_free(&b);
    conn_free(c);
    return ok;
}

static void refuse(mcps_httpd_conn *c, int status, const char *why)
{
    answer(c, status, NULL, "text/plain", why, strlen(why));
}

static void accept_all(mcps_httpd *h)
{
    for (;;) {
        int fd = accept4(h->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return;
        mcps_httpd_conn *c = NULL;
        for (size_t i = 0; !c && i < MCPS_HTTPD_CONNS; i++)
            if (h->conns[i].state == MCPS_HTTPD_FREE)
                c = &h->conns[i];
        if (!c) {
            mcps_httpd_conn over = {.fd = fd};
            refuse(&over, 503, "too many connections");
            continue;
        }
        *c = (mcps_httpd_conn){.fd = fd, .state = MCPS_HTTPD_READING, .started = mcps_clock_ms()};
    }
}

/* Header name's value in a head block (lines "Name: value\r\n"); NULL when absent. */
static const char *find_header(const char *head, size_t len, const char *name, size_t *vlen)
{
    size_t nl = strlen(name);
    const char *p = head, *end = head + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        if ((size_t)(eol - p) > nl && p[nl] == ':' && strncasecmp(p, name, nl) == 0) {
            const char *v = p + nl + 1, *ve = eol;
            while (v < ve && (*v == ' ' || *v == '\t'))
                v++;
            while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t'))
                ve--;
            *vlen = (size_t)(ve - v);
            return v;
        }
        p = eol + 1;
    }
    return NULL;
}

/* Decode a chunked body from src: its length (out filled), -1 incomplete, -2 malformed. */
static long long dechunk(const char *src, size_t n, mcps_buf *out)
{
    size_t i = 0;
    for (;;) {
        const char *eol = memchr(src + i, '\n', n - i);
        if (!eol)
            return -1;
        char *stop;
        unsigned long long size = strtoull(src + i, &stop, 16);
        if (stop == src + i)
            return -2;
        i = (size_t)(eol - src) + 1;
        if (size == 0) { /* then trailers, if any, and a blank line */
            if (n - i >= 2 && memcmp(src + i, "\r\n", 2) == 0)
                return (long long)out->len;
            return memmem(src + i, n - i, "\r\n\r\n", 4) ? (long long)out->len : -1;
        }
        if (size > n || n - i < size + 2)
            return -1;
        mcps_buf_append(out, src + i, (size_t)size);
        i += (size_t)size + 2;
    }
}

/* The head of c arrived: check it, note the body's framing. False: answered and closed. */
static bool read_head(mcps_httpd *h, mcps_httpd_conn *c)
{
    size_t vlen;
    const char *v = find_header(c->in.data, c->head_len, "Content-Length", &vlen);
    const char *te = find_header(c->in.data, c->head_len, "Transfer-Encoding", &vlen);
    c->chunked = te && vlen >= 7 && strncasecmp(te + vlen - 7, "chunked", 7) == 0;
    if (v && !c->chunked) {
        char *stop;
        unsigned long long n = strtoull(v, &stop, 10);
        if (stop == v) {
            refuse(c, 400, "bad Content-Length");
            return false;
        }
        if (n > h->max_body) {
            refuse(c, 413, "body too large");
            return false;
        }
        c->body_len = (size_t)n;
    }
    const char *ex = find_header(c->in.data, c->head_len, "Expect", &vlen);
    if (ex && vlen == 12 && strncasecmp(ex, "100-continue", 12) == 0)
        write_all(c->fd, "HTTP/1.1 100 Continue\r\n\r\n", 25);
    return true;
}

/* Whether c holds a whole request now; answers and closes malformed ones. */
static bool complete(mcps_httpd *h, mcps_httpd_conn *c)
{
    if (!c->head_len) {
        char *e = c->in.len ? memmem(c->in.data, c->in.len, "\r\n\r\n", 4) : NULL;
        if (!e) {
            if (c->in.len > HEAD_MAX)
                refuse(c, 431, "request head too large");
            return false;
        }
        c->head_len = (size_t)(e - c->in.data) + 4;
        if (!read_head(h, c))
            return false;
    }
    const char *src = c->in.data + c->head_len;
    size_t have = c->in.len - c->head_len;
    mcps_buf body = {0};
    if (c->chunked) {
        long long n = dechunk(src, have, &body);
        if (n == -1 || n == -2 || body.len > h->max_body) {
            mcps_buf_free(&body);
            if (n == -2 || body.len > h->max_body || have > h->max_body + 4096)
                refuse(c, n == -2 ? 400 : 413, "bad chunked body");
            return false;
        }
        c->body_len = body.len;
    } else if (have < c->body_len)
        return false;
    else
        mcps_buf_append(&body, src, c->body_len);
    mcps_buf_putc(&body, '\0');
    c->body = mcps_buf_take(&body);
    return c->body != NULL;
}

/* Fill req from the complete request on c; false when the request line is malformed. */
static bool to_req(mcps_httpd *h, mcps_httpd_conn *c, mcps_httpd_req *req)
{
    const char *line_end = memchr(c->in.data, '\n', c->head_len);
    char line[300], version[16] = "", extra[2];
    size_t n = (size_t)(line_end - c->in.data); /* the head ends in a newline: found */
    *req = (mcps_httpd_req){0};
    if (n >= sizeof line)
        return false;
    memcpy(line, c->in.data, n); /* the request line alone */
    line[n] = '\0';
    if (sscanf(line, "%11s %255s %15s %1s", req->verb, req->target, version, extra) != 3 ||
        strncmp(version, "HTTP/1.", 7) != 0)
        return false;
    c->state = MCPS_HTTPD_WAITING;
    c->handle = h->next_handle++;
    req->handle = c->handle;
    req->head = line_end + 1;
    req->head_len = c->head_len - (size_t)(req->head - c->in.data);
    req->body = c->body;
    req->body_len = c->body_len;
    return true;
}

/* Read what is there on c; false when its client hung up. */
static bool drain(mcps_httpd_conn *c, bool keep)
{
    char chunk[CHUNK];
    for (;;) {
        ssize_t n = recv(c->fd, chunk, sizeof chunk, 0);
        if (n > 0) {
            if (keep)
                mcps_buf_append(&c->in, chunk, (size_t)n);
            continue;
        }
        if (n == 0)
            return false;
        return errno == EAGAIN || errno == EINTR;
    }
}

/* Whether target is the endpoint's path (a query after it allowed), or under it with sub_paths. */
static bool on_path(const mcps_httpd *h, const char *target)
{
    size_t n = strlen(h->path);
    char after = target[n];
    return strncmp(target, h->path, n) == 0 &&
           (!after || after == '?' || (h->sub_paths && after == '/'));
}

/* One ready request among the connections, after reading them: 1 found. */
static int service(mcps_httpd *h, const struct pollfd *pf, mcps_httpd_req *req)
{
    int64_t now = mcps_clock_ms();
    for (size_t i = 0; i < MCPS_HTTPD_CONNS; i++) {
        mcps_httpd_conn *c = &h->conns[i];
        if (c->state == MCPS_HTTPD_FREE || !pf[i + 1].revents)
            continue;
        if (c->state != MCPS_HTTPD_READING) {
            c->peer_closed |= !drain(c, false); /* nothing more is expected on it */
            continue;
        }
        bool alive = drain(c, true);
        if (c->in.len > HEAD_MAX + h->max_body + 4096)
            refuse(c, 413, "request too large");
        else if (complete(h, c)) {
            if (!to_req(h, c, req))
                refuse(c, 400, "malformed request line");
            else if (!h->any_path && !on_path(h, req->target))
                refuse(c, 404, "no such endpoint");
            else
                return 1;
        } else if (c->state == MCPS_HTTPD_READING &&
                   (!alive || now - c->started > READ_SECS * 1000))
            conn_free(c);
    }
    return 0;
}

int mcps_httpd_next(mcps_httpd *h, int64_t deadline_ms, mcps_httpd_req *req, char *err,
                    size_t errlen)
{
    for (;;) {
        if (h->guard && mcps_guard_stopped(h->guard))
            return -2;
        int64_t end = h->guard ? mcps_guard_clamp(h->guard, deadline_ms) : deadline_ms;
        int64_t left = end - mcps_clock_ms();
        if (left <= 0)
            return h->guard && mcps_guard_stopped(h->guard) ? -2 : 0;
        struct pollfd pf[MCPS_HTTPD_CONNS + 2];
        pf[0] = (struct pollfd){.fd = h->fd, .events = POLLIN};
        for (size_t i = 0; i < MCPS_HTTPD_CONNS; i++)
            pf[i + 1] = (struct pollfd){.fd = h->conns[i].peer_closed ? -1 : h->conns[i].fd,
                                        .events = POLLIN};
        pf[MCPS_HTTPD_CONNS + 1] =
            (struct pollfd){.fd = h->guard ? mcps_guard_fd(h->guard) : -1, .events = POLLIN};
        int n = poll(pf, MCPS_HTTPD_CONNS + 2, left > 1000 ? 1000 : (int)left);
        if (n < 0 && errno != EINTR) {
            set_err(err, errlen, "waiting for HTTP requests");
            return -1;
        }
        if (n <= 0)
            continue;
        if (pf[0].revents)
            accept_all(h);
        if (service(h, pf, req))
            return 1;
    }
}

bool mcps_httpd_header(const mcps_httpd_req *req, const char *name, char *out, size_t n)
{
    size_t vlen;
    const char *v = find_header(req->head, req->head_len, name, &vlen);
    if (!v)
        return false;
    if (n)
        snprintf(out, n, "%.*s", (int)vlen, v);
    return true;
}

static mcps_httpd_conn *by_handle(const mcps_httpd *h, uint64_t handle)
{
    for (size_t i = 0; handle && i < MCPS_HTTPD_CONNS; i++)
        if (h->conns[i].handle == handle && h->conns[i].state != MCPS_HTTPD_FREE)
            return (mcps_httpd_conn *)&h->conns[i];
    return NULL;
}

bool mcps_httpd_respond(mcps_httpd *h, uint64_t handle, int status, const char *headers,
                        const char *content_type, const char *body, size_t len)
{
    mcps_httpd_conn *c = by_handle(h, handle);
    if (!c || c->state != MCPS_HTTPD_WAITING)
        return false;
    return answer(c, status, headers, content_type, body ? body : "", body ? len : 0);
}

bool mcps_httpd_stream_open(mcps_httpd *h, uint64_t handle, const char *headers)
{
    mcps_httpd_conn *c = by_handle(h, handle);
    if (!c || c->state != MCPS_HTTPD_WAITING)
        return false;
    mcps_buf b = {0};
    mcps_buf_printf(&b,
                    "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/event-stream\r\n"
                    "Cache-Control: no-cache\r\n%s\r\n",
                    headers ? headers : "");
    bool ok = !b.oom && write_all(c->fd, b.data, b.len);
    mcps_buf_free(&b);
    c->state = MCPS_HTTPD_STREAMING;
    if (!ok)
        c->peer_closed = true;
    return ok;
}

/* An event with an id or a type (either NULL: none) on an open stream. */
static bool stream_event(mcps_httpd *h, uint64_t handle, const char *id, const char *event,
                         const char *data, size_t len)
{
    mcps_httpd_conn *c = by_handle(h, handle);
    if (!c || c->state != MCPS_HTTPD_STREAMING || c->peer_closed)
        return false;
    mcps_buf b = {0};
    if (id)
        mcps_buf_printf(&b, "id: %s\n", id);
    if (event)
        mcps_buf_printf(&b, "event: %s\n", event);
    const char *p = data, *end = data + len;
    while (p <= end) { /* a newline inside data starts another data: line */
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        mcps_buf_puts(&b, "data: ");
        mcps_buf_append(&b, p, (size_t)(stop - p));
        mcps_buf_putc(&b, '\n');
        if (!nl)
            break;
        p = nl + 1;
    }
    mcps_buf_putc(&b, '\n');
    bool ok = !b.oom && write_all(c->fd, b.data, b.len);
    mcps_buf_free(&b);
    if (!ok)
        c->peer_closed = true;
    return ok;
}

bool mcps_httpd_stream_event(mcps_httpd *h, uint64_t handle, const char *id, const char *data,
                             size_t len)
{
    return stream_event(h, handle, id, NULL, data, len);
}

bool mcps_httpd_stream_named(mcps_httpd *h, uint64_t handle, const char *event, const char *data,
                             size_t len)
{
    return stream_event(h, handle, NULL, event, data, len);
}

bool mcps_httpd_stream_raw(mcps_httpd *h, uint64_t handle, const char *text, size_t len)
{
    mcps_httpd_conn *c = by_handle(h, handle);
    if (!c || c->state != MCPS_HTTPD_STREAMING || c->peer_closed)
        return false;
    if (!write_all(c->fd, text, len))
        c->peer_closed = true;
    return !c->peer_closed;
}

void mcps_httpd_stream_close(mcps_httpd *h, uint64_t handle)
{
    mcps_httpd_conn *c = by_handle(h, handle);
    if (c && c->state != MCPS_HTTPD_READING)
        conn_free(c);
}

bool mcps_httpd_open(const mcps_httpd *h, uint64_t handle)
{
    const mcps_httpd_conn *c = by_handle(h, handle);
    return c && !c->peer_closed;
}

bool mcps_httpd_streaming(const mcps_httpd *h, uint64_t handle)
{
    const mcps_httpd_conn *c = by_handle(h, handle);
    return c && c->state == MCPS_HTTPD_STREAMING;
}
