/*
 * sarif.c - report.sarif: SARIF 2.1.0, so GitHub code scanning shows findings as alerts.
 *
 * A rule per requirement ID that a FAIL or WARN case tests, described by the
 * catalog; a result per FAIL (error) and WARN (warning), filed under the
 * case's primary requirement. There is no source file to point at, so a
 * result names its case as a logical location and the suite file
 * suites/<suite>.suite as its artifact, without a region. A partial
 * fingerprint (revision, case, rule) lets code scanning track an alert from
 * run to run. Built as a cJSON tree and printed by our printer: always valid.
 *
 * A result a baseline excused carries an external suppression with the
 * entry's reason (code scanning shows it as dismissed, not gone); a stale or
 * expired entry is an error result of its own rule, located at its line of
 * the baseline file.
 */
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "codec/json.h"
#include "report/report_internal.h"

#define SARIF_TEXT_MAX   ((size_t)2000)
#define SARIF_UNLABELLED "mcpspec/unlabelled"
#define SARIF_STALE      "mcpspec/baseline-stale"

typedef struct sarif {
    bool oom;
    char **rules; /* rule IDs in order of first use */
    size_t nrules, cap;
} sarif;

static cJSON *put(sarif *s, cJSON *parent, const char *key, cJSON *item)
{
    bool ok = item && parent &&
              (key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item));
    if (!ok) {
        s->oom = true;
        mcps_json_delete(item);
        return NULL;
    }
    return item;
}

static void put_text(sarif *s, cJSON *parent, const char *key, const char *text)
{
    const char *v = text ? text : "";
    bool lossless;
    char *t = mcps_report_json_text(v, strlen(v), SARIF_TEXT_MAX, &lossless);
    put(s, parent, key, t ? cJSON_CreateString(t) : NULL);
    free(t);
}

/* {"text": ...}, SARIF's message and description shape. */
static void put_message(sarif *s, cJSON *parent, const char *key, const char *text)
{
    put_text(s, put(s, parent, key, cJSON_CreateObject()), "text", text);
}

static bool is_alert(const mcps_case_result *c)
{
    mcps_verdict v = mcps_report_verdict(c);
    return v == MCPS_VERDICT_FAIL || v == MCPS_VERDICT_WARN;
}

/* ---- rules --------------------------------------------------------------------- */

static size_t rule_index(const sarif *s, const char *id)
{
    for (size_t i = 0; i < s->nrules; i++)
        if (strcmp(s->rules[i], id) == 0)
            return i;
    return s->nrules;
}

static void add_rule(sarif *s, const char *id)
{
    if (rule_index(s, id) < s->nrules)
        return;
    if (!mcps_array_reserve(&s->rules, &s->cap, s->nrules + 1, sizeof *s->rules, 16)) {
        s->oom = true;
        return;
    }
    char *copy = strdup(id);
    if (!copy)
        s->oom = true;
    else
        s->rules[s->nrules++] = copy;
}

static void collect_rules(sarif *s, const mcps_run_result *run)
{
    for (size_t i = 0; i < run->ncases && !s->oom; i++) {
        const mcps_case_result *c = &run->cases[i];
        if (!is_alert(c))
            continue;
        char id[64];
        const char *ids = c->requirements;
        if (!mcps_report_primary_id(c, id, sizeof id))
            add_rule(s, SARIF_UNLABELLED);
        while (mcps_report_next_id(&ids, id, sizeof id))
            add_rule(s, id);
    }
    if (run->baseline && run->baseline->nstale)
        add_rule(s, SARIF_STALE);
}

static const char *sarif_level(mcps_level level)
{
    return mcps_level_is_hard(level) ? "error" : mcps_level_is_soft(level) ? "warning" : "note";
}

static void put_rule_descriptions(sarif *s, cJSON *rule, const mcps_req *r, const char *id)
{
    if (!r) {
        const char *why =
            strcmp(id, SARIF_UNLABELLED) == 0 ? "A check that names no requirement of the catalog."
            : strcmp(id, SARIF_STALE) == 0
                ? "A baseline entry that excuses nothing any more (what it lists passes) or whose "
                  "expiry date passed: remove or renew it."
                : "A requirement ID that is not in mcpspec's catalog.";
        put_message(s, rule, "shortDescription", why);
        return;
    }
    mcps_buf full = {0};
    mcps_buf_printf(&full, "%s: %s (%s)", mcps_level_name(r->level), r->text,
                    r->source ? r->source : "MCP specification");
    put_message(s, rule, "shortDescription", r->text);
    put_message(s, rule, "fullDescription", full.oom ? r->text : full.data);
    put_message(s, rule, "help", full.oom ? r->text : full.data);
    mcps_buf_free(&full);
}

static void put_rule(sarif *s, cJSON *rules, const char *id)
{
    const mcps_req *r = mcps_catalog_find(id);
    cJSON *rule = put(s, rules, NULL, cJSON_CreateObject());
    put_text(s, rule, "id", id);
    put_rule_descriptions(s, rule, r, id);
    mcps_level level = r ? r->level : MCPS_LEVEL_MUST;
    cJSON *config = put(s, rule, "defaultConfiguration", cJSON_CreateObject());
    put_text(s, config, "level", sarif_level(level));
    cJSON *props = put(s, rule, "properties", cJSON_CreateObject());
    put_text(s, props, "level", r ? mcps_level_name(r->level) : "unknown");
    cJSON *tags = put(s, props, "tags", cJSON_CreateArray());
    put_text(s, tags, NULL, "mcp");
    put_text(s, tags, NULL, "conformance");
    put_text(s, props, "precision", "very-high");
    put_text(s, props, "problem.severity",
             mcps_level_is_hard(level)   ? "error"
             : mcps_level_is_soft(level) ? "warning"
                                         : "recommendation");
}

/* ---- results ------------------------------------------------------------------- */

/* text as part of a URI reference: anything unusual percent-encoded, but the characters of keep. */
static void put_uri_text(mcps_buf *b, const char *text, const char *keep)
{
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~", *p) || strchr(keep, *p))
            mcps_buf_putc(b, (char)*p);
        else
            mcps_buf_printf(b, "%%%02X", *p);
    }
}

/* suites/<suite>.suite as a relative URI reference. */
static void put_suite_uri(mcps_buf *b, const char *suite)
{
    mcps_buf_puts(b, "suites/");
    put_uri_text(b, suite, "");
    mcps_buf_puts(b, ".suite");
}

static void put_location(sarif *s, cJSON *result, const mcps_case_result *c)
{
    cJSON *loc =
        put(s, put(s, result, "locations", cJSON_CreateArray()), NULL, cJSON_CreateObject());
    cJSON *phys = put(s, loc, "physicalLocation", cJSON_CreateObject());
    cJSON *art = put(s, phys, "artifactLocation", cJSON_CreateObject());
    mcps_buf uri = {0};
    put_suite_uri(&uri, c->suite);
    put_text(s, art, "uri", uri.data);
    s->oom |= uri.oom;
    mcps_buf_free(&uri);
    cJSON *logical =
        put(s, put(s, loc, "logicalLocations", cJSON_CreateArray()), NULL, cJSON_CreateObject());
    put_text(s, logical, "name", c->id);
    mcps_buf fq = {0};
    mcps_buf_printf(&fq, "%s/%s", mcps_rev_name(c->revision), c->id ? c->id : "");
    put_text(s, logical, "fullyQualifiedName", fq.data);
    mcps_buf_free(&fq);
}

static void put_result_properties(sarif *s, cJSON *result, const mcps_case_result *c)
{
    cJSON *props = put(s, result, "properties", cJSON_CreateObject());
    put_text(s, props, "revision", mcps_rev_name(c->revision));
    put_text(s, props, "verdict", mcps_verdict_name(mcps_report_verdict(c)));
    put_text(s, props, "title", c->title);
    cJSON *ids = put(s, props, "requirements", cJSON_CreateArray());
    const char *list = c->requirements;
    char id[64];
    while (mcps_report_next_id(&list, id, sizeof id))
        put_text(s, ids, NULL, id);
    put_text(s, props, "expected", c->expected);
    put_text(s, props, "observed", c->observed);
}

static void put_result(sarif *s, cJSON *results, const mcps_case_result *c)
{
    char id[64];
    if (!mcps_report_primary_id(c, id, sizeof id))
        snprintf(id, sizeof id, "%s", SARIF_UNLABELLED);
    cJSON *result = put(s, results, NULL, cJSON_CreateObject());
    put_text(s, result, "ruleId", id);
    put(s, result, "ruleIndex", cJSON_CreateNumber((double)rule_index(s, id)));
    put_text(s, result, "level", mcps_report_verdict(c) == MCPS_VERDICT_FAIL ? "error" : "warning");
    mcps_buf msg = {0};
    mcps_buf_printf(&msg, "%s (%s): %s", c->id ? c->id : "", mcps_rev_name(c->revision),
                    mcps_report_finding(c));
    put_message(s, result, "message", msg.oom ? "" : msg.data);
    mcps_buf_free(&msg);
    put_location(s, result, c);
    mcps_buf fp = {0};
    mcps_buf_printf(&fp, "%s/%s/%s", mcps_rev_name(c->revision), c->id ? c->id : "", id);
    put_text(s, put(s, result, "partialFingerprints", cJSON_CreateObject()), "mcpspecCase/v1",
             fp.data);
    mcps_buf_free(&fp);
    put_result_properties(s, result, c);
    if (c->baseline) {
        cJSON *sup =
            put(s, put(s, result, "suppressions", cJSON_CreateArray()), NULL, cJSON_CreateObject());
        put_text(s, sup, "kind", "external");
        put_text(s, sup, "justification", c->baseline->reason);
    }
}

/* The baseline file, at the entry's line. */
static void put_stale_location(sarif *s, cJSON *result, const char *file, size_t line)
{
    cJSON *loc =
        put(s, put(s, result, "locations", cJSON_CreateArray()), NULL, cJSON_CreateObject());
    cJSON *phys = put(s, loc, "physicalLocation", cJSON_CreateObject());
    mcps_buf uri = {0};
    put_uri_text(&uri, file, "/");
    put_text(s, put(s, phys, "artifactLocation", cJSON_CreateObject()), "uri", uri.data);
    s->oom |= uri.oom;
    mcps_buf_free(&uri);
    if (line)
        put(s, put(s, phys, "region", cJSON_CreateObject()), "startLine",
            cJSON_CreateNumber((double)line));
}

/* A stale or expired baseline entry, an error of its own rule. */
static void put_stale_result(sarif *s, cJSON *results, const mcps_run_baseline *rb,
                             const mcps_stale_entry *e)
{
    cJSON *result = put(s, results, NULL, cJSON_CreateObject());
    put_text(s, result, "ruleId", SARIF_STALE);
    put(s, result, "ruleIndex", cJSON_CreateNumber((double)rule_index(s, SARIF_STALE)));
    put_text(s, result, "level", "error");
    mcps_buf msg = {0};
    mcps_buf_printf(&msg, "%s baseline entry %s (%s): %s", e->expired ? "expired" : "stale",
                    e->match ? e->match : "", e->revision ? e->revision : "",
                    e->detail ? e->detail : "");
    put_message(s, result, "message", msg.oom ? "" : msg.data);
    mcps_buf_free(&msg);
    put_stale_location(s, result, rb->file, e->line);
    mcps_buf fp = {0};
    mcps_buf_printf(&fp, "baseline/%s/%s", e->revision ? e->revision : "",
                    e->match ? e->match : "");
    put_text(s, put(s, result, "partialFingerprints", cJSON_CreateObject()), "mcpspecCase/v1",
             fp.data);
    mcps_buf_free(&fp);
    cJSON *props = put(s, result, "properties", cJSON_CreateObject());
    put_text(s, props, "status", e->expired ? "expired" : "stale");
    put_text(s, props, "reason", e->reason);
}

/* ---- the log ------------------------------------------------------------------- */

static void put_driver(sarif *s, cJSON *run_o, const mcps_run_result *run)
{
    cJSON *driver =
        put(s, put(s, run_o, "tool", cJSON_CreateObject()), "driver", cJSON_CreateObject());
    put_text(s, driver, "name", "mcpspec");
    put_text(s, driver, "version", run->tool_version);
    put_text(s, driver, "semanticVersion", run->tool_version);
    cJSON *rules = put(s, driver, "rules", cJSON_CreateArray());
    for (size_t i = 0; i < s->nrules; i++)
        put_rule(s, rules, s->rules[i]);
}

static void put_invocation(sarif *s, cJSON *run_o, const mcps_run_result *run)
{
    mcps_report_tally t;
    mcps_report_tally_run(run, &t);
    cJSON *inv =
        put(s, put(s, run_o, "invocations", cJSON_CreateArray()), NULL, cJSON_CreateObject());
    put(s, inv, "executionSuccessful", cJSON_CreateBool(!run->fatal));
    put(s, inv, "exitCode", cJSON_CreateNumber(t.exit_code));
    if (run->fatal) {
        cJSON *note = put(s, put(s, inv, "toolExecutionNotifications", cJSON_CreateArray()), NULL,
                          cJSON_CreateObject());
        put_text(s, note, "level", "error");
        put_message(s, note, "message", run->fatal);
    }
    cJSON *props = put(s, inv, "properties", cJSON_CreateObject());
    put_text(s, props, "target", run->target);
    put_text(s, props, "transport", run->transport);
    put_text(s, props, "startedAt", run->started_at);
}

static cJSON *build(sarif *s, const mcps_run_result *run)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    put_text(s, root, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    put_text(s, root, "version", "2.1.0");
    cJSON *run_o = put(s, put(s, root, "runs", cJSON_CreateArray()), NULL, cJSON_CreateObject());
    collect_rules(s, run);
    put_driver(s, run_o, run);
    put_invocation(s, run_o, run);
    cJSON *results = put(s, run_o, "results", cJSON_CreateArray());
    for (size_t i = 0; i < run->ncases && !s->oom; i++)
        if (is_alert(&run->cases[i]))
            put_result(s, results, &run->cases[i]);
    for (size_t i = 0; run->baseline && i < run->baseline->nstale && !s->oom; i++)
        put_stale_result(s, results, run->baseline, &run->baseline->stale[i]);
    return root;
}

bool mcps_report_sarif(const mcps_run_result *run, mcps_buf *out)
{
    sarif s = {0};
    cJSON *root = build(&s, run);
    size_t len = 0;
    char *text = root && !s.oom ? mcps_json_print(root, &len) : NULL;
    mcps_json_delete(root);
    for (size_t i = 0; i < s.nrules; i++)
        free(s.rules[i]);
    free(s.rules);
    if (!text)
        return false;
    mcps_buf_append(out, text, len);
    mcps_buf_putc(out, '\n');
    free(text);
    return !out->oom;
}
