/*
 * session_guard.c - progress lines and the run's guard; see session_guard.h.
 */
#include "cli/session_guard.h"

#include "base/clock.h"
#include "cli/cli.h"

#include <stdio.h>

static void on_started(void *ctx, const char *case_id, mcps_rev rev, size_t index, size_t total)
{
    mcps_cli_progress *p = ctx;
    (void)index;
    if (p->quiet)
        return;
    mcps_console_set_total(&p->console, total);
    mcps_console_case_started(&p->console, case_id, rev);
}

static void on_finished(void *ctx, const mcps_case_result *r, size_t index, size_t total)
{
    mcps_cli_progress *p = ctx;
    (void)index;
    (void)total;
    if (!p->quiet)
        mcps_console_case_finished(&p->console, r);
}

mcps_run_hooks mcps_cli_progress_hooks(mcps_cli_progress *p)
{
    return (mcps_run_hooks){on_started, on_finished, p};
}

bool mcps_cli_guard_start(mcps_guard *g, const char *command, double deadline)
{
    if (!mcps_guard_init(g)) {
        fprintf(stderr, "mcpspec %s: cannot set up the run's stop switch; running without\n",
                command);
        return false;
    }
    if (deadline > 0)
        g->deadline_ms = mcps_clock_deadline(deadline);
    if (!mcps_guard_start_watchdog(g))
        fprintf(stderr, "mcpspec %s: no watchdog: if mcpspec is killed, targets may outlive it\n",
                command);
    mcps_cli_catch_stop_signals(g->fd[1]);
    return true;
}

int mcps_cli_guard_stop(mcps_guard *g, const char *command, int rc)
{
    char why = mcps_guard_stopped(g);
    mcps_cli_catch_stop_signals(-1);
    mcps_guard_free(g);
    if (why == MCPS_STOP_SIGTERM || why == MCPS_STOP_SIGINT) {
        fprintf(stderr, "mcpspec %s: %s: partial report written\n", command,
                mcps_guard_reason(why));
        return MCPS_EXIT_INCOMPLETE;
    }
    return rc;
}
