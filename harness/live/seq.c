/*
 * seq.c - input sequences: growable, owned copies of each line (and its HTTP headers); and
 * sources, inputs made on demand, taken into sequences a part at a time.
 */
#include "live/live.h"

#include "base/array.h"

#include <stdlib.h>
#include <string.h>

static void push(mcps_live_seq *q, const char *bytes, size_t len, const char *headers)
{
    char *copy = malloc(len + 1);
    char *hcopy = headers ? strdup(headers) : NULL;
    if (!copy || (headers && !hcopy) ||
        !mcps_array_reserve(&q->items, &q->cap, q->n + 1, sizeof *q->items, 16)) {
        free(copy);
        free(hcopy);
        return;
    }
    memcpy(copy, bytes, len);
    copy[len] = '\0';
    q->items[q->n++] = (mcps_live_input){copy, len, hcopy};
}

void mcps_live_seq_push(mcps_live_seq *q, const char *bytes, size_t len)
{
    push(q, bytes, len, NULL);
}

void mcps_live_seq_adopt(mcps_live_seq *q, char *bytes, size_t len)
{
    if (!mcps_array_reserve(&q->items, &q->cap, q->n + 1, sizeof *q->items, 16)) {
        free(bytes);
        return;
    }
    q->items[q->n++] = (mcps_live_input){bytes, len, NULL};
}

void mcps_live_seq_push_input(mcps_live_seq *q, const mcps_live_input *in)
{
    push(q, in->bytes, in->len, in->headers);
}

void mcps_live_seq_pop(mcps_live_seq *q)
{
    if (!q->n)
        return;
    q->n--;
    free(q->items[q->n].bytes);
    free(q->items[q->n].headers);
}

size_t mcps_live_seq_drop_front(mcps_live_seq *q, size_t n)
{
    n = n < q->n ? n : q->n;
    for (size_t i = 0; i < n; i++) {
        free(q->items[i].bytes);
        free(q->items[i].headers);
    }
    memmove(q->items, q->items + n, (q->n - n) * sizeof *q->items);
    q->n -= n;
    return n;
}

void mcps_live_seq_free(mcps_live_seq *q)
{
    while (q->n)
        mcps_live_seq_pop(q);
    free(q->items);
    *q = (mcps_live_seq){0};
}


static const mcps_live_input *seq_input(void *ctx, size_t i)
{
    return &((const mcps_live_seq *)ctx)->items[i];
}

mcps_live_source mcps_live_seq_source(const mcps_live_seq *q)
{
    return (mcps_live_source){q->n, seq_input, (void *)q};
}

void mcps_live_source_take(const mcps_live_source *src, const bool *keep, size_t n, size_t *from,
                           size_t max, mcps_live_seq *out)
{
    *out = (mcps_live_seq){0};
    size_t i = *from;
    for (; i < n && out->n < max; i++) {
        const mcps_live_input *in = keep && !keep[i] ? NULL : src->input(src->ctx, i);
        if (in)
            mcps_live_seq_push_input(out, in);
    }
    while (i < n && keep && !keep[i])
        i++;
    *from = i;
}
