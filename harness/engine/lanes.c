/*
 * lanes.c - one worker's lane of cases: which process each case runs on, and
 * starting the next case's process while the current one runs.
 *
 * With --isolation shared, a case that mcps_case_shareable() clears runs on
 * the lane's current process when that one was initialized the way the case
 * needs (revision, client capabilities); every other case gets a process of
 * its own. Once the current case's process is up, the lane starts the process
 * the next case will need and sends its initialize, so that a Node.js
 * server's start-up overlaps the case before instead of following it. A lane holds two processes at
 * most: the one a case runs on and the spare. When shared processes stop answering the ping that
 * ends each case, sharing stops for the rest of the run: a target that cannot be synchronized is
 * given a process per case, as in fresh mode.
 */
#include "engine/internal.h"

#include "codec/json.h"

#include <stdlib.h>

#define MAX_BARRIER_FAILURES 3
#define MAX_TRIAL_LOSSES     3

static bool sharing(const mcps_lane *l)
{
    if (!l->shared)
        return false;
    mtx_lock(l->lock);
    bool ok = *l->barrier_failures < MAX_BARRIER_FAILURES;
    mtx_unlock(l->lock);
    return ok;
}

/* Cases on trial stop once they have cost the lanes a few shared processes: a target that
 * malformed input kills pays for each trial twice. */
static bool trying(const mcps_lane *l)
{
    mtx_lock(l->lock);
    bool ok = *l->trial_losses < MAX_TRIAL_LOSSES;
    mtx_unlock(l->lock);
    return ok;
}

static void count(const mcps_lane *l, unsigned *counter)
{
    mtx_lock(l->lock);
    (*counter)++;
    mtx_unlock(l->lock);
}

/* How c may use the lane's processes now: a trial needs a process some case has used already,
 * so that the handshake stays in a wire log that is kept. */
static mcps_sharing sharing_now(const mcps_lane *l, const mcps_case *c, mcps_rev rev)
{
    mcps_sharing how = sharing(l) ? mcps_case_sharing(c) : MCPS_SHARE_NEVER;
    if (how != MCPS_SHARE_ON_TRIAL)
        return how;
    bool proven = l->current && l->current->cases > 0 && mcps_proc_fits(l->current, c, rev);
    return proven && trying(l) ? how : MCPS_SHARE_NEVER;
}

static void count_start(const mcps_lane *l)
{
    mtx_lock(l->lock);
    (*l->processes)++;
    mtx_unlock(l->lock);
}

/* Two cases need the same handshake. */
static bool same_handshake(const mcps_case *a, mcps_rev ra, const mcps_case *b, mcps_rev rb)
{
    if (ra != rb || a->session != b->session)
        return false;
    if (!a->client_capabilities || !b->client_capabilities)
        return a->client_capabilities == b->client_capabilities;
    return mcps_json_equal(a->client_capabilities, b->client_capabilities);
}

static mcps_proc *take_spare(mcps_lane *l, const mcps_case *c, mcps_rev rev)
{
    mcps_proc *p = l->spare;
    l->spare = NULL;
    if (p && mcps_proc_fits(p, c, rev) && mcps_proc_usable(p))
        return p;
    mcps_proc_free(p);
    return NULL;
}

/* Will the next case run on the process the lane keeps (c's, when on_current)? */
static bool next_on_current(const mcps_lane *l, bool on_current, const mcps_case *c, mcps_rev rev,
                            const mcps_case *next, mcps_rev next_rev)
{
    if (!sharing(l) || !mcps_case_shareable(next))
        return false;
    if (mcps_case_sharing(next) == MCPS_SHARE_ON_TRIAL && !trying(l))
        return false;
    if (on_current)
        return same_handshake(c, rev, next, next_rev);
    return l->current && mcps_proc_fits(l->current, next, next_rev);
}

/* Start the process the next case will need, unless it will run on the current one. */
static void prepare_next(mcps_lane *l, bool on_current, const mcps_case *c, mcps_rev rev,
                         const mcps_case *next, mcps_rev next_rev)
{
    if (!next || l->spare || mcps_guard_stopped(l->env->cfg->target.guard) ||
        !mcps_exec_applicable(l->env, next, next_rev) ||
        next_on_current(l, on_current, c, rev, next, next_rev))
        return;
    char why[300];
    l->spare = mcps_proc_start(l->env, next, next_rev, why, sizeof why);
    count_start(l); /* one that would not start is tried again, and reported, by its case */
}

/* What the lane prepares once the current case's process is up. */
typedef struct upcoming {
    mcps_lane *lane;
    bool on_current;
    const mcps_case *c, *next;
    mcps_rev rev, next_rev;
} upcoming;

static void current_ready(void *ctx)
{
    const upcoming *u = ctx;
    prepare_next(u->lane, u->on_current, u->c, u->rev, u->next, u->next_rev);
}

/* Run c on its place: the lane's shared process, or one of its own (taking the spare). */
static void run_placed(mcps_lane *l, const mcps_suite *suite, const mcps_case *c, mcps_rev rev,
                       const mcps_case *next, mcps_rev next_rev, mcps_exec_place *at,
                       mcps_case_result *r)
{
    bool share = at->keep;
    mcps_proc *own = NULL;
    mcps_proc **proc = share ? &l->current : &own;
    /* A rerun keeps the shared process for the cases after it: its own comes from the spare's
     * place, so the lane still holds two at most. */
    bool rerun = at->retrial && l->current && mcps_proc_usable(l->current);
    if (l->current && !rerun &&
        !(share && mcps_proc_fits(l->current, c, rev) && mcps_proc_usable(l->current))) {
        mcps_proc_free(l->current); /* two processes a lane at most: this case's and the spare */
        l->current = NULL;
    }
    if (!*proc)
        *proc = take_spare(l, c, rev);
    if (!*proc)
        count_start(l);
    /* The spare starts once this case's process has answered initialize: at most one process of
     * a lane is starting up at a time, so start-ups overlap cases, not each other. */
    upcoming u = {l, share, c, next, rev, next_rev};
    at->proc = proc;
    at->ready = current_ready;
    at->ctx = &u;
    if (!mcps_exec_case_on(l->env, suite, c, rev, at, r))
        count(l, l->barrier_failures);
}

void mcps_lane_run(mcps_lane *l, const mcps_suite *suite, const mcps_case *c, mcps_rev rev,
                   const mcps_case *next, mcps_rev next_rev, mcps_case_result *r)
{
    if (!mcps_exec_applicable(l->env, c, rev)) { /* SKIP, without a process */
        prepare_next(l, false, c, rev, next, next_rev);
        mcps_exec_case(l->env, suite, c, rev, r);
        return;
    }
    mcps_sharing how = sharing_now(l, c, rev);
    bool rerun = false;
    mcps_verdict dropped = MCPS_VERDICT_PASS;
    mcps_exec_place at = {.keep = how != MCPS_SHARE_NEVER,
                          .trial = how == MCPS_SHARE_ON_TRIAL,
                          .rerun = &rerun,
                          .dropped = &dropped};
    run_placed(l, suite, c, rev, next, next_rev, &at, r);
    if (!rerun)
        return;
    if (!l->current)
        count(l, l->trial_losses);
    at = (mcps_exec_place){.retrial = &dropped};
    run_placed(l, suite, c, rev, NULL, next_rev, &at, r);
}

void mcps_lane_close(mcps_lane *l)
{
    mcps_proc_free(l->current);
    mcps_proc_free(l->spare);
    l->current = l->spare = NULL;
}
