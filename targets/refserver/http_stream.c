/*
 * http_stream.c - the SSE streams of the HTTP front end: event encoding, the
 * per-session history that Last-Event-ID resumes from, and the content reader
 * that suspends its connection while a stream has nothing to say.
 *
 * A stream is owned twice: by its session (until the session ends) and by the
 * connection reading it (until libmicrohttpd frees the response). It is freed
 * when both have let go, so neither side ever sees a dangling pointer.
 */
#include "http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rs_hstream *rs_hstream_new(rs_hsession *s, rs_hs_kind kind)
{
    rs_hstream *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->session = s;
    st->kind = kind;
    st->number = ++s->stream_seq;
    st->next = s->streams;
    s->streams = st;
    return st;
}

void rs_hstream_free(rs_hstream *st)
{
    mcps_buf_free(&st->out);
    free(st->answer);
    free(st->progress_token);
    free(st);
}

void rs_hstream_wake(rs_hstream *st)
{
    if (st->suspended && st->conn) {
        st->suspended = false;
        MHD_resume_connection(st->conn);
    }
}

void rs_hstream_finish(rs_hstream *st)
{
    st->finished = true;
    rs_hstream_wake(st);
}

void rs_hstream_release(rs_hstream *st)
{
    st->session = NULL;
    st->finished = true;
    if (st->conn)
        rs_hstream_wake(st); /* the reader ends the stream, then the free callback frees it */
    else
        rs_hstream_free(st);
}

void rs_hstream_raw(rs_hstream *st, const char *text)
{
    mcps_buf_puts(&st->out, text);
    rs_hstream_wake(st);
}

/* data split at CR, LF and CRLF into data: lines, as the event-stream format wants. */
static void put_data(mcps_buf *b, const char *data, size_t len)
{
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && data[i] != '\r' && data[i] != '\n')
            continue;
        mcps_buf_puts(b, "data: ");
        mcps_buf_append(b, data + start, i - start);
        mcps_buf_putc(b, '\n');
        if (i + 1 < len && data[i] == '\r' && data[i + 1] == '\n')
            i++;
        start = i + 1;
    }
}

static void history_drop_oldest(rs_hsession *s)
{
    rs_hevent *e = &s->history[s->hist_start];
    s->hist_bytes -= e->len;
    free(e->data);
    e->data = NULL;
    s->hist_start = (s->hist_start + 1) % RS_HTTP_HISTORY;
    s->nhist--;
}

static void history_add(rs_hsession *s, unsigned long stream, unsigned long n, const char *data,
                        size_t len)
{
    if (len > RS_HTTP_HISTORY_SIZE)
        return;
    while (s->nhist && (s->nhist == RS_HTTP_HISTORY || s->hist_bytes + len > RS_HTTP_HISTORY_SIZE))
        history_drop_oldest(s);
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, data, len);
    copy[len] = '\0';
    rs_hevent *e = &s->history[(s->hist_start + s->nhist) % RS_HTTP_HISTORY];
    *e = (rs_hevent){stream, n, copy, len};
    s->nhist++;
    s->hist_bytes += len;
}

void rs_hhistory_free(rs_hsession *s)
{
    while (s->nhist)
        history_drop_oldest(s);
}

/* "<stream>-<n>": unique in the session, and names the stream a resumption continues. */
static void put_id(const rs_hserver *h, rs_hstream *st, unsigned long stream, unsigned long n)
{
    if (rs_hfault(h, RS_FAULT_HTTP_EVENT_IDS_PER_STREAM))
        mcps_buf_printf(&st->out, "id: %lu\n", n);
    else
        mcps_buf_printf(&st->out, "id: %lu-%lu\n", stream, n);
}

static void put_event(const rs_hserver *h, rs_hstream *st, unsigned long stream, unsigned long n,
                      const char *data, size_t len)
{
    if (st->out.len - st->sent + len > RS_HTTP_MAX_QUEUED) {
        /* A reader that does not read: stop feeding it rather than grow without bound. */
        rs_hstream_finish(st);
        return;
    }
    if (st->kind != RS_HS_LEGACY)
        put_id(h, st, stream, n);
    mcps_buf_puts(&st->out, "event: message\n");
    put_data(&st->out, data, len);
    mcps_buf_putc(&st->out, '\n');
    rs_hstream_wake(st);
}

void rs_hstream_event(rs_hserver *h, rs_hstream *st, const char *data, size_t len)
{
    if (st->finished)
        return;
    unsigned long n = ++st->seq;
    if (st->kind != RS_HS_LEGACY && st->session)
        history_add(st->session, st->number, n, data, len);
    put_event(h, st, st->number, n, data, len);
}

void rs_hstream_prime(rs_hserver *h, rs_hstream *st)
{
    if (rs_hfault(h, RS_FAULT_HTTP_NO_PRIMING) || !st->session ||
        st->session->rev != MCPS_REV_2025_11_25) {
        /* libmicrohttpd sends the status line with the first body bytes: a quiet stream
         * would leave its client waiting for headers. A comment is no event. */
        rs_hstream_raw(st, ": stream open\n\n");
        return;
    }
    put_id(h, st, st->number, ++st->seq);
    mcps_buf_puts(&st->out, "data: \n\n");
    rs_hstream_wake(st);
}

void rs_hstream_replay(rs_hserver *h, rs_hstream *to, unsigned long number, unsigned long n)
{
    rs_hsession *s = to->session;
    bool foreign = rs_hfault(h, RS_FAULT_HTTP_RESUME_FOREIGN);
    for (size_t i = 0; s && i < s->nhist; i++) {
        const rs_hevent *e = &s->history[(s->hist_start + i) % RS_HTTP_HISTORY];
        if ((e->stream == number && e->n > n) || (foreign && e->stream != number))
            put_event(h, to, e->stream, e->n, e->data, e->len);
    }
}

/* ---- the connection's side ---- */

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    rs_hstream *st = cls;
    size_t avail = st->out.len - st->sent;
    if (avail) {
        size_t n = avail < max ? avail : max;
        memcpy(buf, st->out.data + st->sent, n);
        st->sent += n;
        if (st->sent == st->out.len) {
            mcps_buf_clear(&st->out);
            st->sent = 0;
        }
        return (ssize_t)n;
    }
    if (st->finished)
        return MHD_CONTENT_READER_END_OF_STREAM;
    /* Nothing yet: sleep until rs_hstream_wake, instead of being polled in a busy loop. */
    st->suspended = true;
    MHD_suspend_connection(st->conn);
    return 0;
}

static void stream_detach(void *cls)
{
    rs_hstream *st = cls;
    st->conn = NULL;
    st->suspended = false;
    if (st->session) {
        rs_hsession *s = st->session;
        if (s->get == st)
            s->get = NULL;
        if (st->kind == RS_HS_LEGACY)
            s->orphaned = true;
        return; /* a POST stream keeps collecting events for a resuming GET */
    }
    rs_hstream_free(st);
}

bool rs_hstream_respond(rs_hserver *h, struct MHD_Connection *conn, rs_hstream *st, unsigned status)
{
    struct MHD_Response *resp =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, stream_read, st, stream_detach);
    if (!resp)
        return false;
    bool text_plain = rs_hfault(h, RS_FAULT_HTTP_WRONG_CONTENT_TYPE) && st->kind == RS_HS_POST;
    MHD_add_response_header(resp, "Content-Type", text_plain ? "text/plain" : "text/event-stream");
    MHD_add_response_header(resp, "Cache-Control", "no-cache");
    /* So that a reverse proxy passes each event on at once (HTTP-051). */
    if (!(st->modern && rs_hfault(h, RS_FAULT_HTTP_MODERN_NO_ACCEL_BUFFERING)))
        MHD_add_response_header(resp, "X-Accel-Buffering", "no");
    st->conn = conn;
    enum MHD_Result ok = MHD_queue_response(conn, status, resp);
    MHD_destroy_response(resp);
    if (ok != MHD_YES)
        st->conn = NULL;
    return ok == MHD_YES;
}
