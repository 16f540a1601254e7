/*
 * diff_render.c - `mcpspec diff` shown as plain text or Markdown; see diff.h.
 *
 * Text for a terminal: the two reports, then one group per kind of change,
 * one line per change ("revision case OLD -> NEW" and the new observation or
 * reason), the counts and the exit code last, where a terminal leaves them in
 * sight. Markdown for a pull-request comment: the outcome and the counts
 * first, then a table per kind, long lists collapsed in <details>; GitHub
 * refuses comments over 65536 characters, so rows stop, saying how many were
 * left out, before the comment would cross that.
 *
 * Report text may come from a hostile target: it is shown on one line with
 * its control characters made visible, escaped for Markdown and HTML, and cut
 * to a length.
 */
#include "cli/diff.h"
#include "base/utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define DIFF_TEXT_DETAIL   ((size_t)160)   /* code points of an observation on a text line */
#define DIFF_TEXT_ID_WIDTH ((size_t)48)    /* case ids are aligned up to this width */
#define DIFF_MD_CELL       ((size_t)300)   /* code points in a Markdown table cell */
#define DIFF_MD_FATAL      ((size_t)600)   /* code points of a fatal message in Markdown */
#define DIFF_MD_OPEN_ROWS  ((size_t)10)    /* longer lists are collapsed */
#define DIFF_MD_MAX        ((size_t)60000) /* GitHub comments hold 65536 characters */
#define DIFF_MD_RESERVE    ((size_t)1024)  /* closing tags and the note on a cut */
#define ELLIPSIS           "\xE2\x80\xA6"

static const struct kind_name {
    const char *title, *one, *many;
    const char *note; /* after the count, or NULL */
} kind_names[MCPS_DIFF_KINDS] = {
    [MCPS_DIFF_FAILURE] = {"New failures", "new failure", "new failures", NULL},
    [MCPS_DIFF_WARNING] = {"New warnings", "new warning", "new warnings",
                           "they fail the gate only with --strict"},
    [MCPS_DIFF_FIX] = {"Fixes", "fix", "fixes", NULL},
    [MCPS_DIFF_CHANGED] = {"Other changed verdicts", "changed verdict", "changed verdicts", NULL},
    [MCPS_DIFF_ADDED] = {"New cases", "new case", "new cases", NULL},
    [MCPS_DIFF_REMOVED] = {"Removed cases", "removed case", "removed cases", NULL},
};

/* ---- showing text safely ------------------------------------------------------------ */

enum { ESC_TEXT = MCPS_DIFF_ESC_TEXT, ESC_MD = MCPS_DIFF_ESC_MD, ESC_HTML = MCPS_DIFF_ESC_HTML };

/* The next code point of s[0..n) at *i; the codec's C0 80 is U+0000. */
static uint32_t next_cp(const char *s, size_t n, size_t *i)
{
    const unsigned char *p = (const unsigned char *)s + *i;
    uint32_t cp;
    size_t len = mcps_utf8_decode(p, n - *i, &cp, NULL);
    if (!len && n - *i >= 2 && p[0] == 0xC0 && p[1] == 0x80)
        cp = 0, len = 2;
    else if (!len)
        cp = 0xFFFD, len = 1;
    *i += len;
    return cp;
}

static void put_safe_cp(mcps_buf *b, uint32_t cp, int how)
{
    const char *entity = cp == '&'                       ? "&amp;"
                         : cp == '<'                     ? "&lt;"
                         : cp == '>'                     ? "&gt;"
                         : cp == '"' && how == ESC_HTML  ? "&quot;"
                         : cp == '\'' && how == ESC_HTML ? "&#39;"
                                                         : NULL;
    if (cp == '\n' || cp == '\t' || cp == '\r') {
        mcps_buf_putc(b, ' '); /* one line per change, one row per table line */
        return;
    }
    if (how != ESC_TEXT && entity) {
        mcps_buf_puts(b, entity);
        return;
    }
    cp = mcps_utf8_visible(cp);
    if (how == ESC_MD && cp < 0x80 && strchr("\\`*_[]|~#$", (int)cp))
        mcps_buf_putc(b, '\\');
    unsigned char out[4];
    mcps_buf_append(b, out, mcps_utf8_encode(cp, out));
}

/* s made safe on one line, cut to max code points with an ellipsis; returns those shown. */
static size_t put_safe(mcps_buf *b, const char *s, size_t max, int how)
{
    size_t n = s ? strlen(s) : 0, i = 0, shown = 0;
    while (i < n) {
        if (shown++ == max) {
            mcps_buf_puts(b, ELLIPSIS);
            return shown;
        }
        put_safe_cp(b, next_cp(s, n, &i), how);
    }
    return shown;
}

size_t mcps_diff_put_safe(mcps_buf *b, const char *s, size_t max, mcps_diff_escape how)
{
    return put_safe(b, s, max, (int)how);
}

static const char *verdict_or_absent(const mcps_diff_case *c, const char *absent)
{
    return c ? mcps_verdict_name(c->verdict) : absent;
}

static const char *status_name(mcps_diff_status s)
{
    static const char *const names[] = {"absent", "not probed", "not supported", "supported"};
    return names[s];
}

/* "2 new failures, 1 fix, ...": the counts every format leads or ends with. */
static void put_counts(mcps_buf *b, const mcps_diff *d, const char *sep, bool markdown)
{
    for (int k = 0; k < MCPS_DIFF_KINDS; k++) {
        if (k == MCPS_DIFF_WARNING && d->strict)
            continue; /* under --strict they are new failures */
        const struct kind_name *kn = &kind_names[k];
        bool bold = markdown && k == MCPS_DIFF_FAILURE && d->count[k];
        mcps_buf_printf(b, "%s%s%zu %s%s", k ? sep : "", bold ? "**" : "", d->count[k],
                        d->count[k] == 1 ? kn->one : kn->many, bold ? "**" : "");
    }
    mcps_buf_printf(b, "%s%zu unchanged", sep, d->unchanged);
    if (d->revs_gained)
        mcps_buf_printf(b, "%s%zu revision%s newly supported", sep, d->revs_gained,
                        d->revs_gained == 1 ? "" : "s");
    if (d->revs_lost)
        mcps_buf_printf(b, "%s%zu revision%s no longer supported", sep, d->revs_lost,
                        d->revs_lost == 1 ? "" : "s");
    if (d->fatal_changed)
        mcps_buf_printf(b, "%s%s", sep,
                        d->newly_fatal   ? "the new run stopped early"
                        : !d->new->fatal ? "the new run ran to the end"
                                         : "the run stopped early for another reason");
}

static const char *gate_meaning(const mcps_diff *d)
{
    if (d->count[MCPS_DIFF_FAILURE])
        return "new failures";
    return d->newly_fatal ? "the new run stopped early" : "no new failure";
}

/* ---- plain text ------------------------------------------------------------------------ */

static void text_side(mcps_buf *b, const char *label, const mcps_diff_report *r)
{
    mcps_buf_printf(b, "  %s: ", label);
    put_safe(b, r->path, SIZE_MAX, ESC_TEXT);
    mcps_buf_puts(b, "  (");
    put_safe(b, r->target ? r->target : "unknown target", DIFF_TEXT_DETAIL, ESC_TEXT);
    if (r->started_at) {
        mcps_buf_puts(b, ", started ");
        put_safe(b, r->started_at, 64, ESC_TEXT);
    }
    if (r->tool_version) {
        mcps_buf_puts(b, ", mcpspec ");
        put_safe(b, r->tool_version, 64, ESC_TEXT);
    }
    mcps_buf_puts(b, r->strict ? ", --strict)\n" : ")\n");
}

static void text_fatal(mcps_buf *b, const mcps_diff *d)
{
    if (!d->fatal_changed)
        return;
    mcps_buf_puts(b, "\nRun:\n  ");
    if (d->newly_fatal) {
        mcps_buf_puts(b, "the new run stopped early: ");
        put_safe(b, d->new->fatal, DIFF_TEXT_DETAIL, ESC_TEXT);
    } else if (!d->new->fatal) {
        mcps_buf_puts(b, "the new run ran to the end; the old one stopped early: ");
        put_safe(b, d->old->fatal, DIFF_TEXT_DETAIL, ESC_TEXT);
    } else {
        mcps_buf_puts(b, "both runs stopped early; the old one: ");
        put_safe(b, d->old->fatal, DIFF_TEXT_DETAIL, ESC_TEXT);
        mcps_buf_puts(b, "\n  the new one: ");
        put_safe(b, d->new->fatal, DIFF_TEXT_DETAIL, ESC_TEXT);
    }
    mcps_buf_putc(b, '\n');
}

static void text_revisions(mcps_buf *b, const mcps_diff *d)
{
    if (!d->nrevs)
        return;
    mcps_buf_puts(b, "\nRevisions (discovery):\n");
    for (size_t i = 0; i < d->nrevs; i++) {
        const mcps_diff_rev_change *rc = &d->revs[i];
        char move[40];
        snprintf(move, sizeof move, "%s -> %s", status_name(rc->was), status_name(rc->now));
        mcps_buf_puts(b, "  ");
        size_t shown = put_safe(b, rc->name, 40, ESC_TEXT);
        mcps_buf_printf(b, "%*s  %-28s  ", shown < 10 ? (int)(10 - shown) : 0, "", move);
        put_safe(b, rc->detail, DIFF_TEXT_DETAIL, ESC_TEXT);
        mcps_buf_putc(b, '\n');
    }
}

/* After the verdicts: the requirements broken and the new observation, or why a case went. */
static void text_detail(mcps_buf *b, const mcps_diff_change *c)
{
    if (!c->now) {
        if (c->why_removed)
            mcps_buf_printf(b, "  (%s)", c->why_removed);
        return;
    }
    if (c->now->broken) {
        mcps_buf_puts(b, "  [");
        put_safe(b, c->now->broken, DIFF_TEXT_DETAIL, ESC_TEXT);
        mcps_buf_putc(b, ']');
    }
    if (c->now->detail) {
        mcps_buf_puts(b, "  ");
        put_safe(b, c->now->detail, DIFF_TEXT_DETAIL, ESC_TEXT);
    }
}

static void text_change(mcps_buf *b, const mcps_diff_change *c, size_t id_width)
{
    const mcps_diff_case *any = c->now ? c->now : c->was;
    char move[32];
    snprintf(move, sizeof move, "%s -> %s", verdict_or_absent(c->was, "absent"),
             verdict_or_absent(c->now, "absent"));
    mcps_buf_puts(b, "  ");
    size_t shown = put_safe(b, any->rev, 40, ESC_TEXT);
    mcps_buf_printf(b, "%*s  ", shown < 10 ? (int)(10 - shown) : 0, "");
    shown = put_safe(b, any->id, SIZE_MAX, ESC_TEXT);
    mcps_buf_printf(b, "%*s  %-15s", shown < id_width ? (int)(id_width - shown) : 0, "", move);
    text_detail(b, c);
    /* No trailing blanks when there is no detail. */
    while (b->len && b->data[b->len - 1] == ' ')
        b->data[--b->len] = '\0';
    mcps_buf_putc(b, '\n');
}

static size_t id_width(const mcps_diff *d, mcps_diff_kind k)
{
    size_t w = 0;
    for (size_t i = 0; i < d->nchanges; i++) {
        const mcps_diff_change *c = &d->changes[i];
        size_t n = c->kind == k ? mcps_utf8_count((c->now ? c->now : c->was)->id) : 0;
        w = n > w ? n : w;
    }
    return w < DIFF_TEXT_ID_WIDTH ? w : DIFF_TEXT_ID_WIDTH;
}

static void text_group(mcps_buf *b, const mcps_diff *d, mcps_diff_kind k)
{
    if (!d->count[k])
        return;
    const struct kind_name *kn = &kind_names[k];
    mcps_buf_printf(b, "\n%s (%zu%s%s):\n", kn->title, d->count[k], kn->note ? "; " : "",
                    kn->note ? kn->note : "");
    size_t width = id_width(d, k);
    for (size_t i = 0; i < d->nchanges; i++)
        if (d->changes[i].kind == k)
            text_change(b, &d->changes[i], width);
}

void mcps_cli_diff_text(mcps_buf *b, const mcps_diff *d)
{
    mcps_buf_puts(b, "mcpspec diff\n");
    text_side(b, "old", d->old);
    text_side(b, "new", d->new);
    if (d->strict)
        mcps_buf_puts(b, "  WARN fails the gate (--strict, or the new run was --strict)\n");
    text_fatal(b, d);
    text_revisions(b, d);
    for (int k = 0; k < MCPS_DIFF_KINDS; k++)
        text_group(b, d, (mcps_diff_kind)k);
    if (!d->nchanges && !d->nrevs && !d->fatal_changed)
        mcps_buf_puts(b, "\nNo changes: every case has the verdict it had.\n");
    mcps_buf_puts(b, "\n");
    put_counts(b, d, ", ", false);
    mcps_buf_printf(b, "\nexit %d: %s\n", d->exit_code, gate_meaning(d));
}

/* ---- Markdown ------------------------------------------------------------------------------ */

/* The comment being built, and the rows it had no room for. */
typedef struct md {
    mcps_buf *out;
    bool cut;
    size_t omitted;
} md;

/* Append piece if it fits under the limit (force: the closing tags the reserve is for). */
static bool md_emit(md *m, mcps_buf *piece, bool force)
{
    bool fits = force || (!m->cut && m->out->len + piece->len + DIFF_MD_RESERVE <= DIFF_MD_MAX);
    if (fits)
        mcps_buf_append(m->out, piece->data ? piece->data : "", piece->len);
    else
        m->cut = true;
    m->out->oom |= piece->oom;
    mcps_buf_free(piece);
    return fits;
}

static bool md_text(md *m, const char *s, bool force)
{
    mcps_buf piece = {0};
    mcps_buf_puts(&piece, s);
    return md_emit(m, &piece, force);
}

static void md_side(mcps_buf *b, const char *label, const mcps_diff_report *r)
{
    mcps_buf_printf(b, "| %s | ", label);
    put_safe(b, r->path, DIFF_MD_CELL, ESC_MD);
    mcps_buf_puts(b, " | ");
    put_safe(b, r->target, DIFF_MD_CELL, ESC_MD);
    mcps_buf_puts(b, " | ");
    put_safe(b, r->started_at, 64, ESC_MD);
    mcps_buf_puts(b, " | ");
    put_safe(b, r->tool_version, 64, ESC_MD);
    mcps_buf_puts(b, r->strict ? " | yes |\n" : " | no |\n");
}

static void md_headline(md *m, const mcps_diff *d)
{
    mcps_buf b = {0};
    size_t n = d->count[MCPS_DIFF_FAILURE];
    if (n)
        mcps_buf_printf(&b, "## \xE2\x9D\x8C mcpspec diff: %zu new failure%s\n\n", n,
                        n == 1 ? "" : "s");
    else if (d->newly_fatal)
        mcps_buf_puts(&b, "## \xE2\x9D\x8C mcpspec diff: the new run stopped early\n\n");
    else
        mcps_buf_puts(&b, "## \xE2\x9C\x85 mcpspec diff: no new failure\n\n");
    put_counts(&b, d, " \xC2\xB7 ", true);
    mcps_buf_puts(&b, "\n\n| | Report | Target | Started | mcpspec | --strict |\n"
                      "|---|---|---|---|---|---|\n");
    md_side(&b, "Old", d->old);
    md_side(&b, "New", d->new);
    if (d->strict)
        mcps_buf_puts(&b, "\nWARN fails the gate: `--strict`, or the new run was strict.\n");
    mcps_buf_putc(&b, '\n');
    md_emit(m, &b, false);
}

static void md_fatal(md *m, const mcps_diff *d)
{
    if (!d->fatal_changed)
        return;
    mcps_buf b = {0};
    if (d->newly_fatal) {
        mcps_buf_puts(&b, "**The new run stopped early:** ");
        put_safe(&b, d->new->fatal, DIFF_MD_FATAL, ESC_MD);
    } else if (!d->new->fatal) {
        mcps_buf_puts(&b, "**The new run ran to the end.** The old one stopped early: ");
        put_safe(&b, d->old->fatal, DIFF_MD_FATAL, ESC_MD);
    } else {
        mcps_buf_puts(&b, "**Both runs stopped early.** The old one: ");
        put_safe(&b, d->old->fatal, DIFF_MD_FATAL, ESC_MD);
        mcps_buf_puts(&b, "; the new one: ");
        put_safe(&b, d->new->fatal, DIFF_MD_FATAL, ESC_MD);
    }
    mcps_buf_puts(&b, "\n\n");
    md_emit(m, &b, false);
}

static void md_revisions(md *m, const mcps_diff *d)
{
    if (!d->nrevs)
        return;
    mcps_buf b = {0};
    mcps_buf_puts(&b, "### Revisions (discovery)\n\n| Revision | Was | Now | Discovery saw |\n"
                      "|---|---|---|---|\n");
    for (size_t i = 0; i < d->nrevs; i++) {
        const mcps_diff_rev_change *rc = &d->revs[i];
        mcps_buf_puts(&b, "| ");
        put_safe(&b, rc->name, 40, ESC_MD);
        mcps_buf_printf(&b, " | %s | %s | ", status_name(rc->was), status_name(rc->now));
        put_safe(&b, rc->detail, DIFF_MD_CELL, ESC_MD);
        mcps_buf_puts(&b, " |\n");
    }
    mcps_buf_putc(&b, '\n');
    md_emit(m, &b, false);
}

static void md_row(md *m, const mcps_diff_change *c)
{
    const mcps_diff_case *any = c->now ? c->now : c->was;
    mcps_buf b = {0};
    mcps_buf_puts(&b, "| ");
    put_safe(&b, any->rev, 40, ESC_MD);
    mcps_buf_puts(&b, " | ");
    put_safe(&b, any->id, DIFF_MD_CELL, ESC_MD);
    mcps_buf_printf(&b, " | %s \xE2\x86\x92 %s | ", verdict_or_absent(c->was, "\xE2\x80\x94"),
                    verdict_or_absent(c->now, "\xE2\x80\x94"));
    put_safe(&b, c->now ? c->now->broken : NULL, DIFF_MD_CELL, ESC_MD);
    mcps_buf_puts(&b, " | ");
    if (c->now)
        put_safe(&b, c->now->detail, DIFF_MD_CELL, ESC_MD);
    else
        put_safe(&b, c->why_removed, DIFF_MD_CELL, ESC_MD);
    mcps_buf_puts(&b, " |\n");
    if (!md_emit(m, &b, false))
        m->omitted++;
}

/* Rows [from, to) of kind k as a table. */
static void md_table(md *m, const mcps_diff *d, mcps_diff_kind k, size_t from, size_t to)
{
    bool open = md_text(m,
                        "| Revision | Case | Verdict | Broken | Observed or reason |\n"
                        "|---|---|---|---|---|\n",
                        false);
    size_t nth = 0;
    for (size_t i = 0; i < d->nchanges && nth < to; i++) {
        if (d->changes[i].kind != k || nth++ < from)
            continue;
        if (open)
            md_row(m, &d->changes[i]);
        else
            m->omitted++;
    }
    md_text(m, "\n", open);
}

/* New failures show their first rows at once; other long lists are collapsed whole. */
static void md_group(md *m, const mcps_diff *d, mcps_diff_kind k)
{
    size_t n = d->count[k];
    if (!n)
        return;
    size_t open = k == MCPS_DIFF_FAILURE   ? (n < DIFF_MD_OPEN_ROWS ? n : DIFF_MD_OPEN_ROWS)
                  : n <= DIFF_MD_OPEN_ROWS ? n
                                           : 0;
    mcps_buf b = {0};
    const struct kind_name *kn = &kind_names[k];
    mcps_buf_printf(&b, "### %s (%zu%s%s)\n\n", kn->title, n, kn->note ? "; " : "",
                    kn->note ? kn->note : "");
    if (!md_emit(m, &b, false)) {
        m->omitted += n;
        return;
    }
    if (open)
        md_table(m, d, k, 0, open);
    if (open == n)
        return;
    mcps_buf_printf(&b, "<details><summary>%zu %s%s</summary>\n\n", n - open, open ? "more " : "",
                    n - open == 1 ? kind_names[k].one : kind_names[k].many);
    if (!md_emit(m, &b, false)) {
        m->omitted += n - open;
        return;
    }
    md_table(m, d, k, open, n);
    md_text(m, "</details>\n\n", true);
}

void mcps_cli_diff_markdown(mcps_buf *out, const mcps_diff *d)
{
    md m = {.out = out};
    md_headline(&m, d);
    md_fatal(&m, d);
    md_revisions(&m, d);
    for (int k = 0; k < MCPS_DIFF_KINDS; k++)
        md_group(&m, d, (mcps_diff_kind)k);
    if (!d->nchanges && !d->nrevs && !d->fatal_changed)
        md_text(&m, "No changes: every case has the verdict it had.\n", false);
    if (m.omitted) {
        mcps_buf b = {0};
        mcps_buf_printf(&b,
                        "**Cut:** %zu row%s not shown, to stay under GitHub's limit of 65536 "
                        "characters for a comment; `mcpspec diff` without `--format markdown` "
                        "lists every change.\n",
                        m.omitted, m.omitted == 1 ? " is" : "s are");
        md_emit(&m, &b, true);
    }
}
