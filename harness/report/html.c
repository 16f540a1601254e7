/*
 * html.c - report.html: one self-contained page for a developer chasing a failure.
 *
 * The Autobahn|Testsuite idea: every case with its description, its
 * requirements (ID, level and text), what was expected, what was
 * observed and the wire log with timestamps and directions. No external
 * resource, so the file can be attached to a CI run and opened anywhere.
 * Verdict filters work without JavaScript through :target anchors; failures
 * open by default. A case a baseline excused is marked "baselined" with the
 * entry's reason and stays closed; the entries that fail the run (stale,
 * expired) have a table of their own.
 *
 * It must open fast on a full run (thousands of wire entries, megabytes of
 * them): the summary and the cases are HTML, but the wire logs are one JSON
 * array, deflated and base64-encoded in an inert block at the end of the
 * page. html_script.js inflates it the first time a log is needed and builds
 * a case's table only when the case is opened or scrolled to, so the browser
 * neither parses megabytes of logs nor builds the DOM of logs nobody reads
 * (scripts/bench-html measures it).
 *
 * Everything from the run is escaped as text and attribute, or in the logs as
 * JSON with every < > & as \u escapes, and the script writes it as text only.
 * A Content Security Policy admits that one script by its SHA-256 and nothing
 * else, a second line of defence against a peer that sends "</pre><script>".
 */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "codec/json.h"
#include "html_script.h" /* html_script, html_script_sha256: made by html_script.cmake */
#include "report/report_internal.h"

/* The page being written, and the wire logs gathered for the block at its end. */
typedef struct page {
    mcps_buf *b;
    mcps_buf logs; /* JSON array, one element per case that has a log */
    size_t nlogs;
} page;

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
    /* Off-screen cases are neither laid out nor painted until scrolled near (find in page
     * still sees them); "auto" keeps the height they had once shown. */
    ".case{border:1px solid #d0d7de;border-radius:6px;margin:.4em 0;padding:.3em .6em;"
    "content-visibility:auto;contain-intrinsic-size:auto 1.5em}"
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
    ".wire-slot{color:#57606a;font-size:.9em}"
    "nav.filters{margin:.8em 0}nav.filters button{font:inherit;font-size:.85em}"
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
                     "style-src 'unsafe-inline'; script-src 'sha256-");
    mcps_report_base64(b, html_script_sha256, sizeof html_script_sha256);
    mcps_buf_puts(b, "'\">\n"
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
        mcps_buf_puts(b, "<li><code>");
        put_text(b, id);
        mcps_buf_printf(b, "</code> <b>%s</b> ", r ? mcps_level_name(r->level) : "?");
        put_text(b, r ? r->text : "not in the catalog");
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

/* One entry as a JSON array: time, direction, bytes on the wire, text, and 1 when not UTF-8. */
static void put_wire_entry(mcps_buf *b, const mcps_wire_entry *w)
{
    mcps_buf_puts(b, "[\"");
    mcps_report_put_time(b, w->t_us);
    mcps_buf_printf(b, "\",\"%s\",%zu,\"", mcps_wire_dir_name(w->dir),
                    w->wire_len > w->len ? w->wire_len : w->len);
    mcps_report_wire_text(b, w, MCPS_REPORT_WIRE_ENTRY_MAX, MCPS_ESC_JS | MCPS_ESC_LINES);
    mcps_buf_puts(b, is_utf8(w) ? "\"]" : "\",1]");
}

/* A placeholder in the case, and its log as the next element of the JSON array. */
static void put_wire(page *pg, const mcps_case_result *c)
{
    size_t shown = mcps_report_wire_shown(c);
    size_t dropped = c->wire_dropped + (c->nwire - shown);
    if (!shown && !dropped)
        return;
    mcps_buf_printf(pg->b,
                    "<div class=\"wire-slot\" data-log=\"%zu\">Wire log: %zu entries (shown by "
                    "this page's script; also in report.json).</div>\n",
                    pg->nlogs, shown);
    mcps_buf *l = &pg->logs;
    mcps_buf_printf(l, "%s{\"dropped\":%zu,\"wire\":[", pg->nlogs ? ",\n" : "[", dropped);
    for (size_t i = 0; i < shown; i++) {
        if (i)
            mcps_buf_putc(l, ',');
        put_wire_entry(l, &c->wire[i]);
    }
    mcps_buf_puts(l, "]}");
    pg->nlogs++;
}

/* The logs, deflated (zlib format: the browser's DecompressionStream("deflate")) and base64. */
static void put_logs(page *pg)
{
    if (!pg->nlogs)
        return;
    mcps_buf_putc(&pg->logs, ']');
    if (pg->logs.oom) {
        pg->b->oom = true;
        return;
    }
    uLongf zlen = compressBound((uLong)pg->logs.len);
    unsigned char *z = malloc(zlen);
    if (!z || compress2(z, &zlen, (const Bytef *)pg->logs.data, (uLong)pg->logs.len, 6) != Z_OK) {
        free(z);
        pg->b->oom = true;
        return;
    }
    mcps_buf_printf(pg->b, "<script type=\"application/octet-stream\" id=\"wire-logs\" "
                           "data-encoding=\"deflate+base64\">");
    mcps_report_base64(pg->b, z, zlen);
    mcps_buf_puts(pg->b, "</script>\n");
    free(z);
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

static void put_case(page *pg, const mcps_case_result *c, size_t index)
{
    mcps_buf *b = pg->b;
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
    put_wire(pg, c);
    mcps_buf_puts(b, "</details>\n");
}

static void put_cases(page *pg, const mcps_run_result *run)
{
    mcps_buf *b = pg->b;
    mcps_buf_puts(b, "<main>\n");
    for (int r = MCPS_REV_NONE; r < MCPS_REV_COUNT && !b->oom; r++) {
        if (!mcps_report_has_rev(run, (mcps_rev)r))
            continue;
        mcps_buf_printf(b, "<section><h2 id=\"rev-%s\">%s</h2>\n", mcps_rev_name((mcps_rev)r),
                        mcps_rev_name((mcps_rev)r));
        for (size_t i = 0; i < run->ncases && !b->oom; i++)
            if (run->cases[i].revision == r)
                put_case(pg, &run->cases[i], i);
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
    page pg = {.b = out};
    put_cases(&pg, run);
    put_logs(&pg);
    mcps_buf_free(&pg.logs);
    mcps_buf_printf(out,
                    "<footer><p>mcpspec report; the complete record is report.json "
                    "(schema version %d).</p></footer>\n<script>%s</script>\n</body></html>\n",
                    MCPS_REPORT_SCHEMA_VERSION, html_script);
    return !out->oom;
}
