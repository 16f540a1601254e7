/*
 * baseline.h - expected failures: a file that lists a target's known failures,
 * so a CI gate can accept them without letting them rot (docs/baseline.md).
 *
 *   {
 *     "schema": "mcpspec-baseline",
 *     "version": 1,
 *     "expected": [
 *       {"case": "errors/parse-error", "revision": "2025-06-18", "reason": "...",
 *        "expires": "2027-01-31"},
 *       {"requirement": "RPC-ERR-002", "revision": "all", "verdicts": ["WARN"], "reason": "..."}
 *     ]
 *   }
 *
 * An entry excuses the cases it names (a case id, or a requirement ID the case
 * broke) on its revision, when their verdict is one it lists (FAIL and WARN
 * unless "verdicts" says otherwise; ERROR only when named). Applying it to a
 * run marks the excused cases and lists the entries that fail the run: stale
 * ones (what they name no longer fails) and expired ones. An entry this run
 * holds no evidence on (its revision or cases did not run, or were SKIP or
 * ERROR) is not judged, so a filtered run cannot call it stale.
 */
#ifndef MCPS_ENGINE_BASELINE_H
#define MCPS_ENGINE_BASELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "engine/result.h"
#include "engine/suite.h"

#define MCPS_BASELINE_SCHEMA      "mcpspec-baseline"
#define MCPS_BASELINE_VERSION     1
#define MCPS_BASELINE_MAX_BYTES   ((size_t)4 * 1024 * 1024)
#define MCPS_BASELINE_MAX_ENTRIES ((size_t)10000)

/* A set of verdicts, a bit (1u << mcps_verdict) each. */
#define MCPS_BASELINE_VERDICT(v) (1u << (unsigned)(v))
#define MCPS_BASELINE_DEFAULT_VERDICTS                                                             \
    (MCPS_BASELINE_VERDICT(MCPS_VERDICT_FAIL) | MCPS_BASELINE_VERDICT(MCPS_VERDICT_WARN))

typedef struct mcps_baseline_entry {
    bool requirement;  /* match is a requirement ID; otherwise a case id */
    char *match;       /* "errors/parse-error" or "RPC-ERR-002" */
    mcps_rev revision; /* MCPS_REV_NONE: "all" */
    unsigned verdicts; /* the verdicts it excuses */
    char *reason;      /* why the failure is accepted; never empty */
    char expires[11];  /* "YYYY-MM-DD", or "" for none */
    size_t line;       /* where the entry starts in the file */
} mcps_baseline_entry;

typedef struct mcps_baseline {
    char *file; /* the path as given */
    mcps_baseline_entry *entries;
    size_t n, cap;
} mcps_baseline;

/* Read and check path; on failure err says "FILE:LINE: expected[i].field: what is wrong". */
bool mcps_baseline_load(const char *path, mcps_baseline *out, char *err, size_t errlen);
/* The same for text already read; path names it in messages. */
bool mcps_baseline_parse(const char *path, const char *text, size_t len, mcps_baseline *out,
                         char *err, size_t errlen);
void mcps_baseline_free(mcps_baseline *b);

/* Today's date in UTC, "YYYY-MM-DD": entries whose date is before it have expired. */
void mcps_baseline_today(char out[11]);

/* The first unexpired entry that excuses c, for a progress line before the run is judged as a
 * whole; NULL when none does. */
const mcps_baseline_entry *mcps_baseline_find(const mcps_baseline *b, const mcps_case_result *c,
                                              const char *today);

/*
 * Judge every entry against the finished run: mark the cases it excuses (the
 * first entry that excuses a case is the one recorded), list stale and expired
 * entries in run->baseline, and recount. suites (may be NULL) lets an entry
 * naming a case or requirement no check has be called stale in any run. False
 * when memory ran out; what was applied stays.
 */
bool mcps_baseline_apply(const mcps_baseline *b, const mcps_suite_set *suites, const char *today,
                         mcps_run_result *run);

/* Write entries as a baseline file, one entry a line, so that a person can edit it. */
void mcps_baseline_render(const mcps_baseline_entry *entries, size_t n, mcps_buf *out);
/* The same in YAML (block style, an entry a few lines), for a file named *.yaml or *.yml. */
void mcps_baseline_render_yaml(const mcps_baseline_entry *entries, size_t n, mcps_buf *out);
/* A baseline file's name says YAML: *.yaml or *.yml. */
bool mcps_baseline_is_yaml_name(const char *path);

#endif
