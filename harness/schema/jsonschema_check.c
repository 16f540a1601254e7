/*
 * jsonschema_check.c - meta-validation: is this a well-formed schema of its dialect?
 *
 * MCP requires every inputSchema/outputSchema/requestedSchema a peer emits to
 * be a valid schema (GEN-JSCH-003). Rather than validate against the official
 * meta-schemas (which need $dynamicRef and vocabularies), we walk the schema
 * once and check each keyword we know against the type its dialect requires,
 * descending into every subschema, and report each problem with a JSON
 * Pointer to it. On top of the meta-schema we check what only a reader can:
 * that patterns are ECMA-262 regexes, and that each $ref resolves locally
 * without a cycle that would never consume input.
 */
#include "schema/jsonschema.h"

#include "schema/jsonschema_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum rule {
    K_ANY,          /* const, default: any value */
    K_STRING,       /* title, description, format, ... */
    K_BOOL,         /* uniqueItems, readOnly, ... */
    K_ARRAY,        /* enum, examples */
    K_NUMBER,       /* minimum, maximum */
    K_EXCLUSIVE,    /* exclusiveMinimum/Maximum: a number (draft-04's boolean is wrong) */
    K_POSITIVE,     /* multipleOf */
    K_COUNT,        /* non-negative integers: minLength, maxItems, ... */
    K_TYPE,         /* a type name or a non-empty array of distinct ones */
    K_NAMES,        /* required: distinct strings */
    K_NAMES_MAP,    /* dependentRequired: object of K_NAMES */
    K_DEPENDENCIES, /* object of schemas or K_NAMES */
    K_REGEX,        /* pattern */
    K_SCHEMA,       /* one subschema */
    K_SCHEMA_MAP,   /* object of subschemas: properties, $defs, ... */
    K_PATTERN_MAP,  /* patternProperties: regex keys, subschema values */
    K_SCHEMA_LIST,  /* allOf, anyOf, oneOf, prefixItems: non-empty array of subschemas */
    K_ITEMS,        /* a subschema; in draft-07 also an array of them */
    K_REF,          /* $ref: resolves, no cycle */
    K_DYNAMIC_REF,  /* $dynamicRef: cannot check */
} rule;

/* "dependencies" and "definitions" apply to 2020-12 too: its meta-schema keeps them. */
static const struct keyword_rule {
    const char *name;
    unsigned dialects;
    rule rule;
} RULES[] = {
    /* sorted by strcmp: looked up with bsearch */
    {"$anchor", D20, K_STRING},
    {"$comment", DALL, K_STRING},
    {"$defs", D20, K_SCHEMA_MAP},
    {"$dynamicAnchor", D20, K_STRING},
    {"$dynamicRef", D20, K_DYNAMIC_REF},
    {"$id", DALL, K_STRING},
    {"$ref", DALL, K_REF},
    {"$schema", DALL, K_STRING},
    {"additionalItems", D07, K_SCHEMA},
    {"additionalProperties", DALL, K_SCHEMA},
    {"allOf", DALL, K_SCHEMA_LIST},
    {"anyOf", DALL, K_SCHEMA_LIST},
    {"const", DALL, K_ANY},
    {"contains", DALL, K_SCHEMA},
    {"contentEncoding", DALL, K_STRING},
    {"contentMediaType", DALL, K_STRING},
    {"contentSchema", D20, K_SCHEMA},
    {"definitions", DALL, K_SCHEMA_MAP},
    {"dependencies", DALL, K_DEPENDENCIES},
    {"dependentRequired", D20, K_NAMES_MAP},
    {"dependentSchemas", D20, K_SCHEMA_MAP},
    {"deprecated", D20, K_BOOL},
    {"description", DALL, K_STRING},
    {"else", DALL, K_SCHEMA},
    {"enum", DALL, K_ARRAY},
    {"examples", DALL, K_ARRAY},
    {"exclusiveMaximum", DALL, K_EXCLUSIVE},
    {"exclusiveMinimum", DALL, K_EXCLUSIVE},
    {"format", DALL, K_STRING},
    {"if", DALL, K_SCHEMA},
    {"items", DALL, K_ITEMS},
    {"maxContains", D20, K_COUNT},
    {"maxItems", DALL, K_COUNT},
    {"maxLength", DALL, K_COUNT},
    {"maxProperties", DALL, K_COUNT},
    {"maximum", DALL, K_NUMBER},
    {"minContains", D20, K_COUNT},
    {"minItems", DALL, K_COUNT},
    {"minLength", DALL, K_COUNT},
    {"minProperties", DALL, K_COUNT},
    {"minimum", DALL, K_NUMBER},
    {"multipleOf", DALL, K_POSITIVE},
    {"not", DALL, K_SCHEMA},
    {"oneOf", DALL, K_SCHEMA_LIST},
    {"pattern", DALL, K_REGEX},
    {"patternProperties", DALL, K_PATTERN_MAP},
    {"prefixItems", D20, K_SCHEMA_LIST},
    {"properties", DALL, K_SCHEMA_MAP},
    {"propertyNames", DALL, K_SCHEMA},
    {"readOnly", DALL, K_BOOL},
    {"required", DALL, K_NAMES},
    {"then", DALL, K_SCHEMA},
    {"title", DALL, K_STRING},
    {"type", DALL, K_TYPE},
    {"unevaluatedItems", D20, K_SCHEMA},
    {"unevaluatedProperties", D20, K_SCHEMA},
    {"uniqueItems", DALL, K_BOOL},
    {"writeOnly", DALL, K_BOOL},
};

/* A set of schema nodes: those already walked, those seen by a cycle search. */
typedef struct node_set {
    const cJSON **slot;
    size_t cap, used;
} node_set;

static size_t slot_of(const node_set *s, const cJSON *n)
{
    uint64_t h = (uint64_t)(uintptr_t)n * 0x9E3779B97F4A7C15ULL;
    size_t j = (size_t)(h ^ (h >> 29)) & (s->cap - 1);
    while (s->slot[j] && s->slot[j] != n)
        j = (j + 1) & (s->cap - 1);
    return j;
}

/* Add n; 1 added, 0 already there, -1 OOM. */
static int set_add(node_set *s, const cJSON *n)
{
    if ((s->used + 1) * 2 > s->cap) {
        node_set t = {calloc(s->cap ? s->cap * 2 : 64, sizeof *t.slot), s->cap ? s->cap * 2 : 64,
                      0};
        if (!t.slot)
            return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i])
                t.slot[slot_of(&t, s->slot[i])] = s->slot[i], t.used++;
        free(s->slot);
        *s = t;
    }
    size_t j = slot_of(s, n);
    if (s->slot[j])
        return 0;
    s->slot[j] = n;
    s->used++;
    return 1;
}

typedef struct cctx {
    const cJSON *root;
    unsigned dialect; /* D07 or D20 */
    mcps_schema_options opt;
    mcps_schema_result *out;
    size_t depth;
    bool too_complex;
    bool broken;      /* a SCHEMA_ERROR problem was found */
    bool unsupported; /* an UNSUPPORTED problem was found */
    node_set walked;  /* schema objects checked, so $ref targets are checked once */
} cctx;

static void walk(cctx *c, const cJSON *s, const mcps_si_path *sp);

static void problem(cctx *c, mcps_schema_verdict kind, const mcps_si_path *sp, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void problem(cctx *c, mcps_schema_verdict kind, const mcps_si_path *sp, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mcps_si_result_add(c->out, kind, NULL, sp, NULL, "%s", msg);
    c->broken |= kind == MCPS_SCHEMA_SCHEMA_ERROR;
    c->unsupported |= kind == MCPS_SCHEMA_UNSUPPORTED;
    c->too_complex |= kind == MCPS_SCHEMA_TOO_COMPLEX;
}

/* One unit of work; false (reported once) when the budget is gone. */
static bool charge(cctx *c, const mcps_si_path *sp)
{
    if (c->too_complex)
        return false;
    if (c->out->steps++ < c->opt.max_steps)
        return true;
    problem(c, MCPS_SCHEMA_TOO_COMPLEX, sp, "the work budget ran out; the schema is too large");
    return false;
}

static bool is_schema(const cJSON *v)
{
    return cJSON_IsObject(v) || cJSON_IsBool(v);
}

static bool is_count(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && mcps_si_num_is_integer(v);
}

static bool positive(const cJSON *number)
{
    mcps_si_dec d;
    bool ok = mcps_si_dec_init(&d, number) && d.n > 0 && !d.neg;
    mcps_si_dec_free(&d);
    return ok;
}

/* ---- value shapes ------------------------------------------------------------- */

/* Distinct strings; otherwise a problem at the first offender. */
static bool check_names(cctx *c, const cJSON *v, const mcps_si_path *sp, const char *what)
{
    size_t i = 0;
    if (!cJSON_IsArray(v)) {
        problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp, "%s must be an array of strings", what);
        return false;
    }
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        mcps_si_path ip = {sp, NULL, i, NULL};
        if (!cJSON_IsString(e)) {
            problem(c, MCPS_SCHEMA_SCHEMA_ERROR, &ip, "%s must hold only strings, not %s", what,
                    mcps_si_type_name(e));
            return false;
        }
        for (const cJSON *f = v->child; f != e; f = f->next) {
            if (strcmp(f->valuestring, e->valuestring) == 0) {
                problem(c, MCPS_SCHEMA_SCHEMA_ERROR, &ip, "%s repeats \"%.60s\"", what,
                        e->valuestring);
                return false;
            }
        }
    }
    return true;
}

static void check_type(cctx *c, const cJSON *v, const mcps_si_path *sp)
{
    size_t i = 0;
    if (cJSON_IsString(v)) {
        if (!mcps_si_known_type(v->valuestring))
            problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp, "\"%.40s\" is not a JSON Schema type name",
                    v->valuestring);
        return;
    }
    if (!cJSON_IsArray(v) || !v->child) {
        problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp,
                "type must be a type name or a non-empty array of type names");
        return;
    }
    if (!check_names(c, v, sp, "type"))
        return;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        mcps_si_path ip = {sp, NULL, i, NULL};
        if (!mcps_si_known_type(e->valuestring))
            problem(c, MCPS_SCHEMA_SCHEMA_ERROR, &ip, "\"%.40s\" is not a JSON Schema type name",
                    e->valuestring);
    }
}

static void check_regex(cctx *c, const char *pattern, const mcps_si_path *sp)
{
    char why[96];
    mcps_schema_regex *re = NULL;
    mcps_schema_regex_status st =
        mcps_schema_regex_compile(pattern, strlen(pattern), &re, why, sizeof why);
    mcps_schema_regex_free(re);
    if (st == MCPS_SCHEMA_REGEX_SYNTAX)
        problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp, "\"%.60s\" is not a valid ECMA-262 regex: %s",
                pattern, why);
    else if (st == MCPS_SCHEMA_REGEX_UNSUPPORTED)
        problem(c, MCPS_SCHEMA_UNSUPPORTED, sp,
                "cannot check regex \"%.60s\": it uses an unsupported feature (%s)", pattern, why);
    else if (st == MCPS_SCHEMA_REGEX_TOO_BIG)
        problem(c, MCPS_SCHEMA_TOO_COMPLEX, sp, "regex \"%.60s\" is too large to run: %s", pattern,
                why);
}

/* ---- subschema containers -------------------------------------------------------- */

static void walk_map(cctx *c, const cJSON *v, const mcps_si_path *sp, bool regex_keys)
{
    if (!cJSON_IsObject(v)) {
        problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp, "must be an object whose values are schemas");
        return;
    }
    for (const cJSON *m = v->child; m && !c->too_complex; m = m->next) {
        mcps_si_path mp = {sp, m->string, 0, NULL};
        if (regex_keys)
            check_regex(c, m->string, &mp);
        walk(c, m, &mp);
    }
}

static void walk_list(cctx *c, const cJSON *v, const mcps_si_path *sp)
{
    size_t i = 0;
    if (!cJSON_IsArray(v) || !v->child) {
        problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp, "must be a non-empty array of schemas");
        return;
    }
    for (const cJSON *e = v->child; e && !c->too_complex; e = e->next, i++) {
        mcps_si_path ep = {sp, NULL, i, NULL};
        walk(c, e, &ep);
    }
}

static void walk_dependencies(cctx *c, const cJSON *v, const mcps_si_path *sp, bool names_only)
{
    if (!cJSON_IsObject(v)) {
        problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp, "must be an object");
        return;
    }
    for (const cJSON *m = v->child; m && !c->too_complex; m = m->next) {
        mcps_si_path mp = {sp, m->string, 0, NULL};
        if (names_only || cJSON_IsArray(m))
            check_names(c, m, &mp, "a dependency list");
        else
            walk(c, m, &mp);
    }
}

/* ---- $ref ---------------------------------------------------------------------- */

/* A growable stack of schema nodes still to visit. */
typedef struct node_stack {
    const cJSON **v;
    size_t n, cap;
} node_stack;

static bool stack_push(node_stack *st, const cJSON *n)
{
    if (st->n == st->cap) {
        size_t ncap = st->cap ? st->cap * 2 : 64;
        const cJSON **t = realloc(st->v, ncap * sizeof *t);
        if (!t)
            return false;
        st->v = t;
        st->cap = ncap;
    }
    st->v[st->n++] = n;
    return true;
}

/* Push the schemas applied to the same instance as s: reaching them consumes no input. */
static bool push_in_place(const cctx *c, const cJSON *s, node_stack *st)
{
    static const char *const single[] = {"not", "if", "then", "else"};
    static const char *const lists[] = {"allOf", "anyOf", "oneOf"};
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(s, "$ref"), *t;
    bool ok = true;
    if (cJSON_IsString(ref) && mcps_si_ref_resolve(c->root, ref->valuestring, &t) == MCPS_SI_REF_OK)
        ok &= stack_push(st, t);
    if (ref && c->dialect == D07)
        return ok; /* draft-07 ignores $ref's siblings */
    for (size_t i = 0; i < sizeof single / sizeof *single; i++)
        if ((t = cJSON_GetObjectItemCaseSensitive(s, single[i])))
            ok &= stack_push(st, t);
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(s, lists[i]);
        for (const cJSON *e = cJSON_IsArray(l) ? l->child : NULL; e; e = e->next)
            ok &= stack_push(st, e);
    }
    return ok;
}

/* Can evaluation go from target back to holder without consuming input? 1, 0, -1 unknown. */
static int ref_cycle(cctx *c, const cJSON *holder, const cJSON *target, const mcps_si_path *sp)
{
    node_set seen = {0};
    node_stack todo = {0};
    int found = stack_push(&todo, target) ? 0 : -1;
    while (found == 0 && todo.n) {
        const cJSON *s = todo.v[--todo.n];
        if (s == holder) {
            found = 1;
            break;
        }
        if (!cJSON_IsObject(s))
            continue;
        int added = set_add(&seen, s);
        if (added < 0 || !charge(c, sp) || (added && !push_in_place(c, s, &todo)))
            found = -1;
    }
    free(todo.v);
    free(seen.slot);
    return found;
}

static void check_ref(cctx *c, const cJSON *holder, const cJSON *v, const mcps_si_path *sp)
{
    const cJSON *target;
    if (!cJSON_IsString(v)) {
        problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp, "$ref must be a string");
        return;
    }
    switch (mcps_si_ref_resolve(c->root, v->valuestring, &target)) {
    case MCPS_SI_REF_BROKEN:
        problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp,
                "$ref \"%.80s\" does not resolve within this schema", v->valuestring);
        return;
    case MCPS_SI_REF_EXTERNAL:
        problem(c, MCPS_SCHEMA_UNSUPPORTED, sp,
                "cannot check $ref \"%.80s\": not a local reference, and references are never "
                "fetched",
                v->valuestring);
        return;
    default:
        break;
    }
    if (!is_schema(target)) {
        problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp, "$ref \"%.80s\" points at a %s, not a schema",
                v->valuestring, mcps_si_type_name(target));
        return;
    }
    if (ref_cycle(c, holder, target, sp) == 1)
        problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp,
                "$ref \"%.80s\" leads back to itself without consuming any input", v->valuestring);
    /* The target may sit where the walk never goes (draft-07 $defs, a vendor keyword). */
    mcps_si_path target_path = {NULL, NULL, 0, v->valuestring};
    walk(c, target, &target_path);
}

/* ---- keywords ------------------------------------------------------------------- */

static void check_simple(cctx *c, rule r, const cJSON *v, const mcps_si_path *sp)
{
    static const char *const want[] = {
        [K_STRING] = "a string",
        [K_BOOL] = "a boolean",
        [K_ARRAY] = "an array",
        [K_NUMBER] = "a number",
        [K_POSITIVE] = "a number greater than 0",
        [K_COUNT] = "a non-negative integer",
    };
    bool ok = true;
    switch (r) {
    case K_STRING:
        ok = cJSON_IsString(v);
        break;
    case K_BOOL:
        ok = cJSON_IsBool(v);
        break;
    case K_ARRAY:
        ok = cJSON_IsArray(v);
        break;
    case K_NUMBER:
        ok = cJSON_IsNumber(v);
        break;
    case K_POSITIVE:
        ok = cJSON_IsNumber(v) && positive(v);
        break;
    default:
        ok = is_count(v);
    }
    if (!ok)
        problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp, "%s must be %s, not %s", sp->key, want[r],
                mcps_si_type_name(v));
}

static void check_exclusive(cctx *c, const cJSON *v, const mcps_si_path *sp)
{
    if (cJSON_IsBool(v))
        problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp,
                "%s must be a number; the boolean form is draft-04's", sp->key);
    else if (!cJSON_IsNumber(v))
        problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp, "%s must be a number, not %s", sp->key,
                mcps_si_type_name(v));
}

static void check_items(cctx *c, const cJSON *v, const mcps_si_path *sp)
{
    if (cJSON_IsArray(v) && c->dialect == D07)
        walk_list(c, v, sp);
    else if (cJSON_IsArray(v))
        problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp,
                "in 2020-12 items must be a schema; tuples use prefixItems");
    else
        walk(c, v, sp);
}

static void check_pattern(cctx *c, const cJSON *v, const mcps_si_path *sp)
{
    if (cJSON_IsString(v))
        check_regex(c, v->valuestring, sp);
    else
        problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp, "pattern must be a string");
}

static void check_keyword(cctx *c, const cJSON *holder, rule r, const cJSON *v,
                          const mcps_si_path *sp)
{
    switch (r) {
    case K_ANY:
        break;
    case K_EXCLUSIVE:
        check_exclusive(c, v, sp);
        break;
    case K_TYPE:
        check_type(c, v, sp);
        break;
    case K_NAMES:
        check_names(c, v, sp, sp->key);
        break;
    case K_NAMES_MAP:
    case K_DEPENDENCIES:
        walk_dependencies(c, v, sp, r == K_NAMES_MAP);
        break;
    case K_REGEX:
        check_pattern(c, v, sp);
        break;
    case K_SCHEMA:
        walk(c, v, sp);
        break;
    case K_SCHEMA_MAP:
    case K_PATTERN_MAP:
        walk_map(c, v, sp, r == K_PATTERN_MAP);
        break;
    case K_SCHEMA_LIST:
        walk_list(c, v, sp);
        break;
    case K_ITEMS:
        check_items(c, v, sp);
        break;
    case K_REF:
        check_ref(c, holder, v, sp);
        break;
    case K_DYNAMIC_REF:
        problem(c, MCPS_SCHEMA_UNSUPPORTED, sp, "cannot check $dynamicRef targets");
        break;
    default:
        check_simple(c, r, v, sp);
    }
}

static int rule_order(const void *name, const void *entry)
{
    return strcmp(name, ((const struct keyword_rule *)entry)->name);
}

static const struct keyword_rule *rule_for(const cctx *c, const char *name)
{
    const struct keyword_rule *r =
        bsearch(name, RULES, sizeof RULES / sizeof *RULES, sizeof *RULES, rule_order);
    return r && (r->dialects & c->dialect) ? r : NULL;
}

static void walk(cctx *c, const cJSON *s, const mcps_si_path *sp)
{
    if (!charge(c, sp) || cJSON_IsBool(s))
        return;
    if (!cJSON_IsObject(s)) {
        problem(c, MCPS_SCHEMA_SCHEMA_ERROR, sp, "a schema must be an object or a boolean, not %s",
                mcps_si_type_name(s));
        return;
    }
    if (c->depth >= c->opt.max_depth) {
        problem(c, MCPS_SCHEMA_TOO_COMPLEX, sp, "schema nesting goes deeper than %zu levels",
                c->opt.max_depth);
        return;
    }
    int fresh = set_add(&c->walked, s);
    if (fresh <= 0) {
        if (fresh < 0)
            problem(c, MCPS_SCHEMA_TOO_COMPLEX, sp, "out of memory");
        return;
    }
    c->depth++;
    for (const cJSON *kw = s->child; kw && !c->too_complex; kw = kw->next) {
        const struct keyword_rule *r = rule_for(c, kw->string);
        mcps_si_path kp = {sp, kw->string, 0, NULL};
        if (r)
            check_keyword(c, s, r->rule, kw, &kp);
    }
    c->depth--;
}

static void check_dialect(cctx *c, const cJSON *schema, mcps_schema_dialect d)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(schema, "$schema");
    mcps_si_path sp = {NULL, "$schema", 0, NULL};
    if (d == MCPS_SCHEMA_DIALECT_UNKNOWN && cJSON_IsString(s))
        problem(c, MCPS_SCHEMA_UNSUPPORTED, &sp,
                "$schema \"%.80s\" names a dialect this checker does not know; checked as 2020-12",
                s->valuestring);
}

mcps_schema_verdict mcps_schema_check(const cJSON *schema, const mcps_schema_options *opts,
                                      mcps_schema_result *out)
{
    cctx c = {0};
    memset(out, 0, sizeof *out);
    c.root = schema;
    c.opt = mcps_si_options(opts);
    c.out = out;
    out->dialect = mcps_si_dialect(schema, &c.opt);
    c.dialect = out->dialect == MCPS_SCHEMA_DIALECT_DRAFT_07 ? D07 : D20;
    if (!schema) {
        problem(&c, MCPS_SCHEMA_SCHEMA_ERROR, NULL, "no schema");
    } else {
        if (cJSON_IsObject(schema))
            check_dialect(&c, schema, out->dialect);
        walk(&c, schema, NULL);
    }
    free(c.walked.slot);
    out->verdict = c.broken        ? MCPS_SCHEMA_SCHEMA_ERROR
                   : c.too_complex ? MCPS_SCHEMA_TOO_COMPLEX
                   : c.unsupported ? MCPS_SCHEMA_UNSUPPORTED
                                   : MCPS_SCHEMA_VALID;
    return out->verdict;
}
