/*
 * console.c - live progress and the final summary on stdout; see console.h.
 *
 * A CI log wants one greppable line per case ("FAIL 2025-06-18 lifecycle/...
 * (LIFE-VER-003)"); a terminal wants a quiet progress line and only the news.
 * Observed text comes from the target, so it is flattened to one line with
 * its control characters made visible before it reaches the terminal.
 */
#include "report/console.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "report/report.h"
#include "report/report_internal.h"

#define CONSOLE_FINDING_MAX     ((size_t)300)
#define CONSOLE_DEFAULT_COLUMNS 80

#define ANSI_RESET "\033[0m"
#define ANSI_CLEAR "\r\033[K"

static const char *verdict_color(mcps_verdict v)
{
    static const char *const colors[] = {"\033[32m", "\033[1;31m", "\033[33m",
                                         "\033[36m", "\033[2m",    "\033[1;35m"};
    return colors[v];
}

bool mcps_console_wants_color(bool is_tty, const char *no_color)
{
    return is_tty && (!no_color || !*no_color);
}

void mcps_console_init(mcps_console *c, FILE *out, bool is_tty, bool color)
{
    *c = (mcps_console){
        .out = out, .tty = is_tty, .color = color && is_tty, .columns = CONSOLE_DEFAULT_COLUMNS};
}

void mcps_console_init_auto(mcps_console *c, FILE *out)
{
    bool tty = isatty(fileno(out)) == 1;
    mcps_console_init(c, out, tty, mcps_console_wants_color(tty, getenv("NO_COLOR")));
    const char *cols = getenv("COLUMNS");
    long n = cols ? strtol(cols, NULL, 10) : 0;
    if (n >= 20 && n <= 1000)
        c->columns = (size_t)n;
}

void mcps_console_set_total(mcps_console *c, size_t total)
{
    c->total = total;
}

void mcps_console_set_baseline(mcps_console *c, const mcps_baseline *b, const char *today)
{
    c->baseline = b;
    snprintf(c->today, sizeof c->today, "%s", today ? today : "");
}

/* Why a baseline excuses r: its mark once the run is judged, else the entry that will. */
static const char *baselined_because(const mcps_console *c, const mcps_case_result *r)
{
    if (r->baseline)
        return r->baseline->reason;
    const mcps_baseline_entry *e = mcps_baseline_find(c->baseline, r, c->today);
    return e ? e->reason : NULL;
}

static void put_clipped(mcps_buf *b, const char *text)
{
    size_t n = strlen(text), keep = mcps_report_clip(text, n, CONSOLE_FINDING_MAX);
    mcps_report_escape(b, text, keep, 0);
    mcps_buf_puts(b, keep < n ? "\xE2\x80\xA6\n" : "\n");
}

static void put_verdict(mcps_buf *b, const mcps_console *c, mcps_verdict v)
{
    const char *name = mcps_verdict_name(v);
    if (c->color)
        mcps_buf_printf(b, "%s%-5s%s", verdict_color(v), name, ANSI_RESET);
    else
        mcps_buf_printf(b, "%-5s", name);
}

/* Cut a line of valid UTF-8 to at most columns code points, with an ellipsis. */
static void fit_columns(mcps_buf *line, size_t columns)
{
    size_t seen = 0;
    for (size_t i = 0; i < line->len; i++) {
        if (((unsigned char)line->data[i] & 0xC0) == 0x80)
            continue;
        if (++seen == columns) {
            line->len = i;
            mcps_buf_puts(line, "\xE2\x80\xA6");
            return;
        }
    }
}

static void clear_progress(mcps_console *c)
{
    if (c->line_open)
        fputs(ANSI_CLEAR, c->out);
    c->line_open = false;
}

void mcps_console_case_started(mcps_console *c, const char *case_id, mcps_rev rev)
{
    c->started++;
    if (!c->tty)
        return;
    mcps_buf line = {0};
    if (c->total)
        mcps_buf_printf(&line, "[%*zu/%zu] ", snprintf(NULL, 0, "%zu", c->total), c->started,
                        c->total);
    else
        mcps_buf_printf(&line, "[%zu] ", c->started);
    mcps_buf_printf(&line, "%s ", mcps_rev_name(rev));
    mcps_report_escape_str(&line, case_id, 0);
    mcps_buf_puts(&line, " ...");
    fit_columns(&line, c->columns > 1 ? c->columns - 1 : 1);
    if (!line.oom) {
        fputs(ANSI_CLEAR, c->out);
        fputs(line.data, c->out);
        fflush(c->out);
        c->line_open = true;
    }
    mcps_buf_free(&line);
}

static void put_case_line(mcps_buf *b, const mcps_console *c, const mcps_case_result *r)
{
    mcps_verdict v = mcps_report_verdict(r);
    put_verdict(b, c, v);
    mcps_buf_printf(b, " %s ", mcps_rev_name(r->revision));
    mcps_report_escape_str(b, r->id, 0);
    if (r->requirements && *r->requirements) {
        mcps_buf_puts(b, " (");
        mcps_report_escape_str(b, r->requirements, 0);
        mcps_buf_putc(b, ')');
    }
    const char *because = baselined_because(c, r);
    mcps_buf_puts(b, because ? " [baselined]\n" : "\n");
    const char *finding = mcps_report_finding(r);
    if (v != MCPS_VERDICT_PASS && *finding) {
        mcps_buf_puts(b, "      ");
        put_clipped(b, finding);
    }
    if (because) {
        mcps_buf_puts(b, "      baselined: ");
        put_clipped(b, because);
    }
}

void mcps_console_case_finished(mcps_console *c, const mcps_case_result *r)
{
    if (c->tty && mcps_report_verdict(r) == MCPS_VERDICT_PASS)
        return;
    mcps_buf b = {0};
    put_case_line(&b, c, r);
    clear_progress(c);
    if (!b.oom)
        fputs(b.data, c->out);
    fflush(c->out);
    mcps_buf_free(&b);
}

/* ---- summary ------------------------------------------------------------------- */

static void put_revisions(mcps_buf *b, const mcps_run_result *run)
{
    mcps_buf_puts(b, "revisions:");
    bool any = false;
    for (int r = 0; r < MCPS_REV_COUNT; r++) {
        const mcps_rev_probe *p = &run->probes[r];
        if (!p->probed)
            continue;
        mcps_buf_printf(b, "%s %s %s", any ? "," : "", mcps_rev_name((mcps_rev)r),
                        p->supported ? "supported" : "not supported");
        if (!p->supported && p->detail && *p->detail) {
            mcps_buf_puts(b, " (");
            mcps_report_escape_str(b, p->detail, 0);
            mcps_buf_putc(b, ')');
        }
        any = true;
    }
    mcps_buf_puts(b, any ? "\n" : " none probed\n");
}

static void put_counts(mcps_buf *b, const mcps_console *c, const mcps_report_tally *t)
{
    for (int v = 0; v < MCPS_VERDICT_COUNT; v++) {
        bool paint = c->color && t->counts[v] && v != MCPS_VERDICT_PASS;
        mcps_buf_printf(b, "%s%s%s %zu%s", v ? "  " : "",
                        paint ? verdict_color((mcps_verdict)v) : "",
                        mcps_verdict_name((mcps_verdict)v), t->counts[v], paint ? ANSI_RESET : "");
    }
    mcps_buf_putc(b, '\n');
}

static void put_stale(mcps_buf *b, const mcps_console *c, const mcps_run_baseline *rb,
                      const mcps_stale_entry *e)
{
    const char *word = e->expired ? "EXPIRED" : "STALE";
    if (c->color)
        mcps_buf_printf(b, "%s%s%s ", verdict_color(MCPS_VERDICT_FAIL), word, ANSI_RESET);
    else
        mcps_buf_printf(b, "%s ", word);
    mcps_report_escape_str(b, e->match, 0);
    mcps_buf_printf(b, " on %s (", e->revision ? e->revision : "");
    mcps_report_escape_str(b, rb->file, 0);
    mcps_buf_printf(b, ":%zu): ", e->line);
    put_clipped(b, e->detail ? e->detail : "");
}

/* What the baseline excused, and the entries that fail the run. */
static void put_baseline(mcps_buf *b, const mcps_console *c, const mcps_run_result *run,
                         const mcps_report_tally *t)
{
    const mcps_run_baseline *rb = run->baseline;
    if (!rb)
        return;
    mcps_buf_puts(b, "baseline: ");
    mcps_report_escape_str(b, rb->file, 0);
    mcps_buf_printf(b, ": %zu cases excused, %zu of %zu entries matched, %zu not judged, %zu stale",
                    t->baselined, rb->matched, rb->entries, rb->not_judged, rb->nstale);
    mcps_buf_puts(b, rb->nstale ? " (these fail the run):\n" : "\n");
    for (size_t i = 0; i < rb->nstale; i++)
        put_stale(b, c, rb, &rb->stale[i]);
}

static void put_outcome(mcps_buf *b, const mcps_console *c, const mcps_report_tally *t)
{
    mcps_verdict shown = t->exit_code == 0   ? MCPS_VERDICT_PASS
                         : t->exit_code == 1 ? MCPS_VERDICT_FAIL
                                             : MCPS_VERDICT_ERROR;
    const char *word = t->exit_code == 0 ? "PASS" : t->exit_code == 1 ? "FAIL" : "INCOMPLETE";
    mcps_buf_printf(b, "result: %s%s%s (exit %d): %s\n", c->color ? verdict_color(shown) : "", word,
                    c->color ? ANSI_RESET : "", t->exit_code, t->meaning);
}

void mcps_console_summary(mcps_console *c, const mcps_run_result *run)
{
    mcps_report_tally t;
    mcps_report_tally_run(run, &t);
    mcps_buf b = {0};
    mcps_buf_printf(&b, "\nmcpspec %s: %zu cases in %.1f s against ",
                    run->tool_version ? run->tool_version : "", t.total,
                    run->seconds > 0 ? run->seconds : 0.0);
    mcps_report_escape_str(&b, run->target, 0);
    mcps_buf_puts(&b, " (");
    mcps_report_escape_str(&b, run->transport, 0);
    mcps_buf_puts(&b, ")\n");
    put_revisions(&b, run);
    put_counts(&b, c, &t);
    put_baseline(&b, c, run, &t);
    if (run->fatal) {
        mcps_buf_puts(&b, "fatal: ");
        mcps_report_escape_str(&b, run->fatal, 0);
        mcps_buf_putc(&b, '\n');
    }
    put_outcome(&b, c, &t);
    clear_progress(c);
    if (!b.oom)
        fputs(b.data, c->out);
    fflush(c->out);
    mcps_buf_free(&b);
}
