/*
 * client_run.c - `mcpspec run --client`: play each scenario the selected
 * checks need once (a fresh start of the client each), grade, and fill the
 * run's result like a server run does (client.h).
 *
 * Scenarios run one after the other: each start of a client is cheap next
 * to the timeouts a misbehaving one costs, and sequential runs keep its
 * restarts and leftovers apart. A case that could not be observed (the
 * client never started its server, the run stopped) is ERROR, never a pass.
 */
#include "engine/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/buf.h"
#include "base/clock.h"
#include "engine/client_cases.h"

void mcps_client_config_defaults(mcps_client_config *cfg)
{
    mcps_run_config rc;
    mcps_run_config_defaults(&rc);
    *cfg = (mcps_client_config){.target = rc.target, .timeout = 5.0, .connect_timeout = 10.0};
    if (!cfg->target.max_message)
        cfg->target.max_message = (size_t)4 * 1024 * 1024;
}

/* Whether check c runs over this transport (the session-id checks over Streamable HTTP only,
 * ...); over HTTP+SSE, only a check of 2024-11-05, that transport's revision. */
static bool applies(const mcps_client_check *c, bool http, bool sse)
{
    if (sse)
        return (!c->transports || (c->transports & MCPS_CT_SSE)) &&
               (c->revs & MCPS_CLIENT_SSE_REVS);
    return !c->transports || (c->transports & (http ? MCPS_CT_HTTP : MCPS_CT_STDIO));
}

bool mcps_client_case_at(size_t i, const char **id, const char **title, const char **reqs)
{
    const mcps_client_check *c = mcps_client_check_at(i);
    if (!c)
        return false;
    *id = c->id;
    *title = c->title;
    *reqs = c->reqs;
    return true;
}

bool mcps_client_case_revisions(size_t i, mcps_rev_set *stdio, mcps_rev_set *http,
                                mcps_rev_set *sse)
{
    const mcps_client_check *c = mcps_client_check_at(i);
    if (!c)
        return false;
    *stdio = applies(c, false, false) ? c->revs : 0;
    *http = applies(c, true, false) ? c->revs & MCPS_CLIENT_HTTP_REVS : 0;
    *sse = applies(c, true, true) ? c->revs & MCPS_CLIENT_SSE_REVS : 0;
    return true;
}

/* A word for a shell: quoted unless it is plainly safe. */
static void shell_word(mcps_buf *b, const char *w)
{
    if (w[0] &&
        strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") ==
            strlen(w)) {
        mcps_buf_puts(b, w);
        return;
    }
    mcps_buf_putc(b, '\'');
    for (const char *p = w; *p; p++)
        if (*p == '\'')
            mcps_buf_puts(b, "'\\''");
        else
            mcps_buf_putc(b, *p);
    mcps_buf_putc(b, '\'');
}

/* word with every key (such as {server}) replaced by line. */
static char *replace_all(const char *word, const char *key, const char *line)
{
    mcps_buf b = {0};
    const char *p = word, *hit;
    while ((hit = strstr(p, key))) {
        mcps_buf_append(&b, p, (size_t)(hit - p));
        mcps_buf_puts(&b, line);
        p = hit + strlen(key);
    }
    mcps_buf_puts(&b, p);
    return mcps_buf_take(&b);
}

static char *expand_word(const char *word, const char *line)
{
    return replace_all(word, "{server}", line);
}

char **mcps_client_expand_url(char *const *argv, const char *key, const char *url)
{
    size_t n = 0;
    while (argv[n])
        n++;
    char **out = calloc(n + 1, sizeof *out);
    bool ok = out != NULL;
    for (size_t i = 0; ok && i < n; i++)
        ok = (out[i] = replace_all(argv[i], key, url)) != NULL;
    if (!ok) {
        mcps_argv_free(out);
        return NULL;
    }
    return out;
}

char **mcps_client_expand(char *const *argv, const char *self, const char *socket_path)
{
    const char *words[] = {self, "serve", "--connect", socket_path};
    size_t n = 0, extra = 0;
    while (argv[n])
        extra += strcmp(argv[n++], "{server}") == 0 ? 3 : 0;
    char **out = calloc(n + extra + 1, sizeof *out);
    mcps_buf line = {0};
    for (size_t i = 0; i < 4; i++) {
        if (i)
            mcps_buf_putc(&line, ' ');
        shell_word(&line, words[i]);
    }
    bool ok = out && !line.oom;
    for (size_t i = 0, o = 0; ok && argv[i]; i++) {
        if (strcmp(argv[i], "{server}") == 0)
            for (size_t w = 0; ok && w < 4; w++)
                ok = (out[o++] = strdup(words[w])) != NULL;
        else
            ok = (out[o++] = expand_word(argv[i], line.data)) != NULL;
    }
    mcps_buf_free(&line);
    if (!ok) {
        mcps_argv_free(out);
        return NULL;
    }
    return out;
}

static bool selected_id(const mcps_client_config *cfg, const char *id)
{
    if (!cfg->case_globs || !cfg->case_globs[0])
        return true;
    for (size_t i = 0; cfg->case_globs[i]; i++)
        if (mcps_glob_match(cfg->case_globs[i], id))
            return true;
    return false;
}

static bool selected(const mcps_client_config *cfg, const mcps_client_check *k)
{
    return applies(k, cfg->http, cfg->sse) && selected_id(cfg, k->id);
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

/* Whether the client spoke 2026-07-28 in trace t: server/discover, or a _meta version. */
static bool spoke_modern(const mcps_client_trace *t)
{
    if (t->modern[0])
        return true;
    for (size_t i = 0; i < t->nmsgs; i++) {
        const cJSON *m =
            t->msgs[i].json ? cJSON_GetObjectItemCaseSensitive(t->msgs[i].json, "method") : NULL;
        if (cJSON_IsString(m) && strcmp(m->valuestring, "server/discover") == 0)
            return true;
    }
    return false;
}

/* Why a trace cannot be graded at all; NULL when it can. */
static const char *unobservable(const mcps_client_trace *t, char *buf, size_t n)
{
    if (t->stopped)
        return "the run was stopped before the client could be observed";
    if (t->error[0])
        return t->error;
    if (!t->connections) {
        snprintf(buf, n,
                 t->http ? "the client %s without sending initialize to %s"
                         : "the client %s without starting its server ({server})",
                 t->exited ? "exited" : "ended", t->sse ? "{sse-url}" : "{url}");
        return buf;
    }
    return NULL;
}

/* The log goes to the first case of the scenario; later ones point to it. */
static void give_log(mcps_client_trace *t, mcps_case_result *c)
{
    c->wire = t->log.entries;
    c->nwire = t->log.nentries;
    c->wire_dropped = t->log.dropped;
    c->notes = t->log.notes;
    c->nnotes = t->log.nnotes;
    t->log = (mcps_wire_log){0};
}

/* The revision a check grades on: the one it is about when it has one (2026-07-28's checks,
 * client/batch's 2025-03-26), else what the client asked. */
static mcps_rev graded_rev(const mcps_client_check *k, const mcps_client_trace *t)
{
    for (int r = 0; r < MCPS_REV_COUNT; r++)
        if (k->revs == MCPS_REV_BIT(r))
            return (mcps_rev)r;
    return mcps_rev_parse(t->asked[0] ? t->asked : t->modern);
}

/* Why t cannot be graded by check k; NULL when it can. A legacy server refusing initialize
 * (legacy-server) is observed in the HTTP requests alone when the client did not fall back. */
static const char *unobservable_by(const mcps_client_check *k, const mcps_client_trace *t,
                                   char *buf, size_t n)
{
    const char *why = unobservable(t, buf, n);
    if (why && k->scenario == MCPS_CSC_LEGACY_SERVER && !t->connections && t->nhttp &&
        !t->stopped && !t->error[0])
        return NULL;
    return why;
}

static void grade(const mcps_client_check *k, mcps_client_trace *t, mcps_case_result *c)
{
    mcps_client_grade g = {.rev = graded_rev(k, t), .verdict = MCPS_VERDICT_ERROR};
    char buf[300];
    const char *why = unobservable_by(k, t, buf, sizeof buf);
    if (t->skip_all) {
        g.verdict = MCPS_VERDICT_SKIP;
        mcps_buf_puts(&g.reason, t->skip_all);
    } else if (why)
        mcps_buf_puts(&g.reason, why);
    else if (k->modern && !spoke_modern(t)) {
        g.verdict = MCPS_VERDICT_SKIP;
        mcps_buf_puts(&g.reason, "the client sent no 2026-07-28 request (no server/discover, no "
                                 "_meta protocolVersion): it speaks a handshake-era revision");
    } else
        k->grade(t, &g);
    mcps_level level = MCPS_LEVEL_MUST;
    mcps_catalog_level_of(k->reqs, g.rev, &level);
    c->id = strdup(k->id);
    c->suite = strdup("client");
    c->title = strdup(k->title);
    c->section = strdup(k->section);
    c->revision = g.rev;
    c->requirements = strdup(k->reqs);
    c->level = level;
    c->verdict = g.verdict;
    c->broken = g.broken ? strdup(g.broken) : NULL;
    c->expected = strdup(k->title);
    c->observed =
        g.observed.data ? mcps_buf_take(&g.observed) : strdup(g.reason.data ? g.reason.data : "");
    c->reason = g.reason.data ? mcps_buf_take(&g.reason) : NULL;
    c->seconds = t->seconds;
    c->responsive = t->inject_answer != NULL;
    mcps_buf_free(&g.observed);
    mcps_buf_free(&g.reason);
    if (t->log.entries || t->log.nentries)
        give_log(t, c);
    else {
        static const char note[] = "(the wire log is with the first case of this scenario)";
        mcps_wire_entry *e = calloc(1, sizeof *e);
        if (e && (e->bytes = strdup(note))) {
            *e = (mcps_wire_entry){.dir = MCPS_WIRE_EVENT,
                                   .bytes = e->bytes,
                                   .len = strlen(note),
                                   .wire_len = strlen(note)};
            c->wire = e;
            c->nwire = 1;
        } else
            free(e);
    }
}

static void header(const mcps_client_config *cfg, mcps_run_result *out)
{
    *out = (mcps_run_result){.tool_version = strdup(MCPS_VERSION),
                             .target = strdup(cfg->target_text ? cfg->target_text : ""),
                             .transport = strdup(cfg->sse    ? "sse"
                                                 : cfg->http ? "streamable-http"
                                                             : "stdio"),
                             .started_at = iso_now(),
                             .isolation = "fresh"};
    for (int r = 0; r < MCPS_REV_COUNT; r++)
        out->probes[r].revision = (mcps_rev)r;
}

/* The revision the client asked for leads the report, as a server's probes do. */
static void note_revision(const mcps_client_trace *t, mcps_run_result *out)
{
    bool modern = !t->asked[0];
    const char *asked = modern ? t->modern : t->asked;
    mcps_rev r = mcps_rev_parse(asked);
    if (r == MCPS_REV_NONE || out->probes[r].probed)
        return;
    mcps_rev_probe *p = &out->probes[r];
    p->probed = p->supported = p->tested = true;
    mcps_buf b = {0};
    mcps_buf_printf(&b, "the client asked for %s in %s", asked,
                    modern ? "_meta (2026-07-28: no initialize)" : "initialize");
    p->detail = mcps_buf_take(&b);
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

static size_t count_selected(const mcps_client_config *cfg)
{
    size_t n = 0;
    for (size_t i = 0; mcps_client_check_at(i); i++)
        n += selected(cfg, mcps_client_check_at(i));
    return n;
}

/* How bad a verdict is, for an observer seen in several scenarios. */
static int severity(mcps_verdict v)
{
    return v == MCPS_VERDICT_FAIL   ? 4
           : v == MCPS_VERDICT_WARN ? 3
           : v == MCPS_VERDICT_INFO ? 2
           : v == MCPS_VERDICT_PASS ? 1
                                    : 0;
}

/* An observer check, already graded on its own scenario, judged again on trace t: a worse
 * verdict (or a PASS where it had nothing to judge) replaces its result, saying where. */
static void observe_again(const mcps_client_check *k, const mcps_client_trace *t,
                          mcps_run_result *out)
{
    char buf[300];
    if (unobservable(t, buf, sizeof buf))
        return;
    mcps_case_result *c = NULL;
    for (size_t i = 0; i < out->ncases; i++)
        if (strcmp(out->cases[i].id, k->id) == 0)
            c = &out->cases[i];
    mcps_client_grade g = {.rev = c ? c->revision : MCPS_REV_NONE};
    k->grade(t, &g);
    if (c && severity(g.verdict) > severity(c->verdict) && g.observed.data) {
        mcps_buf text = {0};
        mcps_buf_printf(&text, "in scenario %s: %s", mcps_client_scenario_name(t->scenario),
                        g.observed.data);
        free(c->observed);
        free(c->broken);
        free(c->reason);
        c->observed = mcps_buf_take(&text);
        c->broken = g.broken ? strdup(g.broken) : NULL;
        c->reason = NULL;
        c->verdict = g.verdict;
    }
    mcps_buf_free(&g.observed);
    mcps_buf_free(&g.reason);
}

/* What the plain scenario showed of the client's era. */
typedef enum plain_era { ERA_UNKNOWN, ERA_LEGACY_ONLY, ERA_MODERN_ONLY } plain_era;

typedef struct plain_seen {
    plain_era era;
    char modern[64]; /* ERA_MODERN_ONLY: the revision it named (its scenarios not played are
                        graded on it) */
} plain_seen;

/* The scenarios of the era a client showed, in the plain one, that it does not speak are not
 * played: each would cost a start for SKIPs. */
static const char *not_played(mcps_client_scenario sc, plain_era era)
{
    if (era == ERA_LEGACY_ONLY && (mcps_client_modern_scenario(sc) || sc == MCPS_CSC_PROBE_CODE))
        return "the client sent no 2026-07-28 request in the plain scenario (it initialized "
               "without server/discover or _meta protocolVersion): not played";
    if (era == ERA_MODERN_ONLY && sc != MCPS_CSC_PLAIN && sc != MCPS_CSC_AUTH &&
        !mcps_client_modern_scenario(sc))
        return "the client sent no initialize request in the plain scenario (it speaks "
               "2026-07-28 only): not played";
    return NULL;
}

/* Play scenario sc once and grade every selected check that watches it. */
static void run_scenario(const mcps_client_config *cfg, mcps_client_scenario sc, size_t *index,
                         size_t total, plain_seen *seen, mcps_run_result *out)
{
    mcps_client_trace t;
    bool played = false;
    for (size_t i = 0; mcps_client_check_at(i); i++) {
        const mcps_client_check *k = mcps_client_check_at(i);
        if (k->scenario != sc || !selected(cfg, k))
            continue;
        if (cfg->hooks.case_started)
            cfg->hooks.case_started(cfg->hooks.ctx, k->id, MCPS_REV_NONE, *index, total);
        if (!played && not_played(sc, seen->era)) {
            t = (mcps_client_trace){.scenario = sc, .skip_all = not_played(sc, seen->era)};
            snprintf(t.modern, sizeof t.modern, "%s", seen->modern);
            played = true;
        } else if (!played && out->fatal) {
            /* the client never started its server: do not wait for it once per scenario */
            t = (mcps_client_trace){.scenario = sc};
            snprintf(t.error, sizeof t.error, "%s", out->fatal);
            played = true;
        } else if (!played) {
            mcps_client_play(cfg, sc, &t);
            played = true;
            out->messages_sent += t.sent;
            out->messages_received += t.received;
            out->processes_started++;
            note_revision(&t, out);
            if (t.error[0] && !out->fatal && !t.connections)
                out->fatal = strdup(t.error);
            if (sc == MCPS_CSC_PLAIN && t.init_params && !spoke_modern(&t))
                seen->era = ERA_LEGACY_ONLY;
            else if (sc == MCPS_CSC_PLAIN && !t.init_params && spoke_modern(&t)) {
                seen->era = ERA_MODERN_ONLY;
                snprintf(seen->modern, sizeof seen->modern, "%s", t.modern);
            }
        }
        mcps_case_result c = {0};
        grade(k, &t, &c);
        if (cfg->hooks.case_finished)
            cfg->hooks.case_finished(cfg->hooks.ctx, &c, *index, total);
        (*index)++;
        if (!mcps_run_result_push(out, &c))
            mcps_case_result_free(&c);
    }
    for (size_t i = 0; played && !t.skip_all && mcps_client_check_at(i); i++) {
        const mcps_client_check *k = mcps_client_check_at(i);
        /* Streamable HTTP's own observers have nothing to say of a fallback to HTTP+SSE */
        bool other_transport = sc == MCPS_CSC_LEGACY_SERVER && k->transports == MCPS_CT_HTTP;
        if (k->every && k->scenario != sc && selected(cfg, k) && !other_transport)
            observe_again(k, &t, out);
    }
    if (played)
        mcps_client_trace_free(&t);
}

void mcps_client_run(const mcps_client_config *cfg, mcps_run_result *out)
{
    int64_t t0 = mcps_clock_us();
    header(cfg, out);
    size_t index = 0, total = count_selected(cfg);
    plain_seen seen = {.era = ERA_UNKNOWN};
    /* The observers' own scenario (plain) comes first, so the others can only revise them. */
    for (int sc = 0; sc < MCPS_CSC_COUNT; sc++)
        run_scenario(cfg, (mcps_client_scenario)sc, &index, total, &seen, out);
    mcps_run_result_count(out);
    out->seconds = (double)(mcps_clock_us() - t0) / 1e6;
    measure_self(out);
}
