/*
 * html.c - report.html: one self-contained page for a developer chasing a failure.
 *
 * The Autobahn|Testsuite idea: every case with its description, its
 * requirements (text inline and as a tooltip), what was expected, what was
 * observed and the wire log with timestamps and directions. Inline CSS only:
 * no script, no external resource, so the file can be attached to a CI run
 * and opened anywhere. Verdict filters work without JavaScript through
 * :target anchors; failures open by default. A case a baseline excused is
 * marked "baselined" with the entry's reason and stays closed; the entries
 * that fail the run (stale, expired) have a table of their own.
 *
 * Everything from the run is escaped as text and attribute, and a Content
 * Security Policy forbids scripts outright as a second line of defence
 * against a peer that sends "</pre><script>".
 */
#include "report/report.h"

#include <string.h>

#include "codec/json.h"
#include "report/report_internal.h"

static const char style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:1em;"
    "color:#1f2328}"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #d0d7de;padding-bottom:.2em}"
    "table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.2em .5em;"
    "text-align:left;vertical-align:top}"
    "pre{margin:0;white-space:pre-wrap;word-break:break-all;font:12px/1.4 ui-monospace,monospace}"
    "dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em}"
    "dt{font-weight:600}dd{margin:0}"
    ".case dl{display:grid;grid-template-columns:max-content 1fr;gap:.3em 1em}"
    ".case{border:1px solid #d0d7de;border-radius:6px;margin:.4em 0;padding:.3em .6em}"
    ".case>summary{cursor:pointer}.case .title{color:#57606a}"
    ".ids{font-size:.85em;color:#57606a}"
    ".verdict{display:inline-block;min-width:4.5em;font-weight:700}"
    ".v-PASS .verdict{color:#1a7f37}.v-FAIL .verdict{color:#cf222e}"
    ".v-WARN .verdict{color:#9a6700}.v-INFO .verdict{color:#0969da}"
    ".v-SKIP .verdict{color:#6e7781}.v-ERROR .verdict{color:#8250df}"
    ".v-FAIL{border-left:4px solid #cf222e}.v-ERROR{border-left:4px solid #8250df}"
    ".v-WARN{border-left:4px solid #d4a72c}"
    ".wire td:nth-child(-n+3){white-space:nowrap;font:12px ui-monospace,monospace}"
    ".d-sent{background:#f6f8fa}.d-stderr{background:#fff8c5}.d-event{background:#ddf4ff}"
    ".fatal{border:2px solid #cf222e;padding:.5em}.filters a{margin-right:.8em}"
    ".baselined{font-size:.8em;border:1px solid #6e7781;border-radius:4px;padding:0 .3em;"
    "color:#57606a}"
    ".flt{display:block;height:0}"
    ".flt:target~main .case{display:none}"
    "#only-PASS:target~main .v-PASS,#only-FAIL:target~main .v-FAIL,"
    "#only-WARN:target~main .v-WARN,#only-INFO:target~main .v-INFO,"
    "#only-SKIP:target~main .v-SKIP,#only-ERROR:target~main .v-ERROR,"
    "#only-problems:target~main .case:not(.v-PASS){display:block}";

/* Text and attribute values alike; newlines become &#10; so tooltips keep them. */
static void put_text(mcps_buf *b, const char *s)
{
    const char *v = s ? s : "";
    size_t n = strlen(v);
    size_t keep = mcps_report_clip(v, n, MCPS_REPORT_TEXT_MAX);
    mcps_report_escape(b, v, keep, MCPS_ESC_XML | MCPS_ESC_ATTR | MCPS_ESC_LINES);
    if (keep < n)
        mcps_buf_puts(b, "\xE2\x80\xA6");
}

/* ---- header -------------------------------------------------------------------- */

static void put_head(mcps_buf *b, const mcps_run_result *run)
{
    mcps_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                     "style-src 'unsafe-inline'\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<title>mcpspec report: ");
    put_text(b, run->target);
    mcps_buf_printf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
}

static void put_meta(mcps_buf *b, const mcps_run_result *run, const mcps_report_tally *t)
{
    mcps_buf_puts(b, "<dl class=\"meta\">\n<dt>Target</dt><dd><code>");
    put_text(b, run->target);
    mcps_buf_puts(b, "</code></dd>\n<dt>Transport</dt><dd>");
    put_text(b, run->transport);
    mcps_buf_puts(b, "</dd>\n<dt>Started</dt><dd>");
    put_text(b, run->started_at);
    mcps_buf_puts(b, "</dd>\n<dt>Duration</dt><dd>");
    mcps_report_put_duration(b, run->seconds);
    mcps_buf_puts(b, "</dd>\n<dt>Tool</dt><dd>mcpspec ");
    put_text(b, run->tool_version);
    mcps_buf_printf(b, "</dd>\n<dt>Exit code</dt><dd>%d: %s%s</dd>\n</dl>\n", t->exit_code,
                    t->meaning, run->strict ? " (--strict)" : "");
    if (run->fatal) {
        mcps_buf_puts(b, "<p class=\"fatal\"><b>The run could not proceed:</b> ");
        put_text(b, run->fatal);
        mcps_buf_puts(b, "</p>\n");
    }
}

static void put_stale_row(mcps_buf *b, const mcps_stale_entry *e)
{
    mcps_buf_printf(b, "<tr><td>%s</td><td><code>", e->expired ? "expired" : "stale");
    put_text(b, e->match);
    mcps_buf_puts(b, "</code></td><td>");
    put_text(b, e->revision);
    mcps_buf_printf(b, "</td><td>%zu</td><td>", e->line);
    put_text(b, e->detail);
    mcps_buf_puts(b, "</td><td>");
    put_text(b, e->reason);
    mcps_buf_puts(b, "</td></tr>\n");
}

/* What the baseline excused, and the entries that fail the run. */
static void put_baseline(mcps_buf *b, const mcps_run_result *run, const mcps_report_tally *t)
{
    const mcps_run_baseline *rb = run->baseline;
    if (!rb)
        return;
    mcps_buf_puts(b, "<h2>Baseline</h2>\n<p><code>");
    put_text(b, rb->file);
    mcps_buf_printf(b,
                    "</code>: %zu cases excused, %zu of %zu entries matched, %zu not judged in "
                    "this run, %zu stale or expired.</p>\n",
                    t->baselined, rb->matched, rb->entries, rb->not_judged, rb->nstale);
    if (!rb->nstale)
        return;
    mcps_buf_puts(b, "<p class=\"fatal\">These entries fail the run: remove or renew them.</p>\n"
                     "<table><tr><th>Status</th><th>Entry</th><th>Revision</th><th>Line</th>"
                     "<th>Found</th><th>Reason</th></tr>\n");
    for (size_t i = 0; i < rb->nstale; i++)
        put_stale_row(b, &rb->stale[i]);
    mcps_buf_puts(b, "</table>\n");
}

static void put_rev_row(mcps_buf *b, const mcps_run_result *run, int r)
{
    const mcps_rev_probe *p = r >= 0 ? &run->probes[r] : NULL;
    size_t counts[MCPS_VERDICT_COUNT];
    mcps_report_tally_rev(run, (mcps_rev)r, counts);
    mcps_buf_printf(b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>", mcps_rev_name((mcps_rev)r),
                    p && p->probed ? "yes" : "no", p && p->supported ? "yes" : "no");
    put_text(b, p ? p->detail : NULL);
    mcps_buf_puts(b, "</td>");
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        mcps_buf_printf(b, "<td>%zu</td>", counts[v]);
    mcps_buf_puts(b, "</tr>\n");
}

static void put_revisions(mcps_buf *b, const mcps_run_result *run)
{
    mcps_buf_puts(b, "<h2>Revisions</h2>\n<table><tr><th>Revision</th><th>Probed</th>"
                     "<th>Supported</th><th>Detail</th>");
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        mcps_buf_printf(b, "<th>%s</th>", mcps_verdict_name((mcps_verdict)v));
    mcps_buf_puts(b, "</tr>\n");
    for (int r = MCPS_REV_NONE; r < MCPS_REV_COUNT; r++)
        if (r >= 0 || mcps_report_has_rev(run, MCPS_REV_NONE))
            put_rev_row(b, run, r);
    mcps_buf_puts(b, "</table>\n");
}

static void put_filters(mcps_buf *b, const mcps_report_tally *t)
{
    mcps_buf_printf(b,
                    "<nav class=\"filters\"><b>Show:</b> <a href=\"#top\">all (%zu)</a>"
                    "<a href=\"#only-problems\">not passed (%zu)</a>",
                    t->total, t->total - t->counts[MCPS_VERDICT_PASS]);
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++) {
        const char *name = mcps_verdict_name((mcps_verdict)v);
        mcps_buf_printf(b, "<a href=\"#only-%s\" class=\"v-%s\">%s (%zu)</a>", name, name, name,
                        t->counts[v]);
    }
    mcps_buf_puts(b, "</nav>\n<span id=\"only-problems\" class=\"flt\"></span>");
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        mcps_buf_printf(b, "<span id=\"only-%s\" class=\"flt\"></span>",
                        mcps_verdict_name((mcps_verdict)v));
    mcps_buf_putc(b, '\n');
}

/* ---- cases --------------------------------------------------------------------- */

static void put_requirements(mcps_buf *b, const mcps_case_result *c)
{
    const char *ids = c->requirements;
    char id[64];
    mcps_buf_puts(b, "<dt>Requirements</dt><dd><ul>");
    while (mcps_report_next_id(&ids, id, sizeof id)) {
        const mcps_req *r = mcps_catalog_find(id);
        mcps_buf_puts(b, "<li><abbr title=\"");
        put_text(b, r ? r->text : "not in the catalog");
        mcps_buf_puts(b, "\">");
        put_text(b, id);
        mcps_buf_printf(b, "</abbr> <b>%s</b> ", r ? mcps_level_name(r->level) : "?");
        put_text(b, r ? r->text : "");
        if (r && r->source) {
            mcps_buf_puts(b, " <small>(");
            put_text(b, r->source);
            mcps_buf_puts(b, ")</small>");
        }
        mcps_buf_puts(b, "</li>");
    }
    mcps_buf_puts(b, "</ul></dd>\n");
}

static void put_field(mcps_buf *b, const char *label, const char *value, bool pre)
{
    if (!value)
        return;
    mcps_buf_printf(b, "<dt>%s</dt><dd>%s", label, pre ? "<pre>" : "");
    put_text(b, value);
    mcps_buf_printf(b, "%s</dd>\n", pre ? "</pre>" : "");
}

static void put_notes(mcps_buf *b, const mcps_case_result *c)
{
    if (!c->nnotes)
        return;
    mcps_buf_puts(b, "<dt>Notes</dt><dd><ul>");
    for (size_t i = 0; i < c->nnotes; i++) {
        mcps_buf_puts(b, "<li>");
        if (c->notes[i].reqs) {
            mcps_buf_puts(b, "<span class=\"ids\">");
            put_text(b, c->notes[i].reqs);
            mcps_buf_puts(b, "</span> ");
        }
        put_text(b, c->notes[i].message);
        mcps_buf_puts(b, "</li>");
    }
    mcps_buf_puts(b, "</ul></dd>\n");
}

/* Mirrors report.json's rule for when an entry carries base64. */
static bool is_utf8(const mcps_wire_entry *w)
{
    size_t n = w->bytes ? w->len : 0, bad;
    size_t keep = mcps_report_clip(w->bytes, n, MCPS_REPORT_WIRE_ENTRY_MAX);
    if (keep < n || n < w->wire_len)
        keep = mcps_report_complete_len(w->bytes, keep);
    return !keep || mcps_json_utf8_valid(w->bytes, keep, &bad);
}

static void put_wire_row(mcps_buf *b, const mcps_wire_entry *w)
{
    const char *dir = mcps_wire_dir_name(w->dir);
    mcps_buf_printf(b, "<tr class=\"d-%s\"><td>", dir);
    mcps_report_put_time(b, w->t_us);
    mcps_buf_printf(b, "</td><td>%s</td><td>%zu</td><td><pre>", dir,
                    w->wire_len > w->len ? w->wire_len : w->len);
    mcps_report_wire_text(b, w, MCPS_REPORT_WIRE_ENTRY_MAX,
                          MCPS_ESC_XML | MCPS_ESC_ATTR | MCPS_ESC_LINES);
    mcps_buf_puts(b, "</pre>");
    if (!is_utf8(w))
        mcps_buf_puts(b, "<small>not valid UTF-8: shown with U+FFFD; the exact bytes are in "
                         "report.json (base64)</small>");
    mcps_buf_puts(b, "</td></tr>\n");
}

static void put_wire(mcps_buf *b, const mcps_case_result *c)
{
    size_t shown = mcps_report_wire_shown(c);
    size_t dropped = c->wire_dropped + (c->nwire - shown);
    if (!shown && !dropped)
        return;
    mcps_buf_puts(b, "<table class=\"wire\"><tr><th>t (s)</th><th>dir</th><th>bytes</th>"
                     "<th>data</th></tr>\n");
    for (size_t i = 0; i < shown; i++)
        put_wire_row(b, &c->wire[i]);
    mcps_buf_puts(b, "</table>\n");
    if (dropped)
        mcps_buf_printf(b, "<p>%zu more wire entries were not kept.</p>\n", dropped);
}

static void put_case_baseline(mcps_buf *b, const mcps_case_baseline *bl)
{
    if (!bl)
        return;
    mcps_buf_puts(b, "<dt>Baselined</dt><dd>");
    put_text(b, bl->reason);
    mcps_buf_puts(b, " <small>(entry <code>");
    put_text(b, bl->match);
    mcps_buf_puts(b, "</code> on ");
    put_text(b, bl->revision);
    mcps_buf_printf(b, ", line %zu", bl->line);
    if (bl->expires) {
        mcps_buf_puts(b, ", expires ");
        put_text(b, bl->expires);
    }
    mcps_buf_puts(b, ")</small></dd>\n");
}

static void put_case(mcps_buf *b, const mcps_case_result *c, size_t index)
{
    mcps_verdict v = mcps_report_verdict(c);
    const char *name = mcps_verdict_name(v);
    bool open = !c->baseline &&
                (v == MCPS_VERDICT_FAIL || v == MCPS_VERDICT_ERROR || v == MCPS_VERDICT_WARN);
    mcps_buf_printf(b, "<details class=\"case v-%s\" id=\"case-%zu\"%s><summary>", name, index,
                    open ? " open" : "");
    mcps_buf_printf(b, "<span class=\"verdict\">%s</span> %s%s <code>", name,
                    c->baseline ? "<span class=\"baselined\">baselined</span> " : "",
                    mcps_rev_name(c->revision));
    put_text(b, c->id);
    mcps_buf_puts(b, "</code> <span class=\"title\">");
    put_text(b, c->title);
    mcps_buf_puts(b, "</span> <span class=\"ids\">");
    put_text(b, c->requirements);
    mcps_buf_puts(b, "</span></summary>\n<dl>\n");
    put_case_baseline(b, c->baseline);
    put_field(b, "Section", c->section, false);
    mcps_buf_printf(b, "<dt>Level</dt><dd>%s</dd>\n<dt>Time</dt><dd>", mcps_level_name(c->level));
    mcps_report_put_duration(b, c->seconds);
    mcps_buf_puts(b, "</dd>\n");
    put_requirements(b, c);
    put_field(b, "Expected", c->expected, true);
    put_field(b, "Observed", c->observed, true);
    put_field(b, "Reason", c->reason, true);
    put_notes(b, c);
    mcps_buf_puts(b, "</dl>\n");
    put_wire(b, c);
    mcps_buf_puts(b, "</details>\n");
}

static void put_cases(mcps_buf *b, const mcps_run_result *run)
{
    mcps_buf_puts(b, "<main>\n");
    for (int r = MCPS_REV_NONE; r < MCPS_REV_COUNT && !b->oom; r++) {
        if (!mcps_report_has_rev(run, (mcps_rev)r))
            continue;
        mcps_buf_printf(b, "<section><h2 id=\"rev-%s\">%s</h2>\n", mcps_rev_name((mcps_rev)r),
                        mcps_rev_name((mcps_rev)r));
        for (size_t i = 0; i < run->ncases && !b->oom; i++)
            if (run->cases[i].revision == r)
                put_case(b, &run->cases[i], i);
        mcps_buf_puts(b, "</section>\n");
    }
    mcps_buf_puts(b, "</main>\n");
}

bool mcps_report_html(const mcps_run_result *run, mcps_buf *out)
{
    mcps_report_tally t;
    mcps_report_tally_run(run, &t);
    put_head(out, run);
    bool pass = t.exit_code == 0, fail = t.exit_code == 1;
    mcps_buf_printf(out,
                    "<header id=\"top\"><h1 class=\"v-%s\">mcpspec report: "
                    "<span class=\"verdict\">%s</span></h1>\n",
                    pass   ? "PASS"
                    : fail ? "FAIL"
                           : "ERROR",
                    pass   ? "PASS"
                    : fail ? "FAIL"
                           : "INCOMPLETE");
    put_meta(out, run, &t);
    put_revisions(out, run);
    put_baseline(out, run, &t);
    mcps_buf_puts(out, "</header>\n");
    put_filters(out, &t);
    put_cases(out, run);
    mcps_buf_printf(out,
                    "<footer><p>mcpspec report; the complete record is report.json "
                    "(schema version %d).</p></footer>\n</body></html>\n",
                    MCPS_REPORT_SCHEMA_VERSION);
    return !out->oom;
}
