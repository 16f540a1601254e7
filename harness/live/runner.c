/*
 * runner.c - a persistent target process for the fuzz loop, pipelined: on
 * stdio later sequences are written before the oldest is awaited
 * (MCPS_LIVE_PIPELINE in flight), so the target is not idle while mcpspec
 * judges and generates. Each judged sequence's wire log is judged (stderr) and
 * dropped and its answers taken out of the inbox, so memory is bounded by
 * what is in flight, whatever the process's lifetime. The growth oracle's
 * window is the process's life after its warm-up (growth.h).
 *
 * What keeps a finding a function of the seed and target, with sequences
 * already written behind the one judged:
 * - what is in flight when a sequence is judged depends on the inputs alone
 *   (the depth is fixed; the history's limits and --runs, which stop the
 *   sends, count inputs);
 * - a response belongs to the sequence whose last ping it precedes in the
 *   target's output (the observer's findings are routed so), and an exit
 *   seen after a sequence's pings were all answered belongs to the next
 *   sequence, whose pings then go unanswered;
 * - a sanitizer report on stderr, whose order against stdout no one can tell,
 *   is charged when the process dies (the unanswered ping's sequence) or ends
 *   with nothing in flight (its last sequence), never when it happens to be
 *   read;
 * - a broken process's sequences still in flight are sent again, in order, on
 *   a fresh one, as they would have been had they not been written yet; the
 *   finding's inputs are its process's whole history, those too (ddmin cuts
 *   them).
 * The growth oracle samples after a sequence's answers, with later ones in
 * flight: a few sequences' work is far below its thresholds (growth.h).
 *
 * A process's start and end cost what hundreds of inputs do (node: a quarter
 * of a second each), so on stdio a spare is started, its prefix sent, while
 * the current one is fuzzed, and a full process's stdin is closed and left to
 * end while the next is fuzzed (reaped at the next replacement). The spare
 * only ever saw the prefix: which process a sequence goes to is unchanged.
 */
#include "live/runner.h"

#include "base/array.h"
#include "base/clock.h"
#include "live/exec.h"
#include "live/growth.h"

#include <stdlib.h>
#include <string.h>

#define DRAIN_EXIT_MS 2000 /* after an exit, for the rest of stderr (a sanitizer report) */

void mcps_live_runner_init(mcps_live_runner *r, const mcps_live_target *t)
{
    *r = (mcps_live_runner){.t = t, .max_inputs = MCPS_LIVE_HISTORY_INPUTS};
}

static void stop(mcps_live_runner *r)
{
    mcps_session_free(r->s);
    r->s = NULL;
}

/* A full process, alive and answering: its stdin closed, left to end while the next works. */
static void retire(mcps_live_runner *r)
{
    mcps_session_free(r->retired);
    r->retired = r->s;
    mcps_session_close_input(r->s);
    r->s = NULL;
}

static size_t depth(const mcps_live_runner *r)
{
    return r->t->transport.url ? 1 : MCPS_LIVE_PIPELINE;
}

/* Inbox messages from r->scanned on: count the flights whose last ping they answer. */
static void see_answers(mcps_live_runner *r)
{
    for (; r->scanned < r->s->ninbox && r->answered < r->nflight; r->scanned++) {
        const mcps_inmsg *m = &r->s->inbox[r->scanned];
        const mcps_live_flight *f = &r->flight[r->answered];
        if (m->shape == MCPS_SHAPE_RESPONSE && mcps_live_ping_number(m->msg) == f->first + f->n)
            r->answered++;
    }
}

/* The observer's callback: a finding goes to the oldest flight whose last ping the target has
 * not answered yet (the message judged comes after those already in the inbox). */
static void route(void *ctx, const mcps_finding *f, const char *excerpt)
{
    mcps_live_runner *r = ctx;
    if (!r->nflight)
        return; /* the prefix's, or after every flight was judged: no sequence's */
    see_answers(r);
    size_t k = r->answered < r->nflight ? r->answered : r->nflight - 1;
    mcps_live_judge_finding(&r->flight[k].j, f, excerpt);
}

/* The next process, started ahead (stdio only: a launched server is one process). */
static void make_spare(mcps_live_runner *r)
{
    char err[300];
    if (!r->spare && !r->t->transport.url && !r->t->server)
        r->spare = mcps_live_start_begin(r->t, route, r, err, sizeof err);
}

/* Forget the history: the window's inputs and the log. */
static void forget(mcps_live_runner *r)
{
    mcps_live_seq_free(&r->window);
    r->base = r->nlog = r->history_n = 0;
}

static bool start(mcps_live_runner *r, char *err, size_t errlen)
{
    forget(r);
    r->full = false;
    r->nflight = r->answered = r->scanned = 0;
    mcps_live_judge_init(&r->san, &r->san_out);
    r->s = r->spare;
    r->spare = NULL;
    if (r->s && !mcps_live_start_finish(r->s, r->t, err, errlen))
        stop(r); /* one that failed ahead is started again, as if there were no spare */
    if (!r->s)
        r->s = mcps_live_start(r->t, route, r, err, errlen);
    if (!r->s)
        return false;
    make_spare(r);
    r->processes++;
    mcps_live_growth_start(&r->growth, mcps_live_target_pid(r->t, r->s), r->t);
    return true;
}

/* Flight f's inputs, in the window. */
static mcps_live_seq inputs_of(const mcps_live_runner *r, const mcps_live_flight *f)
{
    return (mcps_live_seq){r->window.items + (f->first - r->base), f->n, f->n};
}

/* Add sequence tag's n inputs to the history: the log, and the window while in flight. */
static void note(mcps_live_runner *r, uint64_t tag, const mcps_live_input *items, size_t n)
{
    if (mcps_array_reserve(&r->log, &r->cap_log, r->nlog + 1, sizeof *r->log, 64))
        r->log[r->nlog++] = (mcps_live_sent){tag, n};
    for (size_t i = 0; i < n; i++)
        mcps_live_seq_push_input(&r->window, &items[i]);
    r->history_n += n;
}

/* Append q to the history as a new flight, and write it when it can be pipelined. */
static void launch(mcps_live_runner *r, uint64_t tag, const mcps_live_input *items, size_t n)
{
    mcps_live_flight *f = &r->flight[r->nflight++];
    *f = (mcps_live_flight){.tag = tag, .first = r->history_n, .n = n};
    mcps_live_judge_init(&f->j, &f->out);
    note(r, tag, items, n);
    f->sent = !r->t->transport.url && n <= MCPS_LIVE_PLAY_PART;
    if (f->sent) {
        mcps_live_seq q = inputs_of(r, f);
        r->s->obs.mark = f->first + f->n;
        mcps_live_send(r->s, r->t, &q, f->first);
    }
    if (r->history_n >= r->max_inputs)
        r->full = true;
}

/* A fresh process; the flights not judged yet (a broken process's) are sent again on it, in
 * order. On failure they stay, the whole history, for the next try. */
static bool fresh(mcps_live_runner *r, char *err, size_t errlen)
{
    mcps_live_seq left = {0};
    size_t lens[MCPS_LIVE_PIPELINE], n = r->nflight;
    uint64_t tags[MCPS_LIVE_PIPELINE];
    for (size_t k = 0; k < n; k++) {
        lens[k] = r->flight[k].n;
        tags[k] = r->flight[k].tag;
        mcps_live_seq q = inputs_of(r, &r->flight[k]);
        for (size_t i = 0; i < q.n; i++)
            mcps_live_seq_push_input(&left, &q.items[i]);
    }
    bool ok = start(r, err, errlen);
    if (!ok)
        forget(r);
    for (size_t k = 0, at = 0; k < n; at += lens[k++])
        if (ok) {
            launch(r, tags[k], left.items + at, lens[k]);
        } else {
            r->flight[k].first = at;
            note(r, tags[k], left.items + at, lens[k]);
        }
    mcps_live_seq_free(&left);
    return ok;
}

bool mcps_live_runner_ready(const mcps_live_runner *r)
{
    return r->nflight < depth(r) && !(r->nflight && !r->flight[r->nflight - 1].sent) &&
           !(r->s && r->full);
}

bool mcps_live_runner_send(mcps_live_runner *r, const mcps_live_seq *q, uint64_t tag, char *err,
                           size_t errlen)
{
    if (!r->s && !fresh(r, err, errlen))
        return false;
    launch(r, tag, q->items, q->n);
    return true;
}

/* Stderr's sanitizer reports so far go into r->san; charged to j when the process died on
 * j's sequence or this is its last. */
static void judge_stderr(mcps_live_runner *r, mcps_live_judge *j, bool charge)
{
    mcps_live_judge_stderr(&r->san, r->s);
    if (!charge || !r->san.sanitizer || j->sanitizer)
        return;
    j->sanitizer = true;
    memcpy(j->san_header, r->san.san_header, sizeof j->san_header);
    memcpy(j->san_frame, r->san.san_frame, sizeof j->san_frame);
}

/* Drop what the judged flight left: its answered requests, its inputs, its wire log and its
 * answers (those after it stay). */
static void next_flight(mcps_live_runner *r, size_t answers)
{
    mcps_observer_forget_answered(&r->s->obs, r->flight[0].first + r->flight[0].n);
    r->base += mcps_live_seq_drop_front(&r->window, r->flight[0].n);
    mcps_live_drop_log(r->s);
    mcps_session_inbox_shift(r->s, answers);
    r->answered = r->scanned = 0;
    r->nflight--;
    memmove(r->flight, r->flight + 1, r->nflight * sizeof *r->flight);
    for (size_t k = 0; k < r->nflight; k++)
        r->flight[k].j.out = &r->flight[k].out;
}

/* Play a flight not written yet (HTTP, or too long to pipeline), alone on the process. */
static size_t play(mcps_live_runner *r, mcps_live_flight *f)
{
    mcps_live_seq q = inputs_of(r, f);
    r->s->obs.mark = f->first + f->n;
    mcps_live_play(r->s, r->t, &q, f->first, &f->j);
    mcps_session_begin_case(r->s, 0, route, r); /* play moved the callback to f->j */
    return 0;
}

bool mcps_live_runner_judge(mcps_live_runner *r, mcps_live_outcome *out, char *err, size_t errlen)
{
    if (!r->s && !fresh(r, err, errlen))
        return false;
    mcps_live_flight *f = &r->flight[0];
    bool last = r->nflight == 1 || !r->flight[1].sent; /* nothing written after it */
    size_t answers;
    if (f->sent) {
        mcps_live_seq q = inputs_of(r, f);
        answers = mcps_live_collect(r->s, r->t, &q, f->first, &f->j, last);
    } else {
        answers = play(r, f);
    }
    bool died = f->j.exited || f->j.hung || f->j.dropped;
    if ((died || last) && (r->s->exited || r->s->gone)) {
        int64_t until = mcps_clock_deadline(DRAIN_EXIT_MS / 1000.0);
        while (mcps_session_poll(r->s, until))
            ;
    }
    judge_stderr(r, &f->j, died || last);
    if (r->t->growth && mcps_live_alive(r->s, &f->j))
        mcps_live_growth_after(&r->growth, f->n, f->first + f->n - 1, &f->j);
    mcps_live_judge_done(&f->j);
    *out = f->out;
    next_flight(r, answers);
    /* A malformed response or a file served leaves the process as it was: only a dead or stuck
     * one is replaced (one that exited after its last answer, by the next sequence's pings). */
    bool broken = out->oracle != MCPS_LIVE_NONE && out->oracle != MCPS_LIVE_CONTRACT &&
                  out->oracle != MCPS_LIVE_DISCLOSURE;
    /* The log stays until the next start: a finding's inputs. */
    if (broken || r->s->cut || (!r->nflight && (r->s->exited || r->s->gone)))
        stop(r);
    else if (!r->nflight && r->full)
        retire(r);
    return true;
}

void mcps_live_runner_free(mcps_live_runner *r)
{
    stop(r);
    mcps_session_free(r->spare);
    mcps_session_free(r->retired);
    r->spare = r->retired = NULL;
    forget(r);
    free(r->log);
    r->log = NULL;
    r->cap_log = 0;
}
