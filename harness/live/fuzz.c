/*
 * fuzz.c - the run loop. Sequence n is generated from a seed derived from
 * the run's seed and n alone, and run on the runner's process (runner.c),
 * pipelined (sequence n + jobs is written before n is judged), which is
 * replaced at points that depend only on what happened, so the same
 * seed and target give the same inputs and the same findings; --runs counts
 * executions (one per input), so a run bounded by it is the same every time.
 * With --jobs N, N threads each own a runner and take every Nth sequence;
 * what they share (the findings, the counters, the output) is behind one
 * lock. A new signature is minimized (minimize.c) and written at once, under
 * a provisional name; the names settle in sequence order and the report is
 * written at the end, whatever happened.
 */
#include "live/fuzz.h"

#include "base/clock.h"
#include "live/dict.h"
#include "live/exec.h"
#include "live/gen.h"
#include "live/headers.h"
#include "live/minimize.h"
#include "live/report.h"
#include "live/rng.h"
#include "live/runner.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <threads.h>
#include <unistd.h>

#define START_ATTEMPTS 4

typedef struct run run;

/* One target instance: job k runs sequences k, k + jobs, k + 2 jobs, ... on its own process,
 * with its share of --runs, so what it does depends on the seed and k alone. */
typedef struct job {
    run *r;
    size_t k;
    size_t budget; /* its executions at most (0: --runs not given) */
    size_t executions, sequences;
    size_t generated; /* inputs sent, judged or in flight */
    int64_t minimize_ms;
    mcps_live_runner runner;
    char error[300];
} job;

struct run {
    const mcps_live_options *o;
    mcps_live_dict dict; /* read-only once the jobs start */
    mtx_t lock;          /* guards what follows, and the progress output */
    mcps_live_finding findings[MCPS_LIVE_MAX_FINDINGS];
    size_t nfindings, executions, sequences;
    unsigned per_oracle[MCPS_LIVE_ORACLES];
    int64_t t0_ms, last_progress_ms, discover_ms;
    char findings_dir[1024];
    char error[300];
    bool stopped; /* a target process could not be started mid-run: the run was cut short */
    job *jobs;
    size_t njobs;
};

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

static void write_finding(run *r, mcps_live_finding *f)
{
    mcps_live_finding_meta meta = {r->o->target.revision, r->o->command};
    char err[300];
    if (!mcps_live_finding_write(f, r->findings_dir, &meta, err, sizeof err) && r->o->progress)
        fprintf(r->o->progress, "%smcpspec fuzz: %s\n", r->o->tty ? "\n" : "", err);
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

/* The finding with this signature, or -1. */
static int find(const run *r, const char *signature)
{
    for (size_t i = 0; i < r->nfindings; i++)
        if (strcmp(r->findings[i].outcome.signature, signature) == 0)
            return (int)i;
    return -1;
}

static bool full(const run *r)
{
    size_t max = r->o->max_findings ? r->o->max_findings : MCPS_LIVE_MAX_FINDINGS;
    return r->nfindings >= MCPS_LIVE_MAX_FINDINGS || r->nfindings >= max;
}

/* Whether sequence n's finding of this signature would be kept (lock held): the one of the
 * lowest sequence is, so the jobs' timing does not decide which. */
static bool wanted(const run *r, const char *signature, uint64_t n)
{
    int i = find(r, signature);
    return i >= 0 ? r->findings[i].sequence > n : !full(r);
}

/* Put f in the table (lock held): a new slot, or the one of a later sequence it replaces. */
static mcps_live_finding *place(run *r, mcps_live_finding *f)
{
    int i = find(r, f->outcome.signature);
    if (i < 0 && full(r))
        return NULL;
    if (i >= 0 && r->findings[i].sequence <= f->sequence)
        return NULL;
    if (i >= 0) {
        unlink(r->findings[i].path);
        mcps_live_seq_free(&r->findings[i].inputs);
    }
    mcps_live_finding *slot = &r->findings[i >= 0 ? (size_t)i : r->nfindings++];
    *slot = *f;
    snprintf(slot->name, sizeof slot->name, "%s-%u", mcps_live_oracle_name(f->outcome.oracle),
             ++r->per_oracle[f->outcome.oracle]);
    return slot;
}

/* The CPU mcpspec has used, all its threads (its children's, the targets', are not counted). */
static double own_cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Sequence n as the loop sends it: made from the seed and n alone, its first len inputs. */
static void make_sequence(const run *r, uint64_t n, size_t len, mcps_live_seq *q)
{
    uint64_t seed = mcps_live_rng_derive(r->o->seed, n);
    *q = (mcps_live_seq){0};
    mcps_live_gen_seq(&r->dict, seed, r->o->max_len, q);
    if (r->o->target.transport.url)
        mcps_live_headers_corrupt(q, seed);
    while (q->n > len)
        mcps_live_seq_pop(q);
}

/* The runner's process's history as a source: made again from its log, a sequence at a time, so
 * a process may live for any number of inputs at no cost in memory. */
typedef struct history {
    const job *jb;
    size_t *starts; /* starts[k]: the history index of log[k]'s first input */
    size_t k;       /* the log entry in made */
    mcps_live_seq made;
} history;

static const mcps_live_input *history_input(void *ctx, size_t i)
{
    history *h = ctx;
    const mcps_live_runner *rn = &h->jb->runner;
    size_t lo = 0, hi = rn->nlog;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        *(h->starts[mid] <= i ? &lo : &hi) = mid;
    }
    if (lo != h->k) {
        mcps_live_seq_free(&h->made);
        make_sequence(h->jb->r, rn->log[lo].tag, rn->log[lo].n, &h->made);
        h->k = lo;
    }
    size_t at = i - h->starts[lo];
    return at < h->made.n ? &h->made.items[at] : NULL;
}

static bool history_open(const job *jb, history *h, mcps_live_source *src)
{
    const mcps_live_runner *rn = &jb->runner;
    *h = (history){
        .jb = jb, .starts = malloc((rn->nlog ? rn->nlog : 1) * sizeof *h->starts), .k = SIZE_MAX};
    if (!h->starts)
        return false;
    for (size_t k = 0, at = 0; k < rn->nlog; at += rn->log[k++].n)
        h->starts[k] = at;
    *src = (mcps_live_source){rn->history_n, history_input, h};
    return true;
}

static void history_close(history *h)
{
    free(h->starts);
    mcps_live_seq_free(&h->made);
}

/* Sequence n alone, with out's input index moved into it; false when the log lacks it. */
static bool sequence_alone(const job *jb, uint64_t n, const mcps_live_outcome *out,
                           mcps_live_seq *q, mcps_live_outcome *moved)
{
    size_t from = 0;
    for (size_t k = 0; k < jb->runner.nlog; from += jb->runner.log[k++].n) {
        size_t len = jb->runner.log[k].n;
        if (jb->runner.log[k].tag != n || !len)
            continue;
        make_sequence(jb->r, n, len, q);
        *moved = *out;
        moved->at = out->at >= from && out->at - from < len ? out->at - from : len - 1;
        return true;
    }
    return false;
}

/* Minimized from sequence n alone when that reproduces it (most findings: a process takes tens
 * of thousands of inputs), else from its process's whole history. One that neither reproduces,
 * or whose history minimized is over MCPS_LIVE_KEEP_BYTES, keeps its sequence alone: the
 * history is the seed's to make again, and may be hundreds of megabytes. */
static bool minimize(job *jb, const mcps_live_outcome *out, uint64_t n, int64_t until,
                     mcps_live_finding *f)
{
    const mcps_live_options *o = jb->r->o;
    mcps_live_seq q = {0};
    mcps_live_outcome moved = *out;
    bool alone = sequence_alone(jb, n, out, &q, &moved);
    if (alone && mcps_live_minimize(&o->target, &q, &moved, o->minimize_runs, until, &f->inputs,
                                    &f->outcome)) {
        mcps_live_seq_free(&q);
        return true;
    }
    mcps_live_seq_free(&f->inputs);
    history h;
    mcps_live_source src;
    bool ok = history_open(jb, &h, &src) &&
              mcps_live_minimize_source(&o->target, &src, out, o->minimize_runs, until, &f->inputs,
                                        &f->outcome, &f->history_inputs);
    history_close(&h);
    if (!ok || f->history_inputs) {
        mcps_live_seq_free(&f->inputs);
        f->inputs = q;
        f->outcome = moved;
        q = (mcps_live_seq){0};
    }
    mcps_live_seq_free(&q);
    return ok;
}

static void record(job *jb, const mcps_live_outcome *out, uint64_t n)
{
    run *r = jb->r;
    const mcps_live_options *o = r->o;
    mtx_lock(&r->lock);
    mcps_live_finding f = {.outcome = *out,
                           .seed = o->seed,
                           .sequence = n,
                           .original = jb->runner.history_n,
                           .found_executions = r->executions,
                           .found_seconds = elapsed(r)};
    bool go = wanted(r, out->signature, n);
    mtx_unlock(&r->lock);
    if (!go)
        return;
    int64_t until = o->seconds > 0 ? r->t0_ms + (int64_t)(o->seconds * 1000) : 0;
    int64_t t0 = mcps_clock_ms();
    f.reproduced = minimize(jb, out, n, until, &f);
    jb->minimize_ms += mcps_clock_ms() - t0;
    mtx_lock(&r->lock);
    mcps_live_finding *slot = place(r, &f);
    if (slot) {
        write_finding(r, slot);
        if (o->progress)
            fprintf(o->progress, "%sfuzz: %s: %s (%zu inputs, from %zu) -> %s\n",
                    o->tty ? "\n" : "", slot->name, slot->outcome.evidence, slot->inputs.n,
                    slot->original, slot->path);
    } else {
        mcps_live_seq_free(&f.inputs);
    }
    mtx_unlock(&r->lock);
}

/* Whether the run is over: in-flight sequences are then left unjudged (uncounted). */
static bool should_stop(job *jb)
{
    run *r = jb->r;
    const mcps_live_options *o = r->o;
    if ((o->runs && jb->executions >= jb->budget) || (o->seconds > 0 && elapsed(r) >= o->seconds) ||
        mcps_guard_stopped(o->target.transport.guard) != MCPS_STOP_NONE)
        return true;
    mtx_lock(&r->lock);
    bool stop = r->stopped || full(r);
    mtx_unlock(&r->lock);
    return stop;
}

/* A runner step that starts a process, retried: a prefix that fails may be the machine's load
 * (a start-up past --probe-timeout): a few more tries, a second apart, before it is the
 * target's. q: send it; NULL: judge the oldest in flight into out. */
static bool step(job *jb, const mcps_live_seq *q, uint64_t tag, mcps_live_outcome *out)
{
    const mcps_live_options *o = jb->r->o;
    for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
        if (attempt && (mcps_guard_stopped(o->target.transport.guard) || sleep(1) != 0))
            break;
        if (q ? mcps_live_runner_send(&jb->runner, q, tag, jb->error, sizeof jb->error)
              : mcps_live_runner_judge(&jb->runner, out, jb->error, sizeof jb->error))
            return true;
    }
    return false;
}

/* Sequences in flight, oldest first: their numbers and lengths. */
typedef struct pending {
    uint64_t n[MCPS_LIVE_PIPELINE];
    size_t len[MCPS_LIVE_PIPELINE], count;
} pending;

/* Generate sequence n and send it. False when no process could be started. */
static bool send_sequence(job *jb, uint64_t n, pending *p)
{
    run *r = jb->r;
    const mcps_live_options *o = r->o;
    mcps_live_seq q;
    /* exactly --runs executions */
    make_sequence(r, n, o->runs ? jb->budget - jb->generated : SIZE_MAX, &q);
    bool ok = step(jb, &q, n, NULL);
    if (ok) {
        jb->generated += q.n;
        p->n[p->count] = n;
        p->len[p->count++] = q.n;
    }
    mcps_live_seq_free(&q);
    return ok;
}

/* Judge the oldest sequence in flight and record a new finding. False when no process could
 * be started for it. */
static bool judge_sequence(job *jb, pending *p)
{
    run *r = jb->r;
    const mcps_live_options *o = r->o;
    mcps_live_outcome out;
    if (!step(jb, NULL, 0, &out))
        return false;
    uint64_t n = p->n[0];
    size_t len = p->len[0];
    p->count--;
    memmove(p->n, p->n + 1, p->count * sizeof *p->n);
    memmove(p->len, p->len + 1, p->count * sizeof *p->len);
    jb->executions += len;
    jb->sequences++;
    mtx_lock(&r->lock);
    r->executions += len;
    r->sequences++;
    mtx_unlock(&r->lock);
    /* A stop (SIGTERM, SIGINT) ends the target too, which is no finding of its. */
    if (out.oracle != MCPS_LIVE_NONE &&
        mcps_guard_stopped(o->target.transport.guard) == MCPS_STOP_NONE)
        record(jb, &out, n);
    return true;
}

/* A job's loop: the runner's pipeline kept full (sequence n + jobs is sent before n is judged),
 * then the oldest judged; a process that cannot be started stops every job (the first says
 * why). */
static int job_main(void *arg)
{
    job *jb = arg;
    run *r = jb->r;
    const mcps_live_options *o = r->o;
    pending p = {.count = 0};
    /* --shard: sequences shard, shard + shards, ..., of which job k takes every njobs-th. */
    uint64_t shards = o->shards ? o->shards : 1;
    uint64_t n = o->shard + jb->k * shards;
    while (!should_stop(jb)) {
        bool ok = true;
        while (ok && mcps_live_runner_ready(&jb->runner) &&
               !(o->runs && jb->generated >= jb->budget)) {
            ok = send_sequence(jb, n, &p);
            n += r->njobs * shards;
        }
        if (ok && p.count)
            ok = judge_sequence(jb, &p);
        if (!ok) {
            mtx_lock(&r->lock);
            if (!r->stopped)
                snprintf(r->error, sizeof r->error, "%s", jb->error);
            r->stopped = true;
            mtx_unlock(&r->lock);
            break;
        }
        mtx_lock(&r->lock);
        progress(r, false);
        mtx_unlock(&r->lock);
    }
    return 0;
}

/* The names in sequence order (crash-1 is the earliest crash), whichever job found them
 * first: the same seed gives the same names. Files whose name changes are written again. */
static void settle_names(run *r)
{
    for (size_t i = 1; i < r->nfindings; i++)
        for (size_t k = i; k > 0 && r->findings[k - 1].sequence > r->findings[k].sequence; k--) {
            mcps_live_finding t = r->findings[k];
            r->findings[k] = r->findings[k - 1];
            r->findings[k - 1] = t;
        }
    unsigned count[MCPS_LIVE_ORACLES] = {0};
    bool renamed[MCPS_LIVE_MAX_FINDINGS] = {false};
    for (size_t i = 0; i < r->nfindings; i++) {
        mcps_live_finding *f = &r->findings[i];
        char name[sizeof f->name];
        snprintf(name, sizeof name, "%s-%u", mcps_live_oracle_name(f->outcome.oracle),
                 ++count[f->outcome.oracle]);
        if ((renamed[i] = strcmp(name, f->name) != 0)) {
            unlink(f->path); /* all of them before any is written: names may swap */
            snprintf(f->name, sizeof f->name, "%s", name);
        }
    }
    for (size_t i = 0; i < r->nfindings; i++)
        if (renamed[i])
            write_finding(r, &r->findings[i]);
}

/* Every job's growth samples as one: the largest growth any process showed. */
static void merged_growth(const run *r, mcps_live_growth *g)
{
    *g = (mcps_live_growth){0};
    for (size_t i = 0; i < r->njobs; i++) {
        const mcps_live_growth *one = &r->jobs[i].runner.growth;
        g->samples += one->samples;
        g->peak_rss_kib = one->peak_rss_kib > g->peak_rss_kib ? one->peak_rss_kib : g->peak_rss_kib;
        g->peak_fds = one->peak_fds > g->peak_fds ? one->peak_fds : g->peak_fds;
    }
}

static int finish(run *r, int code)
{
    const mcps_live_options *o = r->o;
    progress(r, true);
    settle_names(r);
    int64_t minimize_ms = 0;
    for (size_t i = 0; i < r->njobs; i++)
        minimize_ms += r->jobs[i].minimize_ms;
    mcps_live_growth growth;
    merged_growth(r, &growth);
    mcps_live_summary s = {.command = o->command,
                           .revision = o->target.revision,
                           .error = code == 3 || r->stopped ? r->error : NULL,
                           .seed = o->seed,
                           .executions = r->executions,
                           .sequences = r->sequences,
                           .jobs = r->njobs,
                           .shard = o->shard,
                           .shards = o->shards,
                           .seconds = elapsed(r),
                           .minimize_seconds = (double)minimize_ms / 1000.0,
                           .discover_seconds = (double)r->discover_ms / 1000.0,
                           .cpu_seconds = own_cpu_seconds(),
                           .exit_code = code,
                           .findings = r->findings,
                           .nfindings = r->nfindings,
                           .growth = o->target.growth ? &growth : NULL};
    char err[300];
    if (!mcps_live_report_write(&s, o->out_dir, err, sizeof err)) {
        fprintf(stderr, "mcpspec fuzz: %s\n", err);
        code = 3;
    }
    for (size_t i = 0; i < r->nfindings; i++)
        mcps_live_seq_free(&r->findings[i].inputs);
    for (size_t i = 0; i < r->njobs; i++)
        mcps_live_runner_free(&r->jobs[i].runner);
    mcps_live_dict_free(&r->dict);
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

/* The jobs, each with its share of --runs; job 0 on this thread. */
static void run_jobs(run *r)
{
    const mcps_live_options *o = r->o;
    for (size_t k = 0; k < r->njobs; k++) {
        job *jb = &r->jobs[k];
        *jb = (job){.r = r, .k = k};
        jb->budget = o->runs / r->njobs + (k < o->runs % r->njobs);
        mcps_live_runner_init(&jb->runner, &o->target);
        if (o->process_inputs)
            jb->runner.max_inputs = o->process_inputs;
    }
    thrd_t threads[MCPS_LIVE_MAX_JOBS];
    bool started[MCPS_LIVE_MAX_JOBS] = {false};
    for (size_t k = 1; k < r->njobs; k++)
        started[k] = thrd_create(&threads[k], job_main, &r->jobs[k]) == thrd_success;
    job_main(&r->jobs[0]);
    for (size_t k = 1; k < r->njobs; k++) {
        if (started[k])
            thrd_join(threads[k], NULL);
        else
            job_main(&r->jobs[k]); /* no thread: its share runs here, after the others */
    }
}

/* A SIGTERM or SIGINT during discovery ends its waits early: that, not the target's silence,
 * is why discovery failed. */
static void blame_the_stop(run *r)
{
    char why = mcps_guard_stopped(r->o->target.transport.guard);
    if (why == MCPS_STOP_SIGTERM || why == MCPS_STOP_SIGINT)
        snprintf(r->error, sizeof r->error, "%s during discovery; nothing was fuzzed",
                 mcps_guard_reason(why));
}

/* The exit code once the jobs are done. */
static int outcome(run *r)
{
    const mcps_live_options *o = r->o;
    char why = mcps_guard_stopped(o->target.transport.guard);
    if (why == MCPS_STOP_SIGTERM || why == MCPS_STOP_SIGINT) {
        /* Interrupted: incomplete whatever was found (as `mcpspec run`); the report says so. */
        snprintf(r->error, sizeof r->error, "%s; what was found so far is listed",
                 mcps_guard_reason(why));
        r->stopped = true;
        return 3;
    }
    if (r->stopped) /* cut short: what was found stands; without a finding it is incomplete */
        return r->nfindings ? 1 : 3;
    if (r->nfindings)
        return 1;
    if (!r->executions) {
        snprintf(r->error, sizeof r->error,
                 "no input was executed in the time given (discovery took it all)");
        return 3;
    }
    return 0;
}

int mcps_live_fuzz(const mcps_live_options *o)
{
    run *r = calloc(1, sizeof *r);
    size_t njobs = o->jobs ? o->jobs : 1;
    job *jobs = calloc(njobs, sizeof *jobs);
    if (!r || !jobs || njobs > MCPS_LIVE_MAX_JOBS ||
        mtx_init(&r->lock, mtx_plain) != thrd_success) {
        free(r);
        free(jobs);
        return 3;
    }
    r->o = o;
    r->jobs = jobs;
    r->t0_ms = r->last_progress_ms = mcps_clock_ms();
    mcps_live_dict_init(&r->dict);
    snprintf(r->findings_dir, sizeof r->findings_dir, "%s/findings", o->out_dir);
    int code = 0;
    if (!make_dir(o->out_dir) || !make_dir(r->findings_dir)) {
        fprintf(stderr, "mcpspec fuzz: cannot create %s: %s\n", r->findings_dir, strerror(errno));
        code = 3;
    } else if (!mcps_live_dict_discover(&r->dict, &o->target, r->error, sizeof r->error)) {
        code = 3;
        blame_the_stop(r);
    } else {
        r->discover_ms = mcps_clock_ms() - r->t0_ms;
        consent(r);
        r->njobs = njobs;
        run_jobs(r);
        code = outcome(r);
    }
    if ((code == 3 || r->stopped) && r->error[0])
        fprintf(stderr, "%smcpspec fuzz: %s\n", o->tty ? "\n" : "", r->error);
    code = finish(r, code);
    mtx_destroy(&r->lock);
    free(jobs);
    free(r);
    return code;
}
