/*
 * afl_run.h - afl-fuzz as a child process of `mcpspec fuzz --afl`: started
 * in its own process group (registered with the guard's watchdog), waited
 * for with a deadline, stopped with SIGINT (AFL writes its stats and exits),
 * then SIGKILLed and reaped if it lingers; and the figures of its
 * fuzzer_stats file.
 */
#ifndef MCPS_LIVE_AFL_RUN_H
#define MCPS_LIVE_AFL_RUN_H

#include "live/live.h"

#define MCPS_LIVE_AFL_GRACE 5.0 /* seconds afl-fuzz may take past --time to stop */

typedef struct mcps_live_afl_stats {
    double execs_done, execs_per_sec, run_time;
    bool found; /* the file was read */
} mcps_live_afl_stats;

/* Whether afl-fuzz is on PATH. */
bool mcps_live_afl_available(void);
/* How the child is started: its folder (NULL: ours), environment additions ("K=V", each
 * list NULL-terminated or NULL) and the file its output goes to. */
typedef struct mcps_live_afl_child {
    const char *cwd;
    char *const *env, *const *env_extra;
    const char *log_path;
} mcps_live_afl_child;

/* Run afl-fuzz (argv[0] "afl-fuzz") until it exits, seconds pass (then SIGINT, and SIGKILL
 * after the grace), or the guard stops the run; returns its exit status, or -1 with err
 * when it could not be run. */
int mcps_live_afl_exec(char *const *argv, const mcps_live_afl_child *c, const mcps_guard *g,
                       double seconds, char *err, size_t errlen);
/* Read AFL's fuzzer_stats. */
void mcps_live_afl_stats_read(const char *path, mcps_live_afl_stats *st);

#endif
