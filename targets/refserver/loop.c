/*
 * loop.c - the single-threaded event loop: poll stdin with the deadline of
 * the next slow-tool step or task expiry, frame lines, run due steps, delete
 * expired tasks. Requests keep being answered while slow calls run, and a
 * notifications/cancelled or tasks/cancel can reach them.
 */
#include "server.h"

#include <errno.h>
#include <poll.h>
#include <unistd.h>

#define RS_READ_CHUNK 65536

static void drain_lines(rs_server *s)
{
    mcps_frame frame;
    while (!s->done && mcps_framer_next(&s->framer, &frame))
        rs_handle_line(s, frame.data, frame.len, frame.oversize);
}

static void at_eof(rs_server *s)
{
    mcps_frame frame;
    s->eof = true;
    if (!s->done && mcps_framer_finish(&s->framer, &frame))
        rs_handle_line(s, frame.data, frame.len, false);
    rs_debug(s, "end of input");
    rs_listen_close_all(s); /* SUB-009: the server ends them, so it answers them */
    if (!rs_fault_on(s, RS_FAULT_IGNORE_STDIN_EOF))
        s->done = true; /* running slow calls are abandoned unanswered */
}

static void read_input(rs_server *s)
{
    char chunk[RS_READ_CHUNK];
    ssize_t n = read(s->in_fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        at_eof(s);
        return;
    }
    if (!mcps_framer_feed(&s->framer, chunk, (size_t)n)) {
        rs_debug(s, "out of memory buffering input");
        s->done = true;
        return;
    }
    drain_lines(s);
}

void rs_play(rs_server *s, const char *bytes, size_t len)
{
    if (!mcps_framer_feed(&s->framer, bytes, len)) {
        rs_debug(s, "out of memory buffering input");
        s->done = true;
        return;
    }
    drain_lines(s);
    if (!s->done)
        at_eof(s);
}

/* Until the next slow step, task expiry or client deadline; -1 (forever) when there is none. */
static int poll_timeout(const rs_server *s)
{
    int64_t wait = rs_jobs_timeout(s), expiry = rs_tasks_timeout(s), calls = rs_calls_timeout(s);
    if (wait < 0 || (expiry >= 0 && expiry < wait))
        wait = expiry;
    if (wait < 0 || (calls >= 0 && calls < wait))
        wait = calls;
    if (wait < 0)
        return -1;
    return wait > 60000 ? 60000 : (int)wait;
}

int rs_run(rs_server *s)
{
    while (!s->done) {
        struct pollfd p = {.fd = s->in_fd, .events = POLLIN};
        /* After EOF (ignore-stdin-eof) only timers remain: poll nothing. */
        int n = poll(s->eof ? NULL : &p, s->eof ? 0 : 1, poll_timeout(s));
        if (n < 0 && errno != EINTR) {
            rs_debug(s, "poll failed");
            return 1;
        }
        if (n > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))
            read_input(s);
        if (!s->done)
            rs_jobs_run_due(s);
        if (!s->done)
            rs_tasks_expire(s);
        if (!s->done)
            rs_calls_expire(s);
    }
    return 0;
}
