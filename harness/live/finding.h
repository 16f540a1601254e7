/*
 * finding.h - a finding as a file: a suite (suites/README.md) whose one case
 * replays the session prefix, the minimized inputs (`--> raw`, escaped) and
 * the liveness pings, and expects every ping answered. So the file is at
 * once what `mcpspec replay` reads and a regression case: moved into a
 * suites folder (with a proven-by line), `mcpspec run` fails on it while the
 * bug is there. The comment header says how it was found.
 */
#ifndef MCPS_LIVE_FINDING_H
#define MCPS_LIVE_FINDING_H

#include "live/live.h"

typedef struct mcps_live_finding {
    char name[64];   /* file name without .suite: "crash-1" */
    char path[1024]; /* where it was written */
    mcps_live_outcome outcome;
    uint64_t seed, sequence; /* the run's seed and the sequence that found it */
    size_t original;         /* inputs before minimizing */
    bool reproduced;         /* it failed again on a fresh process before minimizing */
    size_t found_executions; /* the run's executions when it was found (0: not by the loop) */
    double found_seconds;    /* and the run's time then, minimizing before it included */
    mcps_live_seq inputs;    /* minimized */
    /* Reproduced from this many inputs of its process's history, over MCPS_LIVE_KEEP_BYTES
     * (minimize.h) once minimized as far as the budget went: inputs holds its sequence alone,
     * and the seed makes the rest again. 0 otherwise. */
    size_t history_inputs;
} mcps_live_finding;

typedef struct mcps_live_finding_meta {
    const char *revision;
    const char *command; /* the command line that found it */
} mcps_live_finding_meta;

/* Write f to dir/NAME.suite (f->path); false with err. */
bool mcps_live_finding_write(mcps_live_finding *f, const char *dir,
                             const mcps_live_finding_meta *meta, char *err, size_t errlen);

/* What a finding file's header says (empty when it does not). */
typedef struct mcps_live_finding_head {
    mcps_live_oracle oracle;
    char revision[32];
    char signature[200];
} mcps_live_finding_head;

/* Read a finding file: its inputs and header. False with err ("FILE:LINE: why"). */
bool mcps_live_finding_read(const char *path, mcps_live_seq *inputs, mcps_live_finding_head *head,
                            char *err, size_t errlen);

#endif
