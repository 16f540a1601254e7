/*
 * baseline.c - judging a baseline's entries against a finished run, and
 * writing baseline files; see baseline.h and docs/baseline.md.
 *
 * The rule an SDK maintainer can trust: an entry excuses only the verdicts it
 * names (ERROR only when named), it fails the run once what it names stops
 * failing or its date passes, and a run that holds no evidence on it (not run,
 * SKIP, ERROR) leaves it unjudged instead of calling it stale.
 */
#include "engine/baseline.h"

#include "base/array.h"
#include "codec/json.h"
#include "engine/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void mcps_baseline_today(char out[11])
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out, 11, "%Y-%m-%d", &tm);
}

/* ---- which cases an entry names ----------------------------------------------------- */

/* id is one of a space- or comma-separated list. */
static bool list_has(const char *list, const char *id)
{
    size_t n = strlen(id);
    for (const char *p = list ? list : ""; *p;) {
        p += strspn(p, " ,");
        size_t len = strcspn(p, " ,");
        if (len == n && strncmp(p, id, n) == 0)
            return true;
        p += len;
    }
    return false;
}

static bool on_revision(const mcps_baseline_entry *e, const mcps_case_result *c)
{
    return e->revision == MCPS_REV_NONE || e->revision == c->revision;
}

/* The entry is about this case: its id, or a requirement it tests. */
static bool covers(const mcps_baseline_entry *e, const mcps_case_result *c)
{
    if (!on_revision(e, c))
        return false;
    if (!e->requirement)
        return c->id && strcmp(c->id, e->match) == 0;
    return list_has(c->requirements, e->match) || list_has(c->broken, e->match);
}

/* And excuses its verdict: one it lists, and for a requirement, one that requirement earned (a
 * case that says which requirements it broke must name it). */
static bool excuses(const mcps_baseline_entry *e, const mcps_case_result *c)
{
    if ((unsigned)c->verdict >= MCPS_VERDICT_COUNT ||
        !(e->verdicts & MCPS_BASELINE_VERDICT(c->verdict)))
        return false;
    return !e->requirement || !c->broken || !*c->broken || list_has(c->broken, e->match);
}

static bool expired(const mcps_baseline_entry *e, const char *today)
{
    return e->expires[0] && strcmp(e->expires, today) < 0;
}

const mcps_baseline_entry *mcps_baseline_find(const mcps_baseline *b, const mcps_case_result *c,
                                              const char *today)
{
    for (size_t i = 0; b && i < b->n; i++)
        if (!expired(&b->entries[i], today) && covers(&b->entries[i], c) &&
            excuses(&b->entries[i], c))
            return &b->entries[i];
    return NULL;
}

/* ---- does any check name it? ----------------------------------------------------------- */

static bool builtin_names(const mcps_baseline_entry *e)
{
    const char *id, *title, *reqs;
    mcps_rev_set revs;
    for (size_t i = 0; mcps_run_discovery_check(i, &id, &title, &reqs, &revs); i++)
        if (e->requirement ? list_has(reqs, e->match) : strcmp(id, e->match) == 0)
            return true;
    for (size_t i = 0; mcps_run_observer_rule(i, &id, &title, &reqs); i++) {
        bool observe = strncmp(e->match, "observe/", 8) == 0 && strcmp(e->match + 8, id) == 0;
        if (e->requirement ? list_has(reqs, e->match) : observe)
            return true;
    }
    return false;
}

/* Some check of this mcpspec is the case, or tests the requirement: the entry can match. */
static bool some_check_names(const mcps_baseline_entry *e, const mcps_suite_set *suites)
{
    for (size_t s = 0; s < suites->nsuites; s++)
        for (size_t i = 0; i < suites->suites[s].ncases; i++) {
            const mcps_case *c = &suites->suites[s].cases[i];
            if (e->requirement ? list_has(c->requirements, e->match) : strcmp(c->id, e->match) == 0)
                return true;
        }
    return builtin_names(e);
}

/* ---- judging one entry ---------------------------------------------------------------- */

typedef enum judgement {
    JUDGED_MATCHED, /* it excused a case */
    JUDGED_NOT,     /* no evidence either way */
    JUDGED_STALE,   /* what it names no longer fails, or nothing could ever match it */
    JUDGED_EXPIRED, /* its date passed */
    JUDGED_OUT_OF_MEMORY,
} judgement;

static char *dup_or_null(const char *s)
{
    return s && *s ? strdup(s) : NULL;
}

static const char *revision_text(const mcps_baseline_entry *e)
{
    return e->revision == MCPS_REV_NONE ? "all" : mcps_rev_name(e->revision);
}

static bool mark(const mcps_baseline_entry *e, mcps_case_result *c)
{
    mcps_case_baseline *m = calloc(1, sizeof *m);
    if (!m)
        return false;
    m->match = strdup(e->match);
    m->revision = strdup(revision_text(e));
    m->reason = strdup(e->reason);
    m->expires = dup_or_null(e->expires);
    m->line = e->line;
    c->baseline = m;
    return m->match && m->revision && m->reason && (m->expires || !e->expires[0]);
}

/* What the run says about the cases an entry covers. */
typedef struct evidence {
    bool matched;
    bool unjudged;                 /* one of them was ERROR: it might still fail */
    const mcps_case_result *fixed; /* the first one judged and not excused */
} evidence;

static bool gather(const mcps_baseline_entry *e, mcps_run_result *run, evidence *ev)
{
    bool ok = true;
    for (size_t i = 0; i < run->ncases; i++) {
        mcps_case_result *c = &run->cases[i];
        if (!covers(e, c))
            continue;
        if (excuses(e, c)) {
            ev->matched = true;
            if (!c->baseline && !mark(e, c))
                ok = false;
        } else if (c->verdict == MCPS_VERDICT_ERROR) {
            ev->unjudged = true;
        } else if (c->verdict != MCPS_VERDICT_SKIP && !ev->fixed) {
            ev->fixed = c;
        }
    }
    return ok;
}

/* Why a case the entry covers no longer counts as its failure. */
static void describe_fixed(const mcps_baseline_entry *e, const mcps_case_result *c, char *detail,
                           size_t n)
{
    const char *verdict = mcps_verdict_name(c->verdict), *rev = mcps_rev_name(c->revision);
    const char *id = c->id ? c->id : "";
    if (e->verdicts & MCPS_BASELINE_VERDICT(c->verdict)) /* it fails, but on another ID */
        snprintf(detail, n, "%s is %s on %s for %s, not %s", id, verdict, rev, c->broken, e->match);
    else
        snprintf(detail, n, "no longer fails: %s is %s on %s", id, verdict, rev);
}

static judgement judge(const mcps_baseline_entry *e, const mcps_suite_set *suites,
                       const char *today, mcps_run_result *run, char *detail, size_t n)
{
    if (expired(e, today)) {
        snprintf(detail, n, "expired on %s", e->expires);
        return JUDGED_EXPIRED;
    }
    evidence ev = {0};
    if (!gather(e, run, &ev))
        return JUDGED_OUT_OF_MEMORY;
    if (ev.matched)
        return JUDGED_MATCHED;
    if (ev.fixed && !ev.unjudged) {
        describe_fixed(e, ev.fixed, detail, n);
        return JUDGED_STALE;
    }
    if (suites && !some_check_names(e, suites)) {
        snprintf(detail, n, "%s",
                 e->requirement ? "no check of this mcpspec tests this requirement"
                                : "no such case in this mcpspec's suites");
        return JUDGED_STALE;
    }
    return JUDGED_NOT;
}

/* ---- the run's record ---------------------------------------------------------------- */

static bool add_stale(mcps_run_baseline *rb, size_t *cap, const mcps_baseline_entry *e,
                      bool is_expired, const char *detail)
{
    if (!mcps_array_reserve(&rb->stale, cap, rb->nstale + 1, sizeof *rb->stale, 8))
        return false;
    mcps_stale_entry *s = &rb->stale[rb->nstale++];
    *s = (mcps_stale_entry){.match = strdup(e->match),
                            .requirement = e->requirement,
                            .revision = strdup(revision_text(e)),
                            .reason = strdup(e->reason),
                            .expires = dup_or_null(e->expires),
                            .line = e->line,
                            .expired = is_expired,
                            .detail = strdup(detail)};
    return s->match && s->revision && s->reason && s->detail;
}

bool mcps_baseline_apply(const mcps_baseline *b, const mcps_suite_set *suites, const char *today,
                         mcps_run_result *run)
{
    mcps_run_baseline *rb = calloc(1, sizeof *rb);
    if (!rb || !(rb->file = strdup(b->file ? b->file : ""))) {
        free(rb);
        return false;
    }
    run->baseline = rb;
    rb->entries = b->n;
    size_t cap = 0;
    bool ok = true;
    for (size_t i = 0; i < b->n; i++) {
        char detail[300] = "";
        judgement j = judge(&b->entries[i], suites, today, run, detail, sizeof detail);
        rb->matched += j == JUDGED_MATCHED;
        rb->not_judged += j == JUDGED_NOT;
        bool fails = j == JUDGED_STALE || j == JUDGED_EXPIRED;
        if (j == JUDGED_OUT_OF_MEMORY ||
            (fails && !add_stale(rb, &cap, &b->entries[i], j == JUDGED_EXPIRED, detail)))
            ok = false;
    }
    mcps_run_result_count(run);
    return ok;
}

/* ---- writing ---------------------------------------------------------------------------- */

/* s as a JSON string, escaped by the codec's printer. */
static void put_string(mcps_buf *out, const char *s)
{
    cJSON *node = cJSON_CreateString(s);
    char *text = node ? mcps_json_print(node, NULL) : NULL;
    if (text)
        mcps_buf_puts(out, text);
    else
        out->oom = true;
    free(text);
    mcps_json_delete(node);
}

/* ["FAIL", "WARN"]: JSON, and YAML's flow sequence too. */
static void put_verdicts(mcps_buf *out, unsigned verdicts)
{
    static const mcps_verdict order[] = {MCPS_VERDICT_FAIL, MCPS_VERDICT_WARN, MCPS_VERDICT_ERROR};
    const char *sep = "";
    mcps_buf_putc(out, '[');
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        if (verdicts & MCPS_BASELINE_VERDICT(order[i])) {
            mcps_buf_printf(out, "%s\"%s\"", sep, mcps_verdict_name(order[i]));
            sep = ", ";
        }
    mcps_buf_putc(out, ']');
}

static void put_entry(mcps_buf *out, const mcps_baseline_entry *e)
{
    mcps_buf_printf(out, "    {\"%s\": ", e->requirement ? "requirement" : "case");
    put_string(out, e->match);
    mcps_buf_printf(out, ", \"revision\": \"%s\"", revision_text(e));
    if (e->verdicts != MCPS_BASELINE_DEFAULT_VERDICTS) {
        mcps_buf_puts(out, ", \"verdicts\": ");
        put_verdicts(out, e->verdicts);
    }
    mcps_buf_puts(out, ", \"reason\": ");
    put_string(out, e->reason);
    if (e->expires[0])
        mcps_buf_printf(out, ", \"expires\": \"%s\"", e->expires);
    mcps_buf_putc(out, '}');
}

void mcps_baseline_render(const mcps_baseline_entry *entries, size_t n, mcps_buf *out)
{
    mcps_buf_printf(out, "{\n  \"schema\": \"%s\",\n  \"version\": %d,\n  \"expected\": [",
                    MCPS_BASELINE_SCHEMA, MCPS_BASELINE_VERSION);
    for (size_t i = 0; i < n; i++) {
        mcps_buf_puts(out, i ? ",\n" : "\n");
        put_entry(out, &entries[i]);
    }
    mcps_buf_puts(out, n ? "\n  ]\n}\n" : "]\n}\n");
}

/* A JSON string, which YAML reads as a double-quoted scalar once the characters YAML does not
 * allow in a stream (C1 controls, U+FFFE, U+FFFF), which JSON leaves as they are, are escaped. */
static void put_yaml_string(mcps_buf *out, const char *s)
{
    mcps_buf json = {0};
    put_string(&json, s);
    const unsigned char *p = (const unsigned char *)(json.data ? json.data : "");
    for (size_t i = 0; i < json.len; i++) {
        if (p[i] == 0xC2 && i + 1 < json.len && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F) {
            mcps_buf_printf(out, "\\u%04X", p[++i]);
        } else if (p[i] == 0xEF && i + 2 < json.len && p[i + 1] == 0xBF && p[i + 2] >= 0xBE) {
            mcps_buf_printf(out, "\\u%04X", 0xFFC0 + (p[i + 2] & 0x3F));
            i += 2;
        } else {
            mcps_buf_putc(out, (char)p[i]);
        }
    }
    out->oom |= json.oom;
    mcps_buf_free(&json);
}

/* YAML block style; each value a JSON string, which YAML reads as a double-quoted scalar. */
static void put_entry_yaml(mcps_buf *out, const mcps_baseline_entry *e)
{
    mcps_buf_printf(out, "  - %s: ", e->requirement ? "requirement" : "case");
    put_yaml_string(out, e->match);
    mcps_buf_printf(out, "\n    revision: \"%s\"\n", revision_text(e));
    if (e->verdicts != MCPS_BASELINE_DEFAULT_VERDICTS) {
        mcps_buf_puts(out, "    verdicts: ");
        put_verdicts(out, e->verdicts);
        mcps_buf_putc(out, '\n');
    }
    mcps_buf_puts(out, "    reason: ");
    put_yaml_string(out, e->reason);
    mcps_buf_putc(out, '\n');
    if (e->expires[0])
        mcps_buf_printf(out, "    expires: \"%s\"\n", e->expires);
}

void mcps_baseline_render_yaml(const mcps_baseline_entry *entries, size_t n, mcps_buf *out)
{
    mcps_buf_printf(out, "schema: %s\nversion: %d\nexpected:%s\n", MCPS_BASELINE_SCHEMA,
                    MCPS_BASELINE_VERSION, n ? "" : " []");
    for (size_t i = 0; i < n; i++)
        put_entry_yaml(out, &entries[i]);
}
