/*
 * json.c - report.json: the complete record of a run, for machines and audits.
 *
 * The format is versioned and documented in docs/report-format.md, with a
 * JSON Schema in docs/report.schema.json. It is built as a cJSON tree and
 * printed by our own printer, so it is valid JSON whatever the peer sent:
 * every string is made valid UTF-8 first, and a wire entry that was not valid
 * UTF-8 also carries its raw bytes in base64, so nothing is lost.
 */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#include "codec/json.h"
#include "report/report_internal.h"

/* Allocation failure is sticky, like mcps_buf: build on, check once. */
typedef struct jtree {
    bool oom;
} jtree;

/* Attach item to parent (under key for an object); NULL on failure. */
static cJSON *put(jtree *j, cJSON *parent, const char *key, cJSON *item)
{
    if (!item || !parent) {
        j->oom = true;
        mcps_json_delete(item);
        return NULL;
    }
    bool ok = key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item);
    if (!ok) {
        j->oom = true;
        mcps_json_delete(item);
        return NULL;
    }
    return item;
}

static cJSON *text_node(const char *s, size_t n)
{
    bool lossless;
    char *t = mcps_report_json_text(s, n, MCPS_REPORT_TEXT_MAX, &lossless);
    cJSON *node = t ? cJSON_CreateString(t) : NULL;
    free(t);
    return node;
}

/* A string, or null when s is NULL. */
static void put_text(jtree *j, cJSON *parent, const char *key, const char *s)
{
    put(j, parent, key, s ? text_node(s, strlen(s)) : cJSON_CreateNull());
}

static void put_count(jtree *j, cJSON *parent, const char *key, size_t n)
{
    put(j, parent, key, cJSON_CreateNumber((double)n));
}

/* Number text: a time with microsecond precision, without the sign plus. */
static cJSON *time_node(int64_t t_us)
{
    mcps_buf b = {0};
    mcps_report_put_time(&b, t_us);
    cJSON *n = b.oom ? NULL : mcps_json_create_number_text(b.data[0] == '+' ? b.data + 1 : b.data);
    mcps_buf_free(&b);
    return n;
}

static cJSON *seconds_node(double seconds)
{
    mcps_buf b = {0};
    mcps_report_put_seconds(&b, seconds);
    cJSON *n = b.oom ? NULL : mcps_json_create_number_text(b.data);
    mcps_buf_free(&b);
    return n;
}

/* ---- cases --------------------------------------------------------------------- */

static void put_requirement(jtree *j, cJSON *list, const char *id)
{
    const mcps_req *r = mcps_catalog_find(id);
    cJSON *o = put(j, list, NULL, cJSON_CreateObject());
    put_text(j, o, "id", id);
    put_text(j, o, "level", r ? mcps_level_name(r->level) : NULL);
    put_text(j, o, "text", r ? r->text : NULL);
    put_text(j, o, "source", r ? r->source : NULL);
}

static void put_requirements(jtree *j, cJSON *o, const char *ids)
{
    cJSON *list = put(j, o, "requirements", cJSON_CreateArray());
    char id[64];
    while (mcps_report_next_id(&ids, id, sizeof id))
        put_requirement(j, list, id);
}

/* An array of requirement IDs. */
static void put_ids(jtree *j, cJSON *o, const char *name, const char *ids)
{
    cJSON *list = put(j, o, name, cJSON_CreateArray());
    char id[64];
    while (mcps_report_next_id(&ids, id, sizeof id))
        put_text(j, list, NULL, id);
}

static void put_notes(jtree *j, cJSON *o, const mcps_case_result *c)
{
    cJSON *list = put(j, o, "notes", cJSON_CreateArray());
    for (size_t i = 0; i < c->nnotes; i++) {
        cJSON *note = put(j, list, NULL, cJSON_CreateObject());
        cJSON *ids = put(j, note, "requirements", cJSON_CreateArray());
        const char *reqs = c->notes[i].reqs;
        char id[64];
        while (mcps_report_next_id(&reqs, id, sizeof id))
            put_text(j, ids, NULL, id);
        put_text(j, note, "message", c->notes[i].message ? c->notes[i].message : "");
    }
}

static void put_wire_entry(jtree *j, cJSON *list, const mcps_wire_entry *w)
{
    const char *s = w->bytes ? w->bytes : "";
    size_t n = w->bytes ? w->len : 0;
    size_t keep = mcps_report_clip(s, n, MCPS_REPORT_WIRE_ENTRY_MAX);
    bool truncated = keep < n || n < w->wire_len;
    if (truncated)
        keep = mcps_report_complete_len(s, keep); /* a cut character is not invalid UTF-8 */
    bool lossless;
    char *text = mcps_report_json_text(s, keep, keep, &lossless);
    cJSON *o = put(j, list, NULL, cJSON_CreateObject());
    put(j, o, "t", time_node(w->t_us));
    put_text(j, o, "dir", mcps_wire_dir_name(w->dir));
    put(j, o, "text", text ? cJSON_CreateString(text) : NULL);
    put_count(j, o, "bytes", w->wire_len > n ? w->wire_len : n);
    put(j, o, "truncated", cJSON_CreateBool(truncated));
    free(text);
    if (!lossless) {
        mcps_buf b64 = {0};
        mcps_report_base64(&b64, s, keep);
        put(j, o, "base64", b64.oom ? NULL : cJSON_CreateString(b64.data ? b64.data : ""));
        mcps_buf_free(&b64);
    }
}

static void put_wire(jtree *j, cJSON *o, const mcps_case_result *c)
{
    cJSON *list = put(j, o, "wire", cJSON_CreateArray());
    size_t shown = mcps_report_wire_shown(c);
    for (size_t i = 0; i < shown && !j->oom; i++)
        put_wire_entry(j, list, &c->wire[i]);
    put_count(j, o, "wire_dropped", c->wire_dropped + (c->nwire - shown));
}

/* The entry that excused the case, or null. */
static void put_case_baseline(jtree *j, cJSON *o, const mcps_case_baseline *b)
{
    if (!b) {
        put(j, o, "baseline", cJSON_CreateNull());
        return;
    }
    cJSON *m = put(j, o, "baseline", cJSON_CreateObject());
    put_text(j, m, "match", b->match ? b->match : "");
    put_text(j, m, "revision", b->revision ? b->revision : "all");
    put_text(j, m, "reason", b->reason ? b->reason : "");
    put_text(j, m, "expires", b->expires);
    put_count(j, m, "line", b->line);
}

static void put_case(jtree *j, cJSON *cases, const mcps_case_result *c)
{
    cJSON *o = put(j, cases, NULL, cJSON_CreateObject());
    put_text(j, o, "id", c->id ? c->id : "");
    put_text(j, o, "suite", c->suite ? c->suite : "");
    put_text(j, o, "title", c->title);
    put_text(j, o, "section", c->section);
    put_text(j, o, "revision", mcps_rev_name(c->revision));
    put_requirements(j, o, c->requirements);
    put_text(j, o, "level", mcps_level_name(c->level));
    put_text(j, o, "verdict", mcps_verdict_name(mcps_report_verdict(c)));
    if (c->broken) /* optional: the requirements the observation broke */
        put_ids(j, o, "broken", c->broken);
    put_text(j, o, "expected", c->expected);
    put_text(j, o, "observed", c->observed);
    put_text(j, o, "reason", c->reason);
    put_case_baseline(j, o, c->baseline);
    put(j, o, "seconds", seconds_node(c->seconds));
    put_notes(j, o, c);
    put_wire(j, o, c);
}

/* ---- the run ------------------------------------------------------------------- */

static void put_revisions(jtree *j, cJSON *root, const mcps_run_result *run)
{
    cJSON *list = put(j, root, "revisions", cJSON_CreateArray());
    for (int r = 0; r < MCPS_REV_COUNT; r++) {
        const mcps_rev_probe *p = &run->probes[r];
        cJSON *o = put(j, list, NULL, cJSON_CreateObject());
        put_text(j, o, "revision", mcps_rev_name((mcps_rev)r));
        put(j, o, "probed", cJSON_CreateBool(p->probed));
        put(j, o, "supported", cJSON_CreateBool(p->supported));
        put(j, o, "tested", cJSON_CreateBool(p->tested));
        put_text(j, o, "detail", p->detail);
    }
}

static void put_summary(jtree *j, cJSON *root, const mcps_report_tally *t)
{
    cJSON *s = put(j, root, "summary", cJSON_CreateObject());
    put_count(j, s, "total", t->total);
    cJSON *counts = put(j, s, "counts", cJSON_CreateObject());
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        put_count(j, counts, mcps_verdict_name((mcps_verdict)v), t->counts[v]);
    put_count(j, s, "baselined", t->baselined);
    put_count(j, s, "stale", t->stale);
    put(j, s, "exit_code", cJSON_CreateNumber(t->exit_code));
    put_text(j, s, "outcome", mcps_report_outcome(t->exit_code));
    put_text(j, s, "exit_meaning", t->meaning);
}

static void put_stale(jtree *j, cJSON *list, const mcps_stale_entry *e)
{
    cJSON *o = put(j, list, NULL, cJSON_CreateObject());
    put_text(j, o, "match", e->match ? e->match : "");
    put_text(j, o, "kind", e->requirement ? "requirement" : "case");
    put_text(j, o, "revision", e->revision ? e->revision : "all");
    put_text(j, o, "reason", e->reason ? e->reason : "");
    put_text(j, o, "expires", e->expires);
    put_count(j, o, "line", e->line);
    put_text(j, o, "status", e->expired ? "expired" : "stale");
    put_text(j, o, "detail", e->detail ? e->detail : "");
}

/* --baseline: the file, how its entries fared, and those that fail the run; null without. */
static void put_baseline(jtree *j, cJSON *root, const mcps_run_baseline *b)
{
    if (!b) {
        put(j, root, "baseline", cJSON_CreateNull());
        return;
    }
    cJSON *o = put(j, root, "baseline", cJSON_CreateObject());
    put_text(j, o, "file", b->file ? b->file : "");
    put_count(j, o, "entries", b->entries);
    put_count(j, o, "matched", b->matched);
    put_count(j, o, "not_judged", b->not_judged);
    cJSON *list = put(j, o, "stale", cJSON_CreateArray());
    for (size_t i = 0; i < b->nstale; i++)
        put_stale(j, list, &b->stale[i]);
}

static void put_header(jtree *j, cJSON *root, const mcps_run_result *run)
{
    put_text(j, root, "schema", "mcpspec-report");
    put(j, root, "schema_version", cJSON_CreateNumber(MCPS_REPORT_SCHEMA_VERSION));
    put_text(j, root, "tool", "mcpspec");
    put_text(j, root, "tool_version", run->tool_version ? run->tool_version : "");
    put_text(j, root, "target", run->target ? run->target : "");
    put_text(j, root, "transport", run->transport ? run->transport : "");
    put_text(j, root, "started_at", run->started_at ? run->started_at : "");
    put(j, root, "seconds", seconds_node(run->seconds));
    put(j, root, "strict", cJSON_CreateBool(run->strict));
    put_text(j, root, "fatal", run->fatal);
    cJSON *h = put(j, root, "harness", cJSON_CreateObject());
    put(j, h, "max_rss_kib", cJSON_CreateNumber((double)run->max_rss_kib));
    put(j, h, "cpu_seconds", seconds_node(run->cpu_seconds));
    put_count(j, h, "messages_sent", run->messages_sent);
    put_count(j, h, "messages_received", run->messages_received);
    put_text(j, h, "isolation", run->isolation ? run->isolation : "fresh");
    put_count(j, h, "processes_started", run->processes_started);
}

bool mcps_report_json(const mcps_run_result *run, mcps_buf *out)
{
    jtree j = {false};
    mcps_report_tally t;
    mcps_report_tally_run(run, &t);
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return false;
    put_header(&j, root, run);
    put_revisions(&j, root, run);
    put_summary(&j, root, &t);
    put_baseline(&j, root, run->baseline);
    cJSON *cases = put(&j, root, "cases", cJSON_CreateArray());
    for (size_t i = 0; i < run->ncases && !j.oom; i++)
        put_case(&j, cases, &run->cases[i]);
    size_t len = 0;
    char *text = j.oom ? NULL : mcps_json_print(root, &len);
    mcps_json_delete(root);
    if (!text)
        return false;
    mcps_buf_append(out, text, len);
    mcps_buf_putc(out, '\n');
    free(text);
    return !out->oom;
}
