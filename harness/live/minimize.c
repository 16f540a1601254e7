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

#include <stdlib.h>
#include <string.h>

/* Shrinking's share of the budget at most: each test is a fresh process (a hang's costs the ping
 * deadline), and a few dozen take the padding out of a message or two. */
#define SHRINK_TESTS 40

typedef struct trial {
    const mcps_live_target *t;
    const mcps_live_seq *base;
    const char *signature;
    int64_t until_ms;
    mcps_live_outcome last; /* the outcome of the last candidate that failed the same way */
} trial;

static bool same_failure(trial *tr, const mcps_live_seq *q)
{
    mcps_live_outcome out;
    char err[200];
    if (tr->until_ms && mcps_clock_ms() >= tr->until_ms)
        return false;
    size_t reps;
    mcps_live_target t = *tr->t;
    t.growth = mcps_live_growth_watch(tr->signature);
    bool ran = strncmp(tr->signature, "growth ", 7) == 0
                   ? mcps_live_exec_growth(&t, q, &out, &reps, err, sizeof err)
                   : mcps_live_exec(tr->t, q, &out, err, sizeof err);
    if (!ran || out.oracle == MCPS_LIVE_NONE || strcmp(out.signature, tr->signature) != 0)
        return false;
    tr->last = out;
    return true;
}

static bool test_subset(void *ctx, const bool *keep, size_t n)
{
    (void)n;
    trial *tr = ctx;
    mcps_live_seq q;
    mcps_live_seq_subset(tr->base, keep, &q);
    bool failed = same_failure(tr, &q);
    mcps_live_seq_free(&q);
    return failed;
}

static bool still_fails(void *ctx, const mcps_live_seq *q)
{
    return same_failure(ctx, q);
}

static void copy(const mcps_live_seq *q, size_t n, mcps_live_seq *out)
{
    *out = (mcps_live_seq){0};
    for (size_t i = 0; i < n && i < q->n; i++)
        mcps_live_seq_push_input(out, &q->items[i]);
}

bool mcps_live_minimize(const mcps_live_target *t, const mcps_live_seq *q,
                        const mcps_live_outcome *first, size_t budget, int64_t until_ms,
                        mcps_live_seq *out, mcps_live_outcome *final)
{
    /* Whether it reproduces is always asked, past the run's time too: a finding without that
     * answer is worth little. Only ddmin's search is bounded by until_ms. */
    trial tr = {t, NULL, first->signature, 0, *first};
    *final = *first;
    /* A contract finding may come from any input; the others fire at `at` at the latest. */
    mcps_live_seq cut;
    copy(q, first->oracle == MCPS_LIVE_CONTRACT ? q->n : first->at + 1, &cut);
    if (!same_failure(&tr, &cut)) {
        mcps_live_seq_free(&cut);
        copy(q, q->n, &cut);
        if (!same_failure(&tr, &cut)) {
            *out = cut;
            return false;
        }
    }
    bool *keep = malloc((cut.n ? cut.n : 1) * sizeof *keep);
    if (!keep) {
        *out = cut;
        return true;
    }
    for (size_t i = 0; i < cut.n; i++)
        keep[i] = true;
    tr.base = &cut;
    tr.until_ms = until_ms;
    size_t used = mcps_live_ddmin(keep, cut.n, test_subset, &tr, budget);
    mcps_live_seq_subset(&cut, keep, out);
    if (budget > used)
        mcps_live_shrink(out, still_fails, &tr,
                         budget - used < SHRINK_TESTS ? budget - used : SHRINK_TESTS);
    *final = tr.last;
    free(keep);
    mcps_live_seq_free(&cut);
    return true;
}
