/*
 * runner.h - the fuzz loop's executions on a persistent process: many
 * sequences on one target process (a process start and a handshake cost far
 * more than a message), restarted when it dies or hangs, or its history is
 * full. A finding's inputs are the whole history of its process, which
 * minimize.c then shrinks on fresh processes. The runner keeps only the
 * inputs in flight, and of the rest each sequence's tag and length: the
 * caller can make them again (the fuzz loop's are its seed's, made a sequence
 * at a time as they are played: fuzz.c), so a process may live for hundreds of
 * megabytes of inputs at no cost in memory.
 */
#ifndef MCPS_LIVE_RUNNER_H
#define MCPS_LIVE_RUNNER_H

#include "live/growth.h"
#include "live/live.h"
#include "live/oracle.h"

/* Inputs per process, at most (--process-inputs): a process start and a handshake cost what
 * thousands of inputs do (refserver: 2 to 5 ms; node: a third of a second of CPU, and its JIT's
 * warm-up again). Against server-everything, 65536 gave 17 500 to 19 800 exec/s, 262144 gave
 * 22 500 to 24 700. A finding is first minimized from its own sequence alone, so a long history
 * costs only the findings that need it (each of their candidates is played on a fresh process,
 * up to the whole history: about 12 s for node); the history is made again from the seed as it
 * is played, so it costs no memory. The growth oracle's window stays MCPS_LIVE_GROWTH_SPAN
 * inputs, however long a process lives. */
#define MCPS_LIVE_HISTORY_INPUTS 262144

/* Sequences in flight on a stdio process: later ones are written before the oldest is awaited,
 * so the target works on them while it is judged and the next is made. A fixed depth, so what
 * is in flight when a sequence is judged depends on the inputs alone (runner.c says how each
 * oracle stays deterministic). Over HTTP it is 1 (lockstep). With the target's pipes widened
 * (transport/proc.c), 4 kept both sides busy against refserver where 2 let each wait on the
 * other's slow moments: 8% more executions; 8 gave nothing more. */
#define MCPS_LIVE_PIPELINE 4

/* A sequence sent to the running process: the caller's tag for it, and its length. */
typedef struct mcps_live_sent {
    uint64_t tag;
    size_t n;
} mcps_live_sent;

/* A sequence written (or, over HTTP or when too long to pipeline, waiting to be played) and not
 * yet judged: its inputs are the history's [first, first + n), window[first - base ...]. */
typedef struct mcps_live_flight {
    uint64_t tag;
    size_t first, n;
    bool sent; /* written already; else played (sent and awaited) when judged */
    mcps_live_judge j;
    mcps_live_outcome out;
} mcps_live_flight;

typedef struct mcps_live_runner {
    const mcps_live_target *t;
    mcps_session *s;
    mcps_session *spare;   /* stdio: the next process, its prefix's first request sent */
    mcps_session *retired; /* the last full process, its stdin closed, not yet reaped */
    mcps_live_seq window;  /* the inputs of the flights, oldest first */
    size_t base;           /* the history index of window.items[0] */
    mcps_live_sent *log;   /* every sequence sent to the running process, in order */
    size_t nlog, cap_log;
    size_t history_n;        /* inputs sent to the running process */
    size_t max_inputs;       /* history inputs per process (init: MCPS_LIVE_HISTORY_INPUTS) */
    size_t processes;        /* started so far */
    mcps_live_growth growth; /* samples of the running process (when t->growth) */
    mcps_live_flight flight[MCPS_LIVE_PIPELINE]; /* oldest first */
    size_t nflight;
    size_t answered, scanned; /* flights whose last ping the inbox answers; messages looked at */
    bool full;                /* history full: no more sends; replaced once drained */
    mcps_live_judge san;      /* sanitizer reports seen on this process and not yet charged */
    mcps_live_outcome san_out;
} mcps_live_runner;

void mcps_live_runner_init(mcps_live_runner *r, const mcps_live_target *t);
/* Whether a sequence may be sent now: fewer than the depth in flight, the history not full, and
 * none waiting to be played. */
bool mcps_live_runner_ready(const mcps_live_runner *r);
/* Send q (copied) on the process, started with the prefix when there is none; tag names it in
 * r->log. False with err when a process cannot be started. */
bool mcps_live_runner_send(mcps_live_runner *r, const mcps_live_seq *q, uint64_t tag, char *err,
                           size_t errlen);
/* Judge the oldest sequence in flight: out says which oracle fired, with at an index into the
 * process's history (every input it was sent, those in flight after it too: the sequences of
 * r->log, which stays as it was until the next call). The process is stopped after a crash,
 * hang, sanitizer report or growth (a malformed response leaves it running), or when the
 * history is full and nothing is in flight; sequences still in flight then go to a fresh one.
 * False with err when a process cannot be started. */
bool mcps_live_runner_judge(mcps_live_runner *r, mcps_live_outcome *out, char *err, size_t errlen);
void mcps_live_runner_free(mcps_live_runner *r);

#endif
