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

/* Bumped when report.json changes incompatibly; see docs/report-format.md. */
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

typedef enum mcps_wire_dir {
    MCPS_WIRE_SENT,     /* harness -> target */
    MCPS_WIRE_RECEIVED, /* target -> harness, on its message stream */
    MCPS_WIRE_STDERR,   /* target's diagnostics */
    MCPS_WIRE_EVENT,    /* what happened around the bytes: started, exited, timed out */
} mcps_wire_dir;

typedef struct mcps_wire_entry {
    int64_t t_us; /* microseconds since the case started */
    mcps_wire_dir dir;
    char *bytes;     /* as on the wire (may be invalid UTF-8), NUL-terminated, cut to a limit */
    size_t len;      /* bytes kept */
    size_t wire_len; /* bytes on the wire; > len when cut */
} mcps_wire_entry;

/* Something an observer saw during the case (the observer checks carry the verdicts). */
typedef struct mcps_case_note {
    char *reqs; /* requirement IDs, or NULL for a harness note */
    char *message;
} mcps_case_note;

typedef struct mcps_case_result {
    char *id;      /* e.g. "lifecycle/initialize-result" */
    char *suite;   /* e.g. "lifecycle" */
    char *title;   /* one line: what the case checks */
    char *section; /* spec section, e.g. "basic/lifecycle" */
    mcps_rev revision;
    char *requirements; /* space-separated IDs it tests */
    mcps_level level;   /* strictest level of those IDs in this revision */
    mcps_verdict verdict;
    char *expected; /* what conformance looks like, for a person */
    char *observed; /* what the target did instead (or did, on PASS) */
    char *reason;   /* SKIP and ERROR: why the check did not run; else NULL */
    double seconds; /* wall time of the case */
    mcps_wire_entry *wire;
    size_t nwire;
    size_t wire_dropped; /* entries not kept once the per-case log limit was hit */
    mcps_case_note *notes;
    size_t nnotes;
} mcps_case_result;

/* What revision discovery found for one revision. */
typedef struct mcps_rev_probe {
    mcps_rev revision;
    bool probed; /* false: not attempted (filtered by --revision, or unsupported by us) */
    bool supported;
    char *detail; /* e.g. "initialize answered 2025-06-18", "answered 2025-11-25 instead" */
} mcps_rev_probe;

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
    bool strict; /* --strict: WARN fails the run */
    char *fatal; /* set when the run could not proceed (target would not start) */
    /* the harness's own costs, for benchmarks and the hostile-target tests */
    long max_rss_kib;     /* peak resident memory of the mcpspec process */
    double cpu_seconds;   /* user + system CPU of the mcpspec process (not the target) */
    size_t messages_sent; /* to the target, all cases and probes */
    size_t messages_received;
    const char *isolation;    /* "shared" or "fresh" (static text) */
    size_t processes_started; /* target processes started for cases (not discovery's) */
} mcps_run_result;

const char *mcps_verdict_name(mcps_verdict v);   /* "PASS", "FAIL", ... */
const char *mcps_wire_dir_name(mcps_wire_dir d); /* "sent", "received", "stderr", "event" */

/* The verdict a broken requirement of this level earns: FAIL, WARN or INFO. */
mcps_verdict mcps_verdict_for_level(mcps_level level);

/* Recount run->counts from the cases. */
void mcps_run_result_count(mcps_run_result *run);
/* Exit code: 1 any FAIL; else 3 incomplete (fatal or ERROR); else 1 for WARN under strict; else 0.
 */
int mcps_run_result_exit_code(const mcps_run_result *run);

void mcps_case_result_free(mcps_case_result *c);
void mcps_run_result_free(mcps_run_result *run);

#endif
