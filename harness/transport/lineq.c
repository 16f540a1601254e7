/*
 * lineq.c - FIFO of owned lines in one buffer; see lineq.h.
 *
 * Records are appended to a single mcps_buf and consumed by moving a head
 * offset, so dropping or popping a line is O(1); the consumed prefix is
 * compacted away lazily, only when it is at least half the buffer.
 */
#include "transport/lineq.h"

#include <string.h>

typedef struct rec {
    uint64_t offset;
    uint64_t line;
    size_t len;
    unsigned char flags;
} rec;

enum { REC_TERMINATED = 1, REC_OVERSIZE = 2 };

void mcps_lineq_init(mcps_lineq *q, size_t cap)
{
    *q = (mcps_lineq){.cap = cap};
}

void mcps_lineq_free(mcps_lineq *q)
{
    mcps_buf_free(&q->buf);
    *q = (mcps_lineq){0};
}

size_t mcps_lineq_bytes(const mcps_lineq *q)
{
    return q->buf.len - q->head;
}

/* Read the record at head and step past it. */
static rec take_head(mcps_lineq *q, const char **data)
{
    rec r;
    memcpy(&r, q->buf.data + q->head, sizeof r);
    *data = q->buf.data + q->head + sizeof r;
    q->head += sizeof r + r.len;
    if (--q->count == 0) {
        /* Empty: restart at 0. The bytes stay in place until the next push. */
        q->head = 0;
        q->buf.len = 0;
    }
    return r;
}

static void drop_oldest(mcps_lineq *q, size_t need)
{
    while (q->cap && q->count && mcps_lineq_bytes(q) + need > q->cap) {
        const char *ignored;
        rec r = take_head(q, &ignored);
        q->dropped++;
        q->dropped_bytes += r.len;
    }
}

bool mcps_lineq_push(mcps_lineq *q, const mcps_qline *l)
{
    rec r = {
        l->offset, l->line, l->len,
        (unsigned char)((l->terminated ? REC_TERMINATED : 0) | (l->oversize ? REC_OVERSIZE : 0))};
    drop_oldest(q, sizeof r + l->len);
    if (q->head && q->head >= q->buf.len / 2) {
        mcps_buf_consume(&q->buf, q->head);
        q->head = 0;
    }
    if (!mcps_buf_reserve(&q->buf, sizeof r + l->len))
        return false;
    mcps_buf_append(&q->buf, &r, sizeof r);
    mcps_buf_append(&q->buf, l->data, l->len);
    q->count++;
    return true;
}

bool mcps_lineq_pop(mcps_lineq *q, mcps_qline *out)
{
    if (!q->count)
        return false;
    const char *data;
    rec r = take_head(q, &data);
    *out = (mcps_qline){data,
                        r.len,
                        r.offset,
                        (size_t)r.line,
                        (r.flags & REC_TERMINATED) != 0,
                        (r.flags & REC_OVERSIZE) != 0};
    return true;
}
