/*
 * report_internal.h - what the report writers share: decoding hostile bytes,
 * escaping them for each output language, tallies and text limits.
 *
 * Not public API: only harness/report/ includes it.
 */
#ifndef MCPS_REPORT_INTERNAL_H
#define MCPS_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "engine/result.h"

/*
 * Guards: the engine already cuts wire text, but a report must stay bounded
 * whatever it is handed. Any text field is cut to TEXT_MAX bytes, any wire
 * entry to WIRE_ENTRY_MAX, and a case shows at most WIRE_ENTRIES_MAX entries
 * and CASE_WIRE_MAX bytes of them (the rest count as dropped).
 */
#define MCPS_REPORT_TEXT_MAX         ((size_t)64 * 1024)
#define MCPS_REPORT_WIRE_ENTRY_MAX   ((size_t)64 * 1024)
#define MCPS_REPORT_WIRE_ENTRIES_MAX ((size_t)2000)
#define MCPS_REPORT_CASE_WIRE_MAX    ((size_t)1024 * 1024)

/* How mcps_report_escape() writes text. */
enum {
    MCPS_ESC_LINES = 1u << 0, /* keep newlines and tabs (otherwise each becomes a space) */
    MCPS_ESC_XML = 1u << 1,   /* & < > as entities (XML and HTML text) */
    MCPS_ESC_ATTR = 1u << 2,  /* also quotes, and newline/tab as character references */
    MCPS_ESC_MD = 1u << 3,    /* Markdown punctuation backslashed, & < > as entities */
    /* The inside of a JSON string in an HTML <script> block: " \ newline tab escaped, and
     * < > & U+2028 U+2029 as \uXXXX, so no text can end the element or open markup. */
    MCPS_ESC_JS = 1u << 4,
};

/* Verdict counts recomputed from the cases, so a report agrees with itself. */
typedef struct mcps_report_tally {
    size_t counts[MCPS_VERDICT_COUNT];
    size_t total;
    size_t baselined; /* cases a baseline excused (still counted under their verdict) */
    size_t stale;     /* baseline entries that fail the run */
    int exit_code;
    const char *meaning; /* the exit code explained, for this run */
} mcps_report_tally;

void mcps_report_tally_run(const mcps_run_result *run, mcps_report_tally *t);
/* Counts of the cases of one revision. */
void mcps_report_tally_rev(const mcps_run_result *run, mcps_rev rev, size_t *counts);
bool mcps_report_has_rev(const mcps_run_result *run, mcps_rev rev);
/* A verdict that can index counts, whatever the case holds. */
mcps_verdict mcps_report_verdict(const mcps_case_result *c);
/* A baseline excused the case's verdict. */
bool mcps_report_baselined(const mcps_case_result *c);
/* "pass", "fail" or "incomplete". */
const char *mcps_report_outcome(int exit_code);

/* The code point at s[*i] (< n), advancing *i; U+FFFD for a byte that starts no valid sequence. */
uint32_t mcps_report_next_cp(const char *s, size_t n, size_t *i);
void mcps_report_put_cp(mcps_buf *b, uint32_t cp);
/* Length of s[0..n) cut to at most max bytes, at a code point boundary. */
size_t mcps_report_clip(const char *s, size_t n, size_t max);

/*
 * Valid UTF-8 for a JSON string: invalid bytes become U+FFFD (*lossless set
 * false), NUL becomes C0 80 so mcps_json_print writes \u0000. Cut to max
 * bytes, marked with an ellipsis. Caller frees; NULL on allocation failure.
 */
char *mcps_report_json_text(const char *s, size_t n, size_t max, bool *lossless);
/* Bytes of a cut wire entry may end inside a character: that tail is not invalid. */
size_t mcps_report_complete_len(const char *s, size_t n);
void mcps_report_base64(mcps_buf *b, const void *data, size_t n);

/*
 * Text for a person, escaped as how says: controls become their Control
 * Pictures (U+2400 block), C1 controls and invalid bytes U+FFFD, so nothing a
 * peer sends can drive a terminal or break the document around it.
 */
void mcps_report_escape(mcps_buf *b, const char *s, size_t n, unsigned how);
/* The same for a C string; NULL writes nothing. */
void mcps_report_escape_str(mcps_buf *b, const char *s, unsigned how);

/* Next ID of a space- or comma-separated list into id; false when none is left. */
bool mcps_report_next_id(const char **ids, char *id, size_t idlen);
/* The first requirement the observation broke (c->broken), else the first whose level earns the
 * case's verdict, else the first ID. */
bool mcps_report_primary_id(const mcps_case_result *c, char *id, size_t idlen);

/* How many of a case's wire entries the guards above let a report show. */
size_t mcps_report_wire_shown(const mcps_case_result *c);

/* "+0.000123": seconds since the case started. */
void mcps_report_put_time(mcps_buf *b, int64_t t_us);
/* Seconds as exact JSON number text with microsecond precision. */
void mcps_report_put_seconds(mcps_buf *b, double seconds);
/* Seconds for a person: "3.250 s". */
void mcps_report_put_duration(mcps_buf *b, double seconds);

/* The text to show for what happened: observed, else reason, else "". */
const char *mcps_report_finding(const mcps_case_result *c);

/*
 * A case as plain text for a person (JUnit bodies): requirements, expected,
 * observed, notes and the wire log with entries cut to entry_max bytes.
 * Visible-escaped, newlines kept; the caller escapes it for its language.
 */
void mcps_report_case_text(mcps_buf *b, const mcps_case_result *c, size_t entry_max);
/* One wire entry's bytes cut to entry_max, escaped as how says, with a cut marker. */
void mcps_report_wire_text(mcps_buf *b, const mcps_wire_entry *w, size_t entry_max, unsigned how);

#endif
