/*
 * minimize.c - reproduce, then ddmin (ddmin.c) and value shrinking
 * (shrink.c) with a fresh process per candidate (exec.c). A growth finding's candidates are each
 * played over the growth window (mcps_live_exec_growth): fewer inputs, more repetitions, so ddmin
 * keeps the one input that leaks.
 */
#include "live/minimize.h"

#include "base/clock.h"
#include "live/ddmin.h"
#include "live/exec.h"
#include "live/growth.h"
#include "live/shrink.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Shrinking's share of the budget at most: each test is a fresh process (a hang's costs the ping
 * deadline), and a few dozen take the padding out of a message or two. */
#define SHRINK_TESTS 40

typedef struct trial {
    const mcps_live_target *t;
    const mcps_live_source *base;
    const char *signature;
    int64_t until_ms;
    mcps_live_outcome last; /* the outcome of the last candidate that failed the same way */
} trial;

static bool is_growth(const trial *tr)
{
    return strncmp(tr->signature, "growth ", 7) == 0;
}

/* The inputs keep marks (all, when NULL) among src's first n: how many, and whether their bytes
 * are within max, each made and let go; taking them until max is passed held max bytes first
 * (test_history_over_the_bound_keeps_its_sequence peaked at 90 MiB). */
static bool fits(const mcps_live_source *src, const bool *keep, size_t n, size_t max, size_t *count)
{
    size_t bytes = 0;
    *count = 0;
    for (size_t i = 0; i < n; i++) {
        const mcps_live_input *in = !keep || keep[i] ? src->input(src->ctx, i) : NULL;
        *count += in != NULL;
        bytes += in ? in->len : 0;
    }
    return bytes <= max;
}

/* A growth candidate from the base, made whole, since it is played many times over
 * (mcps_live_exec_growth); false, not tried, when that is over MCPS_LIVE_KEEP_BYTES. */
static bool made_whole(const trial *tr, const bool *keep, size_t n, mcps_live_seq *made)
{
    size_t count, from = 0;
    if (!fits(tr->base, keep, n, MCPS_LIVE_KEEP_BYTES, &count))
        return false;
    mcps_live_source_take(tr->base, keep, n, &from, SIZE_MAX, made);
    return true;
}

/* Whether the candidate (q, else the inputs keep marks among the base's first n, made a part at
 * a time as they are played, or whole for growth) fails the same way. */
static bool same_failure(trial *tr, const mcps_live_seq *q, const bool *keep, size_t n)
{
    mcps_live_outcome out;
    char err[200];
    if (tr->until_ms && mcps_clock_ms() >= tr->until_ms)
        return false;
    size_t reps;
    mcps_live_target t = *tr->t;
    t.growth = mcps_live_growth_watch(tr->signature);
    mcps_live_seq made = {0};
    if (!q && is_growth(tr)) {
        if (!made_whole(tr, keep, n, &made))
            return false;
        q = &made;
    }
    bool ran = is_growth(tr) ? mcps_live_exec_growth(&t, q, &out, &reps, err, sizeof err)
               : q           ? mcps_live_exec(tr->t, q, &out, err, sizeof err)
                   : mcps_live_exec_source(tr->t, tr->base, keep, n, &out, err, sizeof err);
    mcps_live_seq_free(&made);
    if (!ran || out.oracle == MCPS_LIVE_NONE || strcmp(out.signature, tr->signature) != 0)
        return false;
    tr->last = out;
    return true;
}

static bool test_subset(void *ctx, const bool *keep, size_t n)
{
    return same_failure(ctx, NULL, keep, n);
}

static bool still_fails(void *ctx, const mcps_live_seq *q)
{
    return same_failure(ctx, q, NULL, 0);
}

bool mcps_live_minimize_source(const mcps_live_target *t, const mcps_live_source *src,
                               const mcps_live_outcome *first, size_t budget, int64_t until_ms,
                               mcps_live_seq *out, mcps_live_outcome *final, size_t *over)
{
    *over = 0;
    /* Whether it reproduces is always asked, past the run's time too: a finding without that
     * answer is worth little. Only ddmin's search is bounded by until_ms. */
    trial tr = {t, src, first->signature, 0, *first};
    *final = *first;
    *out = (mcps_live_seq){0};
    /* A contract finding may come from any input; the others fire at `at` at the latest. */
    size_t n = first->oracle == MCPS_LIVE_CONTRACT || first->at >= src->n ? src->n : first->at + 1;
    if (!same_failure(&tr, NULL, NULL, n)) {
        n = src->n;
        if (!same_failure(&tr, NULL, NULL, n))
            return false;
    }
    bool *keep = malloc((n ? n : 1) * sizeof *keep);
    if (!keep) {
        *over = n;
        return true;
    }
    for (size_t i = 0; i < n; i++)
        keep[i] = true;
    tr.until_ms = until_ms;
    size_t used = mcps_live_ddmin(keep, n, test_subset, &tr, budget), from = 0, count;
    *final = tr.last;
    if (!fits(src, keep, n, MCPS_LIVE_KEEP_BYTES, &count)) {
        *over = count;
        free(keep);
        return true;
    }
    mcps_live_source_take(src, keep, n, &from, SIZE_MAX, out);
    if (budget > used)
        mcps_live_shrink(out, still_fails, &tr,
                         budget - used < SHRINK_TESTS ? budget - used : SHRINK_TESTS);
    *final = tr.last;
    free(keep);
    return true;
}

bool mcps_live_minimize(const mcps_live_target *t, const mcps_live_seq *q,
                        const mcps_live_outcome *first, size_t budget, int64_t until_ms,
                        mcps_live_seq *out, mcps_live_outcome *final)
{
    mcps_live_source src = mcps_live_seq_source(q);
    size_t over, from = 0;
    if (mcps_live_minimize_source(t, &src, first, budget, until_ms, out, final, &over)) {
        if (over) { /* q is in memory whole already: its copy, unminimized */
            mcps_live_source_take(&src, NULL, q->n, &from, SIZE_MAX, out);
            *final = *first;
        }
        return true;
    }
    mcps_live_source_take(&src, NULL, q->n, &from, SIZE_MAX, out);
    return false;
}
