/*
 * http_loop.c - the HTTP front end's process: listening socket, one poll loop
 * over libmicrohttpd's epoll descriptor, the children's pipes and a signalfd,
 * the stream timers, and an orderly end on SIGTERM/SIGINT/SIGHUP in which
 * every child is reaped.
 */
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#define RS_HTTP_MAX_CONNECTIONS 512

/* Sessions hold two pipe ends each; the default 1024 descriptors would be tight. */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 4096) {
        rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static int signals_open(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, NULL);
    struct sigaction ignore = {.sa_handler = SIG_IGN};
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, NULL);
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

static void on_signals(rs_hserver *h)
{
    struct signalfd_siginfo info;
    while (read(h->sigfd, &info, sizeof info) == (ssize_t)sizeof info) {
        if (info.ssi_signo != SIGCHLD)
            h->stop = true;
    }
}

static bool write_port_file(const char *path, unsigned port)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return false;
    FILE *f = fopen(tmp, "w");
    if (!f)
        return false;
    bool ok = fprintf(f, "%u\n", port) > 0;
    ok = fclose(f) == 0 && ok;
    /* Renamed into place, so a reader never sees half a number. */
    return ok && rename(tmp, path) == 0;
}

/* http-bind-all listens on every interface, but nothing but loopback may talk to it. */
static enum MHD_Result loopback_peer(void *cls, const struct sockaddr *addr, socklen_t len)
{
    (void)cls;
    const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
    return len >= (socklen_t)sizeof *in && addr->sa_family == AF_INET &&
                   (ntohl(in->sin_addr.s_addr) >> 24) == 127
               ? MHD_YES
               : MHD_NO;
}

static bool start(rs_hserver *h)
{
    const char *addr = rs_hfault(h, RS_FAULT_HTTP_BIND_ALL) ? "0.0.0.0" : h->opts->bind;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)h->opts->port)};
    if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
        fprintf(stderr, "refserver: --bind %s: not an IPv4 address\n", addr);
        return false;
    }
    unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    if (h->cfg->verbose)
        flags |= MHD_USE_ERROR_LOG;
    h->daemon = MHD_start_daemon(flags, (uint16_t)h->opts->port,
                                 rs_hfault(h, RS_FAULT_HTTP_BIND_ALL) ? loopback_peer : NULL, NULL,
                                 rs_hhandle, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                                 MHD_OPTION_NOTIFY_COMPLETED, rs_hcompleted, h,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned)RS_HTTP_MAX_CONNECTIONS,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60, MHD_OPTION_END);
    if (!h->daemon) {
        fprintf(stderr, "refserver: cannot listen on %s:%u\n", addr, h->opts->port);
        return false;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : h->opts->port;
    const char *shown = strcmp(addr, "0.0.0.0") == 0 ? "127.0.0.1" : addr;
    snprintf(h->base, sizeof h->base, "http://%s:%u", shown, h->port);
    fprintf(stderr, "listening on %s/mcp\n", h->base);
    fflush(stderr);
    if (h->opts->port_file && !write_port_file(h->opts->port_file, h->port)) {
        fprintf(stderr, "refserver: cannot write --port-file %s\n", h->opts->port_file);
        return false;
    }
    return true;
}

/* ---- timers: lingering streams, keep-alive comments, children to kill ---- */

static int64_t next_deadline(const rs_hserver *h, int64_t keepalive_at)
{
    int64_t next = keepalive_at;
    for (size_t i = 0; i < h->nsessions; i++) {
        for (const rs_hstream *st = h->sessions[i]->streams; st; st = st->next) {
            if (st->linger_until && st->linger_until < next)
                next = st->linger_until;
        }
    }
    for (size_t i = 0; i < h->ndying; i++) {
        if (h->dying[i].kill_at < next)
            next = h->dying[i].kill_at;
    }
    return next;
}

/* A standing stream's client sends nothing after its request, so a readable socket that
 * reads as end of file is a client gone. A suspended connection is not watched by the
 * daemon, and the keep-alive write finds it too late for a client that opens sessions
 * quickly (the legacy transport ends a session only when its stream's reader goes). */
static bool reader_gone(const rs_hstream *st)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(st->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    char c;
    return ci && recv(ci->connect_fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

static void run_timers(rs_hserver *h, int64_t now, bool keepalive, bool probe)
{
    for (size_t i = 0; i < h->nsessions; i++) {
        for (rs_hstream *st = h->sessions[i]->streams; st; st = st->next) {
            if (st->linger_until && now >= st->linger_until) {
                st->linger_until = 0;
                rs_hstream_finish(st);
            }
            if (probe && st->conn && st->suspended &&
                (st->kind == RS_HS_GET || st->kind == RS_HS_LEGACY) && reader_gone(st))
                rs_hstream_finish(st);
            /* A comment makes a vanished reader of a quiet stream show up as a failed write. */
            if (keepalive && st->conn && (st->kind == RS_HS_GET || st->kind == RS_HS_LEGACY))
                rs_hstream_raw(st, ": keep-alive\n\n");
        }
    }
}

/* ---- the loop ---- */

typedef struct poll_set {
    struct pollfd fds[2 + 2 * RS_HTTP_MAX_SESSIONS];
    rs_hsession *owner[2 + 2 * RS_HTTP_MAX_SESSIONS];
    nfds_t n;
} poll_set;

static void poll_add(poll_set *p, int fd, short events, rs_hsession *owner)
{
    p->fds[p->n] = (struct pollfd){.fd = fd, .events = events};
    p->owner[p->n++] = owner;
}

static int poll_timeout(rs_hserver *h, int64_t keepalive_at)
{
    int64_t wait = next_deadline(h, keepalive_at) - rs_now_ms();
    MHD_UNSIGNED_LONG_LONG mhd;
    if (MHD_get_timeout(h->daemon, &mhd) == MHD_YES && (int64_t)mhd < wait)
        wait = (int64_t)mhd;
    return wait < 0 ? 0 : wait > 60000 ? 60000 : (int)wait;
}

static void turn(rs_hserver *h, poll_set *p, int64_t *keepalive_at)
{
    const union MHD_DaemonInfo *ep = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_EPOLL_FD);
    p->n = 0;
    poll_add(p, ep ? ep->epoll_fd : -1, POLLIN, NULL);
    poll_add(p, h->sigfd, POLLIN, NULL);
    for (size_t i = 0; i < h->nsessions; i++) {
        rs_hsession *s = h->sessions[i];
        if (s->from_child >= 0)
            poll_add(p, s->from_child, POLLIN, s);
        if (s->to_child >= 0 && s->insent < s->inbuf.len)
            poll_add(p, s->to_child, POLLOUT, s);
    }
    if (poll(p->fds, p->n, poll_timeout(h, *keepalive_at)) < 0 && errno != EINTR)
        h->stop = true;
    if (p->fds[1].revents)
        on_signals(h);
    for (nfds_t i = 2; i < p->n; i++) {
        rs_hsession *s = p->owner[i];
        if (!p->fds[i].revents || s->ended)
            continue;
        if (p->fds[i].events == POLLOUT)
            rs_hsession_writable(s);
        else
            rs_hsession_readable(h, s);
    }
    int64_t now = rs_now_ms();
    bool keepalive = now >= *keepalive_at;
    if (keepalive)
        *keepalive_at = now + RS_HTTP_KEEPALIVE_MS;
    bool probe = now >= h->probe_at;
    if (probe)
        h->probe_at = now + RS_HTTP_PROBE_MS;
    run_timers(h, now, keepalive, probe);
    MHD_run(h->daemon);
    rs_hreap(h, false);
    rs_hsession_sweep(h);
}

static void shut_down(rs_hserver *h)
{
    for (size_t i = 0; i < h->nsessions; i++)
        rs_hsession_end(h, h->sessions[i], false);
    /* Every suspended connection is resumed by now; let them finish before the daemon stops. */
    MHD_run(h->daemon);
    rs_hsession_sweep(h);
    MHD_stop_daemon(h->daemon);
    rs_hreap(h, true);
}

int rs_http_run(const rs_server *cfg, const rs_http_opts *opts)
{
    rs_hserver *h = calloc(1, sizeof *h);
    if (!h)
        return 1;
    h->cfg = cfg;
    h->opts = opts;
    raise_fd_limit();
    h->sigfd = signals_open();
    int status = 1;
    poll_set *p = calloc(1, sizeof *p);
    if (p && h->sigfd >= 0 && start(h)) {
        int64_t keepalive_at = rs_now_ms() + RS_HTTP_KEEPALIVE_MS;
        while (!h->stop)
            turn(h, p, &keepalive_at);
        shut_down(h);
        status = 0;
    } else if (h->daemon) {
        MHD_stop_daemon(h->daemon);
    }
    if (h->sigfd >= 0)
        close(h->sigfd);
    free(p);
    free(h);
    return status;
}
