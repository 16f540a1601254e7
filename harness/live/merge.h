/*
 * merge.h - `mcpspec fuzz --merge DIR... --out OUT`: the findings of several
 * fuzz runs (the shards of one seed, `--shard I/N`) merged into one report,
 * one finding per revision and signature, the lowest (seed, sequence) kept.
 * Nothing is replayed: `mcpspec replay` re-checks a merged finding where it
 * is to be filed.
 */
#ifndef MCPS_LIVE_MERGE_H
#define MCPS_LIVE_MERGE_H

#include "live/fuzz.h"

typedef struct mcps_live_merge_options {
    char *const *dirs; /* each an --out folder of mcpspec fuzz (its report.json, findings/) */
    size_t ndirs;
    const char *out_dir; /* report.json, report.sarif, findings/ of the merge */
    const char *command; /* the command line, for the report */
    FILE *progress;      /* a line when done; NULL: quiet */
} mcps_live_merge_options;

/* Merge; the exit code: 0 no finding, 1 findings, 3 a report or finding file could not be read
 * or written (err says which). */
int mcps_live_merge(const mcps_live_merge_options *o, char *err, size_t errlen);

#endif
