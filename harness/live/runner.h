/*
 * runner.h - the fuzz loop's executions on a persistent process: many
 * sequences on one target process (a process start and a handshake cost far
 * more than a message), restarted when it dies or hangs, or its history is
 * full. A finding's inputs are the whole history of its process, which
 * minimize.c then shrinks on fresh processes.
 */
#ifndef MCPS_LIVE_RUNNER_H
#define MCPS_LIVE_RUNNER_H

#include "live/growth.h"
#include "live/live.h"
#include "live/oracle.h"

/* Inputs per process, at most (--process-inputs): a process start and a handshake cost what
 * hundreds of inputs do (refserver: 2 to 5 ms; node: 0.7 to 1 s), and a finding's minimization
 * starts from its process's whole history, so this trades speed for minimizing time. The growth
 * oracle's window stays MCPS_LIVE_GROWTH_SPAN inputs, however long a process lives. */
#define MCPS_LIVE_HISTORY_INPUTS 4096
#define MCPS_LIVE_HISTORY_BYTES  (8u * 1024 * 1024) /* and bytes of them */

typedef struct mcps_live_runner {
    const mcps_live_target *t;
    mcps_session *s;
    mcps_live_judge j;
    mcps_live_outcome out;
    mcps_live_seq history; /* every input sent to the running process */
    size_t history_bytes;
    size_t max_bytes;        /* history bytes per process (init: MCPS_LIVE_HISTORY_BYTES) */
    size_t max_inputs;       /* history inputs per process (init: MCPS_LIVE_HISTORY_INPUTS) */
    size_t processes;        /* started so far */
    mcps_live_growth growth; /* samples of the running process (when t->growth) */
} mcps_live_runner;

void mcps_live_runner_init(mcps_live_runner *r, const mcps_live_target *t);
/* Run q on the process (started with the prefix when there is none); out says which oracle
 * fired, with at an index into r->history, which stays as it was until the next call. The
 * process is stopped after a crash, hang, sanitizer report or growth (a malformed response
 * leaves it running), or when the history is full. False with
 * err when a process cannot be started. */
bool mcps_live_runner_exec(mcps_live_runner *r, const mcps_live_seq *q, mcps_live_outcome *out,
                           char *err, size_t errlen);
void mcps_live_runner_free(mcps_live_runner *r);

#endif
