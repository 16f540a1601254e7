/*
 * jsonschema_internal.h - what the jsonschema_*.c files share and nobody else may use.
 *
 * The validator is split by concern (evaluation, schema checking, values and
 * numbers, formats, regex); these are the seams between them. The value
 * generator and mutator (engine/jsonschema_gen.c, engine/jsonschema_mutate.c)
 * are the one exception: they read schemas as the validator does, so they
 * share its numbers, equality, references and regex programs.
 * Names carry the mcps_si_ prefix ("schema internal") so they cannot clash
 * with the rest of the library.
 */
#ifndef MCPS_SCHEMA_JSONSCHEMA_INTERNAL_H
#define MCPS_SCHEMA_JSONSCHEMA_INTERNAL_H

#include "base/buf.h"
#include "schema/jsonschema.h"

#include <stdint.h>

/* ---- UTF-8 ---------------------------------------------------------------- */

/* Decode one code point at s[0..len), len > 0. C0 80 (our stored U+0000)
 * decodes as 0; a malformed byte as U+FFFD. Returns the bytes consumed, >= 1. */
size_t mcps_si_utf8_next(const unsigned char *s, size_t len, uint32_t *cp);
/* Code points in a NUL-terminated string (C0 80 counts as one). */
size_t mcps_si_utf8_count(const char *s);
/* Append cp as UTF-8 (U+0000 as C0 80, as codec/json.h stores it). */
void mcps_si_utf8_put(mcps_buf *b, uint32_t cp);

/* ---- regex programs (jsonschema_regex.c compiles, jsonschema_rxvm.c runs) ---- */

#define RX_INF  UINT32_MAX /* unbounded repetition */
#define RX_NONE UINT32_MAX /* no code point: before the start or after the end */

typedef struct mcps_si_rx_range {
    uint32_t lo, hi;
} mcps_si_rx_range;

typedef struct mcps_si_rx_class {
    uint32_t first, count; /* slice of the range table, sorted and merged */
    bool negated;
} mcps_si_rx_class;

typedef enum mcps_si_rx_op {
    RX_CHAR,
    RX_ANY,
    RX_CLASS,
    RX_SPLIT,
    RX_JMP,
    RX_MATCH,
    RX_BOL,
    RX_EOL,
    RX_WORDB,
    RX_NWORDB,
} mcps_si_rx_op;

typedef struct mcps_si_rx_inst {
    uint8_t op;
    bool optional; /* RX_SPLIT of a quantifier: x takes the body, y skips it */
    uint32_t x, y;
} mcps_si_rx_inst;

struct mcps_schema_regex {
    mcps_si_rx_inst *prog;
    size_t n;
    mcps_si_rx_range *ranges;
    mcps_si_rx_class *classes;
    bool anchored; /* starts with ^: only position 0 can begin a match */
};

/* The ranges of a Unicode General_Category value (short or long name), from
 * the generated jsonschema_unicode.c; false when name is none. */
bool mcps_si_unicode_category(const char *name, size_t len, const mcps_si_rx_range **set,
                              size_t *n);

/* Used by the generator: */

/* Append to out a random string the regex matches, aiming at about target code
 * points; false when the random walk found none (caller retries). */
bool mcps_si_regex_generate(const mcps_schema_regex *re, mcps_schema_prng *prng, size_t target,
                            mcps_buf *out);

/* ---- exact decimal numbers ------------------------------------------------- */

/* value = (neg ? -1 : 1) * 0.d1d2..dn * 10^exp, digits without leading or
 * trailing zeros; n == 0 means zero. */
typedef struct mcps_si_dec {
    bool neg;
    const char *d;
    size_t n;
    long long exp;
    char small[40];
    char *heap;
} mcps_si_dec;

/* Normalise a number node (its exact text, else its double). False only on OOM. */
bool mcps_si_dec_init(mcps_si_dec *x, const cJSON *number);
void mcps_si_dec_free(mcps_si_dec *x);
int mcps_si_dec_cmp(const mcps_si_dec *a, const mcps_si_dec *b);
bool mcps_si_dec_is_integer(const mcps_si_dec *x);
/* 1 when a is a multiple of b (> 0), 0 when not. */
int mcps_si_dec_multiple_of(const mcps_si_dec *a, const mcps_si_dec *b);
/* Compare two number nodes exactly: -1, 0, 1; -2 on OOM. */
int mcps_si_num_cmp(const cJSON *a, const cJSON *b);
/* Integer-valued number node (1.0 and 1e2 count). */
bool mcps_si_num_is_integer(const cJSON *number);

/* ---- values --------------------------------------------------------------- */

/* One of the seven type names JSON Schema knows. */
bool mcps_si_known_type(const char *name);
/* JSON Schema type name of an instance; "integer" is never returned. */
const char *mcps_si_type_name(const cJSON *v);
/* JSON Schema equality (numbers by value, objects unordered). Spends one unit
 * of *budget per node pair; returns 1 equal, 0 not, -1 budget out or OOM. */
int mcps_si_equal(const cJSON *a, const cJSON *b, size_t *budget);
/* A hash consistent with mcps_si_equal, looking at most depth levels down. */
uint64_t mcps_si_hash(const cJSON *v, size_t depth);
/* A short one-line rendering for messages, truncated with "..." (into b). */
void mcps_si_brief(mcps_buf *b, const cJSON *v, size_t max);

/* ---- pointers and references ---------------------------------------------- */

/* One step of a JSON Pointer, chained on the C stack towards the root. A step
 * with base set starts a new pointer there ($ref target, "#/..." form). */
typedef struct mcps_si_path {
    const struct mcps_si_path *up;
    const char *key; /* member name; NULL for an array index */
    size_t index;
    const char *base;
} mcps_si_path;

/* Render a path as an RFC 6901 pointer into b. */
void mcps_si_path_render(mcps_buf *b, const mcps_si_path *p);

typedef enum mcps_si_ref_status {
    MCPS_SI_REF_OK,
    MCPS_SI_REF_BROKEN,   /* a local pointer that does not resolve or is malformed */
    MCPS_SI_REF_EXTERNAL, /* another document, or an anchor: not followed */
} mcps_si_ref_status;

/* Resolve ref against the root document alone (no $id scopes); *target on OK. */
mcps_si_ref_status mcps_si_ref_resolve(const cJSON *root, const char *ref, const cJSON **target);
/* The node a URI fragment ("" or a percent-encoded JSON Pointer) names in root; NULL if none. */
const cJSON *mcps_si_pointer_walk(const cJSON *root, const char *fragment);

/* ---- formats -------------------------------------------------------------- */

/* 1 valid, 0 invalid, -1 unknown format (passes). */
int mcps_si_format_check(const char *format, const char *s);

/* ---- options ---------------------------------------------------------------- */

/* opts, or the defaults when NULL; zero limits also take their defaults. */
mcps_schema_options mcps_si_options(const mcps_schema_options *opts);
/* The rules a schema gets: its $schema's, else opts->dialect (validation and checking agree). */
mcps_schema_dialect mcps_si_dialect(const cJSON *schema, const mcps_schema_options *opts);

/* ---- results -------------------------------------------------------------- */

/* Count an error and keep it when there is room; message is printf-style. */
void mcps_si_result_add(mcps_schema_result *r, mcps_schema_verdict kind, const mcps_si_path *ip,
                        const mcps_si_path *sp, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Forget errors after the first nerrors (a passing anyOf branch, a not, an if). */
void mcps_si_result_rollback(mcps_schema_result *r, size_t nerrors);

/* ---- evaluation: jsonschema.c drives it, jsonschema_kw*.c hold the keywords ---- */

/* A keyword's answer. Ordered so that the conjunction of two is the larger. */
typedef enum mcps_si_outcome {
    R_OK,
    R_UNKNOWN, /* a feature we lack decides it */
    R_FAIL,
    R_ABORT, /* schema broken or budget spent; reported, stop everything */
} mcps_si_outcome;

/* Where a reference lands: the schema, its base URI and its dialect. */
typedef struct mcps_si_target {
    const cJSON *node;
    const char *base;
    bool draft07;
} mcps_si_target;

/* The URIs, anchors and base URIs of the schema and the caller's documents (jsonschema_scope.c). */
typedef struct mcps_si_index mcps_si_index;

/*
 * Annotations for unevaluatedProperties/unevaluatedItems: which members or
 * items of one instance some keyword has evaluated, by position. A schema
 * object that has those keywords, or sits in place under one that does,
 * collects; a passing subschema hands its marks up, a failing one drops them.
 */
typedef struct mcps_si_ann {
    const cJSON *inst;
    size_t n;       /* members or items of inst */
    uint64_t *bits; /* evaluated positions */
} mcps_si_ann;

typedef struct mcps_si_ref_frame {
    const cJSON *schema;
    const cJSON *instance;
} mcps_si_ref_frame;

struct mcps_si_cache_entry;

typedef struct mcps_si_vctx {
    const cJSON *root;
    bool draft07;
    mcps_schema_options opt;
    mcps_schema_result *out;
    mcps_schema_verdict abort_kind;
    size_t depth;
    size_t quiet;            /* > 0 inside not/if/contains: only pass or fail matters */
    mcps_si_ref_frame *refs; /* $ref hops on the current path, for cycle detection */
    size_t nrefs;
    struct mcps_si_cache_entry *cache; /* regexes and $ref targets, by string address */
    size_t cachecap, cacheused;
    mcps_si_index *index;
    const char *base;   /* base URI in force */
    const char **scope; /* dynamic scope: resource base URIs entered, outermost first */
    size_t nscope;
    mcps_si_ann *ann;   /* annotations being collected for the current instance, or NULL */
    bool no_validation; /* the meta-schema leaves out the validation vocabulary */
} mcps_si_vctx;

/* Index the schema and the documents in the options; false on OOM. */
bool mcps_si_index_build(mcps_si_vctx *c);
void mcps_si_index_free(mcps_si_index *x);
/* A schema object's base URI and dialect, if the index has it. */
bool mcps_si_index_scope(const mcps_si_vctx *c, const cJSON *node, mcps_si_target *out);
/* The schema a resource URI (no fragment) names, or NULL. */
const cJSON *mcps_si_index_document(const mcps_si_vctx *c, const char *uri);
/* Resolve ref against the base in force; dynamic: as $dynamicRef, through the dynamic scope. */
mcps_si_ref_status mcps_si_index_resolve(mcps_si_vctx *c, const char *ref, bool dynamic,
                                         mcps_si_target *out);

/* Record that keyword evaluation reached position pos (or every position from
 * first on) of inst, when annotations are collected for inst. */
void mcps_si_mark(mcps_si_vctx *c, const cJSON *inst, size_t pos);
void mcps_si_mark_from(mcps_si_vctx *c, const cJSON *inst, size_t first);
/* Was position pos of the current collector's instance evaluated? */
bool mcps_si_marked(const mcps_si_vctx *c, size_t pos);
/* True when annotations are being collected for inst (anyOf must then try every branch). */
bool mcps_si_collecting(const mcps_si_vctx *c, const cJSON *inst);

/* One keyword evaluation: the schema object, the keyword member, where we are. */
typedef struct mcps_si_kw {
    const cJSON *schema;
    const cJSON *kw;
    const cJSON *inst;
    const mcps_si_path *sp; /* the schema object holding kw */
    const mcps_si_path *ip;
} mcps_si_kw;

typedef mcps_si_outcome (*mcps_si_kw_fn)(mcps_si_vctx *, const mcps_si_kw *);

/* A row of a keyword table: sorted by name (strcmp), for mcps_si_find_keyword. */
typedef struct mcps_si_keyword {
    const char *name;
    unsigned dialects; /* D07, D20 */
    mcps_si_kw_fn fn;
} mcps_si_keyword;

/* The handler of name in a sorted table, for the dialect; NULL when it has none. */
mcps_si_kw_fn mcps_si_find_keyword(const mcps_si_keyword *table, size_t n, const char *name,
                                   bool draft07);

/* Handlers by name for the dialect; NULL when the keyword is not theirs. */
mcps_si_kw_fn mcps_si_value_keyword(const char *name, bool draft07);
mcps_si_kw_fn mcps_si_object_keyword(const char *name, bool draft07);

/* $ref on its own: draft-07 ignores everything beside it. */
mcps_si_outcome mcps_si_kw_ref(mcps_si_vctx *c, const mcps_si_kw *k);

/* mcps_si_index_resolve for a $ref string of the schema, remembered for the rest of the validation.
 */
mcps_si_ref_status mcps_si_resolve(mcps_si_vctx *c, const char *ref, mcps_si_target *target);

/* Evaluate the target of a reference, in its own base URI and dialect. */
mcps_si_outcome mcps_si_apply_target(mcps_si_vctx *c, const mcps_si_target *t, const cJSON *inst,
                                     const mcps_si_path *sp, const mcps_si_path *ip);

/* Evaluate subschema sub (at sp) against inst (at ip). */
mcps_si_outcome mcps_si_apply(mcps_si_vctx *c, const cJSON *sub, const cJSON *inst,
                              const mcps_si_path *sp, const mcps_si_path *ip);

/* An INVALID error at the keyword (unless quiet); returns R_FAIL. */
mcps_si_outcome mcps_si_fail(mcps_si_vctx *c, const mcps_si_kw *k, const mcps_si_path *ip,
                             const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Record msg; UNSUPPORTED gives R_UNKNOWN, other kinds abort with that verdict. */
mcps_si_outcome mcps_si_stop(mcps_si_vctx *c, mcps_schema_verdict kind, const mcps_si_path *ip,
                             const mcps_si_path *sp, const char *key, const char *msg);
mcps_si_outcome mcps_si_bad_schema(mcps_si_vctx *c, const mcps_si_kw *k, const char *msg);
mcps_si_outcome mcps_si_unsupported(mcps_si_vctx *c, const mcps_si_kw *k, const char *msg);
mcps_si_outcome mcps_si_out_of_budget(mcps_si_vctx *c, const mcps_si_kw *k);

size_t mcps_si_remaining(const mcps_si_vctx *c);
void mcps_si_spend(mcps_si_vctx *c, size_t n);
/* mcps_si_equal charged to the budget: 1, 0, or -1 when it ran out. */
int mcps_si_equal_charged(mcps_si_vctx *c, const cJSON *a, const cJSON *b);

/* minItems/maxProperties and friends: n is the size, applies says the type is right. */
mcps_si_outcome mcps_si_count_bound(mcps_si_vctx *c, const mcps_si_kw *k, bool applies, size_t n,
                                    bool is_max);

const cJSON *mcps_si_sibling(const mcps_si_kw *k, const char *name);
bool mcps_si_is_schema(const cJSON *v);
/* A non-negative integer keyword value (1.0 counts), saturating at 10^18. */
bool mcps_si_count_value(const cJSON *v, size_t *n);
/* v's JSON text, truncated to fit dst, for messages; "" when no message will be kept. */
const char *mcps_si_brief_into(const mcps_si_vctx *c, char *dst, size_t n, const cJSON *v);

/* Where a regex sits, for messages. */
typedef struct mcps_si_rx_site {
    const mcps_si_path *ip;
    const mcps_si_path *sp;
    const char *key;
} mcps_si_rx_site;

/* 1 match, 0 no match, -1 cannot tell (unsupported feature), -2 aborted (reported). */
int mcps_si_regex_test(mcps_si_vctx *c, mcps_si_rx_site at, const char *pattern, const char *text);
/* Report why a -1 from mcps_si_regex_test could not be decided; returns R_UNKNOWN. */
mcps_si_outcome mcps_si_regex_unknown(mcps_si_vctx *c, mcps_si_rx_site at, const char *pattern,
                                      const char *what);

/* Conjunction: FAIL beats UNKNOWN beats OK; ABORT beats everything. */
static inline mcps_si_outcome mcps_si_both(mcps_si_outcome a, mcps_si_outcome b)
{
    return a > b ? a : b;
}

/* Stop early? Always on ABORT; on FAIL when nobody will read the errors. */
static inline bool mcps_si_done(const mcps_si_vctx *c, mcps_si_outcome r)
{
    return r == R_ABORT || (r == R_FAIL && c->quiet);
}

/* The path of a keyword's value, and of an entry in it, on the C stack. */
#define KW_PATH(name, k)          mcps_si_path name = {(k)->sp, (k)->kw->string, 0, NULL}
#define KEY_PATH(name, up, key)   mcps_si_path name = {(up), (key), 0, NULL}
#define INDEX_PATH(name, up, idx) mcps_si_path name = {(up), NULL, (idx), NULL}

#define D07  1u /* keyword table dialect bits */
#define D20  2u
#define DALL 3u

#endif
