/*
 * json.h - strict RFC 8259 parser that builds cJSON trees, and an exact printer.
 *
 * Every byte a target sends passes through here, so the parser judges instead
 * of guessing: it rejects what RFC 8259 rejects, validates UTF-8, reports
 * duplicate keys and lone surrogates as findings, and keeps the exact text of
 * every number so that ids like 9007199254740993 or 1.0 compare exactly.
 *
 * Trees are plain cJSON trees; free them with mcps_json_delete(), which, unlike
 * the recursive cJSON_Delete(), is safe at any depth. A number node also
 * holds its source text in `valuestring`; use mcps_json_number_text() to read
 * it. A string holding U+0000 stores it as the two bytes C0 80 (as Java's
 * modified UTF-8 does) so C strings keep their full length; mcps_json_print()
 * writes it back as \u0000.
 *
 * The parser is iterative: nesting depth costs heap, not stack, and is bounded
 * by mcps_json_limits.max_depth.
 */
#ifndef MCPS_CODEC_JSON_H
#define MCPS_CODEC_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* Defaults: deep enough for any real tool schema, large enough for a 64 MiB message. */
#define MCPS_JSON_DEFAULT_MAX_DEPTH 1000
#define MCPS_JSON_DEFAULT_MAX_BYTES ((size_t)128 * 1024 * 1024)
/* Findings beyond this many are counted but not kept. */
#define MCPS_JSON_MAX_FINDINGS 8

typedef struct mcps_json_limits {
    size_t max_depth; /* arrays and objects nested deeper than this are rejected */
    size_t max_bytes; /* inputs longer than this are rejected before parsing */
} mcps_json_limits;

typedef enum mcps_json_finding_kind {
    MCPS_JSON_DUPLICATE_KEY,  /* RFC 8259 section 4: names SHOULD be unique */
    MCPS_JSON_LONE_SURROGATE, /* RFC 8259 section 8.2: \uD800 without its pair; stored as U+FFFD */
} mcps_json_finding_kind;

typedef struct mcps_json_finding {
    mcps_json_finding_kind kind;
    size_t offset;   /* byte offset of the key or escape in the input */
    char detail[96]; /* e.g. the duplicated key, truncated */
} mcps_json_finding;

typedef struct mcps_json_result {
    cJSON *root;         /* NULL when the input was rejected */
    size_t error_offset; /* where the input stopped being JSON */
    char error[128];     /* why, for a person; empty on success */
    bool incomplete;     /* rejected only because the input ended early */
    size_t nfindings;    /* all findings, even those not kept */
    mcps_json_finding findings[MCPS_JSON_MAX_FINDINGS];
} mcps_json_result;

/* The default limits, for callers that want to change one field. */
mcps_json_limits mcps_json_default_limits(void);

/*
 * Parse exactly one JSON text (leading and trailing whitespace allowed) from
 * buf[0..len). buf need not be NUL-terminated. limits may be NULL for the
 * defaults. Returns true and sets out->root on success; on rejection returns
 * false with out->error and out->error_offset set. Findings are reported in
 * both cases. The caller owns out->root.
 */
bool mcps_json_parse(const char *buf, size_t len, const mcps_json_limits *limits,
                     mcps_json_result *out);

/* Where each node of a parsed tree starts (a member: its key), so that a loader of a file people
 * write can name the line of the member it refuses. */
typedef struct mcps_json_spot {
    const cJSON *node;
    size_t offset;
} mcps_json_spot;

typedef struct mcps_json_spots {
    mcps_json_spot *v; /* in document order */
    size_t n, cap;
    bool failed; /* out of memory while recording: lookups find nothing */
} mcps_json_spots;

/* mcps_json_parse, also recording in *spots (zeroed by the caller) where each node starts. */
bool mcps_json_parse_spotted(const char *buf, size_t len, const mcps_json_limits *limits,
                             mcps_json_result *out, mcps_json_spots *spots);
/* The offset node starts at; false when spots does not hold it (node NULL included). */
bool mcps_json_spot_of(const mcps_json_spots *spots, const cJSON *node, size_t *offset);
void mcps_json_spots_free(mcps_json_spots *spots);

/* Free a tree (and, like cJSON_Delete, the siblings after it) without recursion. */
void mcps_json_delete(cJSON *item);

/* Convenience: parse and return the tree, dropping findings; NULL on error. */
cJSON *mcps_json_parse_simple(const char *buf, size_t len);

/*
 * The members of the object in buf[0..len) whose values are at most max_member
 * bytes, each parsed strictly, without building the others: for a line too big
 * to parse whole (a 100000-deep probe) whose id and method still matter. NULL
 * when buf does not hold an object; a malformed stretch ends the scan.
 */
cJSON *mcps_json_parse_shallow(const char *buf, size_t len, size_t max_member);

/* Exact source text of a number node, or NULL when the node has none (built by hand). */
const char *mcps_json_number_text(const cJSON *number);

/* A number node carrying exact text; NULL on allocation failure or bad text. */
cJSON *mcps_json_create_number_text(const char *text);

/* True when the number is an integer in JSON terms: no fraction, no exponent. */
bool mcps_json_number_is_integer(const cJSON *number);

/* A scalar as an HTTP header carries it (2026-07-28's Mcp-Param-*, HDR-010): a string as it
 * is, a boolean as true or false, an integer in decimal (its own text when it has one, else
 * written into buf); NULL for anything else. */
const char *mcps_json_scalar_text(const cJSON *v, char *buf, size_t n);

/*
 * Structural equality with exact numbers: 1 and 1.0 differ, object member order
 * does not matter, duplicate keys are compared as written in order.
 */
bool mcps_json_equal(const cJSON *a, const cJSON *b);

/*
 * Compact one-line serialization: no raw newline can appear (control characters
 * in strings are escaped), numbers print their exact text. Returns a malloc'd
 * NUL-terminated string (free with free()), or NULL on allocation failure.
 * *out_len, when not NULL, receives the length.
 */
char *mcps_json_print(const cJSON *item, size_t *out_len);

/* Validate that buf[0..len) is well-formed UTF-8 (no overlongs, surrogates or > U+10FFFF).
 * Returns true when valid; otherwise sets *bad_offset to the first bad byte. */
bool mcps_json_utf8_valid(const char *buf, size_t len, size_t *bad_offset);

#endif
