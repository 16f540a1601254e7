/*
 * jsonschema_mutate.c - break a valid value in exactly one way, for negative tests.
 *
 * A fuzzer learns most from arguments that are wrong in one known respect: a
 * server that accepts {"count": 101} under "maximum": 100 has a finding with a
 * name. We list the places in the value where a schema object applies (the
 * root, and down through properties, items and $ref/allOf), list the keyword
 * violations each place allows (wrong type, out of range, missing required,
 * ...), shuffle them with the caller's PRNG and try them in turn. A candidate
 * counts only when the validator then reports exactly one error, at that
 * keyword: the validator, not this file, decides what "one constraint" means.
 */
#include "engine/jsonschema_gen.h"

#include "codec/json.h"
#include "schema/jsonschema_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MUT_SITES 64 /* places in the value we consider */
#define MUT_DEPTH 8  /* how deep into the value */
#define MUT_HOPS  16 /* $ref/allOf hops while collecting */
#define MUT_TRIES 96 /* candidates validated before giving up */

typedef enum mkind {
    M_TYPE,
    M_ENUM,
    M_CONST,
    M_MIN,
    M_MAX,
    M_XMIN,
    M_XMAX,
    M_MULT,
    M_MINLEN,
    M_MAXLEN,
    M_PATTERN,
    M_FORMAT,
    M_REQUIRED,
    M_NOEXTRA,
    M_MINPROPS,
    M_MAXPROPS,
    M_MINITEMS,
    M_MAXITEMS,
    M_UNIQUE,
} mkind;

static const struct {
    const char *keyword;
    mkind kind;
} MUTATIONS[] = {
    {"type", M_TYPE},
    {"enum", M_ENUM},
    {"const", M_CONST},
    {"minimum", M_MIN},
    {"maximum", M_MAX},
    {"exclusiveMinimum", M_XMIN},
    {"exclusiveMaximum", M_XMAX},
    {"multipleOf", M_MULT},
    {"minLength", M_MINLEN},
    {"maxLength", M_MAXLEN},
    {"pattern", M_PATTERN},
    {"format", M_FORMAT},
    {"required", M_REQUIRED},
    {"additionalProperties", M_NOEXTRA},
    {"minProperties", M_MINPROPS},
    {"maxProperties", M_MAXPROPS},
    {"minItems", M_MINITEMS},
    {"maxItems", M_MAXITEMS},
    {"uniqueItems", M_UNIQUE},
};

typedef struct step {
    const char *key; /* NULL: index */
    int index;
} step;

/* A schema object that applies to the value at path. */
typedef struct site {
    const cJSON *schema;
    step path[MUT_DEPTH];
    size_t depth;
} site;

typedef struct candidate {
    size_t site;
    size_t mutation; /* index into MUTATIONS */
} candidate;

typedef struct mctx {
    const cJSON *root;
    bool draft07;
    mcps_schema_prng *prng;
    bool keep_top_type;
    site sites[MUT_SITES];
    size_t nsites;
} mctx;

/* ---- where schemas apply ------------------------------------------------------- */

static void collect(mctx *m, const cJSON *s, const cJSON *node, const site *at, int hops);

static void collect_ref(mctx *m, const cJSON *ref, const cJSON *node, const site *at, int hops)
{
    const cJSON *target;
    if (cJSON_IsString(ref) &&
        mcps_si_ref_resolve(m->root, ref->valuestring, &target) == MCPS_SI_REF_OK)
        collect(m, target, node, at, hops + 1);
}

static void collect_child(mctx *m, const cJSON *sub, const cJSON *child, const site *at, step st,
                          int hops)
{
    site next = *at;
    if (!sub || at->depth >= MUT_DEPTH)
        return;
    next.path[next.depth++] = st;
    collect(m, sub, child, &next, hops);
}

static void collect_items(mctx *m, const cJSON *s, const cJSON *node, const site *at, int hops)
{
    const cJSON *tuple = cJSON_GetObjectItemCaseSensitive(s, m->draft07 ? "items" : "prefixItems");
    const cJSON *rest = m->draft07 ? NULL : cJSON_GetObjectItemCaseSensitive(s, "items");
    if (m->draft07 && !cJSON_IsArray(tuple))
        rest = tuple, tuple = NULL;
    int i = 0, ntuple = cJSON_IsArray(tuple) ? cJSON_GetArraySize(tuple) : 0;
    for (const cJSON *item = node->child; item && i < 8; item = item->next, i++) {
        const cJSON *sub = i < ntuple ? cJSON_GetArrayItem(tuple, i) : rest;
        collect_child(m, sub, item, at, (step){NULL, i}, hops);
    }
}

static void collect(mctx *m, const cJSON *s, const cJSON *node, const site *at, int hops)
{
    if (!cJSON_IsObject(s) || hops > MUT_HOPS || m->nsites >= MUT_SITES)
        return;
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(s, "$ref");
    if (ref && m->draft07) {
        collect_ref(m, ref, node, at, hops);
        return;
    }
    m->sites[m->nsites] = *at;
    m->sites[m->nsites++].schema = s;
    collect_ref(m, ref, node, at, hops);
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(s, "allOf");
    for (const cJSON *e = cJSON_IsArray(all) ? all->child : NULL; e; e = e->next)
        collect(m, e, node, at, hops + 1);
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
    if (cJSON_IsObject(node) && cJSON_IsObject(props))
        for (const cJSON *mem = node->child; mem; mem = mem->next)
            collect_child(m, cJSON_GetObjectItemCaseSensitive(props, mem->string), mem, at,
                          (step){mem->string, 0}, hops);
    if (cJSON_IsArray(node))
        collect_items(m, s, node, at, hops);
}

/* ---- making values wrong -------------------------------------------------------- */

static cJSON *number(double v)
{
    char text[40];
    if (!isfinite(v))
        return NULL;
    snprintf(text, sizeof text, v == floor(v) && fabs(v) < 1e15 ? "%.0f" : "%.17g", v);
    return mcps_json_create_number_text(text);
}

/* A value whose JSON type the "type" keyword does not allow. */
static cJSON *wrong_type(mctx *m, const cJSON *type)
{
    static const char *const samples[] = {"null", "true", "7", "0.5", "\"x\"", "[]", "{}"};
    const char *eligible[7];
    size_t n = 0;
    for (size_t i = 0; i < 7; i++) {
        cJSON *v = mcps_json_parse_simple(samples[i], strlen(samples[i]));
        bool allowed = false;
        for (const cJSON *t = cJSON_IsArray(type) ? type->child : type; t && !allowed;
             t = cJSON_IsArray(type) ? t->next : NULL) {
            const char *name = cJSON_IsString(t) ? t->valuestring : "";
            allowed =
                strcmp(name, mcps_si_type_name(v)) == 0 ||
                (strcmp(name, "integer") == 0 && mcps_si_num_is_integer(v) && cJSON_IsNumber(v));
        }
        if (!allowed)
            eligible[n++] = samples[i];
        cJSON_Delete(v);
    }
    if (!n)
        return NULL;
    const char *pick = eligible[mcps_schema_prng_below(m->prng, n)];
    return mcps_json_parse_simple(pick, strlen(pick));
}

/* A value of the same type as like, but different from it. */
static cJSON *different(mctx *m, const cJSON *like)
{
    char text[48];
    unsigned r = (unsigned)mcps_schema_prng_below(m->prng, 100000);
    if (cJSON_IsNumber(like))
        return number(like->valuedouble + 1 + r);
    if (cJSON_IsBool(like))
        return cJSON_CreateBool(!cJSON_IsTrue(like));
    snprintf(text, sizeof text, "not-allowed-%u", r);
    return cJSON_CreateString(text);
}

static double below_bound(double b, bool exclusive)
{
    return exclusive ? b : (b == floor(b) ? b - 1 : floor(b) - 1);
}

static double above_bound(double b, bool exclusive)
{
    return exclusive ? b : (b == floor(b) ? b + 1 : ceil(b) + 1);
}

static cJSON *string_of_length(const char *s, size_t n)
{
    mcps_buf b = {0};
    const unsigned char *p = (const unsigned char *)s;
    size_t count = 0;
    for (; *p && count < n; count++) {
        uint32_t cp;
        size_t len = mcps_si_utf8_next(p, strlen((const char *)p), &cp);
        mcps_buf_append(&b, p, len);
        p += len;
    }
    for (; count < n; count++)
        mcps_buf_putc(&b, 'a');
    char *text = mcps_buf_take(&b);
    cJSON *out = text ? cJSON_CreateString(text) : NULL;
    free(text);
    return out;
}

static const char *const NON_MATCHING[] = {"", "!", " ", "0", "~~", "(not valid"};

/* A replacement value breaking keyword kw; NULL when the mutation does not apply. */
static cJSON *replacement(mctx *m, mkind kind, const cJSON *kw, const cJSON *node)
{
    size_t n = cJSON_IsNumber(kw) && kw->valuedouble >= 0 ? (size_t)fmin(kw->valuedouble, 1e6) : 0;
    switch (kind) {
    case M_TYPE:
        return wrong_type(m, kw);
    case M_ENUM:
        return different(m, cJSON_IsArray(kw) && kw->child ? kw->child : node);
    case M_CONST:
        return different(m, kw);
    case M_MIN:
    case M_XMIN:
        return cJSON_IsNumber(kw) ? number(below_bound(kw->valuedouble, kind == M_XMIN)) : NULL;
    case M_MAX:
    case M_XMAX:
        return cJSON_IsNumber(kw) ? number(above_bound(kw->valuedouble, kind == M_XMAX)) : NULL;
    case M_MULT:
        if (!cJSON_IsNumber(node) || !cJSON_IsNumber(kw))
            return NULL;
        return number(node->valuedouble + (kw->valuedouble >= 2 ? 1 : kw->valuedouble / 2));
    case M_MINLEN:
        return cJSON_IsString(node) && n > 0 ? string_of_length(node->valuestring, n - 1) : NULL;
    case M_MAXLEN:
        return cJSON_IsString(node) ? string_of_length(node->valuestring, n + 1) : NULL;
    case M_PATTERN:
    case M_FORMAT: {
        size_t k = mcps_schema_prng_below(m->prng, sizeof NON_MATCHING / sizeof *NON_MATCHING);
        return cJSON_CreateString(kind == M_FORMAT ? "(not valid" : NON_MATCHING[k]);
    }
    default:
        return NULL;
    }
}

/* ---- changing containers in place ------------------------------------------------- */

static bool drop_required(mctx *m, const cJSON *kw, cJSON *node, mcps_buf *what)
{
    const cJSON *present[64];
    size_t n = 0;
    for (const cJSON *e = cJSON_IsArray(kw) ? kw->child : NULL; e && n < 64; e = e->next)
        if (cJSON_IsString(e) && cJSON_GetObjectItemCaseSensitive(node, e->valuestring))
            present[n++] = e;
    if (!cJSON_IsObject(node) || n == 0)
        return false;
    const char *name = present[mcps_schema_prng_below(m->prng, n)]->valuestring;
    mcps_buf_printf(what, "removed required property \"%s\"", name);
    cJSON_DeleteItemFromObjectCaseSensitive(node, name);
    return true;
}

static bool add_members(cJSON *node, size_t until, mcps_buf *what)
{
    char name[32];
    if (!cJSON_IsObject(node))
        return false;
    mcps_buf_puts(what, "added");
    for (unsigned i = 0; (size_t)cJSON_GetArraySize(node) < until && i < 1000; i++) {
        snprintf(name, sizeof name, "zz_unexpected_%u", i);
        if (cJSON_GetObjectItemCaseSensitive(node, name))
            continue;
        cJSON_AddNullToObject(node, name);
        mcps_buf_printf(what, "%s property \"%s\"", i ? "," : "", name);
    }
    return true;
}

static bool remove_children(cJSON *node, size_t until, mcps_buf *what)
{
    if ((!cJSON_IsObject(node) && !cJSON_IsArray(node)) || until == SIZE_MAX)
        return false;
    while ((size_t)cJSON_GetArraySize(node) > until)
        cJSON_DeleteItemFromArray(node, cJSON_GetArraySize(node) - 1);
    mcps_buf_printf(what, "removed %s until there are %zu",
                    cJSON_IsArray(node) ? "items" : "members", until);
    return true;
}

static bool add_copies(cJSON *node, size_t until, mcps_buf *what)
{
    if (!cJSON_IsArray(node) || until > 10000)
        return false;
    while ((size_t)cJSON_GetArraySize(node) < until) {
        cJSON *copy = node->child ? cJSON_Duplicate(node->child, true) : cJSON_CreateNull();
        if (!copy)
            return false;
        cJSON_AddItemToArray(node, copy);
    }
    mcps_buf_printf(what, "grew the array to %zu items", until);
    return true;
}

/* Structural mutations that edit node itself; false when they do not apply. */
static bool reshape(mctx *m, mkind kind, const cJSON *kw, cJSON *node, mcps_buf *what)
{
    size_t n = cJSON_IsNumber(kw) && kw->valuedouble >= 0 ? (size_t)fmin(kw->valuedouble, 1e6) : 0;
    switch (kind) {
    case M_REQUIRED:
        return drop_required(m, kw, node, what);
    case M_NOEXTRA:
        return cJSON_IsFalse(kw) && add_members(node, (size_t)cJSON_GetArraySize(node) + 1, what);
    case M_MAXPROPS:
        return add_members(node, n + 1, what);
    case M_MINPROPS:
    case M_MINITEMS:
        return n > 0 && (kind == M_MINITEMS) == cJSON_IsArray(node) &&
               remove_children(node, n - 1, what);
    case M_MAXITEMS:
        return add_copies(node, n + 1, what);
    case M_UNIQUE:
        return cJSON_IsTrue(kw) && cJSON_GetArraySize(node) > 0 &&
               add_copies(node, (size_t)cJSON_GetArraySize(node) + 1, what);
    default:
        return false;
    }
}

/* ---- trying candidates ---------------------------------------------------------- */

static cJSON *locate(cJSON *root, const site *s, cJSON **parent)
{
    cJSON *node = root;
    *parent = NULL;
    for (size_t i = 0; node && i < s->depth; i++) {
        *parent = node;
        node = s->path[i].key ? cJSON_GetObjectItemCaseSensitive(node, s->path[i].key)
                              : cJSON_GetArrayItem(node, s->path[i].index);
    }
    return node;
}

/* Apply candidate c to a copy of valid; NULL when it does not apply. */
static cJSON *apply_candidate(mctx *m, const cJSON *valid, candidate c, mcps_buf *what)
{
    const site *s = &m->sites[c.site];
    mkind kind = MUTATIONS[c.mutation].kind;
    const cJSON *kw = cJSON_GetObjectItemCaseSensitive(s->schema, MUTATIONS[c.mutation].keyword);
    cJSON *copy = cJSON_Duplicate(valid, true), *parent;
    cJSON *node = copy ? locate(copy, s, &parent) : NULL;
    if (!node)
        goto no;
    if (reshape(m, kind, kw, node, what))
        return copy;
    cJSON *v = replacement(m, kind, kw, node);
    if (!v)
        goto no;
    mcps_buf_puts(what, "replaced the value with ");
    mcps_si_brief(what, v, 40);
    mcps_buf_printf(what, " to break \"%s\"", MUTATIONS[c.mutation].keyword);
    if (!parent) {
        cJSON_Delete(copy);
        return v;
    }
    if (cJSON_IsObject(parent))
        cJSON_ReplaceItemInObjectCaseSensitive(parent, s->path[s->depth - 1].key, v);
    else
        cJSON_ReplaceItemInArray(parent, s->path[s->depth - 1].index, v);
    return copy;
no:
    cJSON_Delete(copy);
    return NULL;
}

static bool ends_with_keyword(const char *path, const char *keyword)
{
    size_t lp = strlen(path), lk = strlen(keyword);
    return lp > lk && path[lp - lk - 1] == '/' && strcmp(path + lp - lk, keyword) == 0;
}

/* Exactly one error, at the keyword we meant to break? */
static bool breaks_only(const cJSON *schema, const cJSON *inst, const char *keyword,
                        mcps_schema_result *r)
{
    mcps_schema_options opts = mcps_schema_default_options();
    opts.format_assertion = true;
    return mcps_schema_validate(schema, inst, &opts, r) == MCPS_SCHEMA_INVALID && r->nerrors == 1 &&
           r->nkept == 1 && ends_with_keyword(r->errors[0].schema_path, keyword);
}

static size_t list_candidates(const mctx *m, candidate *out, size_t max)
{
    size_t n = 0;
    for (size_t s = 0; s < m->nsites; s++)
        for (size_t k = 0; k < sizeof MUTATIONS / sizeof *MUTATIONS && n < max; k++)
            if (cJSON_GetObjectItemCaseSensitive(m->sites[s].schema, MUTATIONS[k].keyword))
                out[n++] = (candidate){s, k};
    return n;
}

static void shuffle(mcps_schema_prng *prng, candidate *c, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)mcps_schema_prng_below(prng, i);
        candidate t = c[i - 1];
        c[i - 1] = c[j];
        c[j] = t;
    }
}

static bool try_candidate(mctx *m, const cJSON *schema, const cJSON *valid, candidate c,
                          mcps_schema_mutation *out)
{
    mcps_buf what = {0};
    mcps_schema_result r;
    cJSON *bad = apply_candidate(m, valid, c, &what);
    if (bad && m->keep_top_type && (bad->type & 0xFF) != (valid->type & 0xFF)) {
        cJSON_Delete(bad);
        bad = NULL;
    }
    bool ok = bad && breaks_only(schema, bad, MUTATIONS[c.mutation].keyword, &r);
    if (bad && !ok)
        cJSON_Delete(bad);
    if (ok) {
        out->instance = bad;
        out->instance_path = r.errors[0].instance_path;
        out->schema_path = r.errors[0].schema_path;
        r.errors[0].instance_path = r.errors[0].schema_path = NULL;
        out->description = mcps_buf_take(&what);
    }
    if (bad)
        mcps_schema_result_free(&r);
    mcps_buf_free(&what);
    return ok;
}

static bool mutate(const cJSON *schema, const cJSON *valid, mcps_schema_prng *prng,
                   bool keep_top_type, mcps_schema_mutation *out)
{
    mcps_schema_result r;
    memset(out, 0, sizeof *out);
    mcps_schema_options opts = mcps_schema_default_options();
    opts.format_assertion = true;
    mcps_schema_verdict v =
        schema && valid ? mcps_schema_validate(schema, valid, &opts, &r) : MCPS_SCHEMA_SCHEMA_ERROR;
    if (schema && valid)
        mcps_schema_result_free(&r);
    if (v != MCPS_SCHEMA_VALID)
        return false;
    mctx *m = calloc(1, sizeof *m);
    candidate *cands = malloc(MUT_SITES * (sizeof MUTATIONS / sizeof *MUTATIONS) * sizeof *cands);
    bool found = false;
    if (m && cands) {
        site root = {0};
        m->root = schema;
        m->draft07 = mcps_schema_dialect_of(schema) == MCPS_SCHEMA_DIALECT_DRAFT_07;
        m->prng = prng;
        m->keep_top_type = keep_top_type;
        collect(m, schema, valid, &root, 0);
        size_t n = list_candidates(m, cands, MUT_SITES * (sizeof MUTATIONS / sizeof *MUTATIONS));
        shuffle(prng, cands, n);
        for (size_t i = 0; i < n && i < MUT_TRIES && !found; i++)
            found = try_candidate(m, schema, valid, cands[i], out);
    }
    free(m);
    free(cands);
    return found;
}

bool mcps_schema_mutate(const cJSON *schema, const cJSON *valid, mcps_schema_prng *prng,
                        mcps_schema_mutation *out)
{
    return mutate(schema, valid, prng, false, out);
}

bool mcps_schema_mutate_inside(const cJSON *schema, const cJSON *valid, mcps_schema_prng *prng,
                               mcps_schema_mutation *out)
{
    return mutate(schema, valid, prng, true, out);
}

void mcps_schema_mutation_free(mcps_schema_mutation *mut)
{
    if (!mut)
        return;
    cJSON_Delete(mut->instance);
    free(mut->instance_path);
    free(mut->schema_path);
    free(mut->description);
    memset(mut, 0, sizeof *mut);
}
