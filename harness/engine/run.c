/*
 * run.c - a whole conformance run: discovery, the selected cases on every
 * revision, the observer checks, counts; see run.h.
 *
 * Cases are independent (each has its own process, or shares one only when
 * it leaves it clean: lanes.c), so they run on a small pool of threads: most
 * of a case's time is spent waiting on the target, and a silence window or a
 * slow server should not serialize the whole run.
 * Results land in a slot per case instance, so the report's order does not
 * depend on which thread finished first.
 *
 * A run always ends: once the run's guard stops (its deadline, a signal, or
 * the judgement below), no case starts, the cases it cut short and those
 * never started are ERROR with the reason, and the result is still complete.
 * One reason to stop is the judgement that the target stopped responding
 * (liveness.c).
 */
#include "engine/internal.h"

#include "base/array.h"
#include "base/clock.h"
#include "transport/host.h"
#include "transport/http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <threads.h>
#include <time.h>

#define MAX_JOBS 64

void mcps_run_config_defaults(mcps_run_config *cfg)
{
    *cfg = (mcps_run_config){.timeout = 5.0, .probe_timeout = 10.0, .jobs = 8};
}

static bool any_glob(const char *const *globs, const char *text)
{
    if (!globs || !globs[0])
        return true;
    for (size_t i = 0; globs[i]; i++)
        if (mcps_glob_match(globs[i], text))
            return true;
    return false;
}

bool mcps_run_selects(const mcps_run_config *cfg, const mcps_suite *suite, const mcps_case *c)
{
    return any_glob(cfg->suite_globs, suite->name) &&
           (any_glob(cfg->case_globs, c->id) || any_glob(cfg->case_globs, c->name));
}

/* The revisions a case is instantiated for: its own, where one of its requirements applies. */
static mcps_rev_set case_revisions(const mcps_run_config *cfg, const mcps_case *c)
{
    mcps_rev_set reqs = 0;
    const char *p = c->requirements;
    while (*p) {
        char id[64];
        size_t n = strcspn(p, " ");
        if (n && n < sizeof id) {
            memcpy(id, p, n);
            id[n] = '\0';
            const mcps_req *r = mcps_catalog_find(id);
            if (r)
                reqs |= r->revs;
        }
        p += n;
        p += strspn(p, " ");
    }
    mcps_rev_set set = c->revisions & reqs;
    return cfg->revisions ? set & cfg->revisions : set;
}

/* 2026-07-28 cases are planned only for a target that speaks it: the discovery record says why
 * not, and a handshake-era target's report is not padded with a SKIP per case. */
static bool planned(const mcps_discovery *d, mcps_rev rev)
{
    return mcps_rev_is_handshake(rev) || mcps_discovery_supports(d, rev);
}

/* ---- the list of case instances ------------------------------------------------------- */

typedef struct instance {
    const mcps_suite *suite;
    const mcps_case *c;
    mcps_rev rev;
} instance;

typedef struct plan {
    instance *items;
    size_t n;
} plan;

/* Newest revision first, then suites and cases in file order. */
static bool make_plan(const mcps_suite_set *suites, const mcps_run_config *cfg,
                      const mcps_discovery *d, plan *p)
{
    size_t cap = 0;
    *p = (plan){0};
    for (int r = MCPS_REV_COUNT - 1; r >= 0; r--)
        for (size_t s = 0; s < suites->nsuites; s++)
            for (size_t i = 0; i < suites->suites[s].ncases; i++) {
                const mcps_case *c = &suites->suites[s].cases[i];
                if (!mcps_run_selects(cfg, &suites->suites[s], c) || !planned(d, (mcps_rev)r) ||
                    !mcps_rev_set_has(case_revisions(cfg, c), (mcps_rev)r) ||
                    (c->transports && !(c->transports & (1u << cfg->target.kind))))
                    continue;
                if (!mcps_array_reserve(&p->items, &cap, p->n + 1, sizeof *p->items, 64))
                    return false;
                p->items[p->n++] = (instance){&suites->suites[s], c, (mcps_rev)r};
            }
    return true;
}

/* ---- the worker pool ------------------------------------------------------------------- */

typedef struct pool {
    const mcps_exec_env *env;
    const plan *plan;
    const size_t *order; /* instances in the order they are taken */
    bool *taken;         /* per position in order: a worker has it */
    bool shared;         /* --isolation shared: a lane prefers cases its process fits */
    mcps_case_result *results;
    size_t next; /* first position in order not taken */
    size_t ntaken;
    size_t finished;
    unsigned barrier_failures;
    unsigned trial_losses;
    size_t processes;
    size_t skipped;     /* taken by a worker, then not run: the run had stopped */
    mcps_liveness live; /* has the target stopped responding? */
    mtx_t lock;         /* guards next, finished, skipped, the hooks and the lanes' counters */
} pool;

/* The position a lane whose last case was `after` takes: among the shareable cases, the first
 * of after's revision, so that the lane's shared process serves it; else the first not taken. */
static size_t position_for(const pool *p, const instance *after)
{
    const instance *head = &p->plan->items[p->order[p->next]];
    if (!p->shared || !after || !mcps_case_shareable(after->c) || !mcps_case_shareable(head->c))
        return p->next;
    for (size_t k = p->next; k < p->plan->n; k++) {
        const instance *in = &p->plan->items[p->order[k]];
        if (!p->taken[k] && in->rev == after->rev && mcps_case_shareable(in->c))
            return k;
    }
    return p->next;
}

static bool take(pool *p, const instance *after, size_t *index)
{
    mtx_lock(&p->lock);
    bool got = p->ntaken < p->plan->n && !mcps_guard_stopped(p->env->cfg->target.guard);
    if (got) {
        size_t k = position_for(p, after);
        *index = p->order[k];
        p->taken[k] = true;
        p->ntaken++;
        while (p->next < p->plan->n && p->taken[p->next])
            p->next++;
    }
    mtx_unlock(&p->lock);
    return got;
}

static void report_started(pool *p, size_t index)
{
    mtx_lock(&p->lock);
    const mcps_run_hooks *h = &p->env->cfg->hooks;
    if (h->case_started) {
        const instance *in = &p->plan->items[index];
        h->case_started(h->ctx, in->c->id, in->rev, index, p->plan->n);
    }
    mtx_unlock(&p->lock);
}

static void report_finished(pool *p, size_t index)
{
    mtx_lock(&p->lock);
    const mcps_run_hooks *h = &p->env->cfg->hooks;
    if (h->case_finished)
        h->case_finished(h->ctx, &p->results[index], p->finished, p->plan->n);
    p->finished++;
    mtx_unlock(&p->lock);
}

/* ---- stopping ---------------------------------------------------------------------- */

/* Why the run stopped, for the report. Called once the guard has stopped. */
static void stop_reason(pool *p, char *out, size_t n)
{
    mcps_liveness_stop_reason(&p->live, p->env->cfg->target.guard, out, n);
}

static void make_error(mcps_case_result *r, const char *fmt, const char *why)
{
    char text[500];
    snprintf(text, sizeof text, fmt, why);
    r->verdict = MCPS_VERDICT_ERROR;
    free(r->reason);
    r->reason = strdup(text);
    if (!r->observed)
        r->observed = strdup(text);
}

/* A case a worker took but the stop kept from starting (mark_not_run does the rest). */
static void skip_taken(pool *p, size_t index)
{
    char why[400];
    stop_reason(p, why, sizeof why);
    const instance *in = &p->plan->items[index];
    mcps_exec_describe(in->suite, in->c, in->rev, &p->results[index]);
    make_error(&p->results[index], "not run: %s", why);
    mtx_lock(&p->lock);
    p->skipped++;
    mtx_unlock(&p->lock);
}

/* A lane of cases: each worker takes the next instance before running the current one, so its
 * process can start meanwhile (lanes.c). */
static int worker(void *arg)
{
    pool *p = arg;
    mcps_lane lane = {.env = p->env,
                      .shared = !p->env->cfg->fresh_processes,
                      .barrier_failures = &p->barrier_failures,
                      .trial_losses = &p->trial_losses,
                      .lock = &p->lock,
                      .processes = &p->processes};
    size_t i, next;
    bool more = take(p, NULL, &i);
    while (more) {
        const instance *in = &p->plan->items[i];
        bool has_next = take(p, in, &next);
        const instance *after = has_next ? &p->plan->items[next] : NULL;
        mcps_case_result *r = &p->results[i];
        if (mcps_guard_stopped(p->env->cfg->target.guard)) {
            skip_taken(p, i);
            i = next;
            more = has_next;
            continue;
        }
        report_started(p, i);
        mcps_lane_run(&lane, in->suite, in->c, in->rev, after ? after->c : NULL,
                      after ? after->rev : in->rev, r);
        if (r->cut) {
            char why[400];
            stop_reason(p, why, sizeof why);
            make_error(r, "cut short: %s", why);
        }
        report_finished(p, i);
        mcps_liveness_after_case(&p->live, p->env, r);
        i = next;
        more = has_next;
    }
    mcps_lane_close(&lane);
    return 0;
}

/* Cases the stop kept from starting: ERROR, with the reason, which the report leads with. */
static void mark_not_run(pool *p, mcps_run_result *out)
{
    if (!mcps_guard_stopped(p->env->cfg->target.guard))
        return;
    char why[400];
    stop_reason(p, why, sizeof why);
    for (size_t k = p->next; k < p->plan->n; k++) {
        if (p->taken[k])
            continue;
        size_t i = p->order[k];
        const instance *in = &p->plan->items[i];
        mcps_exec_describe(in->suite, in->c, in->rev, &p->results[i]);
        make_error(&p->results[i], "not run: %s", why);
    }
    if (!out->fatal) {
        char text[500];
        snprintf(text, sizeof text, "the run stopped early, %zu of %zu cases not run: %s",
                 p->plan->n - p->ntaken + p->skipped, p->plan->n, why);
        out->fatal = strdup(text);
    }
}

/* Run every instance; falls back to this thread alone when threads cannot start. */
static void run_pool(pool *p, size_t jobs)
{
    thrd_t threads[MAX_JOBS];
    size_t started = 0;
    if (jobs > MAX_JOBS)
        jobs = MAX_JOBS;
    if (jobs > p->plan->n)
        jobs = p->plan->n;
    while (started + 1 < jobs && thrd_create(&threads[started], worker, p) == thrd_success)
        started++;
    worker(p);
    for (size_t t = 0; t < started; t++)
        thrd_join(threads[t], NULL);
}

/* Longest known waits first; the plan's order among equals. Returns how many wait at all. */
static size_t sort_by_waits(const plan *p, size_t *order, size_t n)
{
    size_t waiting = 0;
    for (size_t i = 0; i < n; i++) {
        size_t cur = order[i];
        double w = mcps_case_wait_seconds(p->items[cur].c);
        size_t j = i;
        for (; j > 0 && mcps_case_wait_seconds(p->items[order[j - 1]].c) < w; j--)
            order[j] = order[j - 1];
        order[j] = cur;
        waiting += w > 0;
    }
    return waiting;
}

/* A worker takes two cases at a time (the one it runs and the next, whose process it
 * starts early), so cases that wait go to every other place: one per lane, not two. */
static void spread_waits(const plan *p, size_t *order, size_t n)
{
    size_t waiting = sort_by_waits(p, order, n);
    size_t *copy = malloc((n ? n : 1) * sizeof *copy);
    if (!copy)
        return;
    memcpy(copy, order, n * sizeof *copy);
    size_t k = 0, w = 0, q = waiting;
    while (w < waiting || q < n) {
        if (w < waiting)
            order[k++] = copy[w++];
        if (q < n)
            order[k++] = copy[q++];
    }
    free(copy);
}

/* The shareable cases, the revisions taking turns (newest first): lanes reaching them start on
 * different revisions, then each keeps to its own (take), so few shared processes start. */
static size_t interleave_shareable(const plan *p, size_t *order, size_t k)
{
    size_t seen[MCPS_REV_COUNT];
    for (size_t round = 0, added = 1; added; round++) {
        added = 0;
        memset(seen, 0, sizeof seen);
        for (size_t i = 0; i < p->n; i++) {
            const instance *in = &p->items[i];
            if (mcps_case_shareable(in->c) && seen[in->rev]++ == round) {
                order[k++] = i;
                added++;
            }
        }
    }
    return k;
}

/*
 * The order cases are taken in (the report keeps the plan's). Shared: the
 * cases that need a process of their own first, those with the longest waits
 * first of all, so their start-up and their waits overlap the rest of the run
 * rather than trail it; then the shareable ones, which a lane takes a revision
 * at a time so that its consecutive cases share its process. Fresh: the plan's
 * order.
 */
static size_t *make_order(const plan *p, bool shared)
{
    size_t *order = malloc((p->n ? p->n : 1) * sizeof *order);
    size_t k = 0;
    if (!order)
        return NULL;
    for (size_t i = 0; i < p->n; i++)
        if (!shared || !mcps_case_shareable(p->items[i].c))
            order[k++] = i;
    if (shared) {
        spread_waits(p, order, k);
        interleave_shareable(p, order, k);
    }
    return order;
}

/* ---- the run ------------------------------------------------------------------------------ */

static void finished_hook(const mcps_run_config *cfg, const mcps_case_result *c)
{
    if (cfg->hooks.case_finished)
        cfg->hooks.case_finished(cfg->hooks.ctx, c, 0, 0);
}

static char *iso_now(void)
{
    time_t now = time(NULL);
    struct tm tm;
    char buf[32];
    gmtime_r(&now, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return strdup(buf);
}

/* The probes lead the report; d keeps what exec needs (supported, init_result). */
static void take_discovery(const mcps_run_config *cfg, mcps_discovery *d, mcps_run_result *out)
{
    for (int r = MCPS_REV_COUNT - 1; r >= 0; r--) {
        out->probes[r] = d->probes[r];
        d->probes[r].detail = NULL; /* moved */
        if (d->has_case[r]) {
            finished_hook(cfg, &d->cases[r]);
            mcps_run_result_push(out, &d->cases[r]);
            d->has_case[r] = false;
        }
    }
    if (d->fatal[0] && !out->fatal)
        out->fatal = strdup(d->fatal);
}

static void run_cases(const mcps_exec_env *env, const mcps_suite_set *suites, mcps_run_result *out)
{
    plan p;
    if (!make_plan(suites, env->cfg, env->discovery, &p)) {
        out->fatal = strdup("out of memory planning the run");
        free(p.items);
        return;
    }
    size_t *order = make_order(&p, !env->cfg->fresh_processes);
    pool pl = {.env = env,
               .plan = &p,
               .order = order,
               .taken = calloc(p.n ? p.n : 1, sizeof(bool)),
               .shared = !env->cfg->fresh_processes,
               .results = calloc(p.n ? p.n : 1, sizeof(mcps_case_result))};
    if (!order || !pl.taken || !pl.results || mtx_init(&pl.lock, mtx_plain) != thrd_success ||
        !mcps_liveness_init(&pl.live)) {
        out->fatal = strdup("out of memory starting the run");
        free(order);
        free(pl.taken);
        free(pl.results);
        free(p.items);
        return;
    }
    run_pool(&pl, env->cfg->jobs ? env->cfg->jobs : 1);
    mark_not_run(&pl, out);
    mcps_liveness_free(&pl.live);
    mtx_destroy(&pl.lock);
    out->processes_started = pl.processes;
    free(order);
    free(pl.taken);
    for (size_t i = 0; i < p.n; i++)
        if (!mcps_run_result_push(out, &pl.results[i]))
            mcps_case_result_free(&pl.results[i]);
    free(pl.results);
    free(p.items);
}

static mcps_rev_set supported_set(const mcps_discovery *d)
{
    mcps_rev_set set = 0;
    for (int r = 0; r < MCPS_REV_COUNT; r++)
        if (d->probes[r].supported)
            set |= MCPS_REV_BIT(r);
    return set;
}

static void observer_results(const mcps_run_config *cfg, const mcps_tally *tally,
                             const mcps_discovery *d, mcps_run_result *out)
{
    size_t before = out->ncases;
    mcps_rev_set tested = supported_set(d) & (cfg->revisions ? cfg->revisions : MCPS_REV_ALL);
    mcps_tally_results(tally, tested, out);
    for (size_t i = before; i < out->ncases; i++)
        finished_hook(cfg, &out->cases[i]);
}

static void measure_self(mcps_run_result *out)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return;
    out->max_rss_kib = ru.ru_maxrss;
    out->cpu_seconds = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* After discovery or the cases: a stop that left no other trace says so in the report. */
static void note_stop(const mcps_run_config *cfg, mcps_run_result *out)
{
    char why = mcps_guard_stopped(cfg->target.guard);
    if (why && !out->fatal) {
        char text[200];
        snprintf(text, sizeof text, "the run stopped early: %s", mcps_guard_reason(why));
        out->fatal = strdup(text);
    }
}

/*
 * --transport auto: a server that refused every initialize POST with 400,
 * 404 or 405 may be a 2024-11-05 HTTP+SSE server (the spec's backwards
 * compatibility section): discover again over the legacy transport.
 */
static bool legacy_fallback(mcps_run_config *cfg, const mcps_discovery *d)
{
    if (!cfg->transport_auto || cfg->target.kind != MCPS_TRANSPORT_STREAMABLE_HTTP)
        return false;
    bool refused = false;
    for (int r = 0; r < MCPS_REV_COUNT; r++) {
        if (d->probes[r].supported)
            return false;
        int st = d->http_status[r];
        refused |= st == 400 || st == 404 || st == 405;
    }
    if (refused)
        cfg->target.kind = MCPS_TRANSPORT_SSE;
    return refused;
}

static void discover_transport(mcps_run_config *cfg, mcps_discovery *d, mcps_run_result *out)
{
    mcps_discover(cfg, d);
    if (legacy_fallback(cfg, d)) {
        mcps_discovery_free(d);
        mcps_discover(cfg, d);
    }
    free(out->transport);
    out->transport = strdup(mcps_transport_kind_name(cfg->target.kind));
}

/* What the server mcpspec started listens on, for discovery/loopback-only. */
typedef struct hosted_sockets {
    bool started;  /* mcpspec started the server */
    bool readable; /* and could read its sockets */
    mcps_listening l;
} hosted_sockets;

static void run_guarded(const mcps_suite_set *suites, mcps_run_config *cfg,
                        const hosted_sockets *hs, mcps_run_result *out)
{
    int64_t t0 = mcps_clock_ms();
    *out = (mcps_run_result){.tool_version = strdup(MCPS_VERSION),
                             .target = strdup(cfg->target_text ? cfg->target_text : ""),
                             .transport = strdup(mcps_transport_kind_name(cfg->target.kind)),
                             .started_at = iso_now(),
                             .strict = cfg->strict,
                             .isolation = cfg->fresh_processes ? "fresh" : "shared"};
    mcps_discovery d;
    discover_transport(cfg, &d, out);
    note_stop(cfg, out); /* a stop in discovery, not a target that speaks nothing */
    take_discovery(cfg, &d, out);
    mcps_tally *tally = mcps_tally_new();
    mcps_exec_env env = {.cfg = cfg, .discovery = &d, .tally = tally};
    if (!d.fatal[0] && tally) {
        run_cases(&env, suites, out);
        observer_results(cfg, tally, &d, out);
        mcps_loopback_results(cfg, &d, hs->readable ? &hs->l : NULL, hs->started, out);
    }
    note_stop(cfg, out);
    if (tally)
        mcps_tally_totals(tally, &out->messages_sent, &out->messages_received);
    mcps_discovery_free(&d);
    mcps_tally_free(tally);
    mcps_run_result_count(out);
    out->seconds = (double)(mcps_clock_ms() - t0) / 1000.0;
    measure_self(out);
}

/* A server that died during the run leaves the report a reason, with its last output. */
static void stop_host(mcps_host *h, mcps_run_result *out)
{
    if (!h)
        return;
    if (!mcps_host_alive(h) && !out->fatal) {
        char ended[120], text[700];
        mcps_host_describe_exit(h, ended, sizeof ended);
        char *tail = mcps_host_output(h);
        snprintf(text, sizeof text, "%s during the run%s%.400s", ended,
                 tail && tail[0] ? "; its last output: " : "", tail ? tail : "");
        free(tail);
        out->fatal = strdup(text);
    }
    mcps_host_stop(h, NULL);
    mcps_host_free(h);
}

static void run_hosted(const mcps_suite_set *suites, mcps_run_config *cfg, mcps_run_result *out)
{
    char why[900];
    bool hosted = cfg->target.kind != MCPS_TRANSPORT_STDIO && cfg->target.argv;
    mcps_host *h =
        hosted ? mcps_host_start_listening(&cfg->target, cfg->probe_timeout, why, sizeof why)
               : NULL;
    if (hosted && !h) {
        *out = (mcps_run_result){.tool_version = strdup(MCPS_VERSION),
                                 .target = strdup(cfg->target_text ? cfg->target_text : ""),
                                 .transport = strdup(mcps_transport_kind_name(cfg->target.kind)),
                                 .started_at = iso_now(),
                                 .strict = cfg->strict,
                                 .fatal = strdup(why)};
        mcps_run_result_count(out);
        return;
    }
    hosted_sockets hs = {.started = h != NULL};
    if (h)
        hs.readable = mcps_listening_scan(mcps_host_pid(h), &hs.l);
    run_guarded(suites, cfg, &hs, out);
    stop_host(h, out);
}

void mcps_run(const mcps_suite_set *suites, const mcps_run_config *cfg, mcps_run_result *out)
{
    /* A caller without a guard still gets the liveness judgement (a stop switch). */
    mcps_guard own;
    mcps_run_config local = *cfg;
    bool owned = !cfg->target.guard && mcps_guard_init(&own);
    if (owned)
        local.target.guard = &own;
    run_hosted(suites, &local, out);
    if (owned)
        mcps_guard_free(&own);
}
