/*
 * frame.c - newline framing with bounded memory; see frame.h.
 */
#include "codec/frame.h"

#include <string.h>

void mcps_framer_init(mcps_framer *f, size_t max_line)
{
    *f = (mcps_framer){.max_line = max_line};
}

void mcps_framer_free(mcps_framer *f)
{
    mcps_buf_free(&f->buf);
}

uint64_t mcps_framer_offset(const mcps_framer *f)
{
    return f->base + f->buf.len;
}

/* Forget consumed bytes once they are the larger part of the buffer. */
static void compact(mcps_framer *f)
{
    if (f->start == 0 || f->start < f->buf.len / 2)
        return;
    f->base += f->start;
    mcps_buf_consume(&f->buf, f->start);
    f->start = 0;
}

bool mcps_framer_feed(mcps_framer *f, const char *data, size_t len)
{
    compact(f);
    mcps_buf_append(&f->buf, data, len);
    return !f->buf.oom;
}

/* Drop the pending bytes of an over-long line, keeping stream offsets right. */
static void drop_pending(mcps_framer *f, size_t upto)
{
    f->start = upto;
    f->scanned = 0;
    compact(f);
}

bool mcps_framer_next(mcps_framer *f, mcps_frame *out)
{
    for (;;) {
        size_t avail = f->buf.len - f->start;
        const char *line = f->buf.data + f->start;
        const char *nl =
            avail > f->scanned ? memchr(line + f->scanned, '\n', avail - f->scanned) : NULL;
        if (f->discarding) {
            if (!nl) {
                drop_pending(f, f->buf.len);
                return false;
            }
            f->discarding = false;
            drop_pending(f, f->start + (size_t)(nl - line) + 1);
            continue;
        }
        if (nl) {
            size_t n = (size_t)(nl - line);
            *out = (mcps_frame){line, n, f->base + f->start, true, n > f->max_line};
            if (out->oversize)
                out->len = f->max_line;
            f->start += n + 1;
            f->scanned = 0;
            return true;
        }
        f->scanned = avail;
        if (avail <= f->max_line)
            return false;
        *out = (mcps_frame){line, f->max_line, f->base + f->start, false, true};
        f->discarding = true; /* its bytes are dropped on the next call */
        f->scanned = 0;
        return true;
    }
}

bool mcps_framer_finish(mcps_framer *f, mcps_frame *out)
{
    size_t avail = f->buf.len - f->start;
    if (f->discarding || avail == 0)
        return false;
    const char *line = f->buf.data + f->start;
    *out = (mcps_frame){line, avail, f->base + f->start, false, false};
    f->start = f->buf.len;
    return true;
}
