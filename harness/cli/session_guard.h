/*
 * session_guard.h - what every command that runs targets sets up around its
 * run: the progress lines and the run's guard (stop switch, --deadline,
 * SIGINT and SIGTERM, the watchdog that outlives a SIGKILL). run, run --client
 * and fuzz share it so that they stop, and say why, the same way.
 */
#ifndef MCPS_CLI_SESSION_GUARD_H
#define MCPS_CLI_SESSION_GUARD_H

#include <stdbool.h>

#include "engine/run.h"
#include "report/console.h"
#include "transport/guard.h"

typedef struct mcps_cli_progress {
    mcps_console console;
    bool quiet;
} mcps_cli_progress;

/* Hooks that show each case starting and finishing on p's console (nothing when quiet). */
mcps_run_hooks mcps_cli_progress_hooks(mcps_cli_progress *p);

/* Before any thread. False (said on stderr, as `mcpspec COMMAND: ...`) when there is no stop
 * switch: the command then runs without one. deadline: seconds, 0 for none. */
bool mcps_cli_guard_start(mcps_guard *g, const char *command, double deadline);
/* After the run and its report: rc, or 3 (incomplete) when SIGINT or SIGTERM stopped it. */
int mcps_cli_guard_stop(mcps_guard *g, const char *command, int rc);

#endif
