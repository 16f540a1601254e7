/*
 * host.c - run a server process beside an HTTP session; see host.h.
 *
 * Spawning, signalling and reaping are proc.c's. The drain thread owns the
 * stdout and stderr descriptors from the start until it is joined; the rest
 * of the struct belongs to the caller's thread, except the kept tail, which
 * a mutex guards. The thread wakes on its output or on a pipe that stop()
 * writes, so joining it never waits on a server that keeps its output open.
 */
#include "transport/host.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <threads.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "transport/http.h"
#include "transport/proc.h"

#define CHUNK              (64 * 1024)
#define REAP_POLL_MS       50
#define KILL_WAIT_SECS     5.0
#define STOPPED_GRACE_SECS 0.1
#define DEFAULT_GRACE      2.0
#define FINAL_DRAIN        (1024 * 1024) /* read after the stop before the thread ends */

struct mcps_host {
    mcps_proc proc;
    mcps_guard *guard;
    double term_grace;
    int wake[2]; /* a socket pair: stop() writes [1]; the thread polls [0] */
    thrd_t thread;
    bool thread_on, stopped;
    mtx_t lock;
    char tail[MCPS_HOST_KEEP];
    size_t tail_len;
    unsigned long long dropped;
    mcps_shutdown_report report;
};

/* ---- the drain thread ---- */

static void keep(mcps_host *h, const char *p, size_t n)
{
    mtx_lock(&h->lock);
    if (n >= MCPS_HOST_KEEP) {
        h->dropped += h->tail_len + (n - MCPS_HOST_KEEP);
        memcpy(h->tail, p + n - MCPS_HOST_KEEP, MCPS_HOST_KEEP);
        h->tail_len = MCPS_HOST_KEEP;
    } else {
        size_t over = h->tail_len + n > MCPS_HOST_KEEP ? h->tail_len + n - MCPS_HOST_KEEP : 0;
        memmove(h->tail, h->tail + over, h->tail_len - over);
        h->tail_len -= over;
        h->dropped += over;
        memcpy(h->tail + h->tail_len, p, n);
        h->tail_len += n;
    }
    mtx_unlock(&h->lock);
}

/* One read; false at end of stream (the descriptor is then closed). */
static bool read_fd(mcps_host *h, int *fd, char *buf)
{
    ssize_t n = read(*fd, buf, CHUNK);
    if (n > 0) {
        keep(h, buf, (size_t)n);
        return true;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return true;
    mcps_proc_close_fd(fd);
    return false;
}

/* What is readable now, up to limit bytes, without waiting. */
static void final_drain(mcps_host *h, char *buf)
{
    int *fds[] = {&h->proc.out_fd, &h->proc.err_fd};
    for (size_t i = 0, total = 0; i < 2; i++)
        while (*fds[i] >= 0 && total < FINAL_DRAIN) {
            ssize_t n = read(*fds[i], buf, CHUNK);
            if (n <= 0)
                break;
            keep(h, buf, (size_t)n);
            total += (size_t)n;
        }
}

static int drain_thread(void *arg)
{
    mcps_host *h = arg;
    char *buf = malloc(CHUNK);
    while (buf && (h->proc.out_fd >= 0 || h->proc.err_fd >= 0)) {
        struct pollfd pf[3] = {
            {h->wake[0], POLLIN, 0}, {h->proc.out_fd, POLLIN, 0}, {h->proc.err_fd, POLLIN, 0}};
        if (poll(pf, 3, -1) < 0 && errno != EINTR)
            break;
        if (pf[0].revents) {
            final_drain(h, buf);
            break;
        }
        if (pf[1].revents)
            read_fd(h, &h->proc.out_fd, buf);
        if (pf[2].revents)
            read_fd(h, &h->proc.err_fd, buf);
    }
    mcps_proc_close_fd(&h->proc.out_fd);
    mcps_proc_close_fd(&h->proc.err_fd);
    free(buf);
    return 0;
}

/* ---- starting ---- */

static void free_host(mcps_host *h)
{
    mcps_proc_close_fds(&h->proc);
    mcps_proc_close_fd(&h->wake[0]);
    mcps_proc_close_fd(&h->wake[1]);
    mtx_destroy(&h->lock);
    free(h);
}

mcps_host *mcps_host_start(const mcps_target_config *cfg, char *err, size_t errlen)
{
    mcps_host *h = calloc(1, sizeof *h);
    if (!h || mtx_init(&h->lock, mtx_plain) != thrd_success) {
        snprintf(err, errlen, "server host: out of memory");
        free(h);
        return NULL;
    }
    h->wake[0] = h->wake[1] = -1;
    h->guard = cfg ? cfg->guard : NULL;
    h->term_grace = cfg && cfg->term_grace > 0 ? cfg->term_grace : DEFAULT_GRACE;
    /* Close-on-exec from the start: no target spawned meanwhile may inherit it. */
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, h->wake) < 0) {
        snprintf(err, errlen, "server host: cannot create a socket pair: %s", strerror(errno));
        h->wake[0] = h->wake[1] = -1;
        free_host(h);
        return NULL;
    }
    if (!mcps_proc_spawn(&h->proc, cfg, err, errlen)) {
        free_host(h);
        return NULL;
    }
    mcps_proc_close_fd(&h->proc.in_fd); /* nobody speaks to it over stdin */
    h->thread_on = thrd_create(&h->thread, drain_thread, h) == thrd_success;
    if (!h->thread_on) {
        /* Unread pipes would block the server: better none at all. */
        mcps_proc_close_fd(&h->proc.out_fd);
        mcps_proc_close_fd(&h->proc.err_fd);
    }
    return h;
}

/* ---- watching ---- */

bool mcps_host_alive(mcps_host *h)
{
    return h && !mcps_proc_try_reap(&h->proc);
}

pid_t mcps_host_pid(const mcps_host *h)
{
    return h ? h->proc.pid : -1;
}

char *mcps_host_output(mcps_host *h)
{
    mcps_buf b = {0};
    mtx_lock(&h->lock);
    if (h->dropped)
        mcps_buf_printf(&b, "[%llu earlier bytes of output dropped]\n", h->dropped);
    mcps_buf_append(&b, h->tail, h->tail_len);
    mtx_unlock(&h->lock);
    mcps_buf_reserve(&b, 1); /* a string even when nothing was said */
    return mcps_buf_take(&b);
}

mcps_host *mcps_host_start_listening(const mcps_target_config *cfg, double probe_timeout, char *why,
                                     size_t n)
{
    char err[300] = "";
    mcps_host *h = mcps_host_start(cfg, err, sizeof err);
    if (!h) {
        snprintf(why, n, "cannot start the server: %.250s", err);
        return NULL;
    }
    int64_t deadline = mcps_clock_deadline(probe_timeout);
    /* In short slices, so that a server that dies at start is not waited for. */
    while (mcps_host_alive(h)) {
        int64_t slice = mcps_clock_deadline(0.1);
        if (mcps_http_wait_listening(cfg->url, slice < deadline ? slice : deadline, cfg->guard, err,
                                     sizeof err))
            return h;
        if (mcps_clock_ms() >= deadline || mcps_guard_stopped(cfg->guard))
            break;
    }
    char ended[120] = "";
    if (!mcps_host_alive(h))
        mcps_host_describe_exit(h, ended, sizeof ended);
    char *tail = mcps_host_output(h);
    snprintf(why, n, "%s%s%s%s%.400s",
             ended[0] ? ended : "the server did not listen within --probe-timeout",
             err[0] && !ended[0] ? ": " : "", ended[0] ? "" : err,
             tail && tail[0] ? "; its last output: " : "", tail ? tail : "");
    free(tail);
    mcps_host_free(h);
    return NULL;
}

bool mcps_host_exit_fields(mcps_host *h, int *code, int *sig)
{
    *code = *sig = 0;
    if (!mcps_proc_try_reap(&h->proc))
        return false;
    mcps_proc_exit_fields(&h->proc, code, sig);
    return true;
}

void mcps_host_describe_exit(mcps_host *h, char *out, size_t n)
{
    if (!mcps_proc_try_reap(&h->proc))
        snprintf(out, n, "server is still running");
    else
        mcps_proc_describe_exit(&h->proc, "server", out, n);
}

/* ---- stopping ---- */

static bool wait_reaped(mcps_host *h, double seconds)
{
    int64_t deadline = mcps_clock_deadline(seconds);
    while (!mcps_proc_try_reap(&h->proc)) {
        int64_t left = deadline - mcps_clock_ms();
        if (left <= 0)
            return false;
        struct pollfd pf = {h->proc.pidfd, POLLIN, 0};
        if (pf.fd < 0 && left > REAP_POLL_MS)
            left = REAP_POLL_MS;
        poll(&pf, pf.fd >= 0 ? 1 : 0, left > INT_MAX ? INT_MAX : (int)left);
    }
    return true;
}

static mcps_shutdown_how stop_server(mcps_host *h)
{
    if (mcps_proc_try_reap(&h->proc))
        return MCPS_SHUT_EXITED_BEFORE;
    bool hurry = mcps_guard_stopped(h->guard) != MCPS_STOP_NONE;
    mcps_proc_signal_group(&h->proc, SIGTERM);
    mcps_proc_signal_group(&h->proc, SIGCONT); /* a stopped server must run to die */
    if (wait_reaped(h, hurry ? STOPPED_GRACE_SECS : h->term_grace))
        return MCPS_SHUT_SIGTERM;
    mcps_proc_signal_group(&h->proc, SIGKILL);
    wait_reaped(h, KILL_WAIT_SECS);
    return MCPS_SHUT_SIGKILL;
}

static void join_drain(mcps_host *h)
{
    if (!h->thread_on)
        return;
    ssize_t w;
    do
        w = write(h->wake[1], "x", 1);
    while (w < 0 && errno == EINTR);
    thrd_join(h->thread, NULL);
    h->thread_on = false;
}

void mcps_host_stop(mcps_host *h, mcps_shutdown_report *report)
{
    if (!h)
        return;
    if (!h->stopped) {
        int64_t start = mcps_clock_ms();
        mcps_shutdown_how how = stop_server(h);
        mcps_proc_finish_shutdown(&h->proc, h->guard, start, how, &h->report);
        join_drain(h);
        h->stopped = true;
    }
    if (report)
        *report = h->report;
}

void mcps_host_free(mcps_host *h)
{
    if (!h)
        return;
    mcps_host_stop(h, NULL);
    free_host(h);
}
