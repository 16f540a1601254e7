/*
 * http_session.c - the MCP sessions of the HTTP front end: one stdio
 * refserver child each, lines relayed both ways, and every line from the
 * child routed to the HTTP stream it belongs on.
 *
 * Routing: a response goes to the stream that POSTed its id (a batch reply to
 * the batch's); a server request or notification goes to the POST stream
 * whose request carried its progress token, else to the newest POST stream
 * still waiting for a response, else to the GET stream, else waits (bounded)
 * for the next GET stream. A response no stream asked for (a fault echoing a
 * changed id) goes to the oldest waiting POST stream, where a client sees it.
 */
#include "http.h"

#include "codec/json.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RS_HTTP_READ_CHUNK 65536

/* ---- children ---- */

static void child_exec(const rs_hserver *h, int in_fd, int out_fd, pid_t parent)
{
    /* Dies with the front end, even by SIGKILL, so no child is ever orphaned. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0)
        _exit(127);
    execv(h->opts->child_path, h->opts->child_argv);
    _exit(127);
}

static bool cloexec_pipe(int fds[2])
{
    if (pipe(fds) != 0)
        return false;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return true;
}

static bool spawn(rs_hserver *h, rs_hsession *s)
{
    int in[2], out[2];
    if (!cloexec_pipe(in))
        return false;
    if (!cloexec_pipe(out)) {
        close(in[0]);
        close(in[1]);
        return false;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        child_exec(h, in[0], out[1], parent);
    close(in[0]);
    close(out[1]);
    if (pid < 0) {
        close(in[1]);
        close(out[0]);
        return false;
    }
    s->pid = pid;
    s->to_child = in[1];
    s->from_child = out[0];
    fcntl(s->to_child, F_SETFL, O_NONBLOCK);
    fcntl(s->from_child, F_SETFL, O_NONBLOCK);
    return true;
}

void rs_hdying_add(rs_hserver *h, pid_t pid)
{
    if (h->ndying < sizeof h->dying / sizeof h->dying[0]) {
        h->dying[h->ndying++] = (rs_hdying){pid, rs_now_ms() + RS_HTTP_GRACE_MS};
        return;
    }
    /* No room to wait politely. */
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

void rs_hreap(rs_hserver *h, bool block)
{
    int64_t give_up = rs_now_ms() + RS_HTTP_GRACE_MS;
    for (;;) {
        pid_t pid;
        int status;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
            /* A one-process server dies with the request that crashed it. */
            if (WIFSIGNALED(status) && rs_hfault(h, RS_FAULT_FUZZ_SERVER_CRASH))
                abort();
            for (size_t i = 0; i < h->ndying; i++) {
                if (h->dying[i].pid == pid) {
                    h->dying[i] = h->dying[--h->ndying];
                    break;
                }
            }
        }
        if (pid < 0 && errno == ECHILD)
            h->ndying = 0; /* no child is left to wait for, whatever the list says */
        int64_t now = rs_now_ms();
        for (size_t i = 0; i < h->ndying; i++) {
            if (now >= h->dying[i].kill_at || (block && now >= give_up)) {
                kill(h->dying[i].pid, SIGKILL); /* stdin closed, yet still running */
                h->dying[i].kill_at = INT64_MAX;
            }
        }
        if (!block || !h->ndying)
            return;
        nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
    }
}

/* ---- sessions ---- */

rs_hsession *rs_hsession_new(rs_hserver *h, bool legacy)
{
    if (h->nsessions == RS_HTTP_MAX_SESSIONS)
        return NULL;
    rs_hsession *s = calloc(1, sizeof *s);
    char hex[33];
    if (!s || !rs_hrandom_hex(hex)) {
        free(s);
        return NULL;
    }
    h->sessions_made++;
    if (rs_hfault(h, RS_FAULT_HTTP_SESSION_ID_SPACE)) /* 33 characters, one not visible */
        snprintf(s->id, sizeof s->id, "%.16s %s", hex, hex + 16);
    else if (rs_hfault(h, RS_FAULT_HTTP_SESSION_ID_COUNTER))
        snprintf(s->id, sizeof s->id, "mcp-session-%lu", h->sessions_made);
    else
        memcpy(s->id, hex, sizeof hex);
    s->legacy = legacy;
    s->rev = MCPS_REV_NONE;
    s->to_child = s->from_child = -1;
    s->created_ms = rs_now_ms();
    mcps_framer_init(&s->framer, RS_MAX_LINE);
    if (!spawn(h, s)) {
        mcps_framer_free(&s->framer);
        free(s);
        return NULL;
    }
    h->sessions[h->nsessions++] = s;
    rs_debug(h->cfg, "session %s: child %d", s->id, (int)s->pid);
    return s;
}

rs_hsession *rs_hsession_find(rs_hserver *h, const char *id)
{
    for (size_t i = 0; id && i < h->nsessions; i++) {
        if (!h->sessions[i]->ended && !h->sessions[i]->stateless &&
            strcmp(h->sessions[i]->id, id) == 0)
            return h->sessions[i];
    }
    return NULL;
}

rs_hsession *rs_hsession_newest(rs_hserver *h)
{
    for (size_t i = h->nsessions; i > 0; i--) {
        if (!h->sessions[i - 1]->ended && !h->sessions[i - 1]->legacy &&
            !h->sessions[i - 1]->stateless)
            return h->sessions[i - 1];
    }
    return NULL;
}

static void pending_remove_at(rs_hsession *s, size_t i)
{
    free(s->pending[i].key);
    s->pending[i] = s->pending[--s->npending];
}

void rs_hsession_drop_stream(rs_hsession *s, rs_hstream *st)
{
    if (s) {
        for (rs_hstream **p = &s->streams; *p; p = &(*p)->next) {
            if (*p == st) {
                *p = st->next;
                break;
            }
        }
        for (size_t i = s->npending; i > 0; i--) {
            if (s->pending[i - 1].stream == st)
                pending_remove_at(s, i - 1);
        }
        if (s->get == st)
            s->get = NULL;
    }
    rs_hstream_free(st);
}

void rs_hsession_end(rs_hserver *h, rs_hsession *s, bool by_child)
{
    if (s->ended)
        return;
    s->ended = true;
    rs_debug(h->cfg, "session %s ends (%s)", s->id, by_child ? "its child exited" : "deleted");
    if (s->to_child >= 0)
        close(s->to_child);
    if (s->from_child >= 0)
        close(s->from_child);
    s->to_child = s->from_child = -1;
    if (s->pid > 0)
        rs_hdying_add(h, s->pid);
    s->pid = 0;
    while (s->streams) {
        rs_hstream *st = s->streams;
        s->streams = st->next;
        st->next = NULL;
        st->ended_by_child = by_child;
        rs_hstream_release(st);
    }
    s->get = NULL;
    while (s->npending)
        pending_remove_at(s, s->npending - 1);
    for (size_t i = 0; i < s->nwaiting; i++)
        free(s->waiting[i]);
    s->nwaiting = 0;
    rs_hhistory_free(s);
    mcps_buf_free(&s->inbuf);
}

static void session_free(rs_hsession *s)
{
    free(s->pending);
    mcps_framer_free(&s->framer);
    free(s);
}

/* http-stream-lingers: a stream held open past its response keeps its 2026-07-28 request's
 * child (and so the stream) alive until the timer finishes it. */
static bool lingering(const rs_hsession *s)
{
    for (const rs_hstream *st = s->streams; st; st = st->next) {
        if (st->linger_until)
            return true;
    }
    return false;
}

void rs_hsession_sweep(rs_hserver *h)
{
    size_t kept = 0;
    for (size_t i = 0; i < h->nsessions; i++) {
        rs_hsession *s = h->sessions[i];
        if (s->orphaned)
            rs_hsession_end(h, s, false); /* its legacy stream's reader went away */
        /* 2026-07-28: a request's child ends once it answered, or once nobody waits. */
        if (s->stateless && (!s->npending || !s->streams) && !lingering(s))
            rs_hsession_end(h, s, false);
        if (s->ended) {
            session_free(s);
            continue;
        }
        h->sessions[kept++] = s;
        /* Finished streams nobody reads any more: their events live on in the history. */
        for (rs_hstream **p = &s->streams; *p;) {
            rs_hstream *st = *p;
            if (st->kind != RS_HS_JSON && st->finished && !st->conn) {
                *p = st->next;
                st->next = NULL;
                rs_hsession_drop_stream(NULL, st);
                continue;
            }
            p = &st->next;
        }
    }
    h->nsessions = kept;
}

/* ---- towards the child ---- */

void rs_hsession_writable(rs_hsession *s)
{
    while (s->to_child >= 0 && s->insent < s->inbuf.len) {
        ssize_t n = write(s->to_child, s->inbuf.data + s->insent, s->inbuf.len - s->insent);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            /* The child stopped reading for good; its stdout's end will end the session. */
            mcps_buf_clear(&s->inbuf);
            s->insent = 0;
            return;
        }
        s->insent += (size_t)n;
    }
    mcps_buf_clear(&s->inbuf);
    s->insent = 0;
}

bool rs_hsession_send(rs_hsession *s, const char *data, size_t len)
{
    if (s->ended || s->to_child < 0 || s->inbuf.len - s->insent + len > RS_HTTP_MAX_QUEUED)
        return false;
    mcps_buf_append(&s->inbuf, data, len);
    mcps_buf_putc(&s->inbuf, '\n');
    if (s->inbuf.oom)
        return false;
    rs_hsession_writable(s);
    return true;
}

bool rs_hsession_expect(rs_hsession *s, const char *key, rs_hstream *st)
{
    if (s->npending == s->cap_pending) {
        size_t cap = s->cap_pending ? s->cap_pending * 2 : 16;
        rs_hpending *p = realloc(s->pending, cap * sizeof *p);
        if (!p)
            return false;
        s->pending = p;
        s->cap_pending = cap;
    }
    char *copy = strdup(key);
    if (!copy)
        return false;
    s->pending[s->npending++] = (rs_hpending){copy, st};
    st->outstanding++;
    return true;
}

/* ---- from the child ---- */

static ssize_t pending_find(const rs_hsession *s, const char *key)
{
    for (size_t i = 0; key && i < s->npending; i++) {
        if (strcmp(s->pending[i].key, key) == 0)
            return (ssize_t)i;
    }
    return -1;
}

static void to_waiting(rs_hsession *s, const char *line, size_t len)
{
    if (s->nwaiting == RS_HTTP_WAITING)
        return; /* nobody listens and the queue is full: dropped */
    char *copy = strndup(line, len);
    if (copy)
        s->waiting[s->nwaiting++] = copy;
}

void rs_hsession_flush_waiting(rs_hserver *h, rs_hsession *s)
{
    for (size_t i = 0; i < s->nwaiting; i++) {
        if (s->get)
            rs_hstream_event(h, s->get, s->waiting[i], strlen(s->waiting[i]));
        free(s->waiting[i]);
    }
    s->nwaiting = 0;
}

static bool stream_open(const rs_hstream *st)
{
    return st->kind == RS_HS_POST && !st->finished && st->outstanding > 0;
}

/* A server request or notification (or a line that is not JSON at all). */
static void route_message(rs_hserver *h, rs_hsession *s, const cJSON *msg, const char *line,
                          size_t len)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    char *token = rs_hid_key(cJSON_GetObjectItemCaseSensitive(params, "progressToken"));
    rs_hstream *to = NULL;
    for (rs_hstream *st = s->streams; token && st && !to; st = st->next) {
        if (stream_open(st) && st->progress_token && strcmp(st->progress_token, token) == 0)
            to = st;
    }
    if (to && s->get && rs_hfault(h, RS_FAULT_HTTP_PROGRESS_ON_GET))
        to = s->get;
    free(token);
    for (rs_hstream *st = s->streams; st && !to; st = st->next) {
        if (stream_open(st))
            to = st; /* the list is newest first */
    }
    if (!to)
        to = s->get;
    if (to && to != s->get && s->get && rs_hfault(h, RS_FAULT_HTTP_BROADCAST))
        rs_hstream_event(h, s->get, line, len);
    if (to)
        rs_hstream_event(h, to, line, len);
    else
        to_waiting(s, line, len);
}

static void answer(rs_hserver *h, rs_hstream *st, const char *line, size_t len)
{
    if (st->kind == RS_HS_JSON) {
        if (st->answer)
            return;
        st->answer = strndup(line, len);
        st->answer_len = st->answer ? len : 0;
        st->outstanding = 0;
        rs_hstream_finish(st);
        return;
    }
    if (st->kind == RS_HS_POST && rs_hfault(h, RS_FAULT_HTTP_STREAM_ENDS_EARLY))
        rs_hstream_finish(st); /* so the response below is dropped, not sent */
    rs_hstream_event(h, st, line, len);
    if (st->outstanding > 0 && --st->outstanding == 0) {
        if (rs_hfault(h, RS_FAULT_HTTP_STREAM_LINGERS))
            st->linger_until = rs_now_ms() + RS_HTTP_LINGER_MS;
        else
            rs_hstream_finish(st);
    }
}

static rs_hstream *oldest_open(rs_hsession *s, bool batch)
{
    rs_hstream *found = NULL;
    for (rs_hstream *st = s->streams; st; st = st->next) {
        if (batch ? (st->kind == RS_HS_JSON && st->batch && !st->answer) : stream_open(st))
            found = st;
    }
    return found;
}

static void route_batch_reply(rs_hserver *h, rs_hsession *s, const cJSON *arr, const char *line,
                              size_t len)
{
    rs_hstream *to = NULL;
    const cJSON *el;
    cJSON_ArrayForEach(el, arr)
    {
        char *key = rs_hid_key(cJSON_GetObjectItemCaseSensitive(el, "id"));
        ssize_t i = pending_find(s, key);
        free(key);
        if (i >= 0) {
            to = s->pending[i].stream;
            break;
        }
    }
    if (!to) {
        rs_debug(h->cfg, "session %s: a batch reply for no pending batch, dropped", s->id);
        return;
    }
    for (size_t i = s->npending; i > 0; i--) {
        if (s->pending[i - 1].stream == to)
            pending_remove_at(s, i - 1);
    }
    to->outstanding = 1;
    answer(h, to, line, len);
}

static void route_response(rs_hserver *h, rs_hsession *s, const cJSON *msg, const char *line,
                           size_t len)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    char *key = rs_hid_key(id);
    ssize_t i = pending_find(s, key);
    free(key);
    rs_hstream *to = NULL;
    if (i >= 0) {
        to = s->pending[i].stream;
        pending_remove_at(s, (size_t)i);
        if (rs_hfault(h, RS_FAULT_HTTP_RESPONSE_ON_GET) && s->get)
            rs_hstream_event(h, s->get, line, len);
        answer(h, to, line, len);
        return;
    }
    if (cJSON_IsNull(id) && (to = oldest_open(s, true))) {
        /* A batch refused as a whole: one error, id null. */
        for (size_t j = s->npending; j > 0; j--) {
            if (s->pending[j - 1].stream == to)
                pending_remove_at(s, j - 1);
        }
        answer(h, to, line, len);
        return;
    }
    if ((to = oldest_open(s, false)))
        rs_hstream_event(h, to, line, len);
    else
        rs_debug(h->cfg, "session %s: a response for no pending request, dropped", s->id);
}

static void route_legacy(rs_hserver *h, rs_hsession *s, const cJSON *msg, const char *line,
                         size_t len)
{
    if (rs_hfault(h, RS_FAULT_SSE_RESPONSE_IN_POST) && cJSON_IsObject(msg) &&
        !cJSON_HasObjectItem(msg, "method")) {
        char *key = rs_hid_key(cJSON_GetObjectItemCaseSensitive(msg, "id"));
        ssize_t i = pending_find(s, key);
        free(key);
        if (i >= 0) {
            rs_hstream *to = s->pending[i].stream;
            pending_remove_at(s, (size_t)i);
            answer(h, to, line, len);
            return;
        }
    }
    if (s->get)
        rs_hstream_event(h, s->get, line, len);
    else
        to_waiting(s, line, len);
}

static void route(rs_hserver *h, rs_hsession *s, const char *line, size_t len)
{
    cJSON *msg = mcps_json_parse_simple(line, len);
    if (s->legacy)
        route_legacy(h, s, msg, line, len);
    else if (cJSON_IsArray(msg))
        route_batch_reply(h, s, msg, line, len);
    else if (cJSON_IsObject(msg) && !cJSON_HasObjectItem(msg, "method") &&
             cJSON_HasObjectItem(msg, "id"))
        route_response(h, s, msg, line, len);
    else
        route_message(h, s, msg, line, len);
    mcps_json_delete(msg);
}

void rs_hsession_readable(rs_hserver *h, rs_hsession *s)
{
    char chunk[RS_HTTP_READ_CHUNK];
    ssize_t n = read(s->from_child, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0 || !mcps_framer_feed(&s->framer, chunk, (size_t)n)) {
        mcps_frame frame;
        if (n == 0 && mcps_framer_finish(&s->framer, &frame))
            route(h, s, frame.data, frame.len);
        rs_hsession_end(h, s, true);
        return;
    }
    mcps_frame frame;
    while (!s->ended && mcps_framer_next(&s->framer, &frame)) {
        if (frame.oversize)
            rs_debug(h->cfg, "session %s: a line over the limit from the child, dropped", s->id);
        else
            route(h, s, frame.data, frame.len);
    }
}
