/*
 * exec.c - run one case on one revision and grade it.
 *
 * Each case runs on a process of its own or, with --isolation shared, on one
 * it shares with other cases that leave it clean (process.c, lanes.c); either
 * way it starts from a fresh inbox after the handshake. Steps run in order; the first expectation
 * that is not met ends the case with the verdict its requirements' level
 * earns (MUST: FAIL, SHOULD: WARN, MAY: INFO), unless the suite lists an
 * alternative for what arrived instead ("<-- else warn ...", or "<-- else
 * breaks ID ..." graded at the level of the requirement that observation
 * breaks), which grades the case and lets it go on. The requirements behind
 * the verdict are recorded for the report. A case that cannot even be set up
 * is ERROR, never PASS.
 */
#include "engine/internal.h"

#include "base/buf.h"
#include "codec/json.h"
#include "engine/functions.h"
#include "engine/match.h"
#include "base/clock.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A finding a case on trial made, tallied only if its verdict stands. */
#define MAX_HELD 64
typedef struct held_finding {
    mcps_finding f;
    char *excerpt;
} held_finding;

typedef struct case_run {
    const mcps_exec_env *env;
    const mcps_case *c;
    mcps_rev rev;
    mcps_session *s;
    mcps_vars vars;
    mcps_verdict verdict;     /* worst so far */
    mcps_verdict broken;      /* what an unmet expectation earns */
    char broken_ids[256];     /* the requirements behind the verdict so far */
    mcps_buf observed;        /* what happened, for the report */
    mcps_buf expected_detail; /* the step that was not met */
    bool stop;
    size_t met;               /* expectations met */
    unsigned request;         /* HTTP: the last request a step sent; `<-- http` waits for its */
    mcps_session_counts base; /* the process's counts before this case (shared processes) */
    bool trial;               /* on trial: findings wait in held until the verdict stands */
    held_finding held[MAX_HELD];
    size_t nheld;
    bool overflow; /* more findings than held keeps: the trial cannot stand */
} case_run;

/* FAIL is worst, then ERROR, WARN, INFO, PASS. */
static int severity(mcps_verdict v)
{
    switch (v) {
    case MCPS_VERDICT_FAIL:
        return 5;
    case MCPS_VERDICT_ERROR:
        return 4;
    case MCPS_VERDICT_WARN:
        return 3;
    case MCPS_VERDICT_INFO:
        return 2;
    case MCPS_VERDICT_SKIP:
        return 1; /* nothing to judge beats a pass, never a finding */
    default:
        return 0;
    }
}

/* A failing, skipped or erroring alternative ends the case: there is nothing more to judge. */
static bool stops(mcps_verdict v)
{
    return v == MCPS_VERDICT_FAIL || v == MCPS_VERDICT_SKIP || v == MCPS_VERDICT_ERROR;
}

/* reqs: the requirements the observation breaks (NULL: none, e.g. SKIP or ERROR). */
static void vgrade(case_run *cr, mcps_verdict v, const char *reqs, bool stop, const char *fmt,
                   va_list ap)
{
    if (severity(v) > severity(cr->verdict)) {
        cr->verdict = v;
        snprintf(cr->broken_ids, sizeof cr->broken_ids, "%s", reqs ? reqs : "");
    }
    if (cr->observed.len)
        mcps_buf_puts(&cr->observed, "; ");
    mcps_buf_vprintf(&cr->observed, fmt, ap);
    cr->stop |= stop;
}

static void grade(case_run *cr, mcps_verdict v, bool stop, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void grade(case_run *cr, mcps_verdict v, bool stop, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vgrade(cr, v, NULL, stop, fmt, ap);
    va_end(ap);
}

/*
 * The verdict that breaking these requirements earns in rev (the strictest of
 * those that apply), and in which the IDs that earn it. None applies: PASS.
 */
static mcps_verdict breach_verdict(const char *ids, mcps_rev rev, char *which, size_t n)
{
    mcps_verdict worst = MCPS_VERDICT_PASS;
    which[0] = '\0';
    for (int pass = 0; pass < 2; pass++) /* find the worst, then list who earns it */
        for (const char *p = ids ? ids : ""; *(p += strspn(p, " ,"));) {
            char id[64];
            size_t len = strcspn(p, " ,");
            snprintf(id, sizeof id, "%.*s", (int)len, p);
            p += len;
            const mcps_req *r = mcps_catalog_find(id);
            if (!r || !mcps_rev_set_has(r->revs, rev))
                continue;
            mcps_verdict v = mcps_verdict_for_level(r->level);
            size_t used = strlen(which);
            if (pass == 0 && severity(v) > severity(worst))
                worst = v;
            else if (pass == 1 && v == worst)
                snprintf(which + used, n - used, "%s%s", used ? " " : "", id);
        }
    return worst;
}

/* An expectation was not met: the case's strictest requirements in this revision are broken. */
static void unmet(case_run *cr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void unmet(case_run *cr, const char *fmt, ...)
{
    char ids[256];
    breach_verdict(cr->c->requirements, cr->rev, ids, sizeof ids);
    va_list ap;
    va_start(ap, fmt);
    vgrade(cr, cr->broken, ids, true, fmt, ap);
    va_end(ap);
}

/* What arrived (or did not) is this alternative: grade it, by its grade or what it breaks. */
static void grade_alternative(case_run *cr, const mcps_alternative *a, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void grade_alternative(case_run *cr, const mcps_alternative *a, const char *fmt, ...)
{
    char ids[256] = "";
    mcps_verdict v = a->grade;
    if (a->breaks) {
        mcps_verdict earned = breach_verdict(a->breaks, cr->rev, ids, sizeof ids);
        if (!a->graded)
            v = earned;
        if (a->graded || !ids[0]) /* a written grade records what it names */
            snprintf(ids, sizeof ids, "%s", a->breaks);
    }
    va_list ap;
    va_start(ap, fmt);
    if (v == MCPS_VERDICT_PASS && a->breaks) {
        mcps_buf_printf(&cr->observed, "%s", cr->observed.len ? "; " : "");
        mcps_buf_vprintf(&cr->observed, fmt, ap);
        mcps_buf_printf(&cr->observed, " (%s does not apply to %s)", a->breaks,
                        mcps_rev_name(cr->rev));
    } else if (v != MCPS_VERDICT_PASS) {
        vgrade(cr, v, ids, stops(v), fmt, ap);
    }
    va_end(ap);
}

static void note_expected(case_run *cr, const mcps_step *st, const cJSON *pattern)
{
    char *p = pattern ? mcps_json_print(pattern, NULL) : NULL;
    mcps_buf_clear(&cr->expected_detail);
    mcps_buf_printf(&cr->expected_detail, "%s:%zu: %.600s", cr->c->file, st->line,
                    p ? p : "(see the suite)");
    free(p);
}

/* Until the target has said anything, it may still be starting: it gets the startup
 * (probe) timeout for its first message, however short the step's own is. */
static double wait_seconds(const case_run *cr, const mcps_step *st)
{
    double t = st->seconds > 0      ? st->seconds
               : cr->c->timeout > 0 ? cr->c->timeout
                                    : cr->env->cfg->timeout;
    if (cr->s->counts.lines == 0 && t < cr->env->cfg->probe_timeout)
        t = cr->env->cfg->probe_timeout;
    return t;
}

/* Why nothing more will come, for a timeout message. */
static const char *gone_reason(const mcps_session *s)
{
    if (s->exited || s->gone)
        return s->last_event[0] ? s->last_event : "the target is gone";
    if (s->stream_closed)
        return "the target closed its stdout";
    return NULL;
}

/* Wait for the next event; false once nothing more can come before deadline (the
 * target is gone, the time is up, or over HTTP every exchange has ended). */
static bool await_more(case_run *cr, int64_t deadline)
{
    if (mcps_session_idle(cr->s))
        return false;
    return mcps_session_poll(cr->s, deadline) || (!cr->s->gone && mcps_clock_ms() < deadline);
}

/* How long a wait that ended without what it wanted lasted, in words. */
static void waited_words(const case_run *cr, double seconds, char *dst, size_t n)
{
    if (mcps_session_idle(cr->s))
        snprintf(dst, n, "by the time every HTTP exchange of the session had ended");
    else
        snprintf(dst, n, "within %.1f s", seconds);
}

static void excerpt_of(const cJSON *msg, char *dst, size_t n)
{
    char *text = mcps_json_print(msg, NULL);
    mcps_excerpt(text ? text : "", text ? strlen(text) : 0, dst, n);
    free(text);
}

/* ---- sending ---------------------------------------------------------------------- */

/* HTTP: ${request} is the number of the request a step just sent, for "request" and "$via". */
static void note_request(case_run *cr)
{
    cr->request = mcps_session_last_request(cr->s);
    if (!cr->s->http)
        return;
    cJSON *n = cJSON_CreateNumber(cr->request);
    mcps_vars_set(&cr->vars, "request", n);
    cJSON_Delete(n);
}

static void send_failed(case_run *cr, const mcps_step *st, const char *err)
{
    const char *why = gone_reason(cr->s);
    unmet(cr, "line %zu could not be sent: %s%s%s", st->line, err, why ? "; " : "", why ? why : "");
}

static void step_send(case_run *cr, const mcps_step *st)
{
    char err[200] = "";
    cJSON *msg = mcps_template_expand(st->json, &cr->vars, err, sizeof err);
    if (!msg) {
        grade(cr, MCPS_VERDICT_ERROR, true, "suite error at %s:%zu: %s", cr->c->file, st->line,
              err);
        return;
    }
    bool sent = st->kind == MCPS_STEP_SEND_HTTP
                    ? mcps_session_send_http(cr->s, msg, err, sizeof err)
                    : mcps_session_send(cr->s, msg, err, sizeof err);
    if (!sent)
        send_failed(cr, st, err);
    note_request(cr);
    cJSON_Delete(msg);
}

/* ${NAME} in raw text is the variable's text (a generated robustness probe, say). */
static char *raw_text(case_run *cr, const mcps_step *st, size_t *len)
{
    char err[200];
    bool splice = strlen(st->raw) == st->raw_len && strstr(st->raw, "${");
    char *text = splice ? mcps_template_text(st->raw, &cr->vars, err, sizeof err) : NULL;
    if (splice && !text) {
        grade(cr, MCPS_VERDICT_ERROR, true, "suite error at %s:%zu: %s", cr->c->file, st->line,
              err);
        return NULL;
    }
    *len = text ? strlen(text) : st->raw_len;
    char *bytes = malloc(*len + 1);
    if (bytes) {
        memcpy(bytes, text ? text : st->raw, *len);
        bytes[*len] = '\n';
    } else {
        grade(cr, MCPS_VERDICT_ERROR, true, "out of memory");
    }
    free(text);
    return bytes;
}

static void step_send_raw(case_run *cr, const mcps_step *st)
{
    char err[200];
    size_t len;
    char *bytes = raw_text(cr, st, &len);
    if (bytes && !mcps_session_send_raw(cr->s, bytes, len + 1, err, sizeof err))
        send_failed(cr, st, err);
    note_request(cr);
    free(bytes);
}

/* ---- expecting ---------------------------------------------------------------------- */

static mcps_shape shape_of_pattern(const cJSON *p, bool http)
{
    if (http)
        return MCPS_SHAPE_HTTP;
    if (cJSON_IsArray(p))
        return MCPS_SHAPE_BATCH;
    bool method = cJSON_HasObjectItem(p, "method"), id = cJSON_HasObjectItem(p, "id");
    if (method)
        return id ? MCPS_SHAPE_REQUEST : MCPS_SHAPE_NOTIFICATION;
    return MCPS_SHAPE_RESPONSE;
}

/*
 * An HTTP record is about the request the pattern names ("request"), else
 * the last one a step sent, and is the kind of event it names ("event"),
 * else a response or a failure below HTTP.
 */
static bool record_correlates(const case_run *cr, const cJSON *pattern, const mcps_inmsg *m)
{
    mcps_match_result r;
    const cJSON *request = cJSON_GetObjectItemCaseSensitive(pattern, "request");
    if (request ? !mcps_match_peek(request, cJSON_GetObjectItemCaseSensitive(m->msg, "request"),
                                   &cr->vars, &r)
                : m->request != cr->request)
        return false;
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(pattern, "event");
    const cJSON *event = cJSON_GetObjectItemCaseSensitive(m->msg, "event");
    if (want)
        return mcps_match_peek(want, event, &cr->vars, &r);
    return cJSON_IsString(event) && (strcmp(event->valuestring, "response") == 0 ||
                                     strcmp(event->valuestring, "error") == 0);
}

/* "$via": the HTTP request whose response or stream carried the message. */
static bool via_ok(const case_run *cr, const cJSON *pattern, const mcps_inmsg *m)
{
    const cJSON *via = cJSON_GetObjectItemCaseSensitive(pattern, "$via");
    if (!via)
        return true;
    cJSON *request = cJSON_CreateNumber(m->request);
    mcps_match_result r;
    bool ok = mcps_match_peek(via, request, &cr->vars, &r);
    cJSON_Delete(request);
    return ok;
}

/* Does this message answer the pattern's id (responses) or carry its method (others)? */
static bool correlates(const case_run *cr, const cJSON *pattern, const mcps_inmsg *m,
                       mcps_shape want)
{
    if (m->consumed || m->shape != want)
        return false;
    if (want == MCPS_SHAPE_HTTP)
        return record_correlates(cr, pattern, m);
    if (want == MCPS_SHAPE_BATCH)
        return true;
    const char *key = want == MCPS_SHAPE_RESPONSE ? "id" : "method";
    const cJSON *sub = cJSON_GetObjectItemCaseSensitive(pattern, key);
    if (!sub)
        return true;
    mcps_match_result r;
    return mcps_match_peek(sub, cJSON_GetObjectItemCaseSensitive(m->msg, key), &cr->vars, &r);
}

static mcps_inmsg *find_candidate(case_run *cr, const cJSON *pattern, bool http)
{
    mcps_shape want = shape_of_pattern(pattern, http);
    for (size_t i = 0; i < cr->s->ninbox; i++)
        if (correlates(cr, pattern, &cr->s->inbox[i], want))
            return &cr->s->inbox[i];
    return NULL;
}

/*
 * The message an expectation judges: the first that correlates with its
 * pattern, else with one of its alternatives, so that an alternative with an
 * id of its own (a rounded id, a null one) is judged when it arrives instead.
 */
static mcps_inmsg *find_answer(case_run *cr, const mcps_step *st)
{
    mcps_inmsg *m = find_candidate(cr, st->json, st->http);
    for (size_t i = 0; !m && i < st->nalts; i++)
        if (st->alts[i].pattern && !st->alts[i].http)
            m = find_candidate(cr, st->alts[i].pattern, st->http);
    return m;
}

/* An HTTP alternative to a message: what HTTP said about the request instead (e.g. a 4xx
 * refusal, after which the message will not come), or NULL. */
static mcps_inmsg *http_instead(case_run *cr, const mcps_step *st, size_t *alt)
{
    for (size_t i = 0; i < st->nalts; i++) {
        if (!st->alts[i].http)
            continue;
        mcps_inmsg *m = find_candidate(cr, st->alts[i].pattern, true);
        mcps_match_result r;
        if (m && mcps_session_request_done(cr->s, m->request) &&
            mcps_match_peek(st->alts[i].pattern, m->msg, &cr->vars, &r)) {
            *alt = i;
            return m;
        }
    }
    return NULL;
}

/* The message counts as "in a batch" only when the pattern says it must (not) be. */
static bool batch_flag_ok(const cJSON *pattern, const mcps_inmsg *m)
{
    const cJSON *flag = cJSON_GetObjectItemCaseSensitive(pattern, "$in-batch");
    return !flag || cJSON_IsTrue(flag) == m->in_batch;
}

static bool try_pattern(case_run *cr, const cJSON *pattern, const mcps_inmsg *m,
                        mcps_match_result *r)
{
    if (!batch_flag_ok(pattern, m)) {
        *r = (mcps_match_result){.matched = false};
        snprintf(r->path, sizeof r->path, "$");
        snprintf(r->detail, sizeof r->detail, "expected a message %s a batch array, got one %s",
                 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pattern, "$in-batch")) ? "inside"
                                                                                      : "outside",
                 m->in_batch ? "inside" : "outside");
        return false;
    }
    if (!via_ok(cr, pattern, m)) {
        *r = (mcps_match_result){.matched = false};
        snprintf(r->path, sizeof r->path, "$");
        snprintf(r->detail, sizeof r->detail,
                 "the message came on HTTP request %u, not the one \"$via\" names", m->request);
        return false;
    }
    return mcps_match(pattern, m->msg, &cr->vars, r);
}

/* The main pattern did not match: the first alternative that does grades the case. */
static void judge_alternatives(case_run *cr, const mcps_step *st, const mcps_inmsg *m,
                               const mcps_match_result *main)
{
    char ex[300];
    excerpt_of(m->msg, ex, sizeof ex);
    for (size_t i = 0; i < st->nalts; i++) {
        mcps_match_result r;
        if (!st->alts[i].pattern || !try_pattern(cr, st->alts[i].pattern, m, &r))
            continue;
        cr->met++;
        grade_alternative(cr, &st->alts[i], "line %zu: %s: %s", m->line, st->alts[i].reason, ex);
        return;
    }
    note_expected(cr, st, st->json);
    if (main->undecidable)
        grade(cr, MCPS_VERDICT_ERROR, true, "line %zu: mcpspec cannot judge this: at %s: %s",
              m->line, main->path, main->detail);
    else
        unmet(cr, "line %zu: at %s: %s; message: %s", m->line, main->path, main->detail, ex);
}

static void describe_leftovers(case_run *cr, mcps_buf *b, mcps_shape want)
{
    size_t n = 0;
    for (size_t i = 0; i < cr->s->ninbox; i++) {
        const mcps_inmsg *m = &cr->s->inbox[i];
        if (m->consumed || m->shape != want || m->in_batch != false)
            continue;
        if (n++ < 2) {
            char ex[200];
            excerpt_of(m->msg, ex, sizeof ex);
            mcps_buf_printf(b, "%s %s", n == 1 ? "; unmatched:" : ",", ex);
        }
    }
}

/* "<-- else GRADE "reason" silence": nothing correlating arrived, and the suite grades that. */
static bool silence_tolerated(case_run *cr, const mcps_step *st, double seconds)
{
    for (size_t i = 0; i < st->nalts; i++)
        if (!st->alts[i].pattern) {
            cr->met++;
            mcps_buf b = {0};
            if (st->kind == MCPS_STEP_EXPECT) /* what came instead, if anything */
                describe_leftovers(cr, &b, shape_of_pattern(st->json, st->http));
            char waited[80];
            waited_words(cr, seconds, waited, sizeof waited);
            grade_alternative(cr, &st->alts[i], "%s (nothing %s%s)", st->alts[i].reason, waited,
                              b.data ? b.data : "");
            mcps_buf_free(&b);
            return true;
        }
    return false;
}

static void expectation_timed_out(case_run *cr, const mcps_step *st, double seconds)
{
    if (silence_tolerated(cr, st, seconds))
        return;
    mcps_buf b = {0};
    mcps_shape want = shape_of_pattern(st->json, st->http);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(st->json, "id");
    char *idtext = id && want == MCPS_SHAPE_RESPONSE ? mcps_json_print(id, NULL) : NULL;
    const char *why = gone_reason(cr->s);
    char waited[80];
    waited_words(cr, seconds, waited, sizeof waited);
    mcps_buf_printf(&b, "no %s%s%s %s", mcps_shape_name(want), idtext ? " with id " : "",
                    idtext ? idtext : "", waited);
    if (why)
        mcps_buf_printf(&b, " (%s)", why);
    describe_leftovers(cr, &b, want);
    free(idtext);
    note_expected(cr, st, st->json);
    mcps_session_event(cr->s, "timed out waiting for the expectation at line %zu", st->line);
    unmet(cr, "%s", b.data);
    mcps_buf_free(&b);
}

static void step_expect(case_run *cr, const mcps_step *st)
{
    double seconds = wait_seconds(cr, st);
    int64_t deadline = mcps_clock_deadline(seconds);
    mcps_inmsg *m, *instead = NULL;
    size_t alt = 0;
    while (!(m = find_answer(cr, st)) && !(instead = http_instead(cr, st, &alt)))
        if (!await_more(cr, deadline))
            break;
    if (!m && instead) {
        char ex[300];
        excerpt_of(instead->msg, ex, sizeof ex);
        instead->consumed = true;
        cr->met++;
        grade_alternative(cr, &st->alts[alt], "%s: %s", st->alts[alt].reason, ex);
        return;
    }
    if (!m) {
        expectation_timed_out(cr, st, seconds);
        return;
    }
    m->consumed = true;
    mcps_match_result r;
    if (try_pattern(cr, st->json, m, &r))
        cr->met++;
    else
        judge_alternatives(cr, st, m, &r);
}

/* ---- silence, exit, time ------------------------------------------------------------ */

static const mcps_inmsg *first_unconsumed(const case_run *cr, bool responses_only)
{
    for (size_t i = 0; i < cr->s->ninbox; i++) {
        const mcps_inmsg *m = &cr->s->inbox[i];
        if (m->consumed || m->in_batch || m->shape == MCPS_SHAPE_HTTP)
            continue;
        /* An array from the target counts as a response, even an empty one (BATCH-004). */
        if (!responses_only || m->shape == MCPS_SHAPE_RESPONSE || m->shape == MCPS_SHAPE_BATCH)
            return m;
    }
    return NULL;
}

static void step_silence(case_run *cr, const mcps_step *st, bool responses_only)
{
    int64_t deadline = mcps_clock_deadline(st->seconds);
    const mcps_inmsg *m = NULL;
    while (!(m = first_unconsumed(cr, responses_only)) && mcps_clock_ms() < deadline)
        if (!await_more(cr, deadline))
            break;
    if (!m) {
        cr->met++;
        return;
    }
    char ex[300];
    excerpt_of(m->msg, ex, sizeof ex);
    mcps_buf_clear(&cr->expected_detail);
    mcps_buf_printf(&cr->expected_detail, "%s:%zu: no %s for %.1f s", cr->c->file, st->line,
                    responses_only ? "response" : "message", st->seconds);
    unmet(cr, "line %zu: unexpected %s: %s", m->line, mcps_shape_name(m->shape), ex);
}

static void step_exit(case_run *cr, const mcps_step *st)
{
    int64_t deadline = mcps_clock_deadline(st->seconds);
    while (!cr->s->exited && !cr->s->gone)
        if (!mcps_session_poll(cr->s, deadline) && mcps_clock_ms() >= deadline)
            break;
    if (cr->s->exited) {
        cr->met++;
        return;
    }
    mcps_buf_clear(&cr->expected_detail);
    mcps_buf_printf(&cr->expected_detail, "%s:%zu: the target exits within %.1f s", cr->c->file,
                    st->line, st->seconds);
    unmet(cr, "the target was still running %.1f s later", st->seconds);
}

static void step_wait(case_run *cr, const mcps_step *st)
{
    int64_t deadline = mcps_clock_deadline(st->seconds);
    while (mcps_clock_ms() < deadline)
        if (!mcps_session_poll(cr->s, deadline) && cr->s->gone)
            break;
}

/* ---- lists, computed values, patterns over many messages ---------------------------- */

/* ${i}, and for a foreach also ${NAME_i}, so nested loops can tell their rounds apart. */
static void set_index(case_run *cr, size_t i, const char *loop_name)
{
    cJSON *index = cJSON_CreateNumber((double)i);
    mcps_vars_set(&cr->vars, "i", index);
    if (loop_name) {
        char name[80];
        snprintf(name, sizeof name, "%s_i", loop_name);
        mcps_vars_set(&cr->vars, name, index);
    }
    cJSON_Delete(index);
}

static void skip_case(case_run *cr, const char *reason)
{
    grade(cr, MCPS_VERDICT_SKIP, true, "%s", reason);
}

static void run_steps(case_run *cr, const mcps_step *steps, size_t n);

static void step_foreach(case_run *cr, const mcps_step *st)
{
    const cJSON *list = mcps_vars_get(&cr->vars, st->while_var);
    size_t n = cJSON_IsArray(list) ? (size_t)cJSON_GetArraySize(list) : 0;
    if (!n) {
        if (st->skip_reason)
            skip_case(cr, st->skip_reason);
        return;
    }
    cJSON *copy = cJSON_Duplicate(list, true); /* the body may change the list */
    size_t i = 0;
    for (const cJSON *e = copy ? copy->child : NULL; e && i < st->max_iterations && !cr->stop;
         e = e->next, i++) {
        mcps_vars_set(&cr->vars, st->name, e);
        set_index(cr, i, st->name);
        run_steps(cr, st->body, st->nbody);
    }
    mcps_json_delete(copy);
}

static void step_let(case_run *cr, const mcps_step *st)
{
    char why[200] = "";
    cJSON *value;
    if (st->func) {
        const cJSON *args[4] = {NULL};
        for (size_t a = 0; a < st->nargs && a < 4; a++) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)strlen(st->args[a]) - 3, st->args[a] + 2);
            args[a] = mcps_vars_get(&cr->vars, name);
        }
        value = mcps_function_call(st->func, args, st->nargs, why, sizeof why);
    } else {
        value = mcps_template_expand(st->json, &cr->vars, why, sizeof why);
    }
    if (value)
        mcps_vars_set(&cr->vars, st->name, value);
    else
        mcps_vars_unset(&cr->vars, st->name);
    mcps_json_delete(value);
}

static void step_require(case_run *cr, const mcps_step *st)
{
    if (!mcps_vars_get(&cr->vars, st->name))
        skip_case(cr, st->skip_reason);
}

/* "<-- no {pattern} for T": nothing that correlates and matches arrives in time. */
static const mcps_inmsg *find_match(case_run *cr, const cJSON *pattern, bool http)
{
    mcps_shape want = shape_of_pattern(pattern, http);
    for (size_t i = 0; i < cr->s->ninbox; i++) {
        const mcps_inmsg *m = &cr->s->inbox[i];
        mcps_match_result r;
        if (correlates(cr, pattern, m, want) && via_ok(cr, pattern, m) &&
            mcps_match_peek(pattern, m->msg, &cr->vars, &r))
            return m;
    }
    return NULL;
}

static void step_no_match(case_run *cr, const mcps_step *st)
{
    int64_t deadline = mcps_clock_deadline(st->seconds);
    const mcps_inmsg *m = NULL;
    while (!(m = find_match(cr, st->json, st->http)) && mcps_clock_ms() < deadline)
        if (!await_more(cr, deadline))
            break;
    if (!m) {
        cr->met++;
        return;
    }
    char ex[300];
    excerpt_of(m->msg, ex, sizeof ex);
    note_expected(cr, st, st->json);
    unmet(cr, "line %zu: a message that must not come: %s", m->line, ex);
}

/* "<-- each {pattern}": every queued message of the pattern's kind that correlates,
 * in arrival order; captures carry from one to the next (so $gt sees the last). */
static void step_each(case_run *cr, const mcps_step *st)
{
    mcps_shape want = shape_of_pattern(st->json, false);
    size_t seen = 0;
    for (size_t i = 0; i < cr->s->ninbox && !cr->stop; i++) {
        mcps_inmsg *m = &cr->s->inbox[i];
        if (!correlates(cr, st->json, m, want))
            continue;
        m->consumed = true;
        seen++;
        mcps_match_result r;
        if (!try_pattern(cr, st->json, m, &r))
            judge_alternatives(cr, st, m, &r);
    }
    if (!seen && !silence_tolerated(cr, st, 0))
        cr->met++;
    else if (seen && !cr->stop)
        cr->met++;
}

/* ---- the step list ------------------------------------------------------------------- */

static void step_repeat(case_run *cr, const mcps_step *st)
{
    for (size_t i = 0; i < st->max_iterations; i++) {
        set_index(cr, i, NULL);
        run_steps(cr, st->body, st->nbody);
        if (cr->stop || !mcps_vars_get(&cr->vars, st->while_var))
            return;
    }
    mcps_buf_clear(&cr->expected_detail);
    mcps_buf_printf(&cr->expected_detail, "%s:%zu: ${%s} ends within %zu rounds", cr->c->file,
                    st->line, st->while_var, st->max_iterations);
    unmet(cr, "${%s} was still set after %zu rounds (it never ends)", st->while_var,
          st->max_iterations);
}

static void run_step(case_run *cr, const mcps_step *st)
{
    switch (st->kind) {
    case MCPS_STEP_SEND:
    case MCPS_STEP_SEND_HTTP:
        step_send(cr, st);
        break;
    case MCPS_STEP_SEND_RAW:
        step_send_raw(cr, st);
        break;
    case MCPS_STEP_EXPECT:
        step_expect(cr, st);
        break;
    case MCPS_STEP_NO_RESPONSE:
        step_silence(cr, st, true);
        break;
    case MCPS_STEP_NOTHING:
        step_silence(cr, st, false);
        break;
    case MCPS_STEP_EXIT:
        step_exit(cr, st);
        break;
    case MCPS_STEP_CLOSE_INPUT:
        mcps_session_close_input(cr->s);
        break;
    case MCPS_STEP_WAIT:
        step_wait(cr, st);
        break;
    case MCPS_STEP_REPEAT:
        step_repeat(cr, st);
        break;
    case MCPS_STEP_FOREACH:
        step_foreach(cr, st);
        break;
    case MCPS_STEP_LET:
        step_let(cr, st);
        break;
    case MCPS_STEP_REQUIRE:
        step_require(cr, st);
        break;
    case MCPS_STEP_NO_MATCH:
        step_no_match(cr, st);
        break;
    case MCPS_STEP_EACH:
        step_each(cr, st);
        break;
    }
}

static void run_steps(case_run *cr, const mcps_step *steps, size_t n)
{
    for (size_t i = 0; i < n && !cr->stop; i++)
        run_step(cr, &steps[i]);
}

/* ---- set-up ---------------------------------------------------------------------------- */

/* A capability the case needs ("tools", "tasks.requests.tools.call") or forbids ("!completions").
 */
static bool capability_ok(const cJSON *caps, const char *spec, char *why, size_t n)
{
    bool forbid = spec[0] == '!';
    const char *path = spec + forbid;
    const cJSON *v = caps;
    for (const char *seg = path; v && *seg;) {
        char key[64];
        size_t len = strcspn(seg, ".");
        snprintf(key, sizeof key, "%.*s", (int)len, seg);
        v = cJSON_GetObjectItemCaseSensitive(v, key);
        seg += len + (seg[len] == '.');
    }
    bool declared = v && !cJSON_IsFalse(v) && !cJSON_IsNull(v);
    if (declared == !forbid)
        return true;
    snprintf(why, n, "the target %s capability '%s'", forbid ? "declares" : "does not declare",
             path);
    return false;
}

static bool applicable(const mcps_exec_env *env, const mcps_case *c, mcps_rev rev, char *why,
                       size_t n)
{
    for (size_t i = 0; i < c->nneeds; i++)
        if (!env->cfg->config_vars || !mcps_vars_get(env->cfg->config_vars, c->needs[i])) {
            snprintf(why, n,
                     "needs %s from the target configuration (--config; see "
                     "docs/target-config.md): mcpspec calls no tool without consent",
                     c->needs[i]);
            return false;
        }
    if (!mcps_discovery_supports(env->discovery, rev)) {
        snprintf(why, n, "the target does not speak %s", mcps_rev_name(rev));
        return false;
    }
    const cJSON *caps =
        cJSON_GetObjectItemCaseSensitive(env->discovery->init_result[rev], "capabilities");
    for (size_t i = 0; i < c->ncapabilities; i++)
        if (!capability_ok(caps, c->capabilities[i], why, n))
            return false;
    return true;
}

bool mcps_exec_applicable(const mcps_exec_env *env, const mcps_case *c, mcps_rev rev)
{
    char why[300];
    return applicable(env, c, rev, why, sizeof why);
}

void mcps_exec_describe(const mcps_suite *suite, const mcps_case *c, mcps_rev rev,
                        mcps_case_result *r)
{
    r->id = strdup(c->id);
    r->suite = strdup(suite->name);
    r->title = strdup(c->title);
    r->section = c->section ? strdup(c->section) : NULL;
    r->revision = rev;
    r->requirements = strdup(c->requirements);
    r->level = MCPS_LEVEL_MAY;
    mcps_catalog_level_of(c->requirements, rev, &r->level);
    r->expected = strdup(c->expect);
}

static void forward_finding(void *ctx, const mcps_finding *f, const char *excerpt)
{
    case_run *cr = ctx;
    if (!cr->trial) {
        mcps_tally_finding(cr->env->tally, cr->rev, cr->c->id, f, excerpt);
        return;
    }
    if (cr->nheld == MAX_HELD) {
        cr->overflow = true;
        return;
    }
    cr->held[cr->nheld].f = *f;
    cr->held[cr->nheld++].excerpt = excerpt ? strdup(excerpt) : NULL;
}

/* The held findings go to the tally (keep) or nowhere. */
static void release_held(case_run *cr, bool keep)
{
    for (size_t i = 0; i < cr->nheld; i++) {
        if (keep)
            mcps_tally_finding(cr->env->tally, cr->rev, cr->c->id, &cr->held[i].f,
                               cr->held[i].excerpt);
        free(cr->held[i].excerpt);
    }
    cr->nheld = 0;
}

/* ${content_types}: the content block types of this revision (TOOL-016). */
static void set_content_types(case_run *cr)
{
    static const char *const types[] = {"text", "image", "resource", "audio", "resource_link"};
    int n = cr->rev >= MCPS_REV_2025_06_18 ? 5 : cr->rev >= MCPS_REV_2025_03_26 ? 4 : 3;
    cJSON *list = cJSON_CreateStringArray(types, n);
    mcps_vars_set(&cr->vars, "content_types", list);
    cJSON_Delete(list);
    /* ${sampling_types}: SAMP-003's sampling content types per revision. */
    static const char *const sampling[] = {"text", "image", "audio", "tool_use", "tool_result"};
    n = cr->rev >= MCPS_REV_2025_11_25 ? 5 : cr->rev >= MCPS_REV_2025_03_26 ? 3 : 2;
    list = cJSON_CreateStringArray(sampling, n);
    mcps_vars_set(&cr->vars, "sampling_types", list);
    cJSON_Delete(list);
}

static void set_builtins(case_run *cr)
{
    cJSON *supported = cJSON_CreateArray();
    /* Of the case's era: a handshake's answer never names 2026-07-28, which has none. */
    for (int r = MCPS_REV_COUNT - 1; r >= 0; r--)
        if (mcps_discovery_supports(cr->env->discovery, (mcps_rev)r) &&
            mcps_rev_is_handshake((mcps_rev)r) == mcps_rev_is_handshake(cr->rev)) {
            if (!cJSON_GetArraySize(supported))
                mcps_vars_set_string(&cr->vars, "latest_revision", mcps_rev_name((mcps_rev)r));
            cJSON_AddItemToArray(supported, cJSON_CreateString(mcps_rev_name((mcps_rev)r)));
        }
    mcps_vars_set(&cr->vars, "supported_revisions", supported);
    cJSON_Delete(supported);
    const mcps_vars *config = cr->env->cfg->config_vars;
    for (size_t i = 0; config && i < config->n; i++)
        mcps_vars_set(&cr->vars, config->items[i].name, config->items[i].value);
    mcps_vars_set_string(&cr->vars, "revision", mcps_rev_name(cr->rev));
    /* The request that shows a target alive: 2026-07-28 has no ping (PING-004). */
    mcps_vars_set_string(&cr->vars, "liveness_method",
                         mcps_rev_is_handshake(cr->rev) ? "ping" : "server/discover");
    set_content_types(cr);
    mcps_vars_set_string(&cr->vars, "mcpspec_version", MCPS_VERSION);
    mcps_vars_set_string(&cr->vars, "case", cr->c->id);
}

/* Expected: the case's sentence, plus the step that was not met. */
static void finish_expected(case_run *cr, mcps_case_result *r)
{
    if (!cr->expected_detail.len)
        return;
    mcps_buf b = {0};
    mcps_buf_printf(&b, "%s Unmet step: %s", r->expected, cr->expected_detail.data);
    free(r->expected);
    r->expected = mcps_buf_take(&b);
}

/* A shared process's case says so in its wire log, and where the handshake is. */
static void note_process(case_run *cr, const mcps_proc *p)
{
    char where[64];
    if (p->s->http)
        snprintf(where, sizeof where, "HTTP session");
    else
        snprintf(where, sizeof where, "process pid %d", p->pid);
    if (p->cases == 1)
        mcps_session_event(cr->s,
                           "%s is shared (--isolation shared): the cases after "
                           "this one run on it too, with ids of their own",
                           where);
    else if (!mcps_rev_is_handshake(p->rev))
        mcps_session_event(cr->s, "case %u on the shared %s (2026-07-28: no handshake)", p->cases,
                           where);
    else
        mcps_session_event(cr->s,
                           "case %u on the shared %s; its handshake (initialize "
                           "%s, notifications/initialized) is in the wire log of %s",
                           p->cases, where, mcps_rev_name(p->rev), p->first_case);
}

static void set_up_failed(mcps_case_result *r, const char *why)
{
    r->verdict = MCPS_VERDICT_ERROR;
    r->reason = strdup(why);
    r->observed = strdup(why);
}

static void run_steps_of_case(case_run *cr, mcps_case_result *r)
{
    mcps_session_set_rev(cr->s, cr->rev);
    run_steps(cr, cr->c->steps, cr->c->nsteps);
    r->verdict = cr->verdict;
    if (cr->broken_ids[0] && (cr->verdict == MCPS_VERDICT_FAIL ||
                              cr->verdict == MCPS_VERDICT_WARN || cr->verdict == MCPS_VERDICT_INFO))
        r->broken = strdup(cr->broken_ids);
    if (cr->verdict == MCPS_VERDICT_PASS)
        mcps_buf_printf(&cr->observed, "as expected: %zu expectation%s met", cr->met,
                        cr->met == 1 ? "" : "s");
    if (cr->verdict == MCPS_VERDICT_ERROR || cr->verdict == MCPS_VERDICT_SKIP)
        r->reason = strdup(cr->observed.data ? cr->observed.data : "not judged");
    r->observed = mcps_buf_take(&cr->observed);
    finish_expected(cr, r);
}

/* The response with this id in the inbox, or NULL. */
static const cJSON *answer_to(const mcps_session *s, const cJSON *id)
{
    for (size_t i = 0; i < s->ninbox; i++)
        if (s->inbox[i].shape == MCPS_SHAPE_RESPONSE &&
            mcps_rpc_id_equal(cJSON_GetObjectItemCaseSensitive(s->inbox[i].msg, "id"), id))
            return s->inbox[i].msg;
    return NULL;
}

/*
 * After a case on a shared process: a ping with an id of its own. Whatever the
 * target sends before the answer belongs to this case (its wire log, its
 * judges), so nothing it provoked reaches the next case's inbox; a target
 * that does not answer in time is not given another case.
 */
/* The answer to want, waited for up to --timeout; NULL when none came. */
static const cJSON *await_answer(case_run *cr, const cJSON *want)
{
    int64_t deadline = mcps_clock_deadline(cr->env->cfg->timeout);
    const cJSON *answer;
    while (!(answer = answer_to(cr->s, want)))
        if (!await_more(cr, deadline))
            return NULL;
    return answer;
}

static bool ping_barrier(case_run *cr, unsigned n)
{
    char id[64], err[200];
    snprintf(id, sizeof id, "\"mcpspec-sync-%u\"", n);
    /* 2026-07-28 has no ping (PING-004): server/discover is its liveness request. */
    const char *method = mcps_rev_is_handshake(cr->rev) ? "ping" : "server/discover";
    cJSON *ping = mcps_rpc_request(id, method, NULL);
    cJSON *want = mcps_json_parse_simple(id, strlen(id));
    mcps_session_event(cr->s, "sync: what arrives before the answer to %s %s belongs to this case",
                       method, id);
    bool sent = ping && want && mcps_session_send(cr->s, ping, err, sizeof err);
    const cJSON *answer = sent ? await_answer(cr, want) : NULL;
    /* An error where a result was due: the case left the process in a state the next case
     * does not expect (a server that a notification switched to another era, say), and a
     * fresh process keeps the next verdict the one --isolation fresh gives. */
    bool ok = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(answer, "result"));
    if (!answer)
        mcps_session_event(cr->s, "sync: no answer within %.1f s: no more cases on this process",
                           cr->env->cfg->timeout);
    else if (!ok)
        mcps_session_event(cr->s,
                           "sync: the answer is not a result: no more cases on this process");
    cJSON_Delete(ping);
    mcps_json_delete(want);
    return ok;
}

/* A stream's end usually follows its last event at once, though a loaded machine can take a
 * while; one that has not ended by then is taken as held open, and the session's later cases
 * end with a ping instead (so this is paid once per session, not per case). */
#define STREAM_END_GRACE_MS 250

/*
 * Over HTTP a server speaks only on the exchanges it was sent, so once every
 * exchange has ended, nothing this case provoked can still arrive: the
 * barrier costs no request. A stream still open falls back to the ping, for
 * the rest of the session's cases too.
 */
static bool barrier(case_run *cr, unsigned n)
{
    mcps_session *s = cr->s;
    if (s->http && !s->lingering) {
        int64_t deadline = mcps_clock_ms() + STREAM_END_GRACE_MS;
        while (!mcps_session_idle(s) && await_more(cr, deadline))
            ;
        if (mcps_session_idle(s)) {
            mcps_session_event(s, "sync: every HTTP exchange of this case has ended");
            return true;
        }
        s->lingering = true;
        mcps_session_event(s,
                           "sync: a stream is still open %d ms after the case: "
                           "cases on this session end with a ping",
                           STREAM_END_GRACE_MS);
    }
    return ping_barrier(cr, n);
}

/* The sync request and its answer are mcpspec's, not the case's: the observer checks count
 * what the case made the target say (on 2026-07-28 no handshake result stands in for them). */
static void uncount_sync(case_run *cr, unsigned n)
{
    char id[64];
    snprintf(id, sizeof id, "\"mcpspec-sync-%u\"", n);
    cJSON *want = mcps_json_parse_simple(id, strlen(id));
    mcps_session_counts *k = &cr->s->counts;
    for (size_t i = 0; want && i < cr->s->ninbox; i++) {
        const cJSON *m = cr->s->inbox[i].msg;
        if (cr->s->inbox[i].shape != MCPS_SHAPE_RESPONSE ||
            !mcps_rpc_id_equal(cJSON_GetObjectItemCaseSensitive(m, "id"), want))
            continue;
        size_t *kind = cJSON_HasObjectItem(m, "error") ? &k->errors : &k->results;
        if (k->sent && k->lines && k->responses && *kind) {
            k->sent--;
            k->lines--;
            k->responses--;
            (*kind)--;
        }
        break;
    }
    mcps_json_delete(want);
}

static size_t since(size_t now, size_t base)
{
    return now >= base ? now - base : 0;
}

/* What the process did during this case (all of it, for a process of its own). */
static mcps_session_counts case_counts(const case_run *cr)
{
    const mcps_session_counts *a = &cr->s->counts, *b = &cr->base;
    return (mcps_session_counts){.lines = since(a->lines, b->lines),
                                 .requests = since(a->requests, b->requests),
                                 .notifications = since(a->notifications, b->notifications),
                                 .responses = since(a->responses, b->responses),
                                 .results = since(a->results, b->results),
                                 .errors = since(a->errors, b->errors),
                                 .sent = since(a->sent, b->sent),
                                 .progress = since(a->progress, b->progress),
                                 .canary_logs = since(a->canary_logs, b->canary_logs),
                                 .task_reports = since(a->task_reports, b->task_reports),
                                 .input_required = since(a->input_required, b->input_required),
                                 .mcp_headers = since(a->mcp_headers, b->mcp_headers)};
}

/* The case's traffic as a whole, its counts and its wire log; then the session forgets it. */
static void close_case(case_run *cr, mcps_case_result *r)
{
    mcps_judge_case(
        &(mcps_judge_input){.tally = cr->env->tally,
                            .rev = cr->rev,
                            .case_id = cr->c->id,
                            .session = cr->s,
                            .server_caps = cJSON_GetObjectItemCaseSensitive(
                                cr->env->discovery->init_result[cr->rev], "capabilities"),
                            .client_caps = cr->c->client_capabilities,
                            .vars = &cr->vars});
    mcps_session_counts counts = case_counts(cr);
    mcps_tally_counts(cr->env->tally, cr->rev, &counts);
    mcps_case_take_log(r, cr->s);
    mcps_session_begin_case(cr->s, cr->s->case_no, NULL, NULL); /* cr is about to go */
}

/* The case's handshake, unless its process has had it (or the case does its own). */
static bool handshake_on(case_run *cr, mcps_proc *p, bool keep, mcps_case_result *r)
{
    char why[400];
    if (keep)
        note_process(cr, p);
    if (cr->c->session == MCPS_SESSION_INITIALIZED && !p->ready) {
        if (!mcps_proc_handshake(p, cr->env, cr->c->client_capabilities, why, sizeof why)) {
            set_up_failed(r, why);
            return false;
        }
        snprintf(p->first_case, sizeof p->first_case, "%s (%s)", cr->c->id, mcps_rev_name(cr->rev));
    }
    return true;
}

/* On the case's process: the handshake if it needs one, then the steps. False: no handshake. */
static bool run_on(case_run *cr, mcps_proc *p, const mcps_exec_place *at, mcps_case_result *r)
{
    bool ok = handshake_on(cr, p, at->keep, r);
    if (at->ready)
        at->ready(at->ctx);
    if (!ok)
        return false;
    if (at->keep) /* ids of its own from here on; the handshake's answer is not the case's */
        mcps_session_begin_case(cr->s, p->cases, forward_finding, cr);
    cr->base = cr->s->counts;
    if (p->cases == 1)
        cr->base = (mcps_session_counts){0}; /* the handshake counts, as on a process of its own */
    run_steps_of_case(cr, r);
    return true;
}

/* A trial's verdict stands when it needs no second look: a pass (or nothing to judge) on a
 * process still in step, or a run being stopped anyway. */
static bool trial_stands(const case_run *cr, const mcps_case_result *r, bool in_step)
{
    if (cr->s->cut || mcps_guard_stopped(cr->env->cfg->target.guard))
        return true;
    return in_step && !cr->overflow &&
           (r->verdict == MCPS_VERDICT_PASS || r->verdict == MCPS_VERDICT_SKIP);
}

/* Forget a trial: its verdict, wire log and findings; the lane runs it again on its own. */
static void drop_trial(case_run *cr, const mcps_exec_place *at, mcps_case_result *r)
{
    release_held(cr, false);
    mcps_case_take_log(r, cr->s);
    mcps_session_begin_case(cr->s, cr->s->case_no, NULL, NULL);
    *at->dropped = r->verdict;
    mcps_case_result_free(r);
    memset(r, 0, sizeof *r);
    *at->rerun = true;
}

bool mcps_exec_case_on(const mcps_exec_env *env, const mcps_suite *suite, const mcps_case *c,
                       mcps_rev rev, const mcps_exec_place *at, mcps_case_result *r)
{
    mcps_proc **proc = at->proc;
    bool keep = at->keep;
    int64_t t0 = mcps_clock_ms();
    mcps_exec_describe(suite, c, rev, r);
    char why[300];
    if (!applicable(env, c, rev, why, sizeof why)) {
        r->verdict = MCPS_VERDICT_SKIP;
        r->reason = strdup(why);
        return true;
    }
    if (!*proc && !(*proc = mcps_proc_start(env, c, rev, why, sizeof why))) {
        r->verdict = MCPS_VERDICT_ERROR;
        r->reason = strdup(why);
        if (at->ready)
            at->ready(at->ctx);
        return true;
    }
    mcps_proc *p = *proc;
    case_run cr = {.env = env,
                   .c = c,
                   .rev = rev,
                   .s = p->s,
                   .verdict = MCPS_VERDICT_PASS,
                   .broken = mcps_verdict_for_level(r->level)};
    p->cases++;
    cr.trial = keep && at->trial;
    mcps_session_begin_case(cr.s, cr.s->case_no, forward_finding, &cr);
    if (at->retrial)
        mcps_session_event(cr.s,
                           "run on a process of its own after its verdict on a shared process "
                           "was %s: this verdict is the one --isolation fresh gives",
                           mcps_verdict_name(*at->retrial));
    set_builtins(&cr);
    bool ran = run_on(&cr, p, at, r);
    bool again = ran && keep && mcps_proc_usable(p);
    bool cut = cr.s->cut; /* the case itself; a stop during the sync only ends the process */
    bool synced = !again || barrier(&cr, p->cases);
    if (again && synced)
        uncount_sync(&cr, p->cases);
    again = again && synced && mcps_proc_usable(p);
    if (!again)
        mcps_session_shutdown(cr.s, NULL);
    bool stands = !cr.trial || trial_stands(&cr, r, ran && again);
    if (stands) {
        if (cr.trial)
            mcps_session_event(cr.s,
                               "on trial on a shared process: its verdict %s stands (any other "
                               "would have been taken again on a process of its own)",
                               mcps_verdict_name(r->verdict));
        release_held(&cr, true);
        close_case(&cr, r);
        r->cut = r->cut && cut;
    } else {
        drop_trial(&cr, at, r);
        synced = true; /* the trial's input, not the target's pace: not a barrier failure */
    }
    if (!again) {
        mcps_proc_free(p);
        *proc = NULL;
    }
    mcps_vars_free(&cr.vars);
    mcps_buf_free(&cr.observed);
    mcps_buf_free(&cr.expected_detail);
    r->seconds = (double)(mcps_clock_ms() - t0) / 1000.0;
    return synced;
}

void mcps_exec_case(const mcps_exec_env *env, const mcps_suite *suite, const mcps_case *c,
                    mcps_rev rev, mcps_case_result *r)
{
    mcps_proc *p = NULL;
    mcps_exec_case_on(env, suite, c, rev, &(mcps_exec_place){.proc = &p}, r);
}
