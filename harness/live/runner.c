/*
 * runner.c - a persistent target process for the fuzz loop. Each batch's
 * wire log is judged (stderr) and dropped and its inbox emptied, so memory is
 * bounded by one batch, whatever the process's lifetime. The growth oracle's
 * window is the process's life after its warm-up (growth.h).
 */
#include "live/runner.h"

#include "live/exec.h"
#include "live/growth.h"

#include <stdlib.h>

void mcps_live_runner_init(mcps_live_runner *r, const mcps_live_target *t)
{
    *r = (mcps_live_runner){
        .t = t, .max_bytes = MCPS_LIVE_HISTORY_BYTES, .max_inputs = MCPS_LIVE_HISTORY_INPUTS};
}

static void stop(mcps_live_runner *r)
{
    mcps_session_free(r->s);
    r->s = NULL;
}

bool mcps_live_runner_exec(mcps_live_runner *r, const mcps_live_seq *q, mcps_live_outcome *out,
                           char *err, size_t errlen)
{
    if (!r->s) {
        mcps_live_seq_free(&r->history);
        r->history_bytes = 0;
        r->s = mcps_live_start(r->t, mcps_live_judge_finding, &r->j, err, errlen);
        if (!r->s)
            return false;
        r->processes++;
        mcps_live_growth_start(&r->growth, mcps_live_target_pid(r->t, r->s), r->t);
    }
    mcps_live_judge_init(&r->j, out);
    size_t first = r->history.n;
    for (size_t i = 0; i < q->n; i++) {
        mcps_live_seq_push_input(&r->history, &q->items[i]);
        r->history_bytes += q->items[i].len;
    }
    mcps_live_play(r->s, r->t, q, first, &r->j);
    if (r->t->growth && mcps_live_alive(r->s, &r->j))
        mcps_live_growth_after(&r->growth, q->n, r->history.n ? r->history.n - 1 : 0, &r->j);
    mcps_live_judge_done(&r->j);
    mcps_live_next_batch(r->s, &r->j);
    /* A malformed response or a file served leaves the process as it was: only a dead or stuck
     * one is replaced. */
    bool broken = out->oracle != MCPS_LIVE_NONE && out->oracle != MCPS_LIVE_CONTRACT &&
                  out->oracle != MCPS_LIVE_DISCLOSURE;
    if (broken || r->s->exited || r->s->gone || r->s->cut || r->history.n >= r->max_inputs ||
        r->history_bytes >= r->max_bytes)
        stop(r);
    return true;
}

void mcps_live_runner_free(mcps_live_runner *r)
{
    stop(r);
    mcps_live_seq_free(&r->history);
}
