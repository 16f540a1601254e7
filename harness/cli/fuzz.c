/*
 * fuzz.c - `mcpspec fuzz` and `mcpspec replay`: the options of the live
 * fuzzer (harness/live/), the run's guard (SIGINT and SIGTERM stop it, a
 * watchdog kills the targets if mcpspec is killed), and the exit code: 0
 * nothing found, 1 found (replay: it reproduces), 2 usage, 3 the run could not
 * be done.
 */
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/session_guard.h"
#include "engine/config.h"
#include "live/afl.h"
#include "live/fuzz.h"
#include "live/merge.h"
#include "live/server.h"
#include "transport/guard.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#define MAX_ENV          64
#define MAX_HEADERS      16
#define MAX_MERGED       256 /* runs one --merge takes */
#define DEFAULT_SECONDS  60.0
#define DEFAULT_REVISION "2025-11-25"
#define MAX_SHARDS       1000000 /* machines sharing one seed: far more than any fleet */
/* A liveness ping per this many inputs: a ping costs the target what an input does, and a
 * finding's last ping still comes after its last input (fuzz/README.md, throughput). */
#define DEFAULT_PING_EVERY 8
#define PING_EVERY_TEXT    "8"

typedef struct fuzz_options {
    const char *server, *url, *config, *revision, *out, *cwd, *file, *afl_target, *afl_dict;
    const char *afl_mutator;
    const char *merged[MAX_MERGED + 1]; /* --merge: the runs' --out folders */
    size_t nmerged;
    const char *env[MAX_ENV + 1];
    size_t nenv;
    const char *headers[MAX_HEADERS + 1];
    size_t nheaders;
    double seconds, hang, probe;
    size_t runs, max_len, minimize_runs, max_findings, jobs, ping_every, process_inputs;
    size_t shard, shards; /* --shard I/N: shard I - 1 of N; shards 0: none */
    uint64_t seed;
    bool quiet, replay, time_given, afl, growth_given, merge;
    mcps_live_watch growth;
    mcps_target_file target_file;
    char command[2048];
} fuzz_options;

static int usage(const fuzz_options *o, const char *why)
{
    FILE *out = why ? stderr : stdout;
    if (why)
        fprintf(out, "mcpspec %s: %s\n\n", o->replay ? "replay" : "fuzz", why);
    if (o->replay)
        fprintf(out,
                "usage: mcpspec replay FILE --server CMD | --url URL [--server CMD] [options]\n\n"
                "Replays a finding of mcpspec fuzz on a fresh target process: exit 1 when it\n"
                "reproduces, 0 when not, 3 when it cannot be done.\n\n");
    else
        fprintf(
            out,
            "usage: mcpspec fuzz --server CMD | --url URL [--server CMD] [options]\n"
            "       mcpspec fuzz --merge DIR... --out OUT\n\n"
            "Fuzzes a live MCP server over stdio or Streamable HTTP: a valid session prefix,\n"
            "then mutated requests and notifications built from its own lists; crashes,\n"
            "hangs, sanitizer reports, malformed responses, resource growth and files served\n"
            "by a path traversal are minimized and written to DIR/findings/.\n"
            "Exit 0: nothing found; 1: found; 3: the run could not be done.\n\n"
            "  --time S             stop after S seconds (default 60 without --runs)\n"
            "  --runs N             stop after N executions (one per input)\n"
            "  --seed N             the run's seed (default 1): same seed, same inputs\n"
            "  --jobs N             N target instances at once (default 1, at most 16); with\n"
            "                       --runs, the same seed and N give the same findings\n"
            "  --shard I/N          shard I of N (1 <= I <= N): only sequences I-1, I-1+N, ...\n"
            "                       of the seed, so N machines with one seed never overlap;\n"
            "                       findings keep their sequence numbers, and merge by\n"
            "                       signature, the lowest sequence kept (fuzz/README.md)\n"
            "  --out DIR            report.json, report.sarif, findings/ (default reports/fuzz)\n"
            "  --max-len N          inputs per sequence, at most (default 64)\n"
            "  --minimize-runs N    executions ddmin may spend per finding (default 200)\n"
            "  --growth on|fds|off  the resource-growth oracle: the target's memory and\n"
            "                       descriptors over a window (default on; fds: descriptors\n"
            "                       only, for an ASan build, whose quarantine holds memory);\n"
            "                       over HTTP only when given, with --server and --url: the\n"
            "                       server's process tree, sockets not counted\n"
            "  --ping-every K       stdio: a liveness ping after every Kth input of a\n"
            "                       sequence and after its last (default " PING_EVERY_TEXT
            "; 1: after\n"
            "                       each input, as the finding files replay)\n"
            "  --process-inputs N   inputs a target process takes before a fresh one\n"
            "                       replaces it (default 262144; a finding its sequence\n"
            "                       alone does not reproduce is minimized from its\n"
            "                       process's inputs: fewer, faster)\n"
            "  --merge DIR...       merge the findings of runs (the --out folders of shards)\n"
            "                       into --out: one per revision and signature, the lowest\n"
            "                       (seed, sequence) kept, renamed as one run names them\n"
            "  --quiet              no progress line\n"
            "  --afl                coverage-guided: afl-fuzz runs CMD (built with\n"
            "                       afl-clang-fast, scripts/afl-build) on session files\n"
            "  --afl-target CMD     with --afl: afl-fuzz runs CMD instead, which plays the\n"
            "                       session prefix itself and reads the requests alone\n"
            "                       (build/afl/refserver-afl); seeds carry no prefix, and\n"
            "                       findings are replayed on --server with it\n"
            "  --afl-dict FILE      with --afl: a second dictionary for afl-fuzz (-x), such as\n"
            "                       the one AFL_LLVM_DICT2FILE writes (scripts/afl-build)\n"
            "  --afl-mutator PATH   with --afl: AFL++'s custom mutator library, such as\n"
            "                       build/afl/afl-json-mutator.so (AFL_CUSTOM_MUTATOR_LIBRARY);\n"
            "                       its tokens: DIR/afl/dict and --afl-dict's, unless\n"
            "                       MCPS_AFL_MUTATOR_DICT is set\n");
    fprintf(out,
            "  --server CMD         the MCP server (split like a shell, run without one)\n"
            "  --url URL            fuzz the server at this Streamable HTTP endpoint; with\n"
            "                       --server, mcpspec starts it, waits until the URL answers\n"
            "                       (--probe-timeout) and starts it again after a crash\n"
            "  --header \"N: V\"     an HTTP header on every request (repeatable; its value\n"
            "                       is never written to the findings)\n"
            "  --config FILE        target configuration: the server, and the tool call\n"
            "                       (calls.tool) it consents to; no tool is called without;\n"
            "                       its arguments are also made from the tool's inputSchema\n"
            "  --revision R         protocolVersion of the prefix (default %s)\n"
            "  --hang-timeout S     seconds each liveness ping may take (default 2)\n"
            "  --probe-timeout S    seconds for the initialize answer (default 10)\n"
            "  --cwd DIR, --env K=V how to start the server\n",
            DEFAULT_REVISION);
    return why ? MCPS_EXIT_USAGE : MCPS_EXIT_OK;
}

static bool count_value(const char *s, size_t *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || s[0] == '-')
        return false;
    *out = (size_t)v;
    return true;
}

/* --shard I/N: 1 <= I <= N <= MAX_SHARDS, decimal digits only. */
static bool shard_value(const char *s, size_t *index, size_t *count)
{
    const char *slash = strchr(s, '/');
    char first[24];
    if (!slash || (size_t)(slash - s) >= sizeof first)
        return false;
    memcpy(first, s, (size_t)(slash - s));
    first[slash - s] = '\0';
    size_t i, n;
    if (!count_value(first, &i) || !count_value(slash + 1, &n) || i < 1 || i > n ||
        n > MAX_SHARDS || first[0] == '+' || slash[1] == '+')
        return false;
    *index = i - 1;
    *count = n;
    return true;
}

/* One option; -1 to go on, else the exit code (usage). */
static int parse_value(mcps_args *a, fuzz_options *o)
{
    size_t n = 0;
    bool ok = true;
    if (mcps_args_option(a, "--time")) {
        ok = mcps_args_seconds(a->value, &o->seconds) && o->seconds > 0;
        o->time_given = true;
    } else if (mcps_args_option(a, "--runs")) {
        ok = count_value(a->value, &o->runs) && o->runs > 0;
    } else if (mcps_args_option(a, "--seed")) {
        ok = count_value(a->value, &n);
        o->seed = n;
    } else if (mcps_args_option(a, "--max-len")) {
        ok = count_value(a->value, &o->max_len) && o->max_len > 0 && o->max_len <= 1000;
    } else if (!o->replay && mcps_args_option(a, "--jobs")) {
        ok = count_value(a->value, &o->jobs) && o->jobs > 0 && o->jobs <= MCPS_LIVE_MAX_JOBS;
    } else if (mcps_args_option(a, "--max-findings")) {
        ok = count_value(a->value, &o->max_findings) && o->max_findings > 0;
    } else if (mcps_args_option(a, "--minimize-runs")) {
        ok = count_value(a->value, &o->minimize_runs);
    } else if (!o->replay && mcps_args_option(a, "--shard")) {
        ok = shard_value(a->value, &o->shard, &o->shards);
    } else if (!o->replay && mcps_args_option(a, "--process-inputs")) {
        ok = count_value(a->value, &o->process_inputs) && o->process_inputs > 0;
    } else if (!o->replay && mcps_args_option(a, "--ping-every")) {
        ok = count_value(a->value, &o->ping_every) && o->ping_every > 0 && o->ping_every <= 1000;
    } else if (mcps_args_option(a, "--hang-timeout")) {
        ok = mcps_args_seconds(a->value, &o->hang) && o->hang > 0;
    } else if (mcps_args_option(a, "--probe-timeout")) {
        ok = mcps_args_seconds(a->value, &o->probe) && o->probe > 0;
    } else if (!o->replay && mcps_args_option(a, "--growth")) {
        ok = strcmp(a->value, "on") == 0 || strcmp(a->value, "off") == 0 ||
             strcmp(a->value, "fds") == 0;
        o->growth_given = true;
        o->growth = strcmp(a->value, "off") == 0   ? MCPS_LIVE_WATCH_NONE
                    : strcmp(a->value, "fds") == 0 ? MCPS_LIVE_WATCH_FDS
                                                   : MCPS_LIVE_WATCH_ALL;
    } else {
        return -2; /* not one of these */
    }
    if (!ok) {
        char why[200];
        snprintf(why, sizeof why, "bad value '%s' for %s", a->value, a->argv[a->i - 1]);
        return usage(o, why);
    }
    return -1;
}

static int parse_option(mcps_args *a, fuzz_options *o)
{
    if (mcps_args_flag(a, "--help") || mcps_args_flag(a, "-h")) {
        usage(o, NULL);
        return MCPS_EXIT_OK;
    }
    int rc = parse_value(a, o);
    if (rc != -2)
        return rc;
    if (mcps_args_option(a, "--server"))
        o->server = a->value;
    else if (mcps_args_option(a, "--url"))
        o->url = a->value;
    else if (mcps_args_option(a, "--header")) {
        if (o->nheaders >= MAX_HEADERS)
            return usage(o, "too many --header");
        if (!strchr(a->value, ':'))
            return usage(o, "--header takes \"Name: value\"");
        o->headers[o->nheaders++] = a->value;
    } else if (mcps_args_option(a, "--config"))
        o->config = a->value;
    else if (mcps_args_option(a, "--revision"))
        o->revision = a->value;
    else if (mcps_args_option(a, "--out"))
        o->out = a->value;
    else if (mcps_args_option(a, "--cwd"))
        o->cwd = a->value;
    else if (mcps_args_option(a, "--env")) {
        if (o->nenv >= MAX_ENV)
            return usage(o, "too many --env");
        o->env[o->nenv++] = a->value;
    } else if (mcps_args_flag(a, "--quiet"))
        o->quiet = true;
    else if (!o->replay && mcps_args_flag(a, "--afl"))
        o->afl = true;
    else if (!o->replay && mcps_args_flag(a, "--merge"))
        o->merge = true;
    else if (!o->replay && mcps_args_option(a, "--afl-target"))
        o->afl_target = a->value;
    else if (!o->replay && mcps_args_option(a, "--afl-dict"))
        o->afl_dict = a->value;
    else if (!o->replay && mcps_args_option(a, "--afl-mutator"))
        o->afl_mutator = a->value;
    else if (a->error[0])
        return usage(o, a->error);
    else if (mcps_args_is_option(a)) {
        char why[200];
        snprintf(why, sizeof why, "unknown option '%s'", a->argv[a->i]);
        return usage(o, why);
    } else if (o->replay && !o->file)
        o->file = mcps_args_positional(a);
    else if (o->merge && o->nmerged < MAX_MERGED)
        o->merged[o->nmerged++] = mcps_args_positional(a);
    else {
        char why[200];
        snprintf(why, sizeof why, "unexpected argument '%s'", a->argv[a->i]);
        return usage(o, why);
    }
    return a->error[0] ? usage(o, a->error) : -1;
}

/* The command line as typed, for the finding headers ("mcpspec fuzz --server '...'"). */
static void command_line(fuzz_options *o, int argc, char **argv)
{
    size_t n = (size_t)snprintf(o->command, sizeof o->command, "mcpspec %s",
                                o->replay ? "replay" : "fuzz");
    for (int i = 0; i < argc && n < sizeof o->command; i++) {
        /* A header's value is a token, as often as not: its name alone goes in the files. */
        bool header = (i > 0 && strcmp(argv[i - 1], "--header") == 0) ||
                      strncmp(argv[i], "--header=", 9) == 0;
        const char *colon = header ? strchr(argv[i], ':') : NULL;
        bool quote = colon || strpbrk(argv[i], " \t\"'$\\") != NULL || !argv[i][0];
        int keep = colon ? (int)(colon - argv[i]) : (int)strlen(argv[i]);
        n += (size_t)snprintf(o->command + n, sizeof o->command - n,
                              quote ? " '%.*s%s'" : " %.*s%s", keep, argv[i], colon ? ": ..." : "");
    }
}

/* The configuration: the server if --server did not name one, its cwd and env, and the
 * consented call (calls.tool, the one without side effects worth worrying about). */
static cJSON *apply_config(fuzz_options *o, char *err, size_t errlen)
{
    if (!mcps_target_file_load(o->config, &o->target_file, err, errlen))
        return NULL;
    if (!o->server)
        o->server = o->target_file.command;
    if (!o->cwd)
        o->cwd = o->target_file.cwd;
    for (size_t i = 0; o->target_file.env && o->target_file.env[i] && o->nenv < MAX_ENV; i++)
        o->env[o->nenv++] = o->target_file.env[i];
    cJSON *calls = cJSON_CreateArray();
    const cJSON *name = mcps_vars_get(&o->target_file.vars, "call_tool");
    if (cJSON_IsString(name)) {
        cJSON *call = cJSON_CreateObject();
        cJSON_AddStringToObject(call, "name", name->valuestring);
        const cJSON *args = mcps_vars_get(&o->target_file.vars, "call_arguments");
        cJSON_AddItemToObject(call, "arguments",
                              args ? cJSON_Duplicate(args, true) : cJSON_CreateObject());
        cJSON_AddItemToArray(calls, call);
    }
    return calls;
}

static int execute(fuzz_options *o, char **argv, char **afl_argv, const cJSON *calls)
{
    mcps_target_config launch = {.kind = MCPS_TRANSPORT_STREAMABLE_HTTP,
                                 .argv = argv,
                                 .url = o->url,
                                 .cwd = o->cwd,
                                 .env_extra = o->nenv ? (char *const *)o->env : NULL};
    mcps_live_server server = {.probe_timeout = o->probe};
    mcps_live_target t = {
        .transport = {.kind = o->url ? MCPS_TRANSPORT_STREAMABLE_HTTP : MCPS_TRANSPORT_STDIO,
                      .argv = o->url ? NULL : argv,
                      .url = o->url,
                      .headers = o->nheaders ? (char *const *)o->headers : NULL,
                      .cwd = o->cwd,
                      .env_extra = o->nenv ? (char *const *)o->env : NULL,
                      .max_message = 4 * 1024 * 1024},
        .server = o->url && argv ? &server : NULL,
        .revision = o->revision,
        .start_timeout = o->probe,
        .hang_timeout = o->hang,
        .ping_every = o->ping_every,
        .growth = o->growth, /* replay: what the finding's signature says */
    };
    mcps_guard guard;
    bool guarded = mcps_cli_guard_start(&guard, o->replay ? "replay" : "fuzz", 0);
    if (guarded) /* each execution frees its wire log: a conformance report's budget is not ours */
        guard.wire_budget = SIZE_MAX;
    t.transport.guard = launch.guard = guarded ? &guard : NULL;
    server.cfg = launch;
    /* --url alone: no process to watch. A launched one is watched when asked (growth.h: its
     * tree, sockets left out), not by default: its thresholds were set on stdio processes. */
    if (o->url && (!argv || !o->growth_given))
        t.growth = MCPS_LIVE_WATCH_NONE;
    int rc;
    if (o->replay) {
        char err[400];
        rc = mcps_live_replay(&t, o->file, stdout, err, sizeof err);
        if (rc == MCPS_EXIT_INCOMPLETE)
            fprintf(stderr, "mcpspec replay: %s\n", err);
    } else {
        if (!t.revision)
            t.revision = DEFAULT_REVISION;
#ifdef __GLIBC__
        /* Each sequence's buffers are freed before the next one's are made: glibc gave the
         * heap's top back to the kernel each time (brk twice a sequence, 7% of the loop). */
        mallopt(M_TRIM_THRESHOLD, 8 * 1024 * 1024);
#endif
        mcps_live_options lo = {
            .target = t,
            .calls = calls,
            .out_dir = o->out ? o->out : "reports/fuzz",
            .command = o->command,
            .seed = o->seed,
            .seconds = o->runs && !o->time_given ? 0 : o->seconds,
            .runs = o->runs,
            .max_len = o->max_len,
            .minimize_runs = o->minimize_runs,
            .max_findings = o->max_findings,
            .jobs = o->jobs,
            .process_inputs = o->process_inputs,
            .progress = o->quiet ? NULL : stderr,
            .tty = !o->quiet && isatty(STDERR_FILENO),
            .shard = o->shard,
            .shards = o->shards,
            .afl_target = afl_argv,
            .afl_dict = o->afl_dict,
            .afl_mutator = o->afl_mutator,
        };
        rc = o->afl ? mcps_live_afl(&lo) : mcps_live_fuzz(&lo);
    }
    mcps_live_server_stop(&server);
    return guarded ? mcps_cli_guard_stop(&guard, o->replay ? "replay" : "fuzz", rc) : rc;
}

/* --merge DIR... --out OUT: nothing else goes with it. */
static int check_merge(fuzz_options *o)
{
    if (!o->nmerged)
        return usage(o, "--merge takes the --out folders of the runs to merge");
    if (!o->out)
        return usage(o, "--merge needs --out DIR for the merged report");
    if (o->server || o->url || o->afl || o->config)
        return usage(o, "--merge reads reports: no --server, --url, --config or --afl");
    return -1;
}

static int run_merge(fuzz_options *o)
{
    mcps_live_merge_options mo = {.dirs = (char *const *)o->merged,
                                  .ndirs = o->nmerged,
                                  .out_dir = o->out,
                                  .command = o->command,
                                  .progress = o->quiet ? NULL : stderr};
    char err[600] = "";
    int rc = mcps_live_merge(&mo, err, sizeof err);
    if (rc == MCPS_EXIT_INCOMPLETE)
        fprintf(stderr, "mcpspec fuzz: %s\n", err);
    return rc;
}

/* The checks after parsing: a target, stdio, a revision the prefix can play. */
static int check(fuzz_options *o)
{
    if (o->merge)
        return check_merge(o);
    if (!o->server && !o->url)
        return usage(o, "--server or --url (or a --config naming a server) is required");
    if (o->url && strncmp(o->url, "http://", 7) != 0 && strncmp(o->url, "https://", 8) != 0)
        return usage(o, "--url takes an http:// or https:// URL");
    if (o->nheaders && !o->url)
        return usage(o, "--header needs --url");
    if (o->url && !o->server && o->growth_given && o->growth != MCPS_LIVE_WATCH_NONE)
        return usage(o, "--growth needs the server's process: with --url alone mcpspec has none "
                        "to watch (add --server CMD, and mcpspec starts it and watches its "
                        "process tree)");
    if (o->url && o->growth_given && o->growth != MCPS_LIVE_WATCH_NONE && o->revision &&
        !mcps_rev_is_handshake(mcps_rev_parse(o->revision)))
        return usage(o, "--growth over --url on 2026-07-28: a server may answer each request in "
                        "a process of its own (refserver --http does) that outlives the "
                        "exchange, so its process tree moves with requests, not leaks (fuzz it "
                        "over stdio for the growth oracle)");
    if (o->url && o->afl)
        return usage(o, "--afl runs the server on session files over stdio: no --url");
    if (o->url && o->server && o->jobs > 1)
        return usage(o, "--jobs N with --server and --url: one launched server serves one job "
                        "(leave --server out to fuzz a running server with N sessions)");
    if (o->replay && !o->file)
        return usage(o, "the finding FILE is required");
    if ((o->afl_target || o->afl_dict || o->afl_mutator) && !o->afl)
        return usage(o, "--afl-target, --afl-dict and --afl-mutator go with --afl");
    if (o->afl_mutator && access(o->afl_mutator, R_OK) != 0)
        return usage(o, "--afl-mutator: no such library (scripts/afl-build builds "
                        "build/afl/afl-json-mutator.so)");
    if (o->afl && o->shards)
        return usage(o, "--shard is for the black-box mode (afl-fuzz shares work with its own "
                        "-M/-S instances and a sync folder: fuzz/README.md)");
    if (o->afl && o->jobs > 1)
        return usage(o, "--jobs is for the black-box mode (afl-fuzz runs one instance)");
    if (o->revision && mcps_rev_parse(o->revision) == MCPS_REV_NONE)
        return usage(o, "unknown --revision");
    return -1;
}

static int main_of(int argc, char **argv, bool replay)
{
    fuzz_options o = {.seconds = DEFAULT_SECONDS,
                      .hang = 2.0,
                      .ping_every = DEFAULT_PING_EVERY,
                      .probe = 10.0,
                      .max_len = 64,
                      .minimize_runs = 200,
                      .seed = 1,
                      .growth = MCPS_LIVE_WATCH_ALL,
                      .jobs = 1,
                      .replay = replay};
    command_line(&o, argc, argv);
    mcps_args a;
    mcps_args_init(&a, argc, argv);
    while (mcps_args_more(&a)) {
        int rc = parse_option(&a, &o);
        if (rc >= 0)
            return rc;
    }
    cJSON *calls = NULL;
    if (o.config) {
        char err[600];
        if (!(calls = apply_config(&o, err, sizeof err))) {
            fprintf(stderr, "mcpspec %s: %s\n", replay ? "replay" : "fuzz", err);
            mcps_target_file_free(&o.target_file);
            return MCPS_EXIT_USAGE;
        }
    }
    int rc = check(&o);
    if (rc < 0 && o.merge) {
        rc = run_merge(&o);
    } else if (rc < 0) {
        char err[200];
        char **argv_t = o.server ? mcps_argv_split(o.server, err, sizeof err) : NULL;
        char **argv_a =
            argv_t && o.afl_target ? mcps_argv_split(o.afl_target, err, sizeof err) : NULL;
        if ((o.server && !argv_t) || (o.afl_target && !argv_a)) {
            rc = usage(&o, err);
        } else {
            rc = execute(&o, argv_t, argv_a, calls);
        }
        mcps_argv_free(argv_t);
        mcps_argv_free(argv_a);
    }
    cJSON_Delete(calls);
    mcps_target_file_free(&o.target_file);
    return rc;
}

int mcps_cli_fuzz(int argc, char **argv)
{
    return main_of(argc, argv, false);
}

int mcps_cli_replay(int argc, char **argv)
{
    return main_of(argc, argv, true);
}
