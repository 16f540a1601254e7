/*
 * seq.c - input sequences: growable, owned copies of each line.
 */
#include "live/live.h"

#include "base/array.h"

#include <stdlib.h>
#include <string.h>

void mcps_live_seq_push(mcps_live_seq *q, const char *bytes, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy || !mcps_array_reserve(&q->items, &q->cap, q->n + 1, sizeof *q->items, 16)) {
        free(copy);
        return;
    }
    memcpy(copy, bytes, len);
    copy[len] = '\0';
    q->items[q->n++] = (mcps_live_input){copy, len};
}

void mcps_live_seq_free(mcps_live_seq *q)
{
    for (size_t i = 0; i < q->n; i++)
        free(q->items[i].bytes);
    free(q->items);
    *q = (mcps_live_seq){0};
}

void mcps_live_seq_subset(const mcps_live_seq *q, const bool *keep, mcps_live_seq *out)
{
    *out = (mcps_live_seq){0};
    for (size_t i = 0; i < q->n; i++)
        if (keep[i])
            mcps_live_seq_push(out, q->items[i].bytes, q->items[i].len);
}
