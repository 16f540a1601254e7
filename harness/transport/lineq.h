/*
 * lineq.h - a FIFO of owned lines, optionally capped by bytes (drop oldest).
 *
 * The stdio transport frames everything it reads at once and parks the lines
 * here until next() hands them out, so the framers stay small and a line
 * survives reads made while send() or shutdown() drain the pipes. stdout uses
 * it uncapped (the reader stops reading instead); stderr uses a cap and drops
 * its oldest lines, counting what it dropped.
 */
#ifndef MCPS_TRANSPORT_LINEQ_H
#define MCPS_TRANSPORT_LINEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

typedef struct mcps_qline {
    const char *data; /* from pop: valid until the next push */
    size_t len;
    uint64_t offset;
    size_t line;
    bool terminated;
    bool oversize;
} mcps_qline;

typedef struct mcps_lineq {
    mcps_buf buf;           /* records: header then bytes, oldest from head */
    size_t head;            /* offset of the oldest record in buf */
    size_t count;           /* records queued */
    size_t cap;             /* 0: unbounded; else bytes kept before dropping the oldest */
    size_t dropped;         /* lines dropped since the counters were last reset */
    uint64_t dropped_bytes; /* their payload bytes */
} mcps_lineq;

void mcps_lineq_init(mcps_lineq *q, size_t cap);
void mcps_lineq_free(mcps_lineq *q);
/* Copy a line in; false when memory ran out (the line is lost). */
bool mcps_lineq_push(mcps_lineq *q, const mcps_qline *l);
/* The oldest line; false when empty. */
bool mcps_lineq_pop(mcps_lineq *q, mcps_qline *out);
/* Bytes held (headers included): what the cap is measured against. */
size_t mcps_lineq_bytes(const mcps_lineq *q);

#endif
