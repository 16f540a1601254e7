/*
 * fuzz.c - the run loop. Sequence n is generated from a seed derived from
 * the run's seed and n alone, and run on the runner's process (runner.c),
 * which is replaced at points that depend only on what happened, so the same
 * seed and target give the same inputs and the same findings; --runs counts
 * executions (one per input), so a run bounded by it is the same every time.
 * A new signature is minimized (minimize.c) and written at once; the report
 * is rewritten at the end, whatever happened.
 */
#include "live/fuzz.h"

#include "base/clock.h"
#include "live/dict.h"
#include "live/exec.h"
#include "live/gen.h"
#include "live/minimize.h"
#include "live/report.h"
#include "live/rng.h"
#include "live/runner.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define START_ATTEMPTS 4

typedef struct run {
    const mcps_live_options *o;
    mcps_live_dict dict;
    mcps_live_runner runner;
    mcps_live_finding findings[MCPS_LIVE_MAX_FINDINGS];
    size_t nfindings, executions, sequences;
    unsigned per_oracle[MCPS_LIVE_ORACLES];
    int64_t t0_ms, last_progress_ms, minimize_ms;
    char findings_dir[1024];
    char error[300];
    bool stopped; /* a target process could not be started mid-run: the run was cut short */
} run;

/* mkdir -p: --out may name a folder whose parents do not exist yet. */
static bool make_dir(const char *path)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%s", path);
    if (n <= 0 || (size_t)n >= sizeof buf)
        return false;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        bool ok = mkdir(buf, 0777) == 0 || errno == EEXIST;
        *p = '/';
        if (!ok)
            return false;
    }
    return mkdir(buf, 0777) == 0 || errno == EEXIST;
}

static double elapsed(const run *r)
{
    return (double)(mcps_clock_ms() - r->t0_ms) / 1000.0;
}

static void progress(run *r, bool final)
{
    FILE *out = r->o->progress;
    int64_t now = mcps_clock_ms();
    if (!out || (!final && now - r->last_progress_ms < (r->o->tty ? 250 : 10000)))
        return;
    r->last_progress_ms = now;
    double secs = elapsed(r);
    fprintf(out, "%sfuzz: %zu executions, %.0f exec/s, %zu sequences, %zu findings%s",
            r->o->tty ? "\r" : "", r->executions, secs > 0 ? (double)r->executions / secs : 0.0,
            r->sequences, r->nfindings, r->o->tty && !final ? "   " : "\n");
    fflush(out);
}

static bool known(const run *r, const char *signature)
{
    for (size_t i = 0; i < r->nfindings; i++)
        if (strcmp(r->findings[i].outcome.signature, signature) == 0)
            return true;
    return false;
}

static void record(run *r, mcps_live_seq *q, const mcps_live_outcome *out, uint64_t n)
{
    const mcps_live_options *o = r->o;
    mcps_live_finding *f = &r->findings[r->nfindings];
    *f = (mcps_live_finding){.outcome = *out,
                             .seed = o->seed,
                             .sequence = n,
                             .original = q->n,
                             .found_executions = r->executions,
                             .found_seconds = elapsed(r)};
    snprintf(f->name, sizeof f->name, "%s-%u", mcps_live_oracle_name(out->oracle),
             ++r->per_oracle[out->oracle]);
    int64_t until = o->seconds > 0 ? r->t0_ms + (int64_t)(o->seconds * 1000) : 0;
    int64_t t0 = mcps_clock_ms();
    f->reproduced =
        mcps_live_minimize(&o->target, q, out, o->minimize_runs, until, &f->inputs, &f->outcome);
    r->minimize_ms += mcps_clock_ms() - t0;
    mcps_live_finding_meta meta = {o->target.revision, o->command};
    char err[300];
    if (!mcps_live_finding_write(f, r->findings_dir, &meta, err, sizeof err) && o->progress)
        fprintf(o->progress, "%smcpspec fuzz: %s\n", o->tty ? "\n" : "", err);
    r->nfindings++;
    if (o->progress)
        fprintf(o->progress, "%sfuzz: %s: %s (%zu inputs, from %zu) -> %s\n", o->tty ? "\n" : "",
                f->name, f->outcome.evidence, f->inputs.n, f->original, f->path);
}

static bool should_stop(const run *r)
{
    const mcps_live_options *o = r->o;
    return (o->runs && r->executions >= o->runs) || (o->seconds > 0 && elapsed(r) >= o->seconds) ||
           mcps_guard_stopped(o->target.transport.guard) != MCPS_STOP_NONE ||
           r->nfindings >= MCPS_LIVE_MAX_FINDINGS ||
           (o->max_findings && r->nfindings >= o->max_findings);
}

/* One sequence: generate, execute, record a new finding. False when the prefix failed. */
static bool one_sequence(run *r, uint64_t n)
{
    const mcps_live_options *o = r->o;
    mcps_live_seq q = {0};
    mcps_live_gen_seq(&r->dict, mcps_live_rng_derive(o->seed, n), o->max_len, &q);
    while (o->runs && q.n > o->runs - r->executions) /* exactly --runs executions */
        free(q.items[--q.n].bytes);
    mcps_live_outcome out;
    /* A prefix that fails may be the machine's load (a start-up past --probe-timeout): a few
     * more tries, a second apart, before it is the target's. */
    bool ok = false;
    for (int attempt = 0; attempt < START_ATTEMPTS && !ok; attempt++) {
        if (attempt && (mcps_guard_stopped(o->target.transport.guard) || sleep(1) != 0))
            break;
        ok = mcps_live_runner_exec(&r->runner, &q, &out, r->error, sizeof r->error);
    }
    if (ok) {
        r->executions += q.n;
        r->sequences++;
        /* The finding's inputs: everything its process was sent. A stop (SIGTERM, SIGINT)
         * ends the target too, which is no finding of its. */
        if (out.oracle != MCPS_LIVE_NONE && !known(r, out.signature) &&
            mcps_guard_stopped(o->target.transport.guard) == MCPS_STOP_NONE)
            record(r, &r->runner.history, &out, n);
    }
    mcps_live_seq_free(&q);
    return ok;
}

static int finish(run *r, int code)
{
    const mcps_live_options *o = r->o;
    progress(r, true);
    mcps_live_summary s = {.command = o->command,
                           .revision = o->target.revision,
                           .error = code == 3 || r->stopped ? r->error : NULL,
                           .seed = o->seed,
                           .executions = r->executions,
                           .sequences = r->sequences,
                           .seconds = elapsed(r),
                           .minimize_seconds = (double)r->minimize_ms / 1000.0,
                           .exit_code = code,
                           .findings = r->findings,
                           .nfindings = r->nfindings,
                           .growth = o->target.growth ? &r->runner.growth : NULL};
    char err[300];
    if (!mcps_live_report_write(&s, o->out_dir, err, sizeof err)) {
        fprintf(stderr, "mcpspec fuzz: %s\n", err);
        code = 3;
    }
    for (size_t i = 0; i < r->nfindings; i++)
        mcps_live_seq_free(&r->findings[i].inputs);
    mcps_live_dict_free(&r->dict);
    mcps_live_runner_free(&r->runner);
    return code;
}

static void consent(run *r)
{
    const cJSON *call;
    cJSON_ArrayForEach(call, r->o->calls)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(call, "name");
        if (cJSON_IsString(name))
            mcps_live_dict_consent(&r->dict, name->valuestring,
                                   cJSON_GetObjectItemCaseSensitive(call, "arguments"));
    }
}

int mcps_live_fuzz(const mcps_live_options *o)
{
    run *r = calloc(1, sizeof *r);
    if (!r)
        return 3;
    r->o = o;
    r->t0_ms = r->last_progress_ms = mcps_clock_ms();
    mcps_live_dict_init(&r->dict);
    mcps_live_runner_init(&r->runner, &o->target);
    snprintf(r->findings_dir, sizeof r->findings_dir, "%s/findings", o->out_dir);
    int code = 0;
    if (!make_dir(o->out_dir) || !make_dir(r->findings_dir)) {
        fprintf(stderr, "mcpspec fuzz: cannot create %s: %s\n", r->findings_dir, strerror(errno));
        code = 3;
    } else if (!mcps_live_dict_discover(&r->dict, &o->target, r->error, sizeof r->error)) {
        code = 3;
    } else {
        consent(r);
        for (uint64_t n = 0; !should_stop(r); n++) {
            if (!one_sequence(r, n)) {
                /* Cut short: what was found stands (exit 1); without a finding it is
                 * incomplete (3). The report and stderr say why. */
                code = r->nfindings ? 1 : 3;
                r->stopped = true;
                break;
            }
            if (!should_stop(r))
                progress(r, false);
        }
        char why = mcps_guard_stopped(o->target.transport.guard);
        if (why == MCPS_STOP_SIGTERM || why == MCPS_STOP_SIGINT) {
            /* Interrupted: incomplete whatever was found (as `mcpspec run`); the report says so. */
            snprintf(r->error, sizeof r->error, "%s; what was found so far is listed",
                     mcps_guard_reason(why));
            code = 3;
            r->stopped = true;
        } else if (!r->stopped && r->nfindings)
            code = 1;
        else if (!r->stopped && !r->executions) {
            snprintf(r->error, sizeof r->error,
                     "no input was executed in the time given (discovery took it all)");
            code = 3;
        }
    }
    if ((code == 3 || r->stopped) && r->error[0])
        fprintf(stderr, "%smcpspec fuzz: %s\n", o->tty ? "\n" : "", r->error);
    code = finish(r, code);
    free(r);
    return code;
}
