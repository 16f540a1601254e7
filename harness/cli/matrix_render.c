/*
 * matrix_render.c - the matrix report: index.html, matrix.json, summary.md
 * (matrix.h; docs/matrix.md and docs/report-format.md describe them).
 *
 * One row per case on a revision, one column per target, the way
 * Autobahn|Testsuite's index page shows cases against agents: a cell is the
 * verdict that target got, coloured, linking to the case in that target's own
 * report.html (its case-INDEX anchor); a blank cell is a case the target did
 * not run (a revision it does not speak, a filter). A target with no report
 * still has its column, and its row in the table of targets says why.
 *
 * Text comes from reports of hostile targets: it is escaped for each format
 * (mcps_diff_put_safe) and cut, and index.html carries a Content Security
 * Policy with no script, like report.html.
 */
#include "cli/cli.h"
#include "cli/matrix.h"
#include "codec/json.h"
#include "report/report.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CELL_TITLE  ((size_t)200)         /* code points of a cell's tooltip */
#define REASON_SHOW ((size_t)400)         /* code points of a target's reason */
#define MD_MAX      ((size_t)1000 * 1000) /* under GitHub's 1 MiB job summary */
#define MD_RESERVE  ((size_t)4096)        /* the note on a cut, and the rest */
#define ELLIPSIS    "\xE2\x80\xA6"

/* ---- rows ----------------------------------------------------------------------------- */

static int key_order(const void *a, const void *b)
{
    const mcps_diff_case *const *x = a, *const *y = b;
    return mcps_diff_case_order(*x, *y);
}

static const mcps_diff_case *find_case(const mcps_diff_report *r, const mcps_diff_case *key)
{
    return r ? bsearch(key, r->cases, r->ncases, sizeof *r->cases, mcps_diff_case_order) : NULL;
}

/* Two targets that ran the case gave different verdicts (a baselined FAIL is not a FAIL). */
static bool cells_differ(const mcps_diff_case **cells, size_t n)
{
    const mcps_diff_case *first = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!cells[i])
            continue;
        if (!first)
            first = cells[i];
        else if (cells[i]->verdict != first->verdict || cells[i]->baselined != first->baselined)
            return true;
    }
    return false;
}

static bool fill_row(mcps_matrix *m, const mcps_diff_case *key)
{
    mcps_matrix_row *row = &m->rows[m->nrows++];
    row->rev = key->rev;
    row->id = key->id;
    row->cells = calloc(m->ntargets ? m->ntargets : 1, sizeof *row->cells);
    if (!row->cells)
        return false;
    for (size_t t = 0; t < m->ntargets; t++)
        row->cells[t] = find_case(m->targets[t].report, key);
    row->differs = cells_differ(row->cells, m->ntargets);
    m->ndiffer += row->differs;
    return true;
}

bool mcps_matrix_build_rows(mcps_matrix *m)
{
    size_t total = 0;
    for (size_t t = 0; t < m->ntargets; t++)
        total += m->targets[t].report ? m->targets[t].report->ncases : 0;
    const mcps_diff_case **all = calloc(total ? total : 1, sizeof *all);
    m->rows = calloc(total ? total : 1, sizeof *m->rows);
    if (!all || !m->rows) {
        free(all);
        return false;
    }
    size_t n = 0;
    for (size_t t = 0; t < m->ntargets; t++)
        for (size_t c = 0; m->targets[t].report && c < m->targets[t].report->ncases; c++)
            all[n++] = &m->targets[t].report->cases[c];
    if (n)
        qsort(all, n, sizeof *all, key_order);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++)
        if (i == 0 || mcps_diff_case_order(all[i - 1], all[i]) != 0)
            ok = fill_row(m, all[i]);
    free(all);
    return ok;
}

/* ---- what every format says of a target ---------------------------------------------- */

static void count_verdicts(const mcps_matrix_target *t, size_t counts[MCPS_VERDICT_COUNT])
{
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        counts[v] = 0;
    for (size_t i = 0; t->report && i < t->report->ncases; i++)
        counts[t->report->cases[i].verdict]++;
}

/* PASS, FAIL or INCOMPLETE, as report.html heads a run; ERROR when there is no report. */
static const char *outcome(const mcps_matrix_target *t)
{
    if (!t->report)
        return "ERROR";
    return t->exit_code == MCPS_EXIT_OK     ? "PASS"
           : t->exit_code == MCPS_EXIT_FAIL ? "FAIL"
                                            : "INCOMPLETE";
}

static const char *outcome_class(const char *o)
{
    return strcmp(o, "INCOMPLETE") == 0 ? "ERROR" : o;
}

static const char *matrix_outcome(const mcps_matrix *m)
{
    return m->exit_code == MCPS_EXIT_OK     ? "PASS"
           : m->exit_code == MCPS_EXIT_FAIL ? "FAIL"
                                            : "INCOMPLETE";
}

/* ---- index.html ------------------------------------------------------------------------- */

static const char style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;padding:1em;color:#1f2328}"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #d0d7de;padding-bottom:.2em}"
    "table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.15em .5em;"
    "text-align:left;vertical-align:top}"
    "dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em}"
    "dt{font-weight:600}dd{margin:0}td.n{text-align:right}.targets "
    "td:first-child,th{white-space:nowrap}"
    ".matrix td:not(:first-child),.matrix th:not(:first-child){text-align:center}"
    ".matrix td a{display:block;color:inherit;text-decoration:none;font-weight:600}"
    ".matrix tr.rev th{background:#f6f8fa;text-align:left}"
    ".matrix tr.differs td:first-child{font-weight:600}"
    "td.v-PASS{background:#dafbe1}td.v-FAIL{background:#ffcecb}td.v-WARN{background:#fff1c2}"
    "td.v-INFO{background:#ddf4ff}td.v-SKIP{background:#f6f8fa;color:#6e7781}"
    "td.v-ERROR{background:#eddeff}td.na{color:#8c959f}"
    "td.baselined{background-image:repeating-linear-gradient(45deg,transparent 0 6px,"
    "#ffffff80 6px 9px)}"
    ".reason{color:#57606a;font-size:.9em}.filters a{margin-right:.8em}"
    ".flt{display:block;height:0}.flt:target~main tr.same{display:none}";

static void html_text(mcps_buf *b, const char *s, size_t max)
{
    mcps_diff_put_safe(b, s, max, MCPS_DIFF_ESC_HTML);
}

static void html_head(mcps_buf *b, const mcps_matrix *m)
{
    const char *o = matrix_outcome(m);
    mcps_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                     "'none'; style-src 'unsafe-inline'\">\n");
    mcps_buf_printf(b, "<title>mcpspec matrix: %s</title>\n<style>%s</style></head><body>\n", o,
                    style);
    mcps_buf_printf(b, "<header id=\"top\"><h1>mcpspec matrix: %s</h1>\n<dl class=\"meta\">", o);
    if (m->source) {
        mcps_buf_puts(b, "<dt>Matrix</dt><dd>");
        html_text(b, m->source, 300);
        mcps_buf_puts(b, "</dd>");
    }
    mcps_buf_printf(b,
                    "<dt>Started</dt><dd>%s</dd><dt>Duration</dt><dd>%.1f s</dd>"
                    "<dt>Targets</dt><dd>%zu</dd><dt>Cases</dt><dd>%zu (a case on a "
                    "revision), %zu differ between targets</dd>"
                    "<dt>Exit code</dt><dd>%d: %s</dd>",
                    m->started_at, m->seconds, m->ntargets, m->nrows, m->ndiffer, m->exit_code,
                    mcps_report_exit_meaning(m->exit_code));
    if (m->stopped)
        mcps_buf_printf(b, "<dt>Stopped</dt><dd>%s: reports are partial</dd>", m->stopped);
    mcps_buf_puts(b, "</dl>\n");
}

static void html_target_link(mcps_buf *b, const mcps_matrix *m, const mcps_matrix_target *t,
                             const char *file, const char *text)
{
    if (t->report && (m->html || strcmp(file, "report.html") != 0))
        mcps_buf_printf(b, "<a href=\"%s/%s\">%s</a>", t->name, file, text);
    else
        mcps_buf_puts(b, text);
}

static void html_target_row(mcps_buf *b, const mcps_matrix *m, const mcps_matrix_target *t)
{
    size_t counts[MCPS_VERDICT_COUNT];
    count_verdicts(t, counts);
    const char *o = outcome(t);
    mcps_buf_puts(b, "<tr><td>");
    html_target_link(b, m, t, "report.html", t->name);
    mcps_buf_puts(b, "</td><td>");
    html_text(b, t->report ? t->report->target : t->origin, 200);
    mcps_buf_printf(b, "</td><td class=\"v-%s\">%s (exit %d)", outcome_class(o), o, t->exit_code);
    if (t->reason) {
        mcps_buf_puts(b, "<div class=\"reason\">");
        html_text(b, t->reason, REASON_SHOW);
        mcps_buf_puts(b, "</div>");
    }
    mcps_buf_puts(b, "</td>");
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        mcps_buf_printf(b, "<td class=\"n\">%zu</td>", counts[v]);
    mcps_buf_printf(b, "<td class=\"n\">%.1f s</td><td>", t->seconds);
    html_target_link(b, m, t, "report.json", "report.json");
    mcps_buf_puts(b, "</td></tr>\n");
}

static void html_targets(mcps_buf *b, const mcps_matrix *m)
{
    mcps_buf_puts(b, "<h2>Targets</h2>\n<table class=\"targets\"><tr><th>target</th>"
                     "<th>server</th><th>outcome</th>");
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        mcps_buf_printf(b, "<th>%s</th>", mcps_verdict_name((mcps_verdict)v));
    mcps_buf_puts(b, "<th>time</th><th>record</th></tr>\n");
    for (size_t i = 0; i < m->ntargets; i++)
        html_target_row(b, m, &m->targets[i]);
    mcps_buf_puts(b, "</table>\n</header>\n");
}

static void html_cell(mcps_buf *b, const mcps_matrix *m, const mcps_matrix_target *t,
                      const mcps_diff_case *c)
{
    if (!c) {
        mcps_buf_puts(b, "<td class=\"na\" title=\"not run on this target\"></td>");
        return;
    }
    const char *v = mcps_verdict_name(c->verdict);
    mcps_buf_printf(b, "<td class=\"v-%s%s\">", v, c->baselined ? " baselined" : "");
    if (m->html)
        mcps_buf_printf(b, "<a href=\"%s/report.html#case-%zu\"", t->name, c->index);
    else
        mcps_buf_puts(b, "<span");
    if (c->detail || c->broken) {
        mcps_buf_puts(b, " title=\"");
        if (c->broken) {
            html_text(b, c->broken, CELL_TITLE);
            mcps_buf_puts(b, ": ");
        }
        html_text(b, c->detail, CELL_TITLE);
        mcps_buf_putc(b, '"');
    }
    mcps_buf_printf(b, ">%s%s</%s></td>", v, c->baselined ? "*" : "", m->html ? "a" : "span");
}

static void html_header_row(mcps_buf *b, const mcps_matrix *m)
{
    mcps_buf_puts(b, "<tr><th>case</th>");
    for (size_t t = 0; t < m->ntargets; t++) {
        mcps_buf_puts(b, "<th>");
        html_target_link(b, m, &m->targets[t], "report.html", m->targets[t].name);
        mcps_buf_puts(b, "</th>");
    }
    mcps_buf_puts(b, "</tr>\n");
}

static void html_totals(mcps_buf *b, const mcps_matrix *m)
{
    mcps_buf_puts(b, "<tfoot><tr><th>totals</th>");
    for (size_t t = 0; t < m->ntargets; t++) {
        size_t counts[MCPS_VERDICT_COUNT];
        const char *sep = "";
        count_verdicts(&m->targets[t], counts);
        mcps_buf_puts(b, "<td>");
        for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
            if (counts[v]) {
                mcps_buf_printf(b, "%s%zu&nbsp;%s", sep, counts[v],
                                mcps_verdict_name((mcps_verdict)v));
                sep = "<br>";
            }
        mcps_buf_printf(b, "%s%s</td>", sep, m->targets[t].report ? "" : "no report");
    }
    mcps_buf_puts(b, "</tr></tfoot>\n");
}

static void html_matrix(mcps_buf *b, const mcps_matrix *m)
{
    mcps_buf_printf(b,
                    "<nav class=\"filters\"><b>Show:</b> <a href=\"#top\">all cases (%zu)</a>"
                    "<a href=\"#differ\">cases that differ between targets (%zu)</a></nav>\n"
                    "<span id=\"differ\" class=\"flt\"></span>\n<main>\n",
                    m->nrows, m->ndiffer);
    mcps_buf_puts(b, "<table class=\"matrix\"><thead>");
    html_header_row(b, m);
    mcps_buf_puts(b, "</thead>\n<tbody>\n");
    for (size_t r = 0; r < m->nrows && !b->oom; r++) {
        const mcps_matrix_row *row = &m->rows[r];
        if (r == 0 || strcmp(m->rows[r - 1].rev, row->rev) != 0) {
            mcps_buf_printf(b, "<tr class=\"rev\"><th colspan=\"%zu\">", m->ntargets + 1);
            html_text(b, row->rev, 60);
            mcps_buf_puts(b, "</th></tr>\n");
        }
        mcps_buf_printf(b, "<tr class=\"%s\"><td>", row->differs ? "differs" : "same");
        html_text(b, row->id, 200);
        mcps_buf_puts(b, "</td>");
        for (size_t t = 0; t < m->ntargets; t++)
            html_cell(b, m, &m->targets[t], row->cells[t]);
        mcps_buf_puts(b, "</tr>\n");
    }
    mcps_buf_puts(b, "</tbody>\n");
    html_totals(b, m);
    mcps_buf_puts(b, "</table>\n</main>\n");
}

bool mcps_matrix_html(const mcps_matrix *m, mcps_buf *out)
{
    html_head(out, m);
    html_targets(out, m);
    html_matrix(out, m);
    mcps_buf_printf(out,
                    "<footer><p>mcpspec matrix; a cell links to the case in that target's "
                    "report; * marks a failure its baseline excused; the record is "
                    "matrix.json (schema version %d).</p></footer>\n</body></html>\n",
                    MCPS_MATRIX_SCHEMA_VERSION);
    return !out->oom;
}

/* ---- matrix.json ------------------------------------------------------------------------- */

typedef struct jb {
    bool oom;
} jb;

static cJSON *add(jb *j, cJSON *parent, const char *key, cJSON *item)
{
    bool ok = item && parent &&
              (key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item));
    if (!ok) {
        j->oom = true;
        mcps_json_delete(item);
        return NULL;
    }
    return item;
}

static cJSON *text_or_null(const char *s)
{
    return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static void json_revisions(jb *j, cJSON *o, const mcps_matrix_target *t)
{
    cJSON *list = add(j, o, "revisions", t->report ? cJSON_CreateArray() : cJSON_CreateNull());
    for (size_t i = 0; t->report && i < t->report->nrevs; i++)
        if (t->report->revs[i].status == MCPS_DIFF_SUPPORTED)
            add(j, list, NULL, cJSON_CreateString(t->report->revs[i].name));
}

static void json_target(jb *j, cJSON *list, const mcps_matrix_target *t)
{
    cJSON *o = add(j, list, NULL, cJSON_CreateObject());
    size_t counts[MCPS_VERDICT_COUNT];
    count_verdicts(t, counts);
    add(j, o, "name", cJSON_CreateString(t->name));
    add(j, o, "origin", cJSON_CreateString(t->origin ? t->origin : ""));
    add(j, o, "target", text_or_null(t->report ? t->report->target : NULL));
    add(j, o, "outcome", cJSON_CreateString(outcome(t)));
    add(j, o, "exit_code", cJSON_CreateNumber(t->exit_code));
    add(j, o, "reason", text_or_null(t->reason));
    add(j, o, "fatal", text_or_null(t->report ? t->report->fatal : NULL));
    add(j, o, "started", cJSON_CreateBool(t->started));
    add(j, o, "jobs", cJSON_CreateNumber(t->jobs));
    add(j, o, "seconds", cJSON_CreateNumber((double)(int64_t)(t->seconds * 1000) / 1000));
    mcps_buf dir = {0};
    mcps_buf_printf(&dir, "%s/report.json", t->name);
    add(j, o, "report", text_or_null(t->report && !dir.oom ? dir.data : NULL));
    j->oom |= dir.oom;
    mcps_buf_free(&dir);
    json_revisions(j, o, t);
    cJSON *c = add(j, o, "counts", cJSON_CreateObject());
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        add(j, c, mcps_verdict_name((mcps_verdict)v), cJSON_CreateNumber((double)counts[v]));
}

static void json_row(jb *j, cJSON *list, const mcps_matrix *m, const mcps_matrix_row *row)
{
    cJSON *o = add(j, list, NULL, cJSON_CreateObject());
    add(j, o, "revision", cJSON_CreateString(row->rev));
    add(j, o, "id", cJSON_CreateString(row->id));
    add(j, o, "differs", cJSON_CreateBool(row->differs));
    cJSON *v = add(j, o, "verdicts", cJSON_CreateArray());
    cJSON *idx = add(j, o, "indexes", cJSON_CreateArray());
    for (size_t t = 0; t < m->ntargets; t++) {
        const mcps_diff_case *c = row->cells[t];
        add(j, v, NULL, c ? cJSON_CreateString(mcps_verdict_name(c->verdict)) : cJSON_CreateNull());
        add(j, idx, NULL, c ? cJSON_CreateNumber((double)c->index) : cJSON_CreateNull());
    }
}

bool mcps_matrix_json(const mcps_matrix *m, mcps_buf *out)
{
    jb j = {0};
    cJSON *root = cJSON_CreateObject();
    add(&j, root, "schema", cJSON_CreateString("mcpspec-matrix"));
    add(&j, root, "schema_version", cJSON_CreateNumber(MCPS_MATRIX_SCHEMA_VERSION));
    add(&j, root, "tool_version", cJSON_CreateString(MCPS_VERSION));
    add(&j, root, "source", text_or_null(m->source));
    add(&j, root, "started_at", cJSON_CreateString(m->started_at));
    add(&j, root, "seconds", cJSON_CreateNumber((double)(int64_t)(m->seconds * 1000) / 1000));
    add(&j, root, "exit_code", cJSON_CreateNumber(m->exit_code));
    add(&j, root, "outcome", cJSON_CreateString(matrix_outcome(m)));
    add(&j, root, "stopped", text_or_null(m->stopped));
    cJSON *targets = add(&j, root, "targets", cJSON_CreateArray());
    for (size_t i = 0; i < m->ntargets; i++)
        json_target(&j, targets, &m->targets[i]);
    cJSON *cases = add(&j, root, "cases", cJSON_CreateArray());
    for (size_t r = 0; r < m->nrows && !j.oom; r++)
        json_row(&j, cases, m, &m->rows[r]);
    size_t len = 0;
    char *text = j.oom ? NULL : mcps_json_print(root, &len);
    if (text) {
        mcps_buf_append(out, text, len);
        mcps_buf_putc(out, '\n');
    }
    free(text);
    mcps_json_delete(root);
    return text && !out->oom;
}

/* ---- summary.md ---------------------------------------------------------------------------- */

static void md_text(mcps_buf *b, const char *s, size_t max)
{
    mcps_diff_put_safe(b, s, max, MCPS_DIFF_ESC_MD);
}

static void md_targets(mcps_buf *b, const mcps_matrix *m)
{
    mcps_buf_puts(b, "| target | outcome |");
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        mcps_buf_printf(b, " %s |", mcps_verdict_name((mcps_verdict)v));
    mcps_buf_puts(b, " time |\n|---|---|");
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        mcps_buf_puts(b, "---:|");
    mcps_buf_puts(b, "---:|\n");
    for (size_t i = 0; i < m->ntargets; i++) {
        const mcps_matrix_target *t = &m->targets[i];
        size_t counts[MCPS_VERDICT_COUNT];
        count_verdicts(t, counts);
        const char *o = outcome(t);
        bool bold = strcmp(o, "PASS") != 0;
        mcps_buf_puts(b, "| ");
        md_text(b, t->name, MCPS_MATRIX_NAME_MAX);
        mcps_buf_printf(b, " | %s%s (exit %d)%s |", bold ? "**" : "", o, t->exit_code,
                        bold ? "**" : "");
        for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
            mcps_buf_printf(b, " %zu |", counts[v]);
        mcps_buf_printf(b, " %.1f s |\n", t->seconds);
    }
    bool any = false;
    for (size_t i = 0; i < m->ntargets; i++) {
        const mcps_matrix_target *t = &m->targets[i];
        if (!t->reason)
            continue;
        mcps_buf_puts(b, any ? "- **" : "\n- **");
        md_text(b, t->name, MCPS_MATRIX_NAME_MAX);
        mcps_buf_printf(b, "** %s: ", t->report ? "stopped early" : "has no report");
        md_text(b, t->reason, REASON_SHOW);
        mcps_buf_putc(b, '\n');
        any = true;
    }
}

static void md_differ_row(mcps_buf *b, const mcps_matrix *m, const mcps_matrix_row *row)
{
    mcps_buf_puts(b, "| ");
    md_text(b, row->rev, 40);
    mcps_buf_puts(b, " | ");
    md_text(b, row->id, 200);
    mcps_buf_puts(b, " |");
    for (size_t t = 0; t < m->ntargets; t++) {
        const mcps_diff_case *c = row->cells[t];
        bool bad = c && (c->verdict == MCPS_VERDICT_FAIL || c->verdict == MCPS_VERDICT_ERROR);
        mcps_buf_printf(b, " %s%s%s%s |", bad ? "**" : "",
                        c ? mcps_verdict_name(c->verdict) : "\xE2\x80\x94",
                        c && c->baselined ? " (baselined)" : "", bad ? "**" : "");
    }
    mcps_buf_putc(b, '\n');
}

static void md_differ(mcps_buf *b, const mcps_matrix *m)
{
    mcps_buf_printf(b, "\n### Cases that differ between targets (%zu)\n\n", m->ndiffer);
    if (!m->ndiffer) {
        mcps_buf_puts(b, "Every case has the same verdict on every target that ran it.\n");
        return;
    }
    mcps_buf_puts(b, "| revision | case |");
    for (size_t t = 0; t < m->ntargets; t++) {
        mcps_buf_putc(b, ' ');
        md_text(b, m->targets[t].name, MCPS_MATRIX_NAME_MAX);
        mcps_buf_puts(b, " |");
    }
    mcps_buf_puts(b, "\n|---|---|");
    for (size_t t = 0; t < m->ntargets; t++)
        mcps_buf_puts(b, "---|");
    mcps_buf_putc(b, '\n');
    size_t shown = 0;
    for (size_t r = 0; r < m->nrows && b->len < MD_MAX - MD_RESERVE; r++)
        if (m->rows[r].differs) {
            md_differ_row(b, m, &m->rows[r]);
            shown++;
        }
    if (shown < m->ndiffer)
        mcps_buf_printf(b,
                        "\n%zu more differ" ELLIPSIS " (GitHub's job summaries hold 1 MiB): "
                        "see matrix.json or index.html.\n",
                        m->ndiffer - shown);
    mcps_buf_puts(b, "\n\xE2\x80\x94 a case that target did not run\n");
}

bool mcps_matrix_markdown(const mcps_matrix *m, mcps_buf *out)
{
    mcps_buf_printf(out, "## mcpspec matrix: %s\n\n", matrix_outcome(m));
    mcps_buf_printf(out,
                    "%zu targets, %zu cases (a case on a revision), %zu differ between targets; "
                    "exit code %d: %s.%s%s\n\n",
                    m->ntargets, m->nrows, m->ndiffer, m->exit_code,
                    mcps_report_exit_meaning(m->exit_code), m->stopped ? " Stopped early: " : "",
                    m->stopped ? m->stopped : "");
    md_targets(out, m);
    md_differ(out, m);
    return !out->oom;
}
