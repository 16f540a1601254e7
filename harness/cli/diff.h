/*
 * diff.h - what `mcpspec diff` compares and finds, shared by its files:
 * diff_read.c reads a report (`mcpspec matrix` reads its targets' reports with
 * it too), diff.c compares two, diff_render.c shows the result as plain text
 * or Markdown.
 *
 * A report is boiled down to what a diff shows (ids, verdicts, a clipped
 * observation), so the parsed trees, wire logs and all, can be freed at once.
 */
#ifndef MCPS_CLI_DIFF_H
#define MCPS_CLI_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "engine/result.h"

/* A revision as one report's discovery saw it. */
typedef enum mcps_diff_status {
    MCPS_DIFF_ABSENT, /* not in the report's "revisions" (e.g. an older mcpspec) */
    MCPS_DIFF_NOT_PROBED,
    MCPS_DIFF_UNSUPPORTED,
    MCPS_DIFF_SUPPORTED
} mcps_diff_status;

typedef struct mcps_diff_case {
    char *rev;
    char *id;
    mcps_verdict verdict;
    char *broken;   /* the requirement IDs it broke, space-separated; NULL when none */
    char *detail;   /* for SKIP and ERROR why, else what was observed; clipped; NULL if none */
    size_t index;   /* its place in the report's "cases" (report.html's anchor case-INDEX) */
    bool baselined; /* a baseline entry excused it */
} mcps_diff_case;

typedef struct mcps_diff_rev {
    char *name;
    mcps_diff_status status;
    char *detail; /* what discovery saw */
} mcps_diff_rev;

typedef struct mcps_diff_report {
    const char *path; /* the file read, for messages */
    char pathbuf[4096];
    char *target, *started_at, *tool_version;
    char *fatal;
    bool strict;
    mcps_diff_rev *revs;
    size_t nrevs, revs_cap;
    mcps_diff_case *cases; /* sorted by revision, then id */
    size_t ncases, cases_cap;
    bool oom;
    char err[600]; /* why it could not be read, for a person */
} mcps_diff_report;

/* The kinds of change, in the order they are shown. */
typedef enum mcps_diff_kind {
    MCPS_DIFF_FAILURE, /* now fails the gate, and did not (or was absent) */
    MCPS_DIFF_WARNING, /* now WARN, without --strict: a new failure once WARN counts */
    MCPS_DIFF_FIX,     /* was FAIL, WARN or ERROR, now PASS */
    MCPS_DIFF_CHANGED, /* any other change of verdict */
    MCPS_DIFF_ADDED,
    MCPS_DIFF_REMOVED,
    MCPS_DIFF_KINDS
} mcps_diff_kind;

typedef struct mcps_diff_change {
    mcps_diff_kind kind;
    const mcps_diff_case *was; /* NULL: a new case */
    const mcps_diff_case *now; /* NULL: a removed case */
    const char *why_removed;   /* a removed case whose revision discovery lost says so */
} mcps_diff_change;

typedef struct mcps_diff_rev_change {
    const char *name;
    mcps_diff_status was, now;
    const char *detail; /* what discovery saw in the new run, else in the old one */
} mcps_diff_rev_change;

typedef struct mcps_diff {
    const mcps_diff_report *old, *new;
    bool strict;               /* WARN fails the gate */
    mcps_diff_change *changes; /* in revision and case order */
    size_t nchanges, changes_cap;
    size_t count[MCPS_DIFF_KINDS];
    size_t unchanged;
    mcps_diff_rev_change *revs; /* only changes of support */
    size_t nrevs, revs_cap;
    size_t revs_gained, revs_lost;
    bool fatal_changed; /* "fatal" differs */
    bool newly_fatal;   /* the new run stopped early and the old one did not */
    int exit_code;      /* MCPS_EXIT_FAIL on a new failure or newly_fatal, else MCPS_EXIT_OK */
} mcps_diff;

/* Read the report at path (a report.json, or the --out folder holding one) into r, which
 * starts zeroed; false with r->err set ("FILE: why", "FILE:LINE: invalid JSON ..."). */
bool mcps_diff_report_load(mcps_diff_report *r, const char *path);
/* Free what r holds (whether or not it loaded). */
void mcps_diff_report_free(mcps_diff_report *r);
/* qsort order of cases: revision, then id. */
int mcps_diff_case_order(const void *a, const void *b);

/* Text from a report, shown safely on one line (control characters made visible, newlines
 * as spaces) and cut to max code points with an ellipsis: plain, escaped for Markdown (and
 * the HTML GitHub allows in it), or escaped for HTML text and attribute values. */
typedef enum mcps_diff_escape {
    MCPS_DIFF_ESC_TEXT,
    MCPS_DIFF_ESC_MD,
    MCPS_DIFF_ESC_HTML
} mcps_diff_escape;
size_t mcps_diff_put_safe(mcps_buf *b, const char *s, size_t max, mcps_diff_escape how);

/* The diff for a terminal: grouped by kind, one line per change, counts and exit code last. */
void mcps_cli_diff_text(mcps_buf *out, const mcps_diff *d);
/* The diff for a pull-request comment: counts, then a table per kind, long lists collapsed,
 * under GitHub's comment limit. */
void mcps_cli_diff_markdown(mcps_buf *out, const mcps_diff *d);

#endif
