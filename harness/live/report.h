/*
 * report.h - the fuzz run's own reports: DIR/report.json (the run and each
 * finding: oracle, first line of evidence, requirement IDs the observer
 * cited, file, seed) and DIR/report.sarif (one result per finding). Small and
 * separate from the conformance reports (report/), whose model is cases.
 */
#ifndef MCPS_LIVE_REPORT_H
#define MCPS_LIVE_REPORT_H

#include "live/finding.h"
#include "live/growth.h"

typedef struct mcps_live_summary {
    const char *command, *revision, *error; /* error: why the run could not be done */
    uint64_t seed;
    size_t executions, sequences;
    size_t jobs;                      /* target instances fuzzed at once (0: 1) */
    size_t shard, shards;             /* --shard (shards 0: not sharded) */
    double seconds, minimize_seconds; /* the run's wall time, and the jobs' time minimizing */
    double discover_seconds;          /* reading the target's lists, before any input */
    double cpu_seconds; /* mcpspec's own CPU, its threads not the target's, the whole run */
    int exit_code;
    const mcps_live_finding *findings;
    size_t nfindings;
    const mcps_live_growth *growth; /* the growth oracle's samples; NULL: it was off */
} mcps_live_summary;

/* Write dir/report.json and dir/report.sarif (each atomically); false with err. */
bool mcps_live_report_write(const mcps_live_summary *s, const char *dir, char *err, size_t errlen);

#endif
