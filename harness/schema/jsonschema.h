/*
 * jsonschema.h - our own JSON Schema validator and schema checker.
 *
 * MCP tools describe their arguments and results with JSON Schema (inputSchema,
 * outputSchema, elicitation requestedSchema), so the harness must (a) judge
 * whether a server's schema is a valid schema at all, (b) validate
 * structuredContent against outputSchema, and (c) judge the arguments the
 * engine invents, valid and deliberately invalid (engine/jsonschema_gen.h).
 * No packaged validator fits our needs
 * (exact numbers, bounded work on hostile schemas, "cannot check" as an
 * honest answer), so this is our own.
 *
 * Dialects: 2020-12 (the default when $schema is absent, MCP GEN-JSCH-001) and
 * draft-07. References resolve by URI against $id scopes, to JSON Pointers,
 * $anchor/$dynamicAnchor names and draft-07 "#name" ids, within the schema
 * and the documents the caller hands over in the options; nothing is ever
 * fetched (GEN-JSCH-004). Every entry point is bounded in depth and in total work
 * (GEN-JSCH-006) and answers "too complex" rather than running away.
 *
 * Regexes (pattern, patternProperties, format "regex") use our own ECMA-262
 * subset engine, a Pike VM: linear in the input, no backtracking. Patterns
 * using features it lacks (backreferences, lookaround, \p{...}) give the
 * verdict "unsupported", never a pass or a fail.
 *
 * Trees come from codec/json.h; number nodes there keep their exact text, which
 * is used for integer-ness, comparisons and multipleOf. Hand-built cJSON
 * numbers (no text) work too, through their double.
 *
 * Nothing here keeps state between calls; no globals.
 */
#ifndef MCPS_SCHEMA_JSONSCHEMA_H
#define MCPS_SCHEMA_JSONSCHEMA_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Nesting of subschema applications and $ref hops on one evaluation path. Each
 * level costs C stack, so larger settings are cut to MCPS_SCHEMA_MAX_DEPTH_CAP. */
#define MCPS_SCHEMA_DEFAULT_MAX_DEPTH 256
#define MCPS_SCHEMA_MAX_DEPTH_CAP     2048
/* Work units: one per subschema applied, per value node compared, per 16 regex steps. */
#define MCPS_SCHEMA_DEFAULT_MAX_STEPS 1000000
/* Errors beyond this many are counted but not kept. */
#define MCPS_SCHEMA_MAX_ERRORS 16

typedef enum mcps_schema_verdict {
    MCPS_SCHEMA_VALID,        /* the instance satisfies the schema (or: the schema is sound) */
    MCPS_SCHEMA_INVALID,      /* the instance breaks at least one constraint */
    MCPS_SCHEMA_SCHEMA_ERROR, /* the schema itself is broken, so there is no verdict */
    MCPS_SCHEMA_UNSUPPORTED,  /* cannot check: a feature we do not implement decides it */
    MCPS_SCHEMA_TOO_COMPLEX,  /* the depth limit or the work budget ran out */
} mcps_schema_verdict;

typedef enum mcps_schema_dialect {
    MCPS_SCHEMA_DIALECT_2020_12,
    MCPS_SCHEMA_DIALECT_DRAFT_07,
    MCPS_SCHEMA_DIALECT_UNKNOWN, /* $schema names something else; 2020-12 rules were applied */
} mcps_schema_dialect;

/*
 * A schema document the caller already holds, known by the URI it would be
 * retrieved from (its own $id, if any, applies inside it). References to it
 * resolve; references to anything else stay "unsupported", never fetched.
 */
typedef struct mcps_schema_document {
    const char *uri;
    const cJSON *schema;
} mcps_schema_document;

/* Zero limits take their defaults, so {.format_assertion = true} is a complete setting. */
typedef struct mcps_schema_options {
    size_t max_depth;      /* see MCPS_SCHEMA_DEFAULT_MAX_DEPTH */
    size_t max_steps;      /* see MCPS_SCHEMA_DEFAULT_MAX_STEPS */
    bool format_assertion; /* make "format" an assertion (2020-12 makes it an annotation) */
    const mcps_schema_document *documents; /* other documents $ref may reach (may be NULL) */
    size_t ndocuments;
    /* Rules for a schema without $schema: 2020-12 (the zero value) or draft-07. */
    mcps_schema_dialect dialect;
} mcps_schema_options;

/*
 * One problem. For validation, instance_path points into the instance and
 * schema_path to the failing keyword in the schema document (after following
 * $ref, so it names the keyword where it is written). For mcps_schema_check,
 * instance_path is "" and schema_path points at the faulty value. Both are RFC
 * 6901 JSON Pointers ("" is the root).
 */
typedef struct mcps_schema_error {
    mcps_schema_verdict kind; /* INVALID, SCHEMA_ERROR, UNSUPPORTED or TOO_COMPLEX */
    char *instance_path;
    char *schema_path;
    char *message; /* e.g. "expected integer, got string" */
} mcps_schema_error;

/*
 * Caller-owned; filled by the calls below, which start by zeroing it. Release
 * the strings with mcps_schema_result_free(). If memory runs out, errors are
 * counted but not kept; the verdict stays right.
 */
typedef struct mcps_schema_result {
    mcps_schema_verdict verdict;
    mcps_schema_dialect dialect;
    size_t steps;   /* work units spent */
    size_t nerrors; /* all errors found, even those not kept */
    size_t nkept;   /* errors[0..nkept) */
    mcps_schema_error errors[MCPS_SCHEMA_MAX_ERRORS];
} mcps_schema_result;

/* The defaults, for callers that want to change one field. */
mcps_schema_options mcps_schema_default_options(void);

/* Which rules a schema asks for: its root $schema, 2020-12 when absent. */
mcps_schema_dialect mcps_schema_dialect_of(const cJSON *schema);

/*
 * Validate instance against schema. opts may be NULL for the defaults. Returns
 * out->verdict. Validation reports only the schema faults it trips over; run
 * mcps_schema_check() once per schema to find them all. An unknown $schema is
 * not an error here: 2020-12 rules apply and out->dialect says UNKNOWN.
 */
mcps_schema_verdict mcps_schema_validate(const cJSON *schema, const cJSON *instance,
                                         const mcps_schema_options *opts, mcps_schema_result *out);

/*
 * Meta-validation: is schema a well-formed schema of its dialect? Checks that
 * every known keyword has a value of the right type (type names, required
 * arrays of unique strings, subschemas, non-negative integers, ...), that
 * $ref resolves without a cycle that consumes no input (and that its target,
 * wherever it sits, is a sound schema), that patterns compile, and that
 * $schema names a dialect we know. VALID means no problem found;
 * SCHEMA_ERROR lists the problems; UNSUPPORTED means only things we cannot
 * check (a lookahead pattern, an external $ref, an unknown dialect).
 */
mcps_schema_verdict mcps_schema_check(const cJSON *schema, const mcps_schema_options *opts,
                                      mcps_schema_result *out);

/* Free the strings held by out; the struct itself stays the caller's. */
void mcps_schema_result_free(mcps_schema_result *out);

/* Human name of a verdict: "valid", "invalid", "schema error", ... */
const char *mcps_schema_verdict_name(mcps_schema_verdict v);

/* ---- regex: the ECMA-262 subset used for pattern ----------------------------- */

typedef struct mcps_schema_regex mcps_schema_regex;

typedef enum mcps_schema_regex_status {
    MCPS_SCHEMA_REGEX_OK,
    MCPS_SCHEMA_REGEX_SYNTAX,      /* not an ECMA-262 regex */
    MCPS_SCHEMA_REGEX_UNSUPPORTED, /* valid, but uses a feature this engine lacks */
    MCPS_SCHEMA_REGEX_TOO_BIG,     /* compiles to more states than we allow */
} mcps_schema_regex_status;

/*
 * Compile pattern[0..len). On OK sets *out (free with mcps_schema_regex_free);
 * otherwise *out is NULL and why (may be NULL) receives a reason for a person.
 */
mcps_schema_regex_status mcps_schema_regex_compile(const char *pattern, size_t len,
                                                   mcps_schema_regex **out, char *why,
                                                   size_t whylen);

/*
 * Unanchored search, as JSON Schema's "pattern" means: 1 when the regex matches
 * somewhere in text[0..len) (UTF-8), 0 when not, -1 when *budget (VM steps,
 * decremented as they are spent) ran out first.
 */
int mcps_schema_regex_search(const mcps_schema_regex *re, const char *text, size_t len,
                             size_t *budget);

void mcps_schema_regex_free(mcps_schema_regex *re);

/* ---- randomness for generators ----------------------------------------------- */

/* A splitmix64 generator; caller-owned, so streams are reproducible and
 * independent. The value generator (engine/jsonschema_gen.h) draws from it,
 * and so does the regex engine when it invents a matching string. */
typedef struct mcps_schema_prng {
    uint64_t state;
} mcps_schema_prng;

void mcps_schema_prng_seed(mcps_schema_prng *prng, uint64_t seed);
uint64_t mcps_schema_prng_next(mcps_schema_prng *prng);
/* Uniform in [0, n); 0 when n is 0. */
uint64_t mcps_schema_prng_below(mcps_schema_prng *prng, uint64_t n);

#endif
