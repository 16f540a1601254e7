/*
 * result.h - what a run found: one record per case per revision, plus the
 * run's header. The engine fills these; the report writers only read them.
 *
 * Verdicts follow Autobahn|Testsuite's model with the spec's levels:
 * PASS; FAIL (a MUST or MUST NOT broken); WARN (a SHOULD broken); INFO
 * (behaviour the spec leaves open, recorded); SKIP (not applicable, with the
 * reason); ERROR (the check could not be run), which never counts as a pass.
 * Every case carries what was expected, what was observed and the wire log.
 */
#ifndef MCPS_ENGINE_RESULT_H
#define MCPS_ENGINE_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/rev.h"
#include "engine/catalog.h"
#include "session/wirelog.h"

/* Bumped when report.json changes incompatibly; see docs/report-format.md. An added member
 * (the baseline ones, say) keeps it: readers ignore members they do not know. */
#define MCPS_REPORT_SCHEMA_VERSION 1

typedef enum mcps_verdict {
    MCPS_VERDICT_PASS,
    MCPS_VERDICT_FAIL,
    MCPS_VERDICT_WARN,
    MCPS_VERDICT_INFO,
    MCPS_VERDICT_SKIP,
    MCPS_VERDICT_ERROR,
    MCPS_VERDICT_COUNT
} mcps_verdict;

/* The baseline entry that excused a case (engine/baseline.h): copies the case owns. */
typedef struct mcps_case_baseline {
    char *match;    /* the entry's case id or requirement ID */
    char *revision; /* the entry's revision, or "all" */
    char *reason;   /* why the failure is accepted */
    char *expires;  /* "YYYY-MM-DD", or NULL */
    size_t line;    /* where the entry is written in the baseline file */
} mcps_case_baseline;

typedef struct mcps_case_result {
    char *id;      /* e.g. "lifecycle/initialize-result" */
    char *suite;   /* e.g. "lifecycle" */
    char *title;   /* one line: what the case checks */
    char *section; /* spec section, e.g. "basic/lifecycle" */
    mcps_rev revision;
    char *requirements; /* space-separated IDs it tests */
    mcps_level level;   /* strictest level of those IDs in this revision */
    mcps_verdict verdict;
    char *broken;   /* FAIL, WARN, INFO: the IDs the observation broke, when known; else NULL */
    char *expected; /* what conformance looks like, for a person */
    char *observed; /* what the target did instead (or did, on PASS) */
    char *reason;   /* SKIP and ERROR: why the check did not run; else NULL */
    double seconds; /* wall time of the case */
    mcps_wire_entry *wire;
    size_t nwire;
    size_t wire_dropped; /* entries not kept once the per-case log limit was hit */
    mcps_wire_note *notes;
    size_t nnotes;
    mcps_case_baseline *baseline; /* --baseline excused this verdict; NULL: it did not */
    /* for the run, not the report (set from the session with the wire log) */
    bool cut;               /* a wait or send was cut short because the run stopped */
    double stalled_seconds; /* the target, still running at shutdown, had been silent that
                               long since a request it never answered; 0: it had not */
    bool responsive;        /* the target answered a request other than initialize */
} mcps_case_result;

/* What revision discovery found for one revision. */
typedef struct mcps_rev_probe {
    mcps_rev revision;
    bool probed; /* false: not attempted (2026-07-28 left out by --revision, or not over SSE) */
    bool supported;
    bool tested;  /* the run's cases ran on it: supported, and not left out by --revision */
    char *detail; /* e.g. "initialize answered 2025-06-18", "answered 2025-11-25 instead" */
} mcps_rev_probe;

/* A baseline entry that fails the run: nothing it lists fails any more, or it expired. */
typedef struct mcps_stale_entry {
    char *match;      /* the entry's case id or requirement ID */
    bool requirement; /* match is a requirement ID, not a case id */
    char *revision;   /* the entry's revision, or "all" */
    char *reason;
    char *expires; /* "YYYY-MM-DD", or NULL */
    size_t line;
    bool expired; /* stale because its date passed (whatever the run found) */
    char *detail; /* what the run found instead, for a person */
} mcps_stale_entry;

/* What --baseline did to the run (engine/baseline.h). */
typedef struct mcps_run_baseline {
    char *file;        /* the baseline file as given */
    size_t entries;    /* entries in the file */
    size_t matched;    /* entries that excused at least one case */
    size_t not_judged; /* entries this run holds no evidence on (not run, SKIP or ERROR) */
    mcps_stale_entry *stale;
    size_t nstale;
} mcps_run_baseline;

typedef struct mcps_run_result {
    char *tool_version;
    char *target;     /* the command line or URL as given */
    char *transport;  /* "stdio" */
    char *started_at; /* ISO 8601 UTC */
    double seconds;
    mcps_rev_probe probes[MCPS_REV_COUNT];
    mcps_case_result *cases;
    size_t ncases;
    size_t counts[MCPS_VERDICT_COUNT];
    size_t baselined[MCPS_VERDICT_COUNT]; /* of counts, the cases a baseline excused */
    mcps_run_baseline *baseline;          /* NULL: no --baseline */
    bool strict;                          /* --strict: WARN fails the run */
    char *fatal; /* set when the run could not proceed (target would not start) */
    /* the harness's own costs, for benchmarks and the hostile-target tests */
    long max_rss_kib;     /* peak resident memory of the mcpspec process */
    double cpu_seconds;   /* user + system CPU of the mcpspec process (not the target) */
    size_t messages_sent; /* to the target, all cases and probes */
    size_t messages_received;
    const char *isolation;    /* "shared" or "fresh" (static text) */
    size_t processes_started; /* target processes started for cases (not discovery's) */
} mcps_run_result;

const char *mcps_verdict_name(mcps_verdict v); /* "PASS", "FAIL", ... */

/* The verdict a broken requirement of this level earns: FAIL, WARN or INFO. */
mcps_verdict mcps_verdict_for_level(mcps_level level);

/* Move c to the end of run->cases (c is zeroed); false, c untouched, when out of memory. */
bool mcps_run_result_push(mcps_run_result *run, mcps_case_result *c);
/* Recount run->counts and run->baselined from the cases. */
void mcps_run_result_count(mcps_run_result *run);
/* Exit code: 1 any FAIL, or a stale baseline entry; else 3 incomplete (fatal or ERROR); else 1
 * for WARN under strict; else 0. Verdicts a baseline excused do not count. */
int mcps_run_result_exit_code(const mcps_run_result *run);

void mcps_case_result_free(mcps_case_result *c);
void mcps_run_result_free(mcps_run_result *run);

#endif
