/*
 * markdown.c - summary.md: the run at a glance, for $GITHUB_STEP_SUMMARY.
 *
 * A headline (outcome, target, revisions, counts, what the exit code means),
 * then per revision a table of every case that did not pass, worst first,
 * then a collapsible <details> per FAIL, ERROR and WARN with expected,
 * observed and a fenced excerpt of the wire log. With a baseline, the cases
 * it excused say "(baselined)" with its reason, and the entries that fail the
 * run (stale, expired) are listed right after the headline.
 *
 * GitHub refuses summaries over 1 MiB, so the text is assembled in pieces
 * and stops, saying so, before the next piece would cross the limit. Data is
 * escaped for Markdown and HTML; pipes are escaped so a peer's text cannot
 * split a table cell.
 */
#include "report/report.h"

#include <string.h>

#include "report/report_internal.h"

#define MD_TARGET_MAX      ((size_t)1000)
#define MD_CELL_MAX        ((size_t)200)
#define MD_FIELD_MAX       ((size_t)4000)
#define MD_WIRE_ENTRIES    ((size_t)30)
#define MD_WIRE_ENTRY_MAX  ((size_t)400)
#define MD_TRAILER_RESERVE ((size_t)1024)
#define MD_STALE_ROWS      ((size_t)50) /* the headline must fit whatever the baseline holds */

/* The summary being built and whether it had to stop early. */
typedef struct md {
    mcps_buf *out;
    size_t limit;
    bool cut;
} md;

/* Table and details order: the worst news first. */
static const mcps_verdict worst_first[] = {MCPS_VERDICT_FAIL, MCPS_VERDICT_ERROR, MCPS_VERDICT_WARN,
                                           MCPS_VERDICT_INFO, MCPS_VERDICT_SKIP};

/* Append piece unless it would cross the limit; after one refusal, refuse all. */
static bool emit(md *m, mcps_buf *piece)
{
    bool fits = !m->cut && m->out->len + piece->len + MD_TRAILER_RESERVE <= m->limit;
    if (fits)
        mcps_buf_append(m->out, piece->data ? piece->data : "", piece->len);
    else
        m->cut = true;
    m->out->oom |= piece->oom;
    mcps_buf_free(piece);
    return fits;
}

static void put_md(mcps_buf *b, const char *s, size_t max, unsigned extra)
{
    const char *v = s ? s : "";
    size_t n = strlen(v);
    size_t keep = mcps_report_clip(v, n, max);
    mcps_report_escape(b, v, keep, MCPS_ESC_MD | extra);
    if (keep < n)
        mcps_buf_puts(b, "\xE2\x80\xA6");
}

/* Inside raw HTML (a <summary>), where Markdown is not interpreted. */
static void put_html(mcps_buf *b, const char *s, size_t max)
{
    const char *v = s ? s : "";
    size_t n = strlen(v);
    mcps_report_escape(b, v, mcps_report_clip(v, n, max), MCPS_ESC_XML | MCPS_ESC_ATTR);
}

static const char *verdict_badge(mcps_verdict v)
{
    static const char *const badges[] = {"\xE2\x9C\x85 PASS",
                                         "\xE2\x9D\x8C FAIL",
                                         "\xE2\x9A\xA0\xEF\xB8\x8F WARN",
                                         "\xE2\x84\xB9\xEF\xB8\x8F INFO",
                                         "\xE2\x8F\xAD\xEF\xB8\x8F SKIP",
                                         "\xF0\x9F\x92\xA5 ERROR"};
    return badges[v];
}

/* ---- headline ------------------------------------------------------------------ */

static void put_revisions(mcps_buf *b, const mcps_run_result *run)
{
    mcps_buf_puts(b, "**Revisions:** ");
    for (int r = 0; r < MCPS_REV_COUNT; r++) {
        const mcps_rev_probe *p = &run->probes[r];
        mcps_buf_printf(b, "%s%s (%s", r ? " \xC2\xB7 " : "", mcps_rev_name((mcps_rev)r),
                        !p->probed     ? "not probed"
                        : p->supported ? "supported"
                                       : "not supported");
        if (p->detail && *p->detail) {
            mcps_buf_puts(b, ": ");
            put_md(b, p->detail, MD_CELL_MAX, 0);
        }
        mcps_buf_putc(b, ')');
    }
    mcps_buf_puts(b, "\n\n");
}

static void put_counts(mcps_buf *b, const mcps_report_tally *t)
{
    mcps_buf_puts(b, "| PASS | FAIL | WARN | INFO | SKIP | ERROR | Total |\n"
                     "|---:|---:|---:|---:|---:|---:|---:|\n|");
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        mcps_buf_printf(b, " %zu |", t->counts[v]);
    mcps_buf_printf(b, " %zu |\n\n", t->total);
}

static void put_stale_row(mcps_buf *b, const mcps_stale_entry *e)
{
    mcps_buf_printf(b, "| %s | ", e->expired ? "expired" : "stale");
    put_md(b, e->match, MD_CELL_MAX, 0);
    mcps_buf_puts(b, " | ");
    put_md(b, e->revision, 64, 0);
    mcps_buf_printf(b, " | %zu | ", e->line);
    put_md(b, e->detail, MD_CELL_MAX, 0);
    mcps_buf_puts(b, " | ");
    put_md(b, e->reason, MD_CELL_MAX, 0);
    mcps_buf_puts(b, " |\n");
}

/* What the baseline excused, and the entries that fail the run. */
static void put_baseline(mcps_buf *b, const mcps_run_result *run, const mcps_report_tally *t)
{
    const mcps_run_baseline *rb = run->baseline;
    if (!rb)
        return;
    mcps_buf_puts(b, "**Baseline:** ");
    put_md(b, rb->file, MD_CELL_MAX, 0);
    mcps_buf_printf(b,
                    ": %zu cases excused \xC2\xB7 %zu of %zu entries matched \xC2\xB7 %zu not "
                    "judged in this run \xC2\xB7 %zu stale or expired\n\n",
                    t->baselined, rb->matched, rb->entries, rb->not_judged, rb->nstale);
    if (!rb->nstale)
        return;
    mcps_buf_puts(b, "> [!WARNING]\n> These baseline entries fail the run: remove or renew "
                     "them.\n\n| Status | Entry | Revision | Line | Found | Reason |\n"
                     "|---|---|---|---:|---|---|\n");
    for (size_t i = 0; i < rb->nstale && i < MD_STALE_ROWS; i++)
        put_stale_row(b, &rb->stale[i]);
    if (rb->nstale > MD_STALE_ROWS)
        mcps_buf_printf(b, "\n\xE2\x80\xA6 %zu more: see report.json\n",
                        rb->nstale - MD_STALE_ROWS);
    mcps_buf_puts(b, "\n");
}

static void put_headline(mcps_buf *b, const mcps_run_result *run, const mcps_report_tally *t)
{
    static const char *const marks[] = {"\xE2\x9C\x85", "\xE2\x9D\x8C", "\xE2\x9A\xA0\xEF\xB8\x8F"};
    int mark = t->exit_code == 0 ? 0 : t->exit_code == 1 ? 1 : 2;
    const char *outcome = mcps_report_outcome(t->exit_code);
    mcps_buf_printf(b, "# %s mcpspec: %s\n\n**Target:** ", marks[mark],
                    mark == 0   ? "PASS"
                    : mark == 1 ? "FAIL"
                                : "INCOMPLETE");
    put_md(b, run->target, MD_TARGET_MAX, 0);
    mcps_buf_puts(b, " (");
    put_md(b, run->transport, 64, 0);
    mcps_buf_puts(b, ") \xC2\xB7 **Started:** ");
    put_md(b, run->started_at, 64, 0);
    mcps_buf_puts(b, " \xC2\xB7 **Duration:** ");
    mcps_report_put_duration(b, run->seconds);
    mcps_buf_puts(b, " \xC2\xB7 **mcpspec** ");
    put_md(b, run->tool_version, 64, 0);
    mcps_buf_puts(b, "\n\n");
    put_revisions(b, run);
    put_counts(b, t);
    mcps_buf_printf(b, "**Exit code %d** (%s): %s%s\n\n", t->exit_code, outcome, t->meaning,
                    run->strict ? " (--strict)" : "");
    put_baseline(b, run, t);
    if (run->fatal) {
        mcps_buf_puts(b, "> [!CAUTION]\n> **The run could not proceed:** ");
        put_md(b, run->fatal, MD_FIELD_MAX, 0);
        mcps_buf_puts(b, "\n\n");
    }
}

/* ---- tables -------------------------------------------------------------------- */

static void put_row(mcps_buf *b, const mcps_case_result *c)
{
    mcps_buf_printf(b, "| %s%s | ", verdict_badge(mcps_report_verdict(c)),
                    mcps_report_baselined(c) ? " (baselined)" : "");
    put_md(b, c->id, MD_CELL_MAX, 0);
    mcps_buf_puts(b, " | ");
    put_md(b, c->requirements, MD_CELL_MAX, 0);
    mcps_buf_puts(b, " | ");
    put_md(b, mcps_report_finding(c), MD_CELL_MAX, 0);
    mcps_buf_puts(b, " |\n");
}

static size_t count_not_passed(const size_t *counts)
{
    size_t n = 0;
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        n += v == MCPS_VERDICT_PASS ? 0 : counts[v];
    return n;
}

static void put_rev_heading(mcps_buf *b, mcps_rev rev, const size_t *counts)
{
    size_t total = 0;
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        total += counts[v];
    mcps_buf_printf(b, "## %s: %zu cases", mcps_rev_name(rev), total);
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++)
        if (counts[v])
            mcps_buf_printf(b, ", %zu %s", counts[v], mcps_verdict_name((mcps_verdict)v));
    mcps_buf_puts(b, "\n\n");
    if (count_not_passed(counts))
        mcps_buf_puts(b, "| Verdict | Case | Requirements | Observed |\n|---|---|---|---|\n");
    else
        mcps_buf_puts(b, "Every case passed.\n");
}

static void put_rev_table(md *m, const mcps_run_result *run, mcps_rev rev)
{
    size_t counts[MCPS_VERDICT_COUNT];
    mcps_report_tally_rev(run, rev, counts);
    mcps_buf piece = {0};
    put_rev_heading(&piece, rev, counts);
    if (!emit(m, &piece))
        return;
    for (size_t k = 0; k < sizeof worst_first / sizeof *worst_first; k++) {
        for (size_t i = 0; i < run->ncases; i++) {
            const mcps_case_result *c = &run->cases[i];
            if (c->revision != rev || mcps_report_verdict(c) != worst_first[k])
                continue;
            put_row(&piece, c);
            if (!emit(m, &piece))
                return;
        }
    }
    mcps_buf_puts(&piece, "\n");
    emit(m, &piece);
}

/* ---- details ------------------------------------------------------------------- */

static void put_requirement_list(mcps_buf *b, const mcps_case_result *c)
{
    const char *ids = c->requirements;
    char id[64];
    bool any = false;
    while (mcps_report_next_id(&ids, id, sizeof id)) {
        const mcps_req *r = mcps_catalog_find(id);
        mcps_buf_puts(b, any ? "\n- " : "**Requirements:**\n\n- ");
        any = true;
        put_md(b, id, sizeof id, 0);
        mcps_buf_printf(b, " (%s): ", r ? mcps_level_name(r->level) : "not in catalog");
        put_md(b, r ? r->text : "", MD_FIELD_MAX, 0);
    }
    if (any)
        mcps_buf_puts(b, "\n\n");
}

static void put_labelled(mcps_buf *b, const char *label, const char *value)
{
    if (!value || !*value)
        return;
    mcps_buf_printf(b, "**%s:** ", label);
    put_md(b, value, MD_FIELD_MAX, MCPS_ESC_LINES);
    mcps_buf_puts(b, "\n\n");
}

/* A fence longer than any backtick run inside, so the excerpt cannot close it. */
static size_t fence_len(const mcps_buf *text)
{
    size_t longest = 0, run = 0;
    for (size_t i = 0; i < text->len; i++) {
        run = text->data[i] == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    return longest < 3 ? 3 : longest + 1;
}

static void put_wire_excerpt(mcps_buf *b, const mcps_case_result *c)
{
    if (!c->nwire)
        return;
    mcps_buf text = {0};
    size_t shown = c->nwire < MD_WIRE_ENTRIES ? c->nwire : MD_WIRE_ENTRIES;
    for (size_t i = 0; i < shown; i++) {
        mcps_report_put_time(&text, c->wire[i].t_us);
        mcps_buf_printf(&text, " %-8s ", mcps_wire_dir_name(c->wire[i].dir));
        mcps_report_wire_text(&text, &c->wire[i], MD_WIRE_ENTRY_MAX, 0);
        mcps_buf_putc(&text, '\n');
    }
    size_t more = c->nwire - shown + c->wire_dropped;
    if (more)
        mcps_buf_printf(&text, "\xE2\x80\xA6 %zu more entries: see report.html\n", more);
    size_t fence = fence_len(&text);
    mcps_buf_puts(b, "**Wire log:**\n\n");
    for (size_t i = 0; i < fence; i++)
        mcps_buf_putc(b, '`');
    mcps_buf_puts(b, "text\n");
    mcps_buf_append(b, text.data, text.len);
    for (size_t i = 0; i < fence; i++)
        mcps_buf_putc(b, '`');
    mcps_buf_puts(b, "\n\n");
    b->oom |= text.oom;
    mcps_buf_free(&text);
}

static void put_details(mcps_buf *b, const mcps_case_result *c)
{
    mcps_buf_printf(b, "<details>\n<summary><b>%s</b> %s ",
                    mcps_verdict_name(mcps_report_verdict(c)), mcps_rev_name(c->revision));
    put_html(b, c->id, MD_CELL_MAX);
    if (c->title && *c->title) {
        mcps_buf_puts(b, ": ");
        put_html(b, c->title, MD_CELL_MAX);
    }
    mcps_buf_puts(b, mcps_report_baselined(c) ? " (baselined)</summary>\n\n" : "</summary>\n\n");
    if (mcps_report_baselined(c))
        put_labelled(b, "Baselined", c->baseline->reason);
    put_requirement_list(b, c);
    put_labelled(b, "Expected", c->expected);
    put_labelled(b, "Observed", c->observed);
    put_labelled(b, "Reason", c->reason);
    put_wire_excerpt(b, c);
    mcps_buf_puts(b, "</details>\n\n");
}

static bool wants_details(mcps_verdict v)
{
    return v == MCPS_VERDICT_FAIL || v == MCPS_VERDICT_ERROR || v == MCPS_VERDICT_WARN;
}

static void put_all_details(md *m, const mcps_run_result *run, mcps_rev rev)
{
    for (size_t k = 0; k < sizeof worst_first / sizeof *worst_first; k++) {
        for (size_t i = 0; i < run->ncases && wants_details(worst_first[k]); i++) {
            const mcps_case_result *c = &run->cases[i];
            if (c->revision != rev || mcps_report_verdict(c) != worst_first[k])
                continue;
            mcps_buf piece = {0};
            put_details(&piece, c);
            if (!emit(m, &piece))
                return;
        }
    }
}

/* ---- the summary --------------------------------------------------------------- */

static void put_trailer(md *m, const mcps_report_tally *t)
{
    if (!m->cut)
        return;
    mcps_buf_printf(m->out,
                    "\n> [!NOTE]\n> This summary was cut to stay under GitHub's 1 MiB limit for "
                    "job summaries (%zu cases did not pass). The full report is in report.html "
                    "and report.json.\n",
                    t->total - t->counts[MCPS_VERDICT_PASS]);
}

static bool has_details(const mcps_report_tally *t)
{
    return t->counts[MCPS_VERDICT_FAIL] + t->counts[MCPS_VERDICT_WARN] +
           t->counts[MCPS_VERDICT_ERROR];
}

bool mcps_report_markdown(const mcps_run_result *run, mcps_buf *out)
{
    mcps_report_tally t;
    mcps_report_tally_run(run, &t);
    md m = {out, out->len + MCPS_REPORT_MARKDOWN_MAX, false};
    mcps_buf piece = {0};
    put_headline(&piece, run, &t);
    emit(&m, &piece);
    for (int r = MCPS_REV_NONE; r < MCPS_REV_COUNT; r++)
        if (mcps_report_has_rev(run, (mcps_rev)r))
            put_rev_table(&m, run, (mcps_rev)r);
    if (has_details(&t)) {
        mcps_buf_puts(&piece, "## Details\n\n");
        emit(&m, &piece);
    }
    for (int r = MCPS_REV_NONE; r < MCPS_REV_COUNT; r++)
        put_all_details(&m, run, (mcps_rev)r);
    put_trailer(&m, &t);
    return !out->oom;
}
