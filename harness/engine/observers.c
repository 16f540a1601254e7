/*
 * observers.c - observer checks: the rules every message of the target must
 * satisfy in every case, graded once per revision over the whole run.
 *
 * The passive observer (session/observe.c) reports findings with requirement
 * IDs while cases run; here they are tallied per rule and revision. A rule
 * with a finding fails at its requirement's level, with the first examples
 * (case, message, excerpt); a rule that judged messages and found nothing
 * passes; a rule that had nothing to judge (no error response was ever seen,
 * say) is SKIP, never a silent pass.
 */
#include "engine/internal.h"

#include "codec/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#define MAX_EXAMPLES 3

typedef enum judged_kind {
    ON_LINES,
    ON_RESPONSES,
    ON_RESULTS,
    ON_ERRORS,
    ON_REQUESTS,
    ON_CALLS, /* requests and notifications */
    ON_PROGRESS,
    ON_CANARY_LOGS, /* log messages, when the configuration planted secrets */
    ON_TASK_REPORTS,
} judged_kind;

typedef struct rule {
    const char *name; /* observe/<name> */
    const char *title;
    const char *reqs;        /* requirement IDs the rule grades */
    const char *findings[8]; /* the exact reqs strings of findings that break it */
    judged_kind judged;
} rule;

static const rule rules[] = {
    {"json-text",
     "Every line on stdout is a JSON-RPC message",
     "JSON-SYNTAX-001 STDIO-002",
     {"JSON-SYNTAX-001 STDIO-002", "JSON-SYNTAX-001"},
     ON_LINES},
    {"utf8",
     "Every message is valid UTF-8",
     "JSON-UTF8-001 RPC-MSG-002",
     {"JSON-UTF8-001 RPC-MSG-002", "JSON-UTF8-001"},
     ON_LINES},
    {"no-embedded-newline",
     "Messages are newline-delimited with no newline inside",
     "STDIO-001",
     {"STDIO-001"},
     ON_LINES},
    {"envelope",
     "Every message is a JSON-RPC 2.0 object with \"jsonrpc\": \"2.0\"",
     "RPC-MSG-001",
     {"RPC-MSG-001", "RPC-MSG-001 RPC-ERR-004", "RPC-MSG-001 RPC-RSP-002"},
     ON_LINES},
    {"duplicate-key", "Object member names are unique", "JSON-DUP-001", {"JSON-DUP-001"}, ON_LINES},
    {"lone-surrogate",
     "Strings carry no unpaired surrogate escape",
     "JSON-SURR-001",
     {"JSON-SURR-001"},
     ON_LINES},
    {"response-id",
     "A response carries exactly the id of the request it answers",
     "RPC-RSP-001 RPC-ERR-008",
     {"RPC-RSP-001"},
     ON_RESPONSES},
    {"result-xor-error",
     "A response has result or error, never both",
     "RPC-RSP-002",
     {"RPC-RSP-002"},
     ON_RESPONSES},
    {"one-response",
     "A request gets exactly one response",
     "RPC-RSP-004",
     {"RPC-RSP-004"},
     ON_RESPONSES},
    {"result-object",
     "A successful result is a JSON object",
     "RPC-RSP-003",
     {"RPC-RSP-003"},
     ON_RESULTS},
    {"error-shape",
     "An error has an integer code and a string message",
     "RPC-ERR-001",
     {"RPC-ERR-001"},
     ON_ERRORS},
    {"error-message",
     "An error message is a short single sentence",
     "RPC-ERR-002",
     {"RPC-ERR-002"},
     ON_ERRORS},
    {"request-id",
     "Requests from the target have string or integer ids, never null or reused",
     "RPC-ID-001 RPC-ID-002 RPC-ID-003",
     {"RPC-ID-001", "RPC-ID-002", "RPC-ID-003", "RPC-ID-003 RPC-ID-004"},
     ON_REQUESTS},
    {"notification-id", "Notifications carry no id", "RPC-NOT-001", {"RPC-NOT-001"}, ON_CALLS},
    {"batch",
     "No batch arrays where the revision has none; no empty batch",
     "BATCH-004 BATCH-005 BATCH-006",
     {"BATCH-004", "BATCH-005", "BATCH-006"},
     ON_LINES},
    {"progress",
     "Progress names an issued token, increases, and stops with the response",
     "PROG-003 PROG-004 PROG-006 PROG-007",
     {"PROG-003", "PROG-004", "PROG-006", "PROG-007"},
     ON_PROGRESS},
    {"declared-notifications",
     "Notifications only for what the server declared (logging, listChanged, subscribe)",
     "CAP-SRV-004 CAP-GEN-001 CAP-GEN-002",
     {"CAP-SRV-004", "CAP-GEN-001 CAP-GEN-002"},
     ON_CALLS},
    {"client-capabilities",
     "Requests to the client only for features the client declared",
     "CAP-GEN-001 CAP-GEN-002 ROOTS-005 SAMP-008 SAMP-013 ELIC-007 TASK-001",
     {"CAP-GEN-001", "CAP-GEN-002", "ROOTS-005", "SAMP-008", "SAMP-013", "ELIC-007", "TASK-001"},
     ON_REQUESTS},
    {"revision-methods",
     "Only methods that exist in the negotiated revision",
     "LIFE-OP-001 LIFE-OP-002",
     {"LIFE-OP-001", "LIFE-OP-002"},
     ON_CALLS},
    {"server-requests",
     "The server's own requests: valid unique progress tokens, cancellations of its own requests",
     "PROG-001 PROG-002 CANC-001 CANC-009",
     {"PROG-001", "PROG-002", "CANC-001", "CANC-009"},
     ON_CALLS},
    {"meta-keys",
     "_meta keys are well formed and stay out of reserved prefixes",
     "GEN-META-001 GEN-META-002 GEN-META-003 GEN-META-004",
     {"GEN-META-001 GEN-META-002", "GEN-META-003", "GEN-META-004"},
     ON_LINES},
    {"resource-updates",
     "resources/updated only for subscribed resources",
     "RES-008",
     {"RES-008"},
     ON_CALLS},
    {"url-elicitation-errors",
     "-32042 only with the URL elicitations it requires",
     "ELIC-013 ELIC-014",
     {"ELIC-013 ELIC-014"},
     ON_ERRORS},
    {"embedded-resources",
     "Tool results embed resources only when the server implements resources",
     "TOOL-017",
     {"TOOL-017"},
     ON_RESULTS},
    {"no-secrets-in-logs",
     "Log messages never repeat a secret the target was given",
     "LOG-007",
     {"LOG-007"},
     ON_CANARY_LOGS},
    {"task-status",
     "Task statuses only move forward along the lifecycle",
     "TASK-012",
     {"TASK-012"},
     ON_TASK_REPORTS},
};

#define NRULES (sizeof rules / sizeof *rules)

typedef struct example {
    char *case_id;
    char *message;
    char *excerpt;
} example;

typedef struct rule_tally {
    size_t findings;
    bool graded; /* worst holds the strictest level among the findings */
    mcps_level worst;
    example examples[MAX_EXAMPLES];
} rule_tally;

/* Cases run on several threads: every update takes the lock. */
struct mcps_tally {
    mtx_t lock;
    rule_tally rules[MCPS_REV_COUNT][NRULES];
    mcps_session_counts counts[MCPS_REV_COUNT];
    size_t unmatched[MCPS_REV_COUNT]; /* findings no rule claims (e.g. harness notes) */
};

mcps_tally *mcps_tally_new(void)
{
    mcps_tally *t = calloc(1, sizeof(mcps_tally));
    if (t && mtx_init(&t->lock, mtx_plain) != thrd_success) {
        free(t);
        return NULL;
    }
    return t;
}

void mcps_tally_free(mcps_tally *t)
{
    if (!t)
        return;
    for (int r = 0; r < MCPS_REV_COUNT; r++)
        for (size_t i = 0; i < NRULES; i++)
            for (int e = 0; e < MAX_EXAMPLES; e++) {
                free(t->rules[r][i].examples[e].case_id);
                free(t->rules[r][i].examples[e].message);
                free(t->rules[r][i].examples[e].excerpt);
            }
    mtx_destroy(&t->lock);
    free(t);
}

static const rule *rule_for(const char *reqs, size_t *index)
{
    for (size_t i = 0; i < NRULES; i++)
        for (size_t k = 0; k < 8 && rules[i].findings[k]; k++)
            if (strcmp(rules[i].findings[k], reqs) == 0) {
                *index = i;
                return &rules[i];
            }
    return NULL;
}

void mcps_tally_finding(mcps_tally *t, mcps_rev rev, const char *case_id, const mcps_finding *f,
                        const char *excerpt)
{
    size_t i;
    if (rev < 0 || rev >= MCPS_REV_COUNT)
        return;
    mtx_lock(&t->lock);
    if (!f->reqs || !rule_for(f->reqs, &i)) {
        t->unmatched[rev]++;
        mtx_unlock(&t->lock);
        return;
    }
    rule_tally *rt = &t->rules[rev][i];
    mcps_level level;
    if (mcps_catalog_level_of(f->reqs, rev, &level) &&
        (!rt->graded || mcps_verdict_for_level(level) == MCPS_VERDICT_FAIL ||
         (mcps_verdict_for_level(level) == MCPS_VERDICT_WARN &&
          mcps_verdict_for_level(rt->worst) == MCPS_VERDICT_INFO))) {
        rt->worst = level;
        rt->graded = true;
    }
    if (rt->findings < MAX_EXAMPLES) {
        example *e = &rt->examples[rt->findings];
        e->case_id = strdup(case_id);
        mcps_buf m = {0};
        mcps_buf_printf(&m, "line %zu: %s", f->line, f->message);
        e->message = mcps_buf_take(&m);
        e->excerpt = strdup(excerpt ? excerpt : "");
    }
    rt->findings++;
    mtx_unlock(&t->lock);
}

void mcps_tally_counts(mcps_tally *t, mcps_rev rev, const mcps_session_counts *c)
{
    if (rev < 0 || rev >= MCPS_REV_COUNT)
        return;
    mtx_lock(&t->lock);
    mcps_session_counts *sum = &t->counts[rev];
    sum->lines += c->lines;
    sum->requests += c->requests;
    sum->notifications += c->notifications;
    sum->responses += c->responses;
    sum->results += c->results;
    sum->errors += c->errors;
    sum->sent += c->sent;
    sum->progress += c->progress;
    sum->canary_logs += c->canary_logs;
    sum->task_reports += c->task_reports;
    mtx_unlock(&t->lock);
}

static size_t judged(const mcps_session_counts *c, judged_kind k)
{
    switch (k) {
    case ON_RESPONSES:
        return c->responses;
    case ON_RESULTS:
        return c->results;
    case ON_ERRORS:
        return c->errors;
    case ON_REQUESTS:
        return c->requests;
    case ON_CALLS:
        return c->requests + c->notifications;
    case ON_PROGRESS:
        return c->progress;
    case ON_CANARY_LOGS:
        return c->canary_logs;
    case ON_TASK_REPORTS:
        return c->task_reports;
    default:
        return c->lines;
    }
}

static const char *judged_noun(judged_kind k)
{
    static const char *const nouns[] = {"lines",
                                        "responses",
                                        "results",
                                        "error responses",
                                        "requests from the target",
                                        "requests or notifications",
                                        "progress notifications",
                                        "log messages with planted secrets to look for",
                                        "task statuses"};
    return nouns[k];
}

static void grade_rule(const mcps_tally *t, mcps_rev rev, size_t i, mcps_case_result *c)
{
    const rule *r = &rules[i];
    const rule_tally *rt = &t->rules[rev][i];
    size_t n = judged(&t->counts[rev], r->judged);
    mcps_buf obs = {0};
    mcps_level level = MCPS_LEVEL_MAY;
    mcps_catalog_level_of(r->reqs, rev, &level);
    c->level = level;
    if (rt->findings) {
        /* Graded by what was broken: a SHOULD finding alone is a warning. */
        if (rt->graded)
            c->level = level = rt->worst;
        c->verdict = mcps_verdict_for_level(level);
        mcps_buf_printf(&obs, "%zu violation%s", rt->findings, rt->findings == 1 ? "" : "s");
        for (size_t e = 0; e < MAX_EXAMPLES && e < rt->findings; e++)
            mcps_buf_printf(&obs, "; in %s, %s: %s", rt->examples[e].case_id,
                            rt->examples[e].message, rt->examples[e].excerpt);
    } else if (n) {
        c->verdict = MCPS_VERDICT_PASS;
        mcps_buf_printf(&obs, "no violation in %zu %s", n, judged_noun(r->judged));
    } else {
        c->verdict = MCPS_VERDICT_SKIP;
        mcps_buf_printf(&obs, "nothing to judge: the target sent no %s", judged_noun(r->judged));
        c->reason = strdup(obs.data);
    }
    c->observed = mcps_buf_take(&obs);
}

static bool append_case(mcps_run_result *out, mcps_case_result *c)
{
    mcps_case_result *cases = realloc(out->cases, (out->ncases + 1) * sizeof *cases);
    if (!cases)
        return false;
    out->cases = cases;
    out->cases[out->ncases++] = *c;
    return true;
}

static void describe_rule(const rule *r, mcps_rev rev, mcps_case_result *c)
{
    mcps_buf id = {0};
    mcps_buf_printf(&id, "observe/%s", r->name);
    c->id = mcps_buf_take(&id);
    c->suite = strdup("observe");
    c->title = strdup(r->title);
    c->section = strdup("basic (every message)");
    c->revision = rev;
    c->requirements = strdup(r->reqs);
    mcps_buf e = {0};
    mcps_buf_printf(&e, "%s, in every message the target sends during every case.", r->title);
    c->expected = mcps_buf_take(&e);
}

bool mcps_tally_results(const mcps_tally *t, mcps_rev_set revisions, mcps_run_result *out)
{
    for (int r = 0; r < MCPS_REV_COUNT; r++) {
        if (!mcps_rev_set_has(revisions, (mcps_rev)r))
            continue;
        for (size_t i = 0; i < NRULES; i++) {
            mcps_case_result c = {0};
            describe_rule(&rules[i], (mcps_rev)r, &c);
            grade_rule(t, (mcps_rev)r, i, &c);
            if (!append_case(out, &c)) {
                mcps_case_result_free(&c);
                return false;
            }
        }
    }
    return true;
}

bool mcps_run_observer_rule(size_t i, const char **name, const char **title, const char **reqs)
{
    if (i >= NRULES)
        return false;
    *name = rules[i].name;
    *title = rules[i].title;
    *reqs = rules[i].reqs;
    return true;
}

void mcps_tally_totals(const mcps_tally *t, size_t *sent, size_t *received)
{
    *sent = *received = 0;
    for (int r = 0; r < MCPS_REV_COUNT; r++) {
        *sent += t->counts[r].sent;
        *received += t->counts[r].lines;
    }
}
