/*
 * jsonschema.c - validation: walk schema and instance together, keyword by keyword.
 *
 * The schema is interpreted straight from its cJSON tree; nothing is compiled
 * ahead except regexes, cached per validation. Each keyword has a handler
 * (jsonschema_kwval.c for values and arrays, jsonschema_kwobj.c for objects,
 * combinators and $ref) that answers OK, FAIL, UNKNOWN (a feature we lack
 * decides it, e.g. a lookahead pattern) or ABORT (the schema is broken, or the
 * depth or work budget ran out). UNKNOWN follows three-valued logic through
 * allOf/anyOf/oneOf/not/if, so a pattern we cannot run only spoils the verdict
 * when it could change it.
 *
 * Servers write these schemas, so every recursion is counted against
 * max_depth, every subschema application spends one step of max_steps, and a
 * $ref that comes back to the same (schema, instance) pair is a cycle that
 * would never end. Paths for error messages live on the C stack
 * (mcps_si_path) and become strings only when an error is kept.
 */
#include "schema/jsonschema.h"

#include "schema/jsonschema_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What we learned about one string of the schema: a pattern compiled, or a $ref resolved. */
typedef struct mcps_si_cache_entry {
    const char *source; /* the string's address in the schema tree: the key */
    bool is_ref;
    mcps_schema_regex *re;
    mcps_schema_regex_status status;
    char why[96];
    mcps_si_ref_status ref_status;
    mcps_si_target target;
} cache_entry;

/* ---- outcomes ----------------------------------------------------------------- */

mcps_si_outcome mcps_si_fail(mcps_si_vctx *c, const mcps_si_kw *k, const mcps_si_path *ip,
                             const char *fmt, ...)
{
    if (c->quiet)
        return R_FAIL;
    if (c->out->nkept >= MCPS_SCHEMA_MAX_ERRORS) { /* counted, not kept: skip the formatting */
        c->out->nerrors++;
        return R_FAIL;
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mcps_si_result_add(c->out, MCPS_SCHEMA_INVALID, ip, k->sp, k->kw->string, "%s", msg);
    return R_FAIL;
}

mcps_si_outcome mcps_si_stop(mcps_si_vctx *c, mcps_schema_verdict kind, const mcps_si_path *ip,
                             const mcps_si_path *sp, const char *key, const char *msg)
{
    mcps_si_result_add(c->out, kind, ip, sp, key, "%s", msg);
    if (kind == MCPS_SCHEMA_UNSUPPORTED)
        return R_UNKNOWN;
    c->abort_kind = kind;
    return R_ABORT;
}

mcps_si_outcome mcps_si_bad_schema(mcps_si_vctx *c, const mcps_si_kw *k, const char *msg)
{
    return mcps_si_stop(c, MCPS_SCHEMA_SCHEMA_ERROR, k->ip, k->sp, k->kw->string, msg);
}

mcps_si_outcome mcps_si_unsupported(mcps_si_vctx *c, const mcps_si_kw *k, const char *msg)
{
    return mcps_si_stop(c, MCPS_SCHEMA_UNSUPPORTED, k->ip, k->sp, k->kw->string, msg);
}

mcps_si_outcome mcps_si_out_of_budget(mcps_si_vctx *c, const mcps_si_kw *k)
{
    return mcps_si_stop(c, MCPS_SCHEMA_TOO_COMPLEX, k->ip, k->sp, k->kw->string,
                        "the work budget ran out; the schema is too expensive to evaluate");
}

/* ---- budget --------------------------------------------------------------------- */

size_t mcps_si_remaining(const mcps_si_vctx *c)
{
    return c->out->steps < c->opt.max_steps ? c->opt.max_steps - c->out->steps : 0;
}

void mcps_si_spend(mcps_si_vctx *c, size_t n)
{
    c->out->steps += n;
}

/* JSON Schema equality, charged to the budget: 1 equal, 0 not, -1 out of budget. */
int mcps_si_equal_charged(mcps_si_vctx *c, const cJSON *a, const cJSON *b)
{
    size_t budget = mcps_si_remaining(c), start = budget;
    int r = mcps_si_equal(a, b, &budget);
    mcps_si_spend(c, start - budget);
    return r;
}

/* ---- small readers -------------------------------------------------------------- */

const cJSON *mcps_si_sibling(const mcps_si_kw *k, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(k->schema, name);
}

bool mcps_si_is_schema(const cJSON *v)
{
    return cJSON_IsObject(v) || cJSON_IsBool(v);
}

/* A non-negative integer keyword value (1.0 counts), saturating at 10^18. */
bool mcps_si_count_value(const cJSON *v, size_t *n)
{
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || !mcps_si_num_is_integer(v))
        return false;
    double d = v->valuedouble;
    *n = d >= 1e18 ? (size_t)1e18 : (size_t)d;
    return true;
}

bool mcps_si_known_type(const char *name)
{
    static const char *const names[] = {"null",   "boolean", "object", "array",
                                        "number", "string",  "integer"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

const char *mcps_si_brief_into(const mcps_si_vctx *c, char *dst, size_t n, const cJSON *v)
{
    dst[0] = '\0';
    if (c->quiet || c->out->nkept >= MCPS_SCHEMA_MAX_ERRORS)
        return dst; /* nobody will read it; a big enum is expensive to print */
    mcps_buf b = {0};
    mcps_si_brief(&b, v, n > 4 ? n - 4 : 0);
    snprintf(dst, n, "%s", b.data && !b.oom ? b.data : "(value)");
    mcps_buf_free(&b);
    return dst;
}

/* ---- per-validation cache of regexes and $ref targets ------------------------- */

static uint64_t addr_hash(const void *p)
{
    uint64_t z = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ULL;
    return z ^ (z >> 29);
}

static bool cache_grow(mcps_si_vctx *c)
{
    size_t ncap = c->cachecap ? c->cachecap * 2 : 16;
    cache_entry *t = calloc(ncap, sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < c->cachecap; i++) {
        if (!c->cache[i].source)
            continue;
        size_t j = addr_hash(c->cache[i].source) & (ncap - 1);
        while (t[j].source)
            j = (j + 1) & (ncap - 1);
        t[j] = c->cache[i];
    }
    free(c->cache);
    c->cache = t;
    c->cachecap = ncap;
    return true;
}

/* The cache slot for a string of the schema, new ones zeroed; NULL on OOM. */
static cache_entry *cache_slot(mcps_si_vctx *c, const char *source, bool *fresh)
{
    if ((c->cacheused + 1) * 2 > c->cachecap && !cache_grow(c))
        return NULL;
    size_t j = addr_hash(source) & (c->cachecap - 1);
    while (c->cache[j].source && c->cache[j].source != source)
        j = (j + 1) & (c->cachecap - 1);
    cache_entry *e = &c->cache[j];
    *fresh = !e->source;
    if (*fresh) {
        e->source = source;
        c->cacheused++;
    }
    return e;
}

/* The compiled regex for a pattern string held by the schema; NULL on OOM. */
static const cache_entry *regex_for(mcps_si_vctx *c, const char *source)
{
    bool fresh;
    cache_entry *e = cache_slot(c, source, &fresh);
    if (e && fresh)
        e->status =
            mcps_schema_regex_compile(source, strlen(source), &e->re, e->why, sizeof e->why);
    return e;
}

/* A $ref string always sits under the same base, so its target can be remembered. */
mcps_si_ref_status mcps_si_resolve(mcps_si_vctx *c, const char *ref, mcps_si_target *target)
{
    bool fresh;
    cache_entry *e = cache_slot(c, ref, &fresh);
    if (!e)
        return mcps_si_index_resolve(c, ref, false, target);
    if (fresh) {
        e->is_ref = true;
        e->ref_status = mcps_si_index_resolve(c, ref, false, &e->target);
    }
    *target = e->target;
    return e->ref_status;
}

static void cache_free(mcps_si_vctx *c)
{
    for (size_t i = 0; i < c->cachecap; i++)
        mcps_schema_regex_free(c->cache[i].re);
    free(c->cache);
}

/* Regex VM steps are cheaper than subschema steps: 16 of them cost one unit. */
#define RX_STEPS_PER_UNIT 16

/* 1 match, 0 no match, -1 cannot tell (unsupported), -2 aborted (reported). */
int mcps_si_regex_test(mcps_si_vctx *c, mcps_si_rx_site at, const char *pattern, const char *text)
{
    char msg[200];
    const cache_entry *e = regex_for(c, pattern);
    if (!e)
        return mcps_si_stop(c, MCPS_SCHEMA_TOO_COMPLEX, at.ip, at.sp, at.key, "out of memory"), -2;
    if (e->status == MCPS_SCHEMA_REGEX_SYNTAX) {
        snprintf(msg, sizeof msg, "\"%.60s\" is not a valid ECMA-262 regex: %s", pattern, e->why);
        return mcps_si_stop(c, MCPS_SCHEMA_SCHEMA_ERROR, at.ip, at.sp, at.key, msg), -2;
    }
    if (e->status == MCPS_SCHEMA_REGEX_TOO_BIG) {
        snprintf(msg, sizeof msg, "regex \"%.60s\" is too large to run: %s", pattern, e->why);
        return mcps_si_stop(c, MCPS_SCHEMA_TOO_COMPLEX, at.ip, at.sp, at.key, msg), -2;
    }
    if (e->status == MCPS_SCHEMA_REGEX_UNSUPPORTED)
        return -1;
    size_t rem = mcps_si_remaining(c);
    size_t budget = rem > SIZE_MAX / RX_STEPS_PER_UNIT ? SIZE_MAX : rem * RX_STEPS_PER_UNIT;
    size_t start = budget;
    int r = mcps_schema_regex_search(e->re, text, strlen(text), &budget);
    mcps_si_spend(c, (start - budget + RX_STEPS_PER_UNIT - 1) / RX_STEPS_PER_UNIT);
    if (r < 0)
        return mcps_si_stop(c, MCPS_SCHEMA_TOO_COMPLEX, at.ip, at.sp, at.key,
                            "the work budget ran out while matching a regex"),
               -2;
    return r;
}

/* Explain a -1 from regex_test: which feature stopped us. */
mcps_si_outcome mcps_si_regex_unknown(mcps_si_vctx *c, mcps_si_rx_site at, const char *pattern,
                                      const char *what)
{
    char msg[240];
    const cache_entry *e = regex_for(c, pattern);
    snprintf(msg, sizeof msg, "cannot check %s: regex \"%.60s\" uses an unsupported feature (%s)",
             what, pattern, e ? e->why : "?");
    return mcps_si_stop(c, MCPS_SCHEMA_UNSUPPORTED, at.ip, at.sp, at.key, msg);
}

/* ---- annotations for unevaluated* ----------------------------------------------- */

static bool is_unevaluated(const char *name)
{
    return strcmp(name, "unevaluatedProperties") == 0 || strcmp(name, "unevaluatedItems") == 0;
}

/* Must s collect annotations for inst: it has unevaluated*, or its parent collects for inst. */
static bool wants_annotations(const mcps_si_vctx *c, const cJSON *s, const cJSON *inst)
{
    if (c->draft07 || !(cJSON_IsObject(inst) || cJSON_IsArray(inst)))
        return false;
    if (c->ann && c->ann->inst == inst)
        return true;
    for (const cJSON *kw = s->child; kw; kw = kw->next)
        if (is_unevaluated(kw->string))
            return true;
    return false;
}

bool mcps_si_collecting(const mcps_si_vctx *c, const cJSON *inst)
{
    return c->ann && c->ann->inst == inst;
}

void mcps_si_mark(mcps_si_vctx *c, const cJSON *inst, size_t pos)
{
    if (mcps_si_collecting(c, inst) && pos < c->ann->n)
        c->ann->bits[pos / 64] |= (uint64_t)1 << (pos % 64);
}

void mcps_si_mark_from(mcps_si_vctx *c, const cJSON *inst, size_t first)
{
    if (!mcps_si_collecting(c, inst))
        return;
    mcps_si_spend(c, c->ann->n / 64);
    for (size_t i = first; i < c->ann->n; i++)
        c->ann->bits[i / 64] |= (uint64_t)1 << (i % 64);
}

bool mcps_si_marked(const mcps_si_vctx *c, size_t pos)
{
    return c->ann && pos < c->ann->n && (c->ann->bits[pos / 64] >> (pos % 64) & 1);
}

/* A passing subschema's marks join its parent's, when both are about the same instance. */
static void hand_up(mcps_si_vctx *c, const mcps_si_ann *from, mcps_si_ann *to)
{
    if (!to || to->inst != from->inst)
        return;
    size_t words = (from->n + 63) / 64;
    mcps_si_spend(c, words / 16);
    for (size_t i = 0; i < words; i++)
        to->bits[i] |= from->bits[i];
}

/* ---- dispatch ------------------------------------------------------------------- */

/* Keywords of the validation vocabulary, which a custom meta-schema may leave out. */
static bool validation_keyword(const char *name)
{
    static const char *const names[] = {"const",
                                        "dependentRequired",
                                        "enum",
                                        "exclusiveMaximum",
                                        "exclusiveMinimum",
                                        "maxContains",
                                        "maxItems",
                                        "maxLength",
                                        "maxProperties",
                                        "maximum",
                                        "minContains",
                                        "minItems",
                                        "minLength",
                                        "minProperties",
                                        "minimum",
                                        "multipleOf",
                                        "pattern",
                                        "required",
                                        "type",
                                        "uniqueItems"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

static int keyword_order(const void *name, const void *entry)
{
    return strcmp(name, ((const mcps_si_keyword *)entry)->name);
}

mcps_si_kw_fn mcps_si_find_keyword(const mcps_si_keyword *table, size_t n, const char *name,
                                   bool draft07)
{
    const mcps_si_keyword *k = bsearch(name, table, n, sizeof *table, keyword_order);
    return k && (k->dialects & (draft07 ? D07 : D20)) ? k->fn : NULL;
}

static mcps_si_kw_fn handler(const mcps_si_vctx *c, const char *name)
{
    if (c->no_validation && validation_keyword(name))
        return NULL;
    mcps_si_kw_fn fn = mcps_si_value_keyword(name, c->draft07);
    return fn ? fn : mcps_si_object_keyword(name, c->draft07); /* NULL: an annotation */
}

/* Every keyword but unevaluated*, then those: they read what the others evaluated. */
static mcps_si_outcome eval_keywords(mcps_si_vctx *c, const cJSON *s, const cJSON *inst,
                                     const mcps_si_path *sp, const mcps_si_path *ip)
{
    mcps_si_outcome acc = R_OK;
    for (int pass = 0; pass < 2; pass++) {
        for (const cJSON *kw = s->child; kw && !mcps_si_done(c, acc); kw = kw->next) {
            if (is_unevaluated(kw->string) != (pass == 1))
                continue;
            mcps_si_kw_fn fn = handler(c, kw->string);
            mcps_si_kw k = {s, kw, inst, sp, ip};
            if (fn)
                acc = mcps_si_both(acc, fn(c, &k));
        }
    }
    return acc;
}

/* Switch to a schema's base URI and dialect; a new resource joins the dynamic scope. */
static void enter_scope(mcps_si_vctx *c, const mcps_si_target *t)
{
    c->draft07 = t->draft07;
    if (c->base && strcmp(c->base, t->base) == 0)
        return;
    c->base = t->base;
    if (c->nscope < c->opt.max_depth + 1)
        c->scope[c->nscope++] = t->base;
}

/* Evaluate an object schema's keywords, collecting annotations when asked to. */
static mcps_si_outcome eval_object(mcps_si_vctx *c, const cJSON *s, const cJSON *inst,
                                   const mcps_si_path *sp, const mcps_si_path *ip)
{
    mcps_si_ann *parent = c->ann, local = {inst, 0, NULL};
    if (wants_annotations(c, s, inst)) {
        local.n = (size_t)cJSON_GetArraySize(inst);
        local.bits = calloc(local.n / 64 + 1, sizeof *local.bits);
        if (!local.bits)
            return mcps_si_stop(c, MCPS_SCHEMA_TOO_COMPLEX, ip, sp, NULL, "out of memory");
        mcps_si_spend(c, local.n / 64);
        c->ann = &local;
    } else {
        c->ann = NULL;
    }
    const cJSON *ref = c->draft07 ? cJSON_GetObjectItemCaseSensitive(s, "$ref") : NULL;
    mcps_si_kw k = {s, ref, inst, sp, ip};
    mcps_si_outcome r = ref ? mcps_si_kw_ref(c, &k) /* draft-07: $ref hides its siblings */
                            : eval_keywords(c, s, inst, sp, ip);
    if (r == R_OK && local.bits)
        hand_up(c, &local, parent);
    free(local.bits);
    c->ann = parent;
    return r;
}

mcps_si_outcome mcps_si_apply_target(mcps_si_vctx *c, const mcps_si_target *t, const cJSON *inst,
                                     const mcps_si_path *sp, const mcps_si_path *ip)
{
    const char *base = c->base;
    bool draft07 = c->draft07;
    size_t nscope = c->nscope;
    enter_scope(c, t);
    mcps_si_outcome r = mcps_si_apply(c, t->node, inst, sp, ip);
    c->base = base;
    c->draft07 = draft07;
    c->nscope = nscope;
    return r;
}

mcps_si_outcome mcps_si_apply(mcps_si_vctx *c, const cJSON *s, const cJSON *inst,
                              const mcps_si_path *sp, const mcps_si_path *ip)
{
    char msg[120];
    if (c->depth >= c->opt.max_depth) {
        snprintf(msg, sizeof msg, "schema nesting goes deeper than %zu levels", c->opt.max_depth);
        return mcps_si_stop(c, MCPS_SCHEMA_TOO_COMPLEX, ip, sp, NULL, msg);
    }
    if (mcps_si_remaining(c) == 0)
        return mcps_si_stop(c, MCPS_SCHEMA_TOO_COMPLEX, ip, sp, NULL,
                            "the work budget ran out; the schema is too expensive to evaluate");
    mcps_si_spend(c, 1);
    if (cJSON_IsBool(s)) {
        if (cJSON_IsTrue(s) || c->quiet)
            return cJSON_IsTrue(s) ? R_OK : R_FAIL;
        mcps_si_result_add(c->out, MCPS_SCHEMA_INVALID, ip, sp, NULL,
                           "no value is allowed here (the schema is false)");
        return R_FAIL;
    }
    if (!cJSON_IsObject(s))
        return mcps_si_stop(c, MCPS_SCHEMA_SCHEMA_ERROR, ip, sp, NULL,
                            "a schema must be an object or a boolean");
    c->depth++;
    mcps_si_target here;
    const char *base = c->base;
    bool draft07 = c->draft07;
    size_t nscope = c->nscope;
    if (mcps_si_index_scope(c, s, &here))
        enter_scope(c, &here);
    mcps_si_outcome r = eval_object(c, s, inst, sp, ip);
    c->base = base;
    c->draft07 = draft07;
    c->nscope = nscope;
    c->depth--;
    return r;
}

/* ---- entry points --------------------------------------------------------------- */

mcps_schema_options mcps_schema_default_options(void)
{
    return (mcps_schema_options){.max_depth = MCPS_SCHEMA_DEFAULT_MAX_DEPTH,
                                 .max_steps = MCPS_SCHEMA_DEFAULT_MAX_STEPS};
}

/* Zero limits mean "the default", so callers can set just the fields they care about. */
mcps_schema_options mcps_si_options(const mcps_schema_options *opts)
{
    mcps_schema_options o = opts ? *opts : mcps_schema_default_options();
    if (!o.max_depth)
        o.max_depth = MCPS_SCHEMA_DEFAULT_MAX_DEPTH;
    if (!o.max_steps)
        o.max_steps = MCPS_SCHEMA_DEFAULT_MAX_STEPS;
    if (o.max_depth > MCPS_SCHEMA_MAX_DEPTH_CAP)
        o.max_depth = MCPS_SCHEMA_MAX_DEPTH_CAP;
    return o;
}

static bool same_uri(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    la -= la && a[la - 1] == '#';
    return la == lb && memcmp(a, b, lb) == 0;
}

mcps_schema_dialect mcps_schema_dialect_of(const cJSON *schema)
{
    const cJSON *s =
        cJSON_IsObject(schema) ? cJSON_GetObjectItemCaseSensitive(schema, "$schema") : NULL;
    if (!s)
        return MCPS_SCHEMA_DIALECT_2020_12;
    if (!cJSON_IsString(s))
        return MCPS_SCHEMA_DIALECT_UNKNOWN;
    const char *u = s->valuestring;
    if (same_uri(u, "https://json-schema.org/draft/2020-12/schema") ||
        same_uri(u, "http://json-schema.org/draft/2020-12/schema"))
        return MCPS_SCHEMA_DIALECT_2020_12;
    if (same_uri(u, "http://json-schema.org/draft-07/schema") ||
        same_uri(u, "https://json-schema.org/draft-07/schema"))
        return MCPS_SCHEMA_DIALECT_DRAFT_07;
    return MCPS_SCHEMA_DIALECT_UNKNOWN;
}

static mcps_schema_verdict verdict_of(const mcps_si_vctx *c, mcps_si_outcome r)
{
    switch (r) {
    case R_OK:
        return MCPS_SCHEMA_VALID;
    case R_FAIL:
        return MCPS_SCHEMA_INVALID;
    case R_UNKNOWN:
        return MCPS_SCHEMA_UNSUPPORTED;
    default:
        return c->abort_kind;
    }
}

/* The dialect to apply: $schema's, else the caller's default. */
mcps_schema_dialect mcps_si_dialect(const cJSON *schema, const mcps_schema_options *o)
{
    bool has = cJSON_IsObject(schema) && cJSON_GetObjectItemCaseSensitive(schema, "$schema");
    if (has || o->dialect == MCPS_SCHEMA_DIALECT_UNKNOWN)
        return mcps_schema_dialect_of(schema);
    return o->dialect;
}

/*
 * A $schema we do not know by name may be a meta-schema the caller handed
 * over: its $vocabulary then says which keywords apply (2020-12 rules).
 */
static void apply_vocabularies(mcps_si_vctx *c, const cJSON *schema)
{
    static const char vocab[] = "https://json-schema.org/draft/2020-12/vocab/";
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(schema, "$schema");
    char uri[512];
    if (!cJSON_IsString(s))
        return;
    snprintf(uri, sizeof uri, "%.*s", (int)strcspn(s->valuestring, "#"), s->valuestring);
    const cJSON *meta = mcps_si_index_document(c, uri);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, "$vocabulary");
    if (!cJSON_IsObject(v))
        return;
    c->out->dialect = MCPS_SCHEMA_DIALECT_2020_12;
    c->draft07 = false;
    snprintf(uri, sizeof uri, "%svalidation", vocab);
    c->no_validation = !cJSON_GetObjectItemCaseSensitive(v, uri);
    snprintf(uri, sizeof uri, "%sformat-assertion", vocab);
    c->opt.format_assertion |= cJSON_GetObjectItemCaseSensitive(v, uri) != NULL;
}

static mcps_si_outcome validate_root(mcps_si_vctx *c, const cJSON *instance)
{
    c->refs = malloc(c->opt.max_depth * sizeof *c->refs);
    c->scope = malloc((c->opt.max_depth + 1) * sizeof *c->scope);
    if (!c->refs || !c->scope || !mcps_si_index_build(c))
        return mcps_si_stop(c, MCPS_SCHEMA_TOO_COMPLEX, NULL, NULL, NULL, "out of memory");
    if (c->out->dialect == MCPS_SCHEMA_DIALECT_UNKNOWN)
        apply_vocabularies(c, c->root);
    return mcps_si_apply(c, c->root, instance, NULL, NULL);
}

mcps_schema_verdict mcps_schema_validate(const cJSON *schema, const cJSON *instance,
                                         const mcps_schema_options *opts, mcps_schema_result *out)
{
    mcps_si_vctx c = {0};
    memset(out, 0, sizeof *out);
    c.root = schema;
    c.opt = mcps_si_options(opts);
    c.out = out;
    out->dialect = mcps_si_dialect(schema, &c.opt);
    c.draft07 = out->dialect == MCPS_SCHEMA_DIALECT_DRAFT_07;
    if (!schema || !instance) {
        mcps_si_result_add(out, MCPS_SCHEMA_SCHEMA_ERROR, NULL, NULL, NULL,
                           schema ? "no instance to validate" : "no schema");
        return out->verdict = MCPS_SCHEMA_SCHEMA_ERROR;
    }
    out->verdict = verdict_of(&c, validate_root(&c, instance));
    free(c.refs);
    free(c.scope);
    mcps_si_index_free(c.index);
    cache_free(&c);
    return out->verdict;
}
