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

#include "base/buf.h"

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
    ON_INPUT_REQUIRED, /* 2026-07-28 InputRequiredResults */
    ON_MCP_HEADERS,    /* x-mcp-header annotations in tools/list results */
} judged_kind;

typedef struct rule {
    const char *name; /* observe/<name> */
    const char *title;
    const char *reqs; /* requirement IDs the rule grades; its findings' kinds share one */
    judged_kind judged;
    bool modern; /* judged on 2026-07-28 only (session/observe_stateless.c); SKIP elsewhere */
} rule;

/* Indexed by mcps_rule; each finding kind (codec/findings.h) names its entry. */
static const rule rules[MCPS_RULE_COUNT] = {
    [MCPS_RULE_JSON_TEXT] = {"json-text", "Every line on stdout is a JSON-RPC message",
                             "JSON-SYNTAX-001 STDIO-002", ON_LINES, false},
    [MCPS_RULE_UTF8] = {"utf8", "Every message is valid UTF-8", "JSON-UTF8-001 RPC-MSG-002",
                        ON_LINES, false},
    [MCPS_RULE_NO_EMBEDDED_NEWLINE] = {"no-embedded-newline",
                                       "Messages are newline-delimited with no newline inside",
                                       "STDIO-001", ON_LINES, false},
    [MCPS_RULE_ENVELOPE] = {"envelope",
                            "Every message is a JSON-RPC 2.0 object with \"jsonrpc\": \"2.0\"",
                            "RPC-MSG-001", ON_LINES, false},
    [MCPS_RULE_DUPLICATE_KEY] = {"duplicate-key", "Object member names are unique", "JSON-DUP-001",
                                 ON_LINES, false},
    [MCPS_RULE_LONE_SURROGATE] = {"lone-surrogate", "Strings carry no unpaired surrogate escape",
                                  "JSON-SURR-001", ON_LINES, false},
    [MCPS_RULE_RESPONSE_ID] = {"response-id",
                               "A response carries exactly the id of the request it answers",
                               "RPC-RSP-001 RPC-ERR-008 JSON-INT-001", ON_RESPONSES, false},
    [MCPS_RULE_RESULT_XOR_ERROR] = {"result-xor-error",
                                    "A response has result or error, never both", "RPC-RSP-002",
                                    ON_RESPONSES, false},
    [MCPS_RULE_ONE_RESPONSE] = {"one-response", "A request gets exactly one response",
                                "RPC-RSP-004", ON_RESPONSES, false},
    [MCPS_RULE_RESULT_OBJECT] =
        {"result-object",
         "A successful result is a JSON object (from 2026-07-28 with a string resultType)",
         "RPC-RSP-003 RPC-RT-001", ON_RESULTS, false},
    [MCPS_RULE_ERROR_SHAPE] = {"error-shape", "An error has an integer code and a string message",
                               "RPC-ERR-001", ON_ERRORS, false},
    [MCPS_RULE_ERROR_MESSAGE] = {"error-message", "An error message is a short single sentence",
                                 "RPC-ERR-002", ON_ERRORS, false},
    [MCPS_RULE_REQUEST_ID] =
        {"request-id", "Requests from the target have string or integer ids, never null or reused",
         "RPC-ID-001 RPC-ID-002 RPC-ID-003 RPC-ID-004", ON_REQUESTS, false},
    [MCPS_RULE_NOTIFICATION_ID] = {"notification-id", "Notifications carry no id", "RPC-NOT-001",
                                   ON_CALLS, false},
    [MCPS_RULE_BATCH] = {"batch", "No batch arrays where the revision has none; no empty batch",
                         "BATCH-004 BATCH-005 BATCH-006", ON_LINES, false},
    [MCPS_RULE_PROGRESS] =
        {"progress", "Progress names an issued token, increases, and stops with the response",
         "PROG-003 PROG-004 PROG-006 PROG-007", ON_PROGRESS, false},
    [MCPS_RULE_DECLARED_NOTIFICATIONS] =
        {"declared-notifications",
         "Notifications only for what the server declared (logging, listChanged, subscribe)",
         "CAP-SRV-004 CAP-GEN-001 CAP-GEN-002", ON_CALLS, false},
    [MCPS_RULE_CLIENT_CAPABILITIES] =
        {"client-capabilities", "Requests to the client only for features the client declared",
         "CAP-GEN-001 CAP-GEN-002 ROOTS-005 SAMP-008 SAMP-013 ELIC-007 TASK-001", ON_REQUESTS,
         false},
    [MCPS_RULE_REVISION_METHODS] = {"revision-methods",
                                    "Only methods that exist in the negotiated revision",
                                    "LIFE-OP-001 LIFE-OP-002", ON_CALLS, false},
    [MCPS_RULE_SERVER_REQUESTS] = {"server-requests",
                                   "The server's own requests: valid unique progress tokens, "
                                   "cancellations of its own requests",
                                   "PROG-001 PROG-002 CANC-001 CANC-009", ON_CALLS, false},
    [MCPS_RULE_META_KEYS] = {"meta-keys",
                             "_meta keys are well formed and stay out of reserved prefixes",
                             "GEN-META-001 GEN-META-002 GEN-META-003 GEN-META-004", ON_LINES,
                             false},
    [MCPS_RULE_RESOURCE_UPDATES] = {"resource-updates",
                                    "resources/updated only for subscribed resources", "RES-008",
                                    ON_CALLS, false},
    [MCPS_RULE_URL_ELICITATION_ERRORS] = {"url-elicitation-errors",
                                          "-32042 only with the URL elicitations it requires",
                                          "ELIC-013 ELIC-014", ON_ERRORS, false},
    [MCPS_RULE_EMBEDDED_RESOURCES] =
        {"embedded-resources",
         "Tool results embed resources only when the server implements resources", "TOOL-017",
         ON_RESULTS, false},
    [MCPS_RULE_NO_SECRETS_IN_LOGS] = {"no-secrets-in-logs",
                                      "Log messages never repeat a secret the target was given",
                                      "LOG-007", ON_CANARY_LOGS, false},
    [MCPS_RULE_TASK_STATUS] = {"task-status", "Task statuses only move forward along the lifecycle",
                               "TASK-012", ON_TASK_REPORTS, false},
    [MCPS_RULE_RESULT_TYPE_VALUE] = {"result-type-value",
                                     "resultType is \"complete\" or \"input_required\" (no "
                                     "extension value the client did not advertise)",
                                     "RPC-RT-004 VER-010", ON_RESULTS, true},
    [MCPS_RULE_INPUT_REQUIRED] =
        {"input-required",
         "An InputRequiredResult has inputRequests or requestState, asks only what the request "
         "declared, in {method, params} form, and carries no caching hints",
         "MRTR-003 MRTR-004 MRTR-005 CACHE-003", ON_INPUT_REQUIRED, true},
    [MCPS_RULE_ERROR_CODES] = {"error-codes",
                               "Error codes: from -32020..-32099 only -32020, -32021, -32022; "
                               "none from -32000..-32019 or elsewhere in the reserved block",
                               "RPC-CODE-001 RPC-CODE-002 RPC-CODE-005", ON_ERRORS, true},
    [MCPS_RULE_NO_SERVER_REQUESTS] = {"no-server-requests",
                                      "The server sends no JSON-RPC requests of its own",
                                      "RPC-DIR-001 STDIO-008", ON_LINES, true},
    [MCPS_RULE_SERVER_INFO] = {"server-info",
                               "Every result names the server in _meta "
                               "io.modelcontextprotocol/serverInfo",
                               "STATE-004 DISC-004", ON_RESULTS, true},
    [MCPS_RULE_REQUEST_SCOPED] = {"request-scoped",
                                  "Log messages only for a request that set logLevel; "
                                  "notifications/cancelled only for a subscriptions/listen",
                                  "LOG-009 CANC-013", ON_CALLS, true},
    [MCPS_RULE_MCP_HEADERS] = {"mcp-headers",
                               "x-mcp-header annotations name a valid, unique header on a "
                               "primitive property reached through properties, and no secret",
                               "TOOL-020 TOOL-022", ON_MCP_HEADERS, true},
};

#define NRULES MCPS_RULE_COUNT

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
    size_t unmatched[MCPS_REV_COUNT]; /* findings of no known kind: an ERROR check if any */
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

void mcps_tally_finding(mcps_tally *t, mcps_rev rev, const char *case_id, const mcps_finding *f,
                        const char *excerpt)
{
    if (rev < 0 || rev >= MCPS_REV_COUNT || f->kind == MCPS_FINDING_NOTE)
        return; /* a note belongs to its case only */
    size_t i = (size_t)mcps_finding_kind_rule(f->kind);
    mtx_lock(&t->lock);
    if (i >= NRULES) {
        /* Cannot happen with a kind from the table; counted so that it shows. */
        t->unmatched[rev]++;
        mtx_unlock(&t->lock);
        return;
    }
    rule_tally *rt = &t->rules[rev][i];
    mcps_level level;
    if (mcps_catalog_level_of(mcps_finding_kind_reqs(f->kind), rev, &level) &&
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
    sum->input_required += c->input_required;
    sum->mcp_headers += c->mcp_headers;
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
    case ON_INPUT_REQUIRED:
        return c->input_required;
    case ON_MCP_HEADERS:
        return c->mcp_headers;
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
                                        "task statuses",
                                        "InputRequiredResults",
                                        "x-mcp-header annotations"};
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
    if (r->modern && rev != MCPS_REV_2026_07_28) {
        c->verdict = MCPS_VERDICT_SKIP;
        mcps_buf_printf(&obs, "a rule of protocol revision 2026-07-28 only");
        c->reason = strdup(obs.data);
    } else if (rt->findings) {
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

/* Findings of a kind no rule claims were dropped: the run says so rather than pass them. */
static bool append_unmatched(const mcps_tally *t, mcps_rev rev, mcps_run_result *out)
{
    mcps_case_result c = {0};
    mcps_buf obs = {0};
    c.id = strdup("observe/unmatched-findings");
    c.suite = strdup("observe");
    c.title = strdup("Every finding is tallied by an observer rule");
    c.section = strdup("basic (every message)");
    c.revision = rev;
    c.requirements = strdup("");
    c.expected = strdup("No finding of a kind that no observer rule claims (a defect of mcpspec).");
    c.verdict = MCPS_VERDICT_ERROR;
    mcps_buf_printf(&obs, "%zu finding%s of no known kind; they judged nothing", t->unmatched[rev],
                    t->unmatched[rev] == 1 ? "" : "s");
    c.observed = mcps_buf_take(&obs);
    c.reason = c.observed ? strdup(c.observed) : NULL;
    if (mcps_run_result_push(out, &c))
        return true;
    mcps_case_result_free(&c);
    return false;
}

size_t mcps_tally_unmatched(const mcps_tally *t)
{
    size_t n = 0;
    for (int r = 0; r < MCPS_REV_COUNT; r++)
        n += t->unmatched[r];
    return n;
}

bool mcps_tally_results(const mcps_tally *t, mcps_rev_set revisions, mcps_run_result *out)
{
    for (int r = 0; r < MCPS_REV_COUNT; r++) {
        if (!mcps_rev_set_has(revisions, (mcps_rev)r))
            continue;
        if (t->unmatched[r] && !append_unmatched(t, (mcps_rev)r, out))
            return false;
        for (size_t i = 0; i < NRULES; i++) {
            mcps_case_result c = {0};
            describe_rule(&rules[i], (mcps_rev)r, &c);
            grade_rule(t, (mcps_rev)r, i, &c);
            if (!mcps_run_result_push(out, &c)) {
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
