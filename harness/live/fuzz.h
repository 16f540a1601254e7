/*
 * fuzz.h - `mcpspec fuzz` and `mcpspec replay` as library calls: the run
 * loop (discover, generate, execute, minimize, deduplicate, record) and the
 * replay of one finding file. The command line lives in cli/fuzz.c.
 */
#ifndef MCPS_LIVE_FUZZ_H
#define MCPS_LIVE_FUZZ_H

#include <stdio.h>

#include "live/live.h"

#define MCPS_LIVE_MAX_FINDINGS 64 /* distinct findings kept; a run stops looking past it */
#define MCPS_LIVE_MAX_JOBS     16 /* target instances fuzzed at once, at most */

typedef struct mcps_live_options {
    mcps_live_target target;
    const cJSON *calls;  /* [{"name":..., "arguments":{...}}]: consented tool calls, or NULL */
    const char *out_dir; /* created if missing; findings/ below it */
    const char *command; /* the command line, for the finding headers and report */
    uint64_t seed;
    double seconds;        /* stop after this long (0: no limit) */
    size_t runs;           /* stop after this many executions, one per input (0: no limit) */
    size_t max_len;        /* inputs per sequence, at most */
    size_t minimize_runs;  /* ddmin's budget of executions per finding */
    size_t max_findings;   /* stop after this many distinct findings (0: MCPS_LIVE_MAX_FINDINGS) */
    size_t jobs;           /* target instances at once (0: 1), at most MCPS_LIVE_MAX_JOBS */
    size_t process_inputs; /* inputs a target process takes before it is replaced (0: runner.h's
                              MCPS_LIVE_HISTORY_INPUTS) */
    /* --shard I/N: this run takes sequences shard, shard + shards, ... of the seed (shard from 0,
     * shards 0: 1), so N machines with one seed share its sequences without overlap. */
    size_t shard, shards;
    FILE *progress; /* progress and findings as they come; NULL: quiet */
    bool tty;       /* progress is a terminal: one line rewritten in place */
    /* --afl only: the command afl-fuzz runs instead of the server, one that plays the session
     * prefix itself and reads the requests alone (seeds are then written without the prefix);
     * NULL: afl-fuzz runs the server on whole sessions. */
    char *const *afl_target;
    const char *afl_dict; /* --afl only: a second dictionary for afl-fuzz (-x), or NULL */
    /* --afl only: AFL++'s custom mutator library (AFL_CUSTOM_MUTATOR_LIBRARY), or NULL */
    const char *afl_mutator;
} mcps_live_options;

/* Run; returns the exit code: 0 nothing found, 1 found, 3 the run could not be done. The
 * report is written in every case (when out_dir can be made). */
int mcps_live_fuzz(const mcps_live_options *o);

/* Replay the finding at path: 1 when an oracle fires again (the one the file names, if it
 * names one), 0 when not, 3 when it cannot be done (err says why). */
int mcps_live_replay(const mcps_live_target *t, const char *path, FILE *out, char *err,
                     size_t errlen);

#endif
