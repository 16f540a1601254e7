/*
 * runner.c - a persistent target process for the fuzz loop. Each batch's
 * wire log is judged (stderr) and dropped and its inbox emptied, so memory is
 * bounded by one batch, whatever the process's lifetime.
 */
#include "live/runner.h"

#include "live/exec.h"

#include <stdlib.h>

void mcps_live_runner_init(mcps_live_runner *r, const mcps_live_target *t)
{
    *r = (mcps_live_runner){.t = t};
}

static void drop_log(mcps_session *s)
{
    mcps_wire_log log;
    mcps_session_take_log(s, &log);
    for (size_t i = 0; i < log.nentries; i++)
        free(log.entries[i].bytes);
    free(log.entries);
    for (size_t i = 0; i < log.nnotes; i++) {
        free(log.notes[i].reqs);
        free(log.notes[i].message);
    }
    free(log.notes);
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
    }
    mcps_live_judge_init(&r->j, out);
    size_t first = r->history.n;
    for (size_t i = 0; i < q->n; i++) {
        mcps_live_seq_push(&r->history, q->items[i].bytes, q->items[i].len);
        r->history_bytes += q->items[i].len;
    }
    mcps_live_play(r->s, r->t, q, first, &r->j);
    mcps_live_judge_done(&r->j);
    drop_log(r->s);
    mcps_session_begin_case(r->s, 0, mcps_live_judge_finding, &r->j);
    /* A malformed response leaves the process as it was: only a dead or stuck one is replaced. */
    bool broken = out->oracle != MCPS_LIVE_NONE && out->oracle != MCPS_LIVE_CONTRACT;
    if (broken || r->s->exited || r->s->gone || r->s->cut ||
        r->history.n >= MCPS_LIVE_HISTORY_INPUTS || r->history_bytes >= MCPS_LIVE_HISTORY_BYTES)
        stop(r);
    return true;
}

void mcps_live_runner_free(mcps_live_runner *r)
{
    stop(r);
    mcps_live_seq_free(&r->history);
}
