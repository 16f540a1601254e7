/*
 * run.c - `mcpspec run --server "CMD ARGS"`: the conformance run.
 *
 * Parses the options, loads the suites (a broken suite file is exit 2 with
 * its file and line), runs, prints progress, writes the reports whatever
 * happened, and exits 0 (no FAIL), 1 (FAIL, or WARN with --strict), 2 (usage)
 * or 3 (incomplete: the target could not be run, or ERROR verdicts). With
 * --baseline, the failures the file lists do not count and its stale or
 * expired entries do (engine/baseline.h); a broken file is exit 2 before the run.
 *
 * The run is bounded as a whole by a guard (transport/guard.h): --deadline
 * for the wall time, SIGTERM and SIGINT (stop, reap, write the partial
 * report, exit 3), a shared wire-log budget, and a watchdog process that
 * kills the targets if mcpspec itself is killed, even with SIGKILL.
 */
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/session_guard.h"
#include "engine/baseline.h"
#include "engine/config.h"
#include "engine/run.h"
#include "report/console.h"
#include "report/report.h"
#include "base/clock.h"
#include "transport/guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST         64
#define DEFAULT_DEADLINE 600.0 /* seconds: long for a healthy run, short for a stuck CI job */

typedef struct run_options {
    const char *server;
    const char *client;       /* --client: test a client instead (client.c) */
    bool client_stays;        /* the configuration's client keeps running once done */
    bool probe_timeout_given; /* with --client: how long it may take to start its server */
    const char *url;
    bool transport_option;    /* --transport was given */
    bool transport_given;     /* --transport other than auto */
    mcps_transport_kind kind; /* what it named */
    const char *headers[MAX_LIST + 1];
    size_t nheaders;
    const char *config;
    size_t nconfig; /* --config given more than once: a matrix (matrix.c) */
    const char *cwd;
    const char *suites;
    const char *out;
    const char *baseline; /* --baseline FILE */
    const char *env[MAX_LIST + 1];
    const char *suite_globs[MAX_LIST + 1];
    const char *case_globs[MAX_LIST + 1];
    size_t nenv, nsuite, ncase;
    mcps_rev_set revisions;
    unsigned formats;
    bool quiet;
    double deadline; /* seconds for the whole run; 0: none */
    mcps_run_config cfg;
} run_options;

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "mcpspec run: %s\n", why);
    fprintf(stderr,
            "usage: mcpspec run --server \"CMD ARGS\" [options]\n"
            "       mcpspec run --url http://HOST:PORT/mcp [--server \"CMD ARGS\"] [options]\n"
            "       mcpspec run --config TARGET.json [options]\n"
            "       mcpspec run --config A.json --config B.json ... [options]: a matrix\n"
            "                       (mcpspec matrix --help)\n"
            "       mcpspec run --client \"CMD ARGS {server}\" [options]: test a client; mcpspec\n"
            "                       plays its server, {server} is the command it runs as one\n"
            "                       ({url}: a Streamable HTTP endpoint, {sse-url}: HTTP+SSE)\n"
            "  --server CMD         the MCP server to test (split like a shell, no shell): over\n"
            "                       stdio, or with --url started, awaited and stopped by mcpspec\n"
            "  --url URL            test the server at this HTTP endpoint\n"
            "  --transport T        auto (default: Streamable HTTP, then the legacy HTTP+SSE on\n"
            "                       a 4xx), streamable-http or sse\n"
            "  --header \"N: V\"      an HTTP header for every request (repeatable; values are\n"
            "                       never written to reports)\n"
            "  --config FILE        the target configuration: server, and the tool calls you\n"
            "                       consent to (docs/target-config.md)\n"
            "  --cwd DIR            run it in DIR\n"
            "  --env K=V            add to its environment (repeatable)\n"
            "  --revision REV       test only this revision (repeatable; default: all it speaks)\n"
            "  --suite GLOB         run only matching suites (repeatable)\n"
            "  --case GLOB          run only matching case ids (repeatable)\n"
            "  --suites DIR         suite files (default: the bundled suites)\n"
            "  --out DIR            report folder (default: reports/<server name>)\n"
            "  --format LIST        json,junit,markdown,html,sarif (default: all)\n"
            "  --timeout S          seconds to wait for an expected message (default 5)\n"
            "  --probe-timeout S    seconds to wait for an initialize probe (default 10)\n"
            "  --max-message SIZE   longest message judged (default 4M)\n"
            "  --jobs N             cases run at once (default 8)\n"
            "  --isolation MODE     shared: cases that leave the session clean share a process\n"
            "                       (default); fresh: every case on a process of its own\n"
            "  --shutdown-grace S   wait after closing stdin, then after SIGTERM (default 2)\n"
            "  --deadline S         the whole run ends by then: cases still running are cut\n"
            "                       short and they and the rest are ERROR, the report is\n"
            "                       written (default 600; 0: none)\n"
            "  --strict             WARN fails the run too\n"
            "  --baseline FILE      known failures (docs/baseline.md): those it lists do not\n"
            "                       fail the run; its stale or expired entries do\n"
            "  --quiet              no progress output\n"
            "A target that stops responding (cases in a row with requests left unanswered,\n"
            "then a fresh process not answering ping) stops the run the same way. SIGTERM\n"
            "or SIGINT: targets are stopped, the partial report written, exit 3.\n"
            "exit: 0 no FAIL, 1 FAIL (or a stale baseline entry), 2 usage, suite or baseline\n"
            "error, 3 incomplete\n");
    return MCPS_EXIT_USAGE;
}

static bool push(const char **list, size_t *n, const char *v)
{
    if (*n >= MAX_LIST)
        return false;
    list[(*n)++] = v;
    list[*n] = NULL;
    return true;
}

static int bad_value(const char *option, const char *value)
{
    char why[300];
    snprintf(why, sizeof why, "bad value for %s: '%s'", option, value);
    return usage(why);
}

/* One option; returns -1 when consumed, else an exit code. */
static int parse_option(mcps_args *a, run_options *o)
{
    mcps_run_config *c = &o->cfg;
    if (mcps_args_option(a, "--server"))
        o->server = a->value;
    else if (mcps_args_option(a, "--client"))
        o->client = a->value;
    else if (mcps_args_option(a, "--url")) {
        if (strncmp(a->value, "http://", 7) != 0 && strncmp(a->value, "https://", 8) != 0)
            return bad_value("--url", a->value);
        o->url = a->value;
    } else if (mcps_args_option(a, "--transport")) {
        o->transport_option = true;
        o->transport_given = strcmp(a->value, "auto") != 0;
        if (o->transport_given &&
            (!mcps_transport_kind_parse(a->value, &o->kind) || o->kind == MCPS_TRANSPORT_STDIO))
            return bad_value("--transport", a->value);
    } else if (mcps_args_option(a, "--header")) {
        const char *colon = strchr(a->value, ':');
        if (!colon || colon == a->value || !push(o->headers, &o->nheaders, a->value))
            return bad_value("--header", "expected \"Name: value\"");
    } else if (mcps_args_option(a, "--config")) {
        o->config = a->value;
        o->nconfig++;
    } else if (mcps_args_option(a, "--cwd"))
        o->cwd = a->value;
    else if (mcps_args_option(a, "--env")) {
        if (!strchr(a->value, '=') || a->value[0] == '=' || !push(o->env, &o->nenv, a->value))
            return bad_value("--env", a->value);
    } else if (mcps_args_option(a, "--revision")) {
        mcps_rev r = mcps_rev_parse(a->value);
        if (r == MCPS_REV_NONE)
            return bad_value("--revision", a->value);
        o->revisions |= MCPS_REV_BIT(r);
    } else if (mcps_args_option(a, "--suite")) {
        if (!push(o->suite_globs, &o->nsuite, a->value))
            return bad_value("--suite", a->value);
    } else if (mcps_args_option(a, "--case")) {
        if (!push(o->case_globs, &o->ncase, a->value))
            return bad_value("--case", a->value);
    } else if (mcps_args_option(a, "--suites"))
        o->suites = a->value;
    else if (mcps_args_option(a, "--out"))
        o->out = a->value;
    else if (mcps_args_option(a, "--baseline"))
        o->baseline = a->value;
    else if (mcps_args_option(a, "--format")) {
        if (!mcps_report_parse_formats(a->value, &o->formats))
            return bad_value("--format", a->value);
    } else if (mcps_args_option(a, "--timeout")) {
        if (!mcps_args_seconds(a->value, &c->timeout) || c->timeout <= 0)
            return bad_value("--timeout", a->value);
    } else if (mcps_args_option(a, "--probe-timeout")) {
        if (!mcps_args_seconds(a->value, &c->probe_timeout) || c->probe_timeout <= 0)
            return bad_value("--probe-timeout", a->value);
        o->probe_timeout_given = true;
    } else if (mcps_args_option(a, "--max-message")) {
        if (!mcps_args_size(a->value, &c->target.max_message) || c->target.max_message < 1024)
            return bad_value("--max-message", a->value);
    } else if (mcps_args_option(a, "--shutdown-grace")) {
        if (!mcps_args_seconds(a->value, &c->target.close_grace) || c->target.close_grace <= 0)
            return bad_value("--shutdown-grace", a->value);
        c->target.term_grace = c->target.close_grace;
    } else if (mcps_args_option(a, "--deadline")) {
        if (!mcps_args_seconds(a->value, &o->deadline) || o->deadline < 0)
            return bad_value("--deadline", a->value);
    } else if (mcps_args_option(a, "--jobs")) {
        size_t jobs;
        if (!mcps_args_size(a->value, &jobs) || jobs < 1 || jobs > 64)
            return bad_value("--jobs", a->value);
        c->jobs = jobs;
    } else if (mcps_args_option(a, "--isolation")) {
        if (strcmp(a->value, "shared") != 0 && strcmp(a->value, "fresh") != 0)
            return bad_value("--isolation", a->value);
        c->fresh_processes = strcmp(a->value, "fresh") == 0;
    } else if (mcps_args_flag(a, "--strict"))
        c->strict = true;
    else if (mcps_args_flag(a, "--quiet"))
        o->quiet = true;
    else if (mcps_args_flag(a, "--help")) {
        usage(NULL);
        return MCPS_EXIT_OK;
    } else {
        char why[300];
        snprintf(why, sizeof why, "%s '%s'", a->error[0] ? a->error : "unknown argument",
                 a->argv[a->i < a->argc ? a->i : a->argc - 1]);
        return usage(a->error[0] ? a->error : why);
    }
    return -1;
}

/* reports/<basename of the server program> (or the URL's host), unless --out says otherwise. */
static void default_out(char **argv, const char *url, char *buf, size_t n)
{
    if (!argv) {
        const char *host = strstr(url, "://") + 3;
        snprintf(buf, n, "reports/%.*s", (int)strcspn(host, ":/?#"), host);
        return;
    }
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    snprintf(buf, n, "reports/%s", base[0] && base[0] != '.' ? base : "target");
}

/* --baseline: loaded before the run, so a broken file stops it (exit 2) before it starts. */
static bool load_baseline(const run_options *o, mcps_baseline *b)
{
    char err[600];
    *b = (mcps_baseline){0};
    if (!o->baseline || mcps_baseline_load(o->baseline, b, err, sizeof err))
        return true;
    fprintf(stderr, "mcpspec run: %s\n", err);
    return false;
}

/* The run's exit code once the baseline (if any) has excused what it lists. */
static int judge(mcps_run_result *run, const mcps_baseline *b, const mcps_suite_set *suites,
                 const char *today)
{
    if (b->file && !mcps_baseline_apply(b, suites, today, run)) {
        fprintf(stderr, "mcpspec run: out of memory applying the baseline\n");
        return MCPS_EXIT_INCOMPLETE;
    }
    return mcps_run_result_exit_code(run);
}

static int execute(run_options *o, char **argv)
{
    mcps_suite_set suites;
    mcps_baseline baseline;
    if (!mcps_cli_load_suites(o->suites, &suites))
        return MCPS_EXIT_USAGE;
    if (!load_baseline(o, &baseline)) {
        mcps_suite_set_free(&suites);
        return MCPS_EXIT_USAGE;
    }
    mcps_cli_progress p = {.quiet = o->quiet};
    char today[11];
    mcps_baseline_today(today);
    mcps_console_init_auto(&p.console, stdout);
    mcps_console_set_baseline(&p.console, baseline.file ? &baseline : NULL, today);
    mcps_run_config *c = &o->cfg;
    c->target.argv = argv;
    c->target.cwd = o->cwd;
    c->target.env_extra = o->nenv ? (char *const *)o->env : NULL;
    c->target_text = o->url ? o->url : o->server;
    c->target.url = o->url;
    c->target.headers = o->nheaders ? (char *const *)o->headers : NULL;
    c->transport_auto = o->url && !o->transport_given;
    c->target.kind = !o->url              ? MCPS_TRANSPORT_STDIO
                     : o->transport_given ? o->kind
                                          : MCPS_TRANSPORT_STREAMABLE_HTTP;
    c->revisions = o->revisions;
    c->suite_globs = o->nsuite ? o->suite_globs : NULL;
    c->case_globs = o->ncase ? o->case_globs : NULL;
    c->hooks = mcps_cli_progress_hooks(&p);
    mcps_guard guard;
    bool guarded = mcps_cli_guard_start(&guard, "run", o->deadline);
    c->target.guard = guarded ? &guard : NULL;
    mcps_run_result run;
    mcps_run(&suites, c, &run);
    char outdir[1024], err[400];
    if (o->out)
        snprintf(outdir, sizeof outdir, "%s", o->out);
    else
        default_out(argv, o->url, outdir, sizeof outdir);
    int rc = judge(&run, &baseline, &suites, today);
    if (!o->quiet)
        mcps_console_summary(&p.console, &run);
    if (!mcps_report_write(&run, outdir, o->formats, err, sizeof err)) {
        fprintf(stderr, "mcpspec run: cannot write the report: %s\n", err);
        rc = MCPS_EXIT_INCOMPLETE;
    } else if (!o->quiet) {
        printf("report: %s/\n", outdir);
    }
    mcps_run_result_free(&run);
    mcps_baseline_free(&baseline);
    mcps_suite_set_free(&suites);
    if (guarded)
        rc = mcps_cli_guard_stop(&guard, "run", rc);
    return rc;
}

/* Settings from the configuration file, under what the command line says. */
static bool apply_config(run_options *o, mcps_target_file *f)
{
    char err[600];
    if (!mcps_target_file_load(o->config, f, err, sizeof err)) {
        fprintf(stderr, "mcpspec run: %s\n", err);
        return false;
    }
    if (f->is_client && !o->client)
        o->client = f->command;
    else if (!f->is_client && !o->server)
        o->server = f->command;
    o->client_stays = f->client_stays;
    if (!o->cwd)
        o->cwd = f->cwd;
    /* The configuration's environment first, so --env wins for the same key. */
    const char *cli[MAX_LIST + 1];
    size_t n = o->nenv;
    memcpy(cli, o->env, sizeof cli);
    o->nenv = 0;
    for (size_t i = 0; f->env && f->env[i]; i++)
        push(o->env, &o->nenv, f->env[i]);
    for (size_t i = 0; i < n; i++)
        push(o->env, &o->nenv, cli[i]);
    o->cfg.config_vars = &f->vars;
    return true;
}

/* --client: the options a client run shares with server runs; the rest do not apply. */
static int run_client(const run_options *o)
{
    if (o->server || o->url || o->nsuite || o->baseline)
        return usage("--client does not take --server, --url, --suite or --baseline");
    mcps_cli_client_opts co = {.command = o->client,
                               .cwd = o->cwd,
                               .env = o->nenv ? (char *const *)o->env : NULL,
                               .case_globs = o->ncase ? o->case_globs : NULL,
                               .out = o->out,
                               .formats = o->formats,
                               .timeout = o->cfg.timeout,
                               .connect_timeout = o->probe_timeout_given ? o->cfg.probe_timeout : 0,
                               .deadline = o->deadline,
                               .max_message = o->cfg.target.max_message,
                               .grace = o->cfg.target.close_grace,
                               .stays = o->client_stays,
                               .quiet = o->quiet};
    return mcps_cli_client(&co);
}

bool mcps_cli_run_options_ok(int argc, char **argv)
{
    run_options o = {.deadline = DEFAULT_DEADLINE};
    mcps_run_config_defaults(&o.cfg);
    mcps_args a;
    mcps_args_init(&a, argc, argv);
    while (mcps_args_more(&a))
        if (parse_option(&a, &o) >= 0)
            return false;
    return true;
}

int mcps_cli_run(int argc, char **argv)
{
    run_options o = {.deadline = DEFAULT_DEADLINE};
    mcps_target_file file = {0};
    mcps_run_config_defaults(&o.cfg);
    mcps_args a;
    mcps_args_init(&a, argc, argv);
    while (mcps_args_more(&a)) {
        int rc = parse_option(&a, &o);
        if (rc >= 0)
            return rc;
    }
    if (o.nconfig > 1)
        return mcps_cli_matrix_configs(argc, argv);
    if (o.config && !apply_config(&o, &file))
        return MCPS_EXIT_USAGE;
    if (o.client) {
        int rc = run_client(&o);
        mcps_target_file_free(&file);
        return rc;
    }
    if (!o.server && !o.url) {
        mcps_target_file_free(&file);
        return usage("--server or --url (or a --config naming a server) is required");
    }
    if ((o.transport_option || o.nheaders) && !o.url) {
        mcps_target_file_free(&file);
        return usage("--transport and --header need --url");
    }
    char err[200];
    char **target_argv = o.server ? mcps_argv_split(o.server, err, sizeof err) : NULL;
    if (o.server && !target_argv) {
        mcps_target_file_free(&file);
        return bad_value("--server", err);
    }
    int rc = execute(&o, target_argv);
    mcps_argv_free(target_argv);
    mcps_target_file_free(&file);
    return rc;
}
