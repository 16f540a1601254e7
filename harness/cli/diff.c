/*
 * diff.c - `mcpspec diff OLD NEW`: what changed between two runs, to gate a pull request.
 *
 * A CI job that runs mcpspec on the base branch and on the pull request needs
 * the news, not two full reports: the cases that now fail and did not (these
 * set the exit code), the fixes, the other changed verdicts, the cases that
 * appeared or went, the revisions discovery gained or lost, and whether the
 * run itself now stops early (`fatal`). Cases are matched by revision and case
 * id, which a report holds once each.
 *
 * A verdict fails the gate as it fails `mcpspec run`: FAIL and ERROR always,
 * WARN only under --strict (given here, or recorded by the new run). Without
 * it, a case that newly WARNs is listed apart, so the list and the exit code
 * never disagree.
 *
 * Reports are read (diff_read.c) one at a time and boiled down (diff.h)
 * before the next is read, so memory is one input at a time plus a little per
 * case. This file compares; diff_render.c shows.
 */
#include "base/array.h"
#include "base/buf.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/diff.h"
#include "codec/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mcps_diff_status status_of(const mcps_diff_report *r, const char *rev)
{
    for (size_t i = 0; i < r->nrevs; i++)
        if (strcmp(r->revs[i].name, rev) == 0)
            return r->revs[i].status;
    return MCPS_DIFF_ABSENT;
}

static const char *detail_of(const mcps_diff_report *r, const char *rev)
{
    for (size_t i = 0; i < r->nrevs; i++)
        if (strcmp(r->revs[i].name, rev) == 0)
            return r->revs[i].detail;
    return NULL;
}

/* ---- comparing ---------------------------------------------------------------------- */

/* Why a removed case went, when discovery says: its revision is no longer supported. */
static const char *removed_because(const mcps_diff *d, const mcps_diff_case *was)
{
    if (status_of(d->old, was->rev) != MCPS_DIFF_SUPPORTED)
        return NULL;
    switch (status_of(d->new, was->rev)) {
    case MCPS_DIFF_UNSUPPORTED:
        return "its revision is no longer supported";
    case MCPS_DIFF_NOT_PROBED:
        return "its revision was not probed";
    case MCPS_DIFF_ABSENT:
        return "its revision is not in the new report";
    default:
        return NULL;
    }
}

static bool gating(mcps_verdict v, bool strict)
{
    return v == MCPS_VERDICT_FAIL || v == MCPS_VERDICT_ERROR || (strict && v == MCPS_VERDICT_WARN);
}

static bool is_finding(mcps_verdict v)
{
    return gating(v, true);
}

/* The change from was to now (either may be NULL); MCPS_DIFF_KINDS when there is none. */
static mcps_diff_kind classify(const mcps_diff_case *was, const mcps_diff_case *now, bool strict)
{
    if (!now)
        return MCPS_DIFF_REMOVED;
    if (gating(now->verdict, strict) && !(was && gating(was->verdict, strict)))
        return MCPS_DIFF_FAILURE;
    if (now->verdict == MCPS_VERDICT_WARN && !(was && is_finding(was->verdict)))
        return MCPS_DIFF_WARNING;
    if (!was)
        return MCPS_DIFF_ADDED;
    if (is_finding(was->verdict) && now->verdict == MCPS_VERDICT_PASS)
        return MCPS_DIFF_FIX;
    return was->verdict != now->verdict ? MCPS_DIFF_CHANGED : MCPS_DIFF_KINDS;
}

static bool add_change(mcps_diff *d, const mcps_diff_case *was, const mcps_diff_case *now)
{
    mcps_diff_kind k = classify(was, now, d->strict);
    if (k == MCPS_DIFF_KINDS) {
        d->unchanged++;
        return true;
    }
    if (!mcps_array_reserve(&d->changes, &d->changes_cap, d->nchanges + 1, sizeof *d->changes, 64))
        return false;
    const char *why = k == MCPS_DIFF_REMOVED ? removed_because(d, was) : NULL;
    d->changes[d->nchanges++] = (mcps_diff_change){k, was, now, why};
    d->count[k]++;
    return true;
}

/* One walk over both sorted case lists. */
static bool compare_cases(mcps_diff *d)
{
    size_t i = 0, j = 0;
    while (i < d->old->ncases || j < d->new->ncases) {
        const mcps_diff_case *was = i < d->old->ncases ? &d->old->cases[i] : NULL;
        const mcps_diff_case *now = j < d->new->ncases ? &d->new->cases[j] : NULL;
        int order = !was ? 1 : !now ? -1 : mcps_diff_case_order(was, now);
        if (order > 0)
            was = NULL;
        else
            i++;
        if (order < 0)
            now = NULL;
        else
            j++;
        if (!add_change(d, was, now))
            return false;
    }
    return true;
}

static bool add_rev_change(mcps_diff *d, const char *name)
{
    mcps_diff_status was = status_of(d->old, name), now = status_of(d->new, name);
    if ((was == MCPS_DIFF_SUPPORTED) == (now == MCPS_DIFF_SUPPORTED))
        return true; /* only support matters: "not probed" and "absent" are not news */
    if (!mcps_array_reserve(&d->revs, &d->revs_cap, d->nrevs + 1, sizeof *d->revs, 8))
        return false;
    const char *detail = detail_of(d->new, name);
    d->revs[d->nrevs++] =
        (mcps_diff_rev_change){name, was, now, detail ? detail : detail_of(d->old, name)};
    if (now == MCPS_DIFF_SUPPORTED)
        d->revs_gained++;
    else
        d->revs_lost++;
    return true;
}

static int rev_change_order(const void *a, const void *b)
{
    return strcmp(((const mcps_diff_rev_change *)a)->name, ((const mcps_diff_rev_change *)b)->name);
}

static bool compare_revisions(mcps_diff *d)
{
    for (size_t i = 0; i < d->old->nrevs; i++)
        if (!add_rev_change(d, d->old->revs[i].name))
            return false;
    for (size_t i = 0; i < d->new->nrevs; i++)
        if (status_of(d->old, d->new->revs[i].name) == MCPS_DIFF_ABSENT &&
            !add_rev_change(d, d->new->revs[i].name))
            return false;
    if (d->nrevs)
        qsort(d->revs, d->nrevs, sizeof *d->revs, rev_change_order);
    return true;
}

static void compare_fatal(mcps_diff *d)
{
    const char *was = d->old->fatal, *now = d->new->fatal;
    d->fatal_changed = (!was != !now) || (was && strcmp(was, now) != 0);
    d->newly_fatal = !was && now;
}

static bool compare(mcps_diff *d)
{
    if (!compare_cases(d) || !compare_revisions(d))
        return false;
    compare_fatal(d);
    /* A run that now stops early fails the gate, whatever its cases say. */
    d->exit_code = d->count[MCPS_DIFF_FAILURE] || d->newly_fatal ? MCPS_EXIT_FAIL : MCPS_EXIT_OK;
    return true;
}

/* ---- the command ------------------------------------------------------------------------ */

typedef struct diff_options {
    const char *paths[2];
    size_t npaths;
    const char *out;
    bool markdown;
    bool strict;
} diff_options;

static int usage(FILE *to, const char *why)
{
    if (why)
        fprintf(stderr, "mcpspec diff: %s\n", why);
    fprintf(to, "usage: mcpspec diff [--format text|markdown] [--out FILE] [--strict] OLD NEW\n"
                "  Compare two report.json files written by mcpspec run (or the --out folders\n"
                "  holding them), case by case (revision and case id): new failures, fixes,\n"
                "  other changed verdicts, new and removed cases, revisions discovery newly\n"
                "  supports or no longer supports, and a changed fatal (the run stopped early).\n"
                "  --format F   text (default, for a terminal) or markdown (for a pull-request\n"
                "               comment: counts, then a table per kind, long lists collapsed,\n"
                "               under GitHub's 65536-character limit)\n"
                "  --out FILE   write the diff to FILE instead of stdout\n"
                "  --strict     a new WARN is a new failure, as under mcpspec run --strict\n"
                "               (implied when NEW was run with --strict)\n"
                "  A new failure is a case now FAIL or ERROR (or WARN under --strict) that was\n"
                "  not, or was absent; a fix was FAIL, WARN or ERROR and is now PASS.\n"
                "  exit: 0 no new failure, 1 new failures (or the new run stopped early and the\n"
                "        old one did not), 2 usage error or a report that cannot be read or is\n"
                "        not valid\n");
    return MCPS_EXIT_USAGE;
}

static int unknown_option(const char *arg)
{
    char why[200];
    snprintf(why, sizeof why, "unknown option '%.150s'", arg);
    return usage(stderr, why);
}

/* NULL (a "--" at the end) takes nothing; a third path is refused. */
static bool take_path(diff_options *o, const char *path)
{
    if (path && o->npaths == 2)
        return false;
    if (path)
        o->paths[o->npaths++] = path;
    return true;
}

/* Returns -1 when the options are good, else the exit code. */
static int parse_options(int argc, char **argv, diff_options *o)
{
    mcps_args a;
    mcps_args_init(&a, argc, argv);
    while (mcps_args_more(&a)) {
        if (mcps_args_flag(&a, "--help"))
            return usage(stdout, NULL), MCPS_EXIT_OK;
        if (mcps_args_flag(&a, "--strict"))
            o->strict = true;
        else if (mcps_args_option(&a, "--out"))
            o->out = a.value;
        else if (mcps_args_option(&a, "--format")) {
            if (strcmp(a.value, "text") != 0 && strcmp(a.value, "markdown") != 0)
                return usage(stderr, "--format is text or markdown");
            o->markdown = strcmp(a.value, "markdown") == 0;
        } else if (a.error[0])
            return usage(stderr, a.error);
        else if (mcps_args_is_option(&a))
            return unknown_option(a.argv[a.i]);
        else if (!take_path(o, mcps_args_positional(&a)))
            return usage(stderr, "two reports only: OLD and NEW");
    }
    if (a.error[0])
        return usage(stderr, a.error);
    return o->npaths == 2 ? -1 : usage(stderr, "name two reports: OLD and NEW");
}

static bool write_output(const char *path, const mcps_buf *doc)
{
    FILE *f = path ? fopen(path, "wb") : stdout;
    bool ok = f && fwrite(doc->data, 1, doc->len, f) == doc->len;
    if (f && f != stdout)
        ok = fclose(f) == 0 && ok;
    else if (f)
        ok = fflush(f) == 0 && ok;
    if (!ok)
        fprintf(stderr, "mcpspec diff: cannot write %s: %s\n", path ? path : "to stdout",
                strerror(errno));
    return ok;
}

static int diff_reports(const diff_options *o, const mcps_diff_report *old,
                        const mcps_diff_report *new)
{
    mcps_diff d = {.old = old, .new = new, .strict = o->strict || new->strict};
    mcps_buf doc = {0};
    bool ok = compare(&d);
    if (ok && o->markdown)
        mcps_cli_diff_markdown(&doc, &d);
    else if (ok)
        mcps_cli_diff_text(&doc, &d);
    int rc = !ok || doc.oom ? MCPS_EXIT_INCOMPLETE : d.exit_code;
    if (rc == MCPS_EXIT_INCOMPLETE)
        fprintf(stderr, "mcpspec diff: out of memory\n");
    else if (!write_output(o->out, &doc))
        rc = MCPS_EXIT_USAGE;
    else if (o->out)
        fprintf(stderr, "mcpspec diff: wrote %s (exit %d)\n", o->out, rc);
    mcps_buf_free(&doc);
    free(d.changes);
    free(d.revs);
    return rc;
}

int mcps_cli_diff(int argc, char **argv)
{
    diff_options o = {0};
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0)
        return rc;
    mcps_diff_report *old = calloc(1, sizeof *old), *new = calloc(1, sizeof *new);
    if (!old || !new) {
        fprintf(stderr, "mcpspec diff: out of memory\n");
        rc = MCPS_EXIT_INCOMPLETE;
    } else {
        /* Both are read, so one run shows what is wrong with each. */
        bool old_ok = mcps_diff_report_load(old, o.paths[0]);
        bool new_ok = mcps_diff_report_load(new, o.paths[1]);
        if (!old_ok)
            fprintf(stderr, "mcpspec diff: %s\n", old->err);
        if (!new_ok)
            fprintf(stderr, "mcpspec diff: %s\n", new->err);
        rc = old_ok && new_ok ? diff_reports(&o, old, new) : MCPS_EXIT_USAGE;
    }
    if (old)
        mcps_diff_report_free(old);
    if (new)
        mcps_diff_report_free(new);
    free(old);
    free(new);
    return rc;
}
