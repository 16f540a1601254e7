/*
 * relay.c - the Unix-socket relay between a client under test and the
 * controller playing its server (relay.h).
 *
 * The listening socket lives in a folder only we can enter (mkdtemp, 0700),
 * so no other user can connect in a client's place. The controller's side is
 * non-blocking and framed here (newline-delimited, as MCP's stdio transport
 * frames), with every wait bounded by a deadline and the run's guard; the
 * relay process is a plain blocking pump that ends when either side does.
 */
#include "transport/relay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/clock.h"

#define CHUNK (64 * 1024)

static void set_err(char *err, size_t n, const char *what)
{
    snprintf(err, n, "%s: %s", what, strerror(errno));
}

bool mcps_relay_listen(mcps_relay *r, const mcps_guard *guard, char *err, size_t errlen)
{
    *r = (mcps_relay){.fd = -1, .guard = guard};
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !tmp[0] || strlen(tmp) > 40)
        tmp = "/tmp"; /* a socket path must fit in sun_path (108 bytes) */
    snprintf(r->dir, sizeof r->dir, "%s/mcpspec-relay-XXXXXX", tmp);
    if (!mkdtemp(r->dir)) {
        set_err(err, errlen, "cannot create the relay folder");
        r->dir[0] = '\0';
        return false;
    }
    snprintf(r->path, sizeof r->path, "%s/s", r->dir);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    memcpy(sa.sun_path, r->path, strlen(r->path) + 1); /* fits: dir is at most 40 + 22 bytes */
    r->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (r->fd < 0 || bind(r->fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(r->fd, 16) != 0) {
        set_err(err, errlen, "cannot listen on the relay socket");
        mcps_relay_close(r);
        return false;
    }
    return true;
}

void mcps_relay_close(mcps_relay *r)
{
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    if (r->path[0])
        unlink(r->path);
    if (r->dir[0])
        rmdir(r->dir);
    r->path[0] = r->dir[0] = '\0';
}

/* poll() one descriptor (and the guard) until deadline_ms: 1 ready, 0 timeout, -2 stopped. */
static int wait_fd(int fd, short events, const mcps_guard *guard, int64_t deadline_ms)
{
    for (;;) {
        if (guard && mcps_guard_stopped(guard))
            return -2;
        int64_t end = guard ? mcps_guard_clamp(guard, deadline_ms) : deadline_ms;
        int64_t left = end - mcps_clock_ms();
        if (left <= 0)
            return guard && mcps_guard_stopped(guard) ? -2 : 0;
        struct pollfd p[2] = {{.fd = fd, .events = events}, {.fd = -1}};
        if (guard)
            p[1] = (struct pollfd){.fd = mcps_guard_fd(guard), .events = POLLIN};
        int n = poll(p, 2, left > 1000 ? 1000 : (int)left);
        if (n < 0 && errno != EINTR)
            return -1;
        if (n > 0 && p[0].revents)
            return 1;
    }
}

int mcps_relay_accept(mcps_relay *r, int64_t deadline_ms, size_t max_message, mcps_relay_conn *c,
                      char *err, size_t errlen)
{
    *c = (mcps_relay_conn){.fd = -1, .max_message = max_message};
    for (;;) {
        int w = wait_fd(r->fd, POLLIN, r->guard, deadline_ms);
        if (w == 0 || w == -2)
            return 0;
        if (w < 0) {
            set_err(err, errlen, "waiting for a connection");
            return -1;
        }
        int fd = accept(r->fd, NULL, NULL);
        if (fd < 0) {
            if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
                continue;
            set_err(err, errlen, "accepting a connection");
            return -1;
        }
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        c->fd = fd;
        return 1;
    }
}

void mcps_relay_conn_close(mcps_relay_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    mcps_buf_free(&c->in);
    free(c->msg);
    c->msg = NULL;
}

/* Hand out the first complete line of c->in (or an over-long one, cut): 1 an event, 0 none
 * yet, 2 the rest of a cut line dropped (look again). */
static int frame_line(mcps_relay_conn *c, mcps_tevent *ev)
{
    char *nl = c->in.len ? memchr(c->in.data, '\n', c->in.len) : NULL;
    size_t n = nl ? (size_t)(nl - c->in.data) : c->in.len;
    bool oversize = n > c->max_message;
    if (!nl && !oversize && !(c->eof && c->in.len))
        return 0;
    size_t keep = oversize ? c->max_message : n;
    size_t eat = nl ? n + 1 : n;
    free(c->msg);
    c->msg = malloc(keep + 1);
    if (!c->msg)
        keep = 0;
    else {
        memcpy(c->msg, c->in.data, keep);
        c->msg[keep] = '\0';
    }
    if (keep && c->msg[keep - 1] == '\r' && !oversize)
        c->msg[--keep] = '\0'; /* tolerated CRLF framing */
    if (!c->skipping) {
        *ev = (mcps_tevent){.kind = oversize ? MCPS_TEV_OVERSIZE : MCPS_TEV_MESSAGE,
                            .data = c->msg ? c->msg : "",
                            .len = keep,
                            .offset = c->offset,
                            .line = ++c->line,
                            .terminated = nl != NULL};
    }
    c->offset += eat;
    mcps_buf_consume(&c->in, eat);
    bool was_skipping = c->skipping;
    c->skipping = oversize && !nl; /* drop the rest of this line as it arrives */
    return was_skipping ? 2 : 1;
}

/* Read what is there; false at end of stream or on error. */
static bool read_some(mcps_relay_conn *c)
{
    char chunk[CHUNK];
    ssize_t n = read(c->fd, chunk, sizeof chunk);
    if (n > 0) {
        mcps_buf_append(&c->in, chunk, (size_t)n);
        return !c->in.oom;
    }
    return n < 0 && (errno == EAGAIN || errno == EINTR);
}

/* A relay that saw its stdin end only shut down its writing half; one that is gone closed both
 * (Linux then reports POLLHUP). */
static void end_of_stream(mcps_relay_conn *c)
{
    struct pollfd p = {.fd = c->fd, .events = POLLOUT};
    c->eof = true;
    c->peer_gone = poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR));
}

void mcps_relay_next(mcps_relay_conn *c, const mcps_guard *guard, int64_t deadline_ms,
                     mcps_tevent *ev)
{
    for (;;) {
        int f = frame_line(c, ev);
        if (f == 1)
            return;
        if (f == 2)
            continue;
        if (c->eof || c->fd < 0) {
            *ev = (mcps_tevent){.kind = MCPS_TEV_CLOSED};
            snprintf(ev->detail, sizeof ev->detail, "%s",
                     c->peer_gone ? "the connection ended: the server process was stopped "
                                    "(or stopped being read) without its stdin being closed"
                                  : "the client closed its server's stdin");
            return;
        }
        int w = wait_fd(c->fd, POLLIN, guard, deadline_ms);
        if (w == 0 || w == -2) {
            *ev = (mcps_tevent){.kind = w == 0 ? MCPS_TEV_TIMEOUT : MCPS_TEV_STOPPED};
            if (w == -2)
                snprintf(ev->detail, sizeof ev->detail, "%s",
                         mcps_guard_reason(mcps_guard_stopped(guard)));
            return;
        }
        if (w < 0 || !read_some(c))
            end_of_stream(c);
    }
}

bool mcps_relay_send(mcps_relay_conn *c, const char *bytes, size_t len, int64_t deadline_ms)
{
    while (len && c->fd >= 0) {
        ssize_t n = write(c->fd, bytes, len);
        if (n > 0) {
            bytes += n;
            len -= (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (wait_fd(c->fd, POLLOUT, NULL, deadline_ms) <= 0)
                return false;
        } else
            return false;
    }
    return len == 0;
}

/* Write all of it to fd (non-blocking); false when its reader is gone, or when the socket s
 * hangs up meanwhile: a client that stops reading its server must not keep the relay alive
 * once the controller has gone. */
static bool write_all(int fd, const char *p, size_t n, int s)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EINTR)
            return false;
        struct pollfd q[2] = {{.fd = fd, .events = POLLOUT}, {.fd = s, .events = 0}};
        if (poll(q, 2, -1) < 0 && errno != EINTR)
            return false;
        if (q[1].revents & (POLLHUP | POLLERR))
            return false;
    }
    return true;
}

static int connect_to(const char *path, char *err, size_t errlen)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path) {
        snprintf(err, errlen, "socket path too long: %s", path);
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        snprintf(err, errlen, "cannot connect to %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

int mcps_relay_serve(const char *path, int in_fd, int out_fd, char *err, size_t errlen)
{
    int s = connect_to(path, err, errlen);
    if (s < 0)
        return 1;
    char buf[CHUNK];
    bool in_open = true;
    fcntl(out_fd, F_SETFL, fcntl(out_fd, F_GETFL) | O_NONBLOCK);
    for (;;) {
        struct pollfd p[2] = {{.fd = s, .events = POLLIN},
                              {.fd = in_open ? in_fd : -1, .events = POLLIN}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[0].revents) {
            ssize_t n = read(s, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0 || !write_all(out_fd, buf, (size_t)n, s))
                break; /* the controller hung up, or the client stopped reading */
        }
        if (in_open && p[1].revents) {
            ssize_t n = read(in_fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                in_open = false; /* the client closed our stdin: tell the controller */
                shutdown(s, SHUT_WR);
            } else if (!write_all(s, buf, (size_t)n, -1))
                break;
        }
    }
    close(s);
    return 0;
}
