/*
 * ddmin.c - the classic algorithm: try each of gran chunks alone, then each
 * complement; on success restart from the smaller set, else split finer.
 * Items are indices into the caller's array; a candidate is passed as flags.
 */
#include "live/ddmin.h"

#include <stdlib.h>
#include <string.h>

typedef struct dd {
    size_t n, tests, max_tests;
    bool *flags; /* scratch: the candidate */
    mcps_live_ddmin_test test;
    void *ctx;
} dd;

/* Run test on items[lo..hi) (or, complement, on every other item). */
static bool try_part(dd *d, const size_t *items, size_t count, size_t lo, size_t hi,
                     bool complement)
{
    if (d->tests >= d->max_tests)
        return false;
    memset(d->flags, 0, d->n * sizeof *d->flags);
    for (size_t i = 0; i < count; i++)
        d->flags[items[i]] = (i >= lo && i < hi) != complement;
    d->tests++;
    return d->test(d->ctx, d->flags, d->n);
}

/* Keep items[lo..hi) (or all but it) in place; returns the new count. */
static size_t keep_part(size_t *items, size_t count, size_t lo, size_t hi, bool complement)
{
    size_t k = 0;
    for (size_t i = 0; i < count; i++)
        if ((i >= lo && i < hi) != complement)
            items[k++] = items[i];
    return k;
}

/* One round at granularity gran: the new count, or count when nothing smaller failed. */
static size_t round_at(dd *d, size_t *items, size_t count, size_t *gran)
{
    for (int complement = 0; complement < 2; complement++) {
        for (size_t c = 0; c < *gran; c++) {
            size_t lo = count * c / *gran, hi = count * (c + 1) / *gran;
            if (lo == hi || (complement && hi - lo == count))
                continue;
            if (try_part(d, items, count, lo, hi, complement)) {
                *gran = complement ? (*gran > 2 ? *gran - 1 : 2) : 2;
                return keep_part(items, count, lo, hi, complement);
            }
        }
        if (*gran == 2)
            break; /* with two chunks, a complement is the other chunk: tried */
    }
    return count;
}

size_t mcps_live_ddmin(bool *keep, size_t n, mcps_live_ddmin_test test, void *ctx, size_t max_tests)
{
    size_t *items = malloc((n ? n : 1) * sizeof *items);
    dd d = {n, 0, max_tests, calloc(n ? n : 1, sizeof *d.flags), test, ctx};
    if (!items || !d.flags) {
        free(items);
        free(d.flags);
        return 0;
    }
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (keep[i])
            items[count++] = i;
    size_t gran = 2;
    while (count >= 2 && d.tests < max_tests) {
        size_t smaller = round_at(&d, items, count, &gran);
        if (smaller < count) {
            count = smaller;
        } else if (gran >= count) {
            break; /* every single item tried: 1-minimal */
        } else {
            gran = gran * 2 < count ? gran * 2 : count;
        }
    }
    memset(keep, 0, n * sizeof *keep);
    for (size_t i = 0; i < count; i++)
        keep[items[i]] = true;
    free(items);
    free(d.flags);
    return d.tests;
}
