/*
 * client.c - `mcpspec run --client "CMD ARGS"`: test an MCP client, with
 * mcpspec playing its server (engine/client.h). run.c parses the options it
 * shares with server runs and hands them here; the run is bounded by the
 * same guard (deadline, stop signals, watchdog) and writes the same reports.
 */
#include "cli/cli.h"
#include "cli/session_guard.h"
#include "engine/client.h"
#include "report/console.h"
#include "report/report.h"
#include "base/clock.h"
#include "transport/guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* This program, for {server}: the client runs it as its server. */
static void self_path(const char *argv0, char *buf, size_t n)
{
    ssize_t len = readlink("/proc/self/exe", buf, n - 1);
    if (len > 0) {
        buf[len] = '\0';
        return;
    }
    snprintf(buf, n, "%s", argv0 && argv0[0] ? argv0 : "mcpspec");
}

static int finish(mcps_run_result *run, const mcps_cli_client_opts *o, mcps_cli_progress *p)
{
    char err[400], outdir[1024];
    int rc = mcps_run_result_exit_code(run);
    snprintf(outdir, sizeof outdir, "%s", o->out ? o->out : "reports/client");
    if (!o->quiet)
        mcps_console_summary(&p->console, run);
    if (!mcps_report_write(run, outdir, o->formats, err, sizeof err)) {
        fprintf(stderr, "mcpspec run: cannot write the report: %s\n", err);
        rc = MCPS_EXIT_INCOMPLETE;
    } else if (!o->quiet)
        printf("report: %s/\n", outdir);
    return rc;
}

int mcps_cli_client(const mcps_cli_client_opts *o)
{
    int transports = !!strstr(o->command, "{url}") + !!strstr(o->command, "{server}") +
                     !!strstr(o->command, "{sse-url}");
    if (transports > 1) {
        fprintf(stderr, "mcpspec run: --client names more than one of {server}, {url} and "
                        "{sse-url}: one transport a run\n");
        return MCPS_EXIT_USAGE;
    }
    char err[200], self[4096];
    char **argv = mcps_argv_split(o->command, err, sizeof err);
    if (!argv) {
        fprintf(stderr, "mcpspec run: bad value for --client: %s\n", err);
        return MCPS_EXIT_USAGE;
    }
    self_path(o->argv0, self, sizeof self);
    mcps_client_config cfg;
    mcps_client_config_defaults(&cfg);
    mcps_cli_progress p = {.quiet = o->quiet};
    mcps_console_init_auto(&p.console, stdout);
    cfg.target.argv = argv;
    cfg.target.cwd = o->cwd;
    cfg.target.env_extra = o->env;
    if (o->grace > 0)
        cfg.target.close_grace = cfg.target.term_grace = o->grace;
    if (o->max_message)
        cfg.target.max_message = o->max_message;
    cfg.target_text = o->command;
    cfg.self = self;
    cfg.case_globs = o->case_globs;
    cfg.stays = o->stays;
    cfg.sse = strstr(o->command, "{sse-url}") != NULL;
    cfg.http = cfg.sse || strstr(o->command, "{url}") != NULL;
    if (o->timeout > 0)
        cfg.timeout = o->timeout;
    if (o->connect_timeout > 0)
        cfg.connect_timeout = o->connect_timeout;
    cfg.hooks = mcps_cli_progress_hooks(&p);
    mcps_guard guard;
    bool guarded = mcps_cli_guard_start(&guard, "run", o->deadline);
    if (guarded)
        cfg.target.guard = &guard;
    mcps_run_result run;
    mcps_client_run(&cfg, &run);
    int rc = finish(&run, o, &p);
    mcps_run_result_free(&run);
    mcps_argv_free(argv);
    if (guarded) {
        /* A client run stopped by --deadline has cases it could not judge. */
        if (mcps_guard_stopped(&guard) == MCPS_STOP_DEADLINE)
            rc = MCPS_EXIT_INCOMPLETE;
        rc = mcps_cli_guard_stop(&guard, "run", rc);
    }
    return rc;
}
