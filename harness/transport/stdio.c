/*
 * stdio.c - the stdio transport: a target process spoken to over its stdin,
 * heard on its stdout (messages) and stderr (diagnostics).
 *
 * One poll() loop per transport, always with a deadline. Whatever is read is
 * framed at once and parked in a line queue, so next() hands out one event at
 * a time while send() and shutdown() keep draining the pipes; a target blocked
 * writing its stdout can never deadlock us. Memory is bounded everywhere: the
 * framers drop over-long lines, stderr keeps only its newest 256 KiB, and
 * stdout is not read further while too much of it waits undelivered.
 * Process handling (spawn, reap, signals) lives in proc.c.
 *
 * Deadlines are absolute: what arrives is queued and handed out, but never
 * moves a deadline. The run's guard (guard.h) caps every wait at the run's
 * deadline and wakes every poll when the run is stopped; after that, waits
 * end at once and shutdown goes straight to the signals.
 */
#include "transport/transport.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/frame.h"
#include "base/clock.h"
#include "transport/lineq.h"
#include "transport/proc.h"

#define CHUNK              (64 * 1024)
#define STDERR_LINE_MAX    4096
#define STDERR_KEEP        (256 * 1024)
#define DRAIN_MAX          (1024 * 1024) /* read at exit or shutdown before moving on anyway */
#define REAP_POLL_MS       50            /* waitpid() interval without a pidfd */
#define KILL_WAIT_SECS     5.0           /* for the reap after SIGKILL */
#define STOPPED_GRACE_SECS 0.1           /* each shutdown grace once the run is stopped */

#define DEFAULT_MAX_MESSAGE ((size_t)4 * 1024 * 1024)
#define DEFAULT_GRACE       2.0
#define DEFAULT_SEND        5.0

/* One output pipe: its descriptor (owned by proc), framer and queue of lines. */
typedef struct stream {
    int *fd;
    mcps_framer fr;
    mcps_lineq q;
    size_t lines;
    bool eof;
} stream;

typedef struct stdio_transport {
    mcps_transport base;
    mcps_proc proc;
    double close_grace, term_grace, send_timeout;
    size_t out_cap; /* stdout bytes queued undelivered before we stop reading it */
    char *chunk;
    stream out, err;
    bool out_cut; /* we closed stdout at shutdown before the target did */
    bool input_closed;
    bool input_torn; /* a send failed midway: the stream holds half a message */
    bool closed_sent, exited_sent, exit_drained, shut;
    char stopped;          /* why the run stopped, once it has (MCPS_STOP_...) */
    int64_t guard_seen_ms; /* when the guard was last asked (a system call: once a ms at most) */
    bool guard_woke;       /* a poll saw its descriptor ready: ask now */
    char fail[160];        /* sticky transport failure, reported as ERROR */
    mcps_shutdown_report report;
    mcps_guard *guard; /* the run's; may be NULL */
} stdio_transport;

static double or_default(double v, double def)
{
    return v > 0 ? v : def;
}

/* ---- reading and framing ---- */

static void set_fail(stdio_transport *t, const char *what)
{
    if (!t->fail[0])
        snprintf(t->fail, sizeof t->fail, "stdio transport: %s", what);
}

static void push_frame(stdio_transport *t, stream *s, const mcps_frame *f)
{
    mcps_qline l = {f->data, f->len, f->offset, ++s->lines, f->terminated, f->oversize};
    if (!mcps_lineq_push(&s->q, &l))
        set_fail(t, "out of memory queueing target output");
}

static void end_stream(stdio_transport *t, stream *s)
{
    mcps_frame f;
    if (mcps_framer_finish(&s->fr, &f))
        push_frame(t, s, &f);
    s->eof = true;
    mcps_proc_close_fd(s->fd);
}

/* One read of at most CHUNK bytes; the bytes read (0 on EAGAIN or end of stream). */
static size_t read_stream(stdio_transport *t, stream *s)
{
    if (*s->fd < 0)
        return 0;
    ssize_t n = read(*s->fd, t->chunk, CHUNK);
    if (n > 0) {
        mcps_frame f;
        if (!mcps_framer_feed(&s->fr, t->chunk, (size_t)n))
            set_fail(t, "out of memory framing target output");
        while (mcps_framer_next(&s->fr, &f))
            push_frame(t, s, &f);
        return (size_t)n;
    }
    if (n == 0 || (errno != EAGAIN && errno != EINTR))
        end_stream(t, s);
    return 0;
}

static bool wants_read(const stdio_transport *t, const stream *s)
{
    return *s->fd >= 0 && (s != &t->out || mcps_lineq_bytes(&s->q) < t->out_cap);
}

/* Whatever is readable now, bounded so a grandchild flooding a pipe cannot stall us. */
static void drain(stdio_transport *t)
{
    size_t total = 0;
    for (;;) {
        size_t got = wants_read(t, &t->out) ? read_stream(t, &t->out) : 0;
        got += read_stream(t, &t->err);
        total += got;
        if (got == 0 || total >= DRAIN_MAX)
            return;
    }
}

/* Index of the new entry, or -1 for a closed descriptor. */
static int add_poll(struct pollfd *pf, nfds_t *n, int fd, short events)
{
    if (fd < 0)
        return -1;
    pf[*n] = (struct pollfd){fd, events, 0};
    return (int)(*n)++;
}

/*
 * Wait once (until deadline, or REAP_POLL_MS without a pidfd) for output, the
 * exit, or room in stdin - or, with watch_guard, the run's deadline or stop;
 * then read what is ready and reap if it exited.
 */
static void wait_io(stdio_transport *t, int64_t deadline, bool want_write, bool watch_guard)
{
    struct pollfd pf[5];
    nfds_t n = 0;
    if (watch_guard) {
        deadline = mcps_guard_clamp(t->guard, deadline);
        add_poll(pf, &n, mcps_guard_fd(t->guard), POLLIN);
    }
    int iout = wants_read(t, &t->out) ? add_poll(pf, &n, *t->out.fd, POLLIN) : -1;
    int ierr = wants_read(t, &t->err) ? add_poll(pf, &n, *t->err.fd, POLLIN) : -1;
    int ipid = !t->proc.reaped ? add_poll(pf, &n, t->proc.pidfd, POLLIN) : -1;
    if (want_write)
        add_poll(pf, &n, t->proc.in_fd, POLLOUT); /* a wakeup is all we need */
    int64_t left = deadline - mcps_clock_ms();
    if (left < 0)
        left = 0;
    if (!t->proc.reaped && t->proc.pidfd < 0 && left > REAP_POLL_MS)
        left = REAP_POLL_MS;
    int ready = poll(pf, n, left > INT_MAX ? INT_MAX : (int)left);
    if (ready > 0 && watch_guard && n && pf[0].fd == mcps_guard_fd(t->guard) && pf[0].revents)
        t->guard_woke = true;
    if (ready > 0 && iout >= 0 && pf[iout].revents)
        read_stream(t, &t->out);
    if (ready > 0 && ierr >= 0 && pf[ierr].revents)
        read_stream(t, &t->err);
    if (t->proc.pidfd < 0 || (ready > 0 && ipid >= 0 && pf[ipid].revents))
        mcps_proc_try_reap(&t->proc);
}

/* ---- events ---- */

static void describe_exit(const stdio_transport *t, char *out, size_t n)
{
    mcps_proc_describe_exit(&t->proc, "target", out, n);
}

static void stderr_event(stdio_transport *t, const mcps_qline *l, mcps_tevent *ev)
{
    mcps_lineq *q = &t->err.q;
    char dropped[100] = "", cut[48] = "";
    if (q->dropped)
        snprintf(dropped, sizeof dropped,
                 "%zu earlier stderr lines (%llu bytes) dropped: more than %d KiB was waiting",
                 q->dropped, (unsigned long long)q->dropped_bytes, STDERR_KEEP / 1024);
    if (l->oversize)
        snprintf(cut, sizeof cut, "line truncated to its first %d bytes", STDERR_LINE_MAX);
    snprintf(ev->detail, sizeof ev->detail, "%s%s%s", dropped, dropped[0] && cut[0] ? "; " : "",
             cut);
    q->dropped = 0;
    q->dropped_bytes = 0;
    ev->kind = MCPS_TEV_STDERR;
    ev->data = l->data;
    ev->len = l->len;
}

static void message_event(const mcps_qline *l, mcps_tevent *ev)
{
    ev->kind = l->oversize ? MCPS_TEV_OVERSIZE : MCPS_TEV_MESSAGE;
    ev->data = l->data;
    ev->len = l->len;
    ev->offset = l->offset;
    ev->line = l->line;
    ev->terminated = l->terminated;
}

static bool deliver(stdio_transport *t, mcps_tevent *ev);

static bool deliver_exit(stdio_transport *t, mcps_tevent *ev)
{
    if (!t->exit_drained) {
        /* Lines written just before the exit come first. */
        t->exit_drained = true;
        drain(t);
        return deliver(t, ev);
    }
    t->exited_sent = true;
    ev->kind = MCPS_TEV_EXITED;
    mcps_proc_exit_fields(&t->proc, &ev->exit_code, &ev->term_signal);
    describe_exit(t, ev->detail, sizeof ev->detail);
    return true;
}

/* The next event already known, without waiting; false when there is none. */
static bool deliver(stdio_transport *t, mcps_tevent *ev)
{
    mcps_qline l;
    if (t->fail[0]) {
        ev->kind = MCPS_TEV_ERROR;
        snprintf(ev->detail, sizeof ev->detail, "%s", t->fail);
    } else if (mcps_lineq_pop(&t->err.q, &l)) {
        stderr_event(t, &l, ev);
    } else if (mcps_lineq_pop(&t->out.q, &l)) {
        message_event(&l, ev);
    } else if (t->out.eof && !t->closed_sent) {
        t->closed_sent = true;
        ev->kind = MCPS_TEV_CLOSED;
        snprintf(ev->detail, sizeof ev->detail, "%s",
                 t->out_cut ? "target's stdout closed by the harness at shutdown"
                            : "target closed its stdout");
    } else if ((t->proc.reaped || t->shut) && !t->exited_sent) {
        return deliver_exit(t, ev);
    } else if (t->closed_sent && t->exited_sent) {
        ev->kind = MCPS_TEV_GONE;
    } else {
        return false;
    }
    return true;
}

/* The run was stopped: that comes before anything still queued, for good. The guard is asked
 * once a millisecond at most, or at once when a poll saw it wake: a pipelined target's lines
 * come thousands a second, and a question for each was a tenth of a fuzz loop's time. */
static bool stopped(stdio_transport *t)
{
    if (t->stopped != MCPS_STOP_NONE || t->shut)
        return t->stopped != MCPS_STOP_NONE;
    int64_t now = mcps_clock_ms();
    if (now == t->guard_seen_ms && !t->guard_woke)
        return false;
    t->guard_seen_ms = now;
    t->guard_woke = false;
    t->stopped = mcps_guard_stopped(t->guard);
    return t->stopped != MCPS_STOP_NONE;
}

static bool deliver_stop(stdio_transport *t, mcps_tevent *ev)
{
    if (!stopped(t))
        return false;
    ev->kind = MCPS_TEV_STOPPED;
    snprintf(ev->detail, sizeof ev->detail, "%s", mcps_guard_reason(t->stopped));
    return true;
}

static void stdio_next(mcps_transport *base, int64_t deadline_ms, mcps_tevent *ev)
{
    stdio_transport *t = (stdio_transport *)base;
    bool late = false;
    *ev = (mcps_tevent){.kind = MCPS_TEV_TIMEOUT};
    while (!deliver_stop(t, ev) && !deliver(t, ev) && !late) {
        late = mcps_clock_ms() >= deadline_ms; /* one last look before TIMEOUT */
        wait_io(t, deadline_ms, false, true);
    }
}

/* ---- sending ---- */

static bool send_refused(stdio_transport *t, char *err, size_t errlen)
{
    char how[120];
    if (t->shut)
        snprintf(err, errlen, "cannot send: the target has been shut down");
    else if (stopped(t))
        snprintf(err, errlen, "cannot send: %s", mcps_guard_reason(t->stopped));
    else if (t->input_closed)
        snprintf(err, errlen, "cannot send: the target's stdin is already closed");
    else if (t->input_torn)
        snprintf(err, errlen, "cannot send: an earlier message was only partly written");
    else if (mcps_proc_try_reap(&t->proc)) {
        describe_exit(t, how, sizeof how);
        snprintf(err, errlen, "cannot send: %s", how);
    } else
        return false;
    return true;
}

static bool send_failed(stdio_transport *t, const char *why, size_t done, size_t len, char *err,
                        size_t errlen)
{
    if (done) {
        t->input_torn = true;
        snprintf(err, errlen, "cannot send: %s (%zu of %zu bytes written)", why, done, len);
    } else {
        snprintf(err, errlen, "cannot send: %s", why);
    }
    return false;
}

static bool send_timed_out(stdio_transport *t, size_t done, size_t len, char *err, size_t errlen)
{
    char why[160];
    int w = snprintf(why, sizeof why, "target is not reading its stdin (pipe full for %g s",
                     t->send_timeout);
    if (w > 0 && (size_t)w < sizeof why && !wants_read(t, &t->out) && *t->out.fd >= 0)
        snprintf(why + w, sizeof why - (size_t)w,
                 "; %zu bytes of its own output wait unread, our limit)",
                 mcps_lineq_bytes(&t->out.q));
    else if (w > 0 && (size_t)w < sizeof why)
        snprintf(why + w, sizeof why - (size_t)w, ")");
    return send_failed(t, why, done, len, err, errlen);
}

static bool stdio_send(mcps_transport *base, const char *bytes, size_t len, char *err,
                       size_t errlen)
{
    stdio_transport *t = (stdio_transport *)base;
    if (send_refused(t, err, errlen))
        return false;
    int64_t deadline = mcps_clock_deadline(t->send_timeout);
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(t->proc.in_fd, bytes + done, len - done);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN)
            return send_failed(t, errno == EPIPE ? "target closed its stdin" : strerror(errno),
                               done, len, err, errlen);
        if (mcps_clock_ms() >= deadline)
            return send_timed_out(t, done, len, err, errlen);
        wait_io(t, deadline, true, true);
        if (stopped(t))
            return send_failed(t, mcps_guard_reason(t->stopped), done, len, err, errlen);
        if (t->proc.reaped) {
            char how[120];
            describe_exit(t, how, sizeof how);
            return send_failed(t, how, done, len, err, errlen);
        }
    }
    return true;
}

static void stdio_close_input(mcps_transport *base)
{
    stdio_transport *t = (stdio_transport *)base;
    mcps_proc_close_fd(&t->proc.in_fd);
    t->input_closed = true;
}

/* ---- shutdown ---- */

static bool wait_exit(stdio_transport *t, double seconds)
{
    int64_t deadline = mcps_clock_deadline(seconds);
    while (!mcps_proc_try_reap(&t->proc)) {
        if (mcps_clock_ms() >= deadline)
            return false;
        wait_io(t, deadline, false, false);
    }
    return true;
}

/* LIFE-SHUT-001: close stdin, wait; SIGTERM, wait; SIGKILL, reap. */
static mcps_shutdown_how stop_target(stdio_transport *t)
{
    if (mcps_proc_try_reap(&t->proc))
        return MCPS_SHUT_EXITED_BEFORE;
    /* Once the run is stopped, nobody waits for a polite exit. */
    bool hurry = stopped(t);
    stdio_close_input(&t->base);
    if (wait_exit(t, hurry ? STOPPED_GRACE_SECS : t->close_grace))
        return MCPS_SHUT_ON_CLOSE;
    mcps_proc_signal_group(&t->proc, SIGTERM);
    mcps_proc_signal_group(&t->proc, SIGCONT); /* a stopped target must run to die */
    if (wait_exit(t, hurry ? STOPPED_GRACE_SECS : t->term_grace))
        return MCPS_SHUT_SIGTERM;
    mcps_proc_signal_group(&t->proc, SIGKILL);
    wait_exit(t, KILL_WAIT_SECS);
    return MCPS_SHUT_SIGKILL;
}

/* Take the last readable output, then close both streams: nothing more comes. */
static void finish_streams(stdio_transport *t)
{
    drain(t);
    t->exit_drained = true;
    if (*t->out.fd >= 0) {
        t->out_cut = true;
        end_stream(t, &t->out);
    }
    if (*t->err.fd >= 0)
        end_stream(t, &t->err);
}

static void run_shutdown(stdio_transport *t)
{
    int64_t start = mcps_clock_ms();
    mcps_shutdown_how how = stop_target(t);
    mcps_proc_finish_shutdown(&t->proc, t->guard, start, how, &t->report);
    finish_streams(t);
    stdio_close_input(&t->base);
    t->shut = true;
}

static void stdio_shutdown(mcps_transport *base, mcps_shutdown_report *report)
{
    stdio_transport *t = (stdio_transport *)base;
    if (!t->shut)
        run_shutdown(t);
    if (report)
        *report = t->report;
}

static void free_transport(stdio_transport *t)
{
    mcps_proc_close_fds(&t->proc);
    mcps_framer_free(&t->out.fr);
    mcps_framer_free(&t->err.fr);
    mcps_lineq_free(&t->out.q);
    mcps_lineq_free(&t->err.q);
    free(t->chunk);
    free(t);
}

static void stdio_destroy(mcps_transport *base)
{
    stdio_transport *t = (stdio_transport *)base;
    if (!t)
        return;
    if (!t->shut)
        run_shutdown(t);
    free_transport(t);
}

static const mcps_transport_ops stdio_ops = {
    .name = "stdio",
    .send = stdio_send,
    .next = stdio_next,
    .close_input = stdio_close_input,
    .shutdown = stdio_shutdown,
    .destroy = stdio_destroy,
};

/* ---- opening ---- */

static void init_limits(stdio_transport *t, const mcps_target_config *cfg)
{
    size_t max = cfg->max_message ? cfg->max_message : DEFAULT_MAX_MESSAGE;
    if (max > SIZE_MAX / 4)
        max = SIZE_MAX / 4;
    t->close_grace = or_default(cfg->close_grace, DEFAULT_GRACE);
    t->term_grace = or_default(cfg->term_grace, DEFAULT_GRACE);
    t->send_timeout = or_default(cfg->send_timeout, DEFAULT_SEND);
    t->guard = cfg->guard;
    /* Room for a whole longest message and then some while send() drains. */
    t->out_cap = 2 * max + CHUNK;
    mcps_framer_init(&t->out.fr, max);
    mcps_framer_init(&t->err.fr, STDERR_LINE_MAX);
    mcps_lineq_init(&t->out.q, 0);
    mcps_lineq_init(&t->err.q, STDERR_KEEP);
}

mcps_transport *mcps_stdio_open(const mcps_target_config *cfg, char *err, size_t errlen)
{
    stdio_transport *t = calloc(1, sizeof *t);
    if (!t || !(t->chunk = malloc(CHUNK))) {
        snprintf(err, errlen, "stdio transport: out of memory");
        free(t);
        return NULL;
    }
    t->base.ops = &stdio_ops;
    t->out.fd = &t->proc.out_fd;
    t->err.fd = &t->proc.err_fd;
    init_limits(t, cfg ? cfg : &(mcps_target_config){0});
    if (!mcps_proc_spawn(&t->proc, cfg, err, errlen)) {
        free_transport(t);
        return NULL;
    }
    return &t->base;
}

int mcps_stdio_pid(const mcps_transport *t)
{
    if (!t || t->ops != &stdio_ops)
        return -1;
    return (int)((const stdio_transport *)t)->proc.pid;
}
