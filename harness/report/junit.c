/*
 * junit.xml - the run as JUnit XML, the lingua franca of CI test dashboards.
 *
 * One <testsuite> per suite and revision ("lifecycle@2025-06-18"), one
 * <testcase> per case. FAIL is a <failure>, ERROR an <error>, SKIP <skipped>;
 * WARN and INFO pass in JUnit terms (a SHOULD is not a test failure) but carry
 * the finding in <system-out>, and WARN becomes a failure under --strict. A
 * run that could not proceed adds an errored "mcpspec/run" case so the
 * dashboard goes red instead of showing an empty pass. A verdict a baseline
 * excused is <skipped> with the entry's reason (the evidence in <system-out>),
 * and each stale or expired entry is a failed case of a "mcpspec-baseline"
 * testsuite, so the dashboard agrees with the exit code.
 *
 * Text is escaped, never put in CDATA (a peer can send "]]>"), and the
 * characters XML 1.0 forbids become visible replacements.
 */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

/* Wire entries in a JUnit body: enough to diagnose, small enough for CI viewers. */
#define JUNIT_WIRE_ENTRY_MAX ((size_t)4096)
/* Attribute messages are one line. */
#define JUNIT_MESSAGE_MAX ((size_t)512)

typedef struct group_totals {
    size_t tests, failures, errors, skipped;
    double seconds;
} group_totals;

static bool same_group(const mcps_case_result *a, const mcps_case_result *b)
{
    return a->revision == b->revision &&
           strcmp(a->suite ? a->suite : "", b->suite ? b->suite : "") == 0;
}

/* The first case of each (suite, revision) group, in order; NULL on allocation failure. */
static size_t *group_leaders(const mcps_run_result *run, size_t *n)
{
    size_t *lead = malloc((run->ncases ? run->ncases : 1) * sizeof *lead);
    *n = 0;
    for (size_t i = 0; lead && i < run->ncases; i++) {
        size_t k = 0;
        while (k < *n && !same_group(&run->cases[lead[k]], &run->cases[i]))
            k++;
        if (k == *n)
            lead[(*n)++] = i;
    }
    return lead;
}

static bool is_failure(const mcps_run_result *run, mcps_verdict v)
{
    return v == MCPS_VERDICT_FAIL || (v == MCPS_VERDICT_WARN && run->strict);
}

static void add_totals(const mcps_run_result *run, const mcps_case_result *c, group_totals *t)
{
    mcps_verdict v = mcps_report_verdict(c);
    bool excused = mcps_report_baselined(c);
    t->tests++;
    t->failures += !excused && is_failure(run, v);
    t->errors += !excused && v == MCPS_VERDICT_ERROR;
    t->skipped += excused || v == MCPS_VERDICT_SKIP;
    if (c->seconds > 0 && c->seconds < 1e12)
        t->seconds += c->seconds;
}

static void put_attr(mcps_buf *b, const char *name, const char *value, size_t max)
{
    const char *v = value ? value : "";
    mcps_buf_printf(b, " %s=\"", name);
    mcps_report_escape(b, v, mcps_report_clip(v, strlen(v), max), MCPS_ESC_XML | MCPS_ESC_ATTR);
    mcps_buf_putc(b, '"');
}

static void put_totals(mcps_buf *b, const group_totals *t)
{
    mcps_buf_printf(b, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"",
                    t->tests, t->failures, t->errors, t->skipped);
    mcps_report_put_seconds(b, t->seconds);
    mcps_buf_putc(b, '"');
}

static void put_body(mcps_buf *b, const mcps_case_result *c)
{
    mcps_buf text = {0};
    mcps_report_case_text(&text, c, JUNIT_WIRE_ENTRY_MAX);
    mcps_report_escape(b, text.data ? text.data : "", text.len, MCPS_ESC_XML | MCPS_ESC_LINES);
    b->oom |= text.oom;
    mcps_buf_free(&text);
}

/* <failure>, <error> or <system-out>: the finding with its evidence. */
static void put_finding(mcps_buf *b, const char *tag, const char *type, const mcps_case_result *c)
{
    mcps_buf_printf(b, "      <%s", tag);
    if (type) {
        put_attr(b, "message", mcps_report_finding(c), JUNIT_MESSAGE_MAX);
        put_attr(b, "type", type, 16);
    }
    mcps_buf_puts(b, ">");
    put_body(b, c);
    mcps_buf_printf(b, "</%s>\n", tag);
}

/* Skipped, with the entry's reason; the finding stays in <system-out>. */
static void put_baselined(mcps_buf *b, const mcps_case_result *c)
{
    mcps_buf msg = {0};
    mcps_buf_printf(&msg, "baselined %s: %s", mcps_verdict_name(mcps_report_verdict(c)),
                    c->baseline->reason ? c->baseline->reason : "");
    mcps_buf_puts(b, "      <skipped");
    put_attr(b, "message", msg.oom ? "baselined" : msg.data, JUNIT_MESSAGE_MAX);
    mcps_buf_puts(b, "/>\n");
    mcps_buf_free(&msg);
    put_finding(b, "system-out", NULL, c);
}

static void put_outcome(mcps_buf *b, const mcps_run_result *run, const mcps_case_result *c)
{
    mcps_verdict v = mcps_report_verdict(c);
    if (mcps_report_baselined(c)) {
        put_baselined(b, c);
    } else if (is_failure(run, v)) {
        put_finding(b, "failure", mcps_verdict_name(v), c);
    } else if (v == MCPS_VERDICT_ERROR) {
        put_finding(b, "error", "ERROR", c);
    } else if (v == MCPS_VERDICT_SKIP) {
        mcps_buf_puts(b, "      <skipped");
        put_attr(b, "message", c->reason ? c->reason : c->observed, JUNIT_MESSAGE_MAX);
        mcps_buf_puts(b, "/>\n");
    } else if (v != MCPS_VERDICT_PASS) {
        put_finding(b, "system-out", NULL, c);
    }
}

static void put_case(mcps_buf *b, const mcps_run_result *run, const mcps_case_result *c,
                     const char *group)
{
    mcps_buf_puts(b, "    <testcase");
    put_attr(b, "classname", group, MCPS_REPORT_TEXT_MAX);
    put_attr(b, "name", c->id, MCPS_REPORT_TEXT_MAX);
    mcps_buf_puts(b, " time=\"");
    mcps_report_put_seconds(b, c->seconds);
    mcps_buf_puts(b, "\"");
    mcps_buf b_out = {0};
    put_outcome(&b_out, run, c);
    if (b_out.len) {
        mcps_buf_puts(b, ">\n");
        mcps_buf_append(b, b_out.data, b_out.len);
        mcps_buf_puts(b, "    </testcase>\n");
    } else {
        mcps_buf_puts(b, "/>\n");
    }
    b->oom |= b_out.oom;
    mcps_buf_free(&b_out);
}

static void put_properties(mcps_buf *b, const mcps_run_result *run, mcps_rev rev)
{
    mcps_buf_puts(b, "    <properties>\n");
    const char *names[] = {"target", "transport", "revision", "tool_version"};
    const char *values[] = {run->target, run->transport, mcps_rev_name(rev), run->tool_version};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        mcps_buf_puts(b, "      <property");
        put_attr(b, "name", names[i], 64);
        put_attr(b, "value", values[i], MCPS_REPORT_TEXT_MAX);
        mcps_buf_puts(b, "/>\n");
    }
    mcps_buf_puts(b, "    </properties>\n");
}

static void put_group(mcps_buf *b, const mcps_run_result *run, size_t first)
{
    const mcps_case_result *lead = &run->cases[first];
    group_totals t = {0};
    for (size_t i = first; i < run->ncases; i++)
        if (same_group(&run->cases[i], lead))
            add_totals(run, &run->cases[i], &t);
    mcps_buf name = {0};
    mcps_buf_printf(&name, "%s@%s", lead->suite ? lead->suite : "", mcps_rev_name(lead->revision));
    mcps_buf_puts(b, "  <testsuite");
    put_attr(b, "name", name.data, MCPS_REPORT_TEXT_MAX);
    put_totals(b, &t);
    put_attr(b, "timestamp", run->started_at, 64);
    mcps_buf_puts(b, ">\n");
    put_properties(b, run, lead->revision);
    for (size_t i = first; i < run->ncases; i++)
        if (same_group(&run->cases[i], lead))
            put_case(b, run, &run->cases[i], name.data);
    mcps_buf_puts(b, "  </testsuite>\n");
    b->oom |= name.oom;
    mcps_buf_free(&name);
}

/* The run itself as an errored case, when it could not proceed. */
static void put_fatal(mcps_buf *b, const mcps_run_result *run)
{
    group_totals t = {.tests = 1, .errors = 1};
    mcps_buf_puts(b, "  <testsuite name=\"mcpspec\"");
    put_totals(b, &t);
    put_attr(b, "timestamp", run->started_at, 64);
    mcps_buf_puts(b, ">\n    <testcase classname=\"mcpspec\" name=\"mcpspec/run\" time=\"0\">\n");
    mcps_buf_puts(b, "      <error");
    put_attr(b, "message", run->fatal, JUNIT_MESSAGE_MAX);
    mcps_buf_puts(b, " type=\"FATAL\">");
    mcps_report_escape_str(b, run->fatal, MCPS_ESC_XML | MCPS_ESC_LINES);
    mcps_buf_puts(b, "</error>\n    </testcase>\n  </testsuite>\n");
}

/* Each stale or expired baseline entry as a failed case. */
static void put_stale(mcps_buf *b, const mcps_run_result *run)
{
    const mcps_run_baseline *rb = run->baseline;
    group_totals t = {.tests = rb->nstale, .failures = rb->nstale};
    mcps_buf_puts(b, "  <testsuite name=\"mcpspec-baseline\"");
    put_totals(b, &t);
    put_attr(b, "timestamp", run->started_at, 64);
    mcps_buf_puts(b, ">\n");
    for (size_t i = 0; i < rb->nstale; i++) {
        const mcps_stale_entry *e = &rb->stale[i];
        mcps_buf name = {0}, msg = {0};
        mcps_buf_printf(&name, "%s@%s", e->match ? e->match : "", e->revision ? e->revision : "");
        mcps_buf_printf(&msg, "%s:%zu: %s baseline entry: %s (reason: %s)",
                        rb->file ? rb->file : "", e->line, e->expired ? "expired" : "stale",
                        e->detail ? e->detail : "", e->reason ? e->reason : "");
        mcps_buf_puts(b, "    <testcase classname=\"mcpspec-baseline\"");
        put_attr(b, "name", name.data, MCPS_REPORT_TEXT_MAX);
        mcps_buf_puts(b, " time=\"0\">\n      <failure");
        put_attr(b, "message", msg.data, JUNIT_MESSAGE_MAX);
        mcps_buf_printf(b, " type=\"%s\">", e->expired ? "EXPIRED" : "STALE");
        mcps_report_escape_str(b, msg.data, MCPS_ESC_XML | MCPS_ESC_LINES);
        mcps_buf_puts(b, "</failure>\n    </testcase>\n");
        b->oom |= name.oom || msg.oom;
        mcps_buf_free(&name);
        mcps_buf_free(&msg);
    }
    mcps_buf_puts(b, "  </testsuite>\n");
}

static void put_run_totals(mcps_buf *b, const mcps_run_result *run)
{
    group_totals t = {0};
    for (size_t i = 0; i < run->ncases; i++)
        add_totals(run, &run->cases[i], &t);
    if (run->fatal)
        t.tests++, t.errors++;
    if (run->baseline)
        t.tests += run->baseline->nstale, t.failures += run->baseline->nstale;
    t.seconds = run->seconds > t.seconds ? run->seconds : t.seconds;
    put_totals(b, &t);
}

bool mcps_report_junit(const mcps_run_result *run, mcps_buf *out)
{
    mcps_buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcpspec\"");
    put_run_totals(out, run);
    put_attr(out, "timestamp", run->started_at, 64);
    mcps_buf_puts(out, ">\n");
    if (run->fatal)
        put_fatal(out, run);
    if (run->baseline && run->baseline->nstale)
        put_stale(out, run);
    size_t ngroups;
    size_t *leaders = group_leaders(run, &ngroups);
    for (size_t g = 0; leaders && g < ngroups && !out->oom; g++)
        put_group(out, run, leaders[g]);
    mcps_buf_puts(out, "</testsuites>\n");
    bool ok = leaders && !out->oom;
    free(leaders);
    return ok;
}
