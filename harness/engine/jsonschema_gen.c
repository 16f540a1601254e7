/*
 * jsonschema_gen.c - invent values that a schema accepts, for the fuzzer.
 *
 * Generation is guess-and-check: a generator that understands the common
 * keywords (type, properties, required, enum, const, bounds, lengths, items,
 * pattern, format, anyOf/oneOf/allOf, $ref) proposes a value, and the
 * validator, the one authority on validity, accepts or rejects it. A rejected
 * guess costs another attempt from the same random stream, so the result is
 * still a pure function of the seed.
 *
 * A schema and the subschemas that apply to the same value (its $ref target,
 * allOf members, one chosen anyOf/oneOf branch) are gathered into a "view" and
 * read together, so {"allOf":[{"required":["a"]},{"properties":{...}}]} yields
 * objects that satisfy both halves.
 *
 * Randomness comes only from the caller's mcps_schema_prng (splitmix64).
 */
#include "engine/jsonschema_gen.h"

#include "codec/json.h"
#include "schema/jsonschema_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VIEW_MAX     24   /* schemas read together for one value */
#define GEN_DEPTH    24   /* nesting of generated values */
#define GEN_NODES    4000 /* values built per attempt */
#define GEN_ATTEMPTS 24
#define SPAN         100.0 /* width of the range used when a bound is missing */

/* ---- views ---------------------------------------------------------------------- */

typedef struct gctx {
    const cJSON *root;
    bool draft07;
    mcps_schema_prng *prng;
    size_t depth;
    size_t nodes;
} gctx;

typedef struct view {
    const cJSON *s[VIEW_MAX];
    size_t n;
    bool never; /* a false schema is in it: nothing fits */
} view;

static uint64_t below(gctx *g, uint64_t n)
{
    return mcps_schema_prng_below(g->prng, n);
}

static const cJSON *pick(gctx *g, const cJSON *array)
{
    int n = cJSON_GetArraySize(array);
    return n > 0 ? cJSON_GetArrayItem(array, (int)below(g, (uint64_t)n)) : NULL;
}

static void view_add(gctx *g, view *v, const cJSON *s, int hops);

static void view_add_ref(gctx *g, view *v, const cJSON *ref, int hops)
{
    const cJSON *target;
    if (!cJSON_IsString(ref) ||
        mcps_si_ref_resolve(g->root, ref->valuestring, &target) != MCPS_SI_REF_OK)
        v->never = true;
    else
        view_add(g, v, target, hops + 1);
}

static void view_add(gctx *g, view *v, const cJSON *s, int hops)
{
    if (cJSON_IsFalse(s) || hops > 16)
        v->never |= cJSON_IsFalse(s);
    if (!cJSON_IsObject(s) || hops > 16 || v->n >= VIEW_MAX)
        return;
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(s, "$ref");
    if (ref && g->draft07) {
        view_add_ref(g, v, ref, hops);
        return;
    }
    v->s[v->n++] = s;
    if (ref)
        view_add_ref(g, v, ref, hops);
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(s, "allOf");
    for (const cJSON *e = cJSON_IsArray(all) ? all->child : NULL; e; e = e->next)
        view_add(g, v, e, hops + 1);
    const cJSON *any = cJSON_GetObjectItemCaseSensitive(s, "anyOf");
    if (cJSON_IsArray(any))
        view_add(g, v, pick(g, any), hops + 1);
    const cJSON *one = cJSON_GetObjectItemCaseSensitive(s, "oneOf");
    if (cJSON_IsArray(one))
        view_add(g, v, pick(g, one), hops + 1);
}

/* The first value of a keyword across the view. */
static const cJSON *vget(const view *v, const char *name)
{
    for (size_t i = 0; i < v->n; i++) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(v->s[i], name);
        if (k)
            return k;
    }
    return NULL;
}

/* ---- types ---------------------------------------------------------------------- */

enum { T_NULL = 1, T_BOOL = 2, T_INT = 4, T_NUM = 8, T_STR = 16, T_ARR = 32, T_OBJ = 64 };

static unsigned type_bit(const char *name)
{
    static const char *const names[] = {"null",   "boolean", "integer", "number",
                                        "string", "array",   "object"};
    for (unsigned i = 0; i < 7; i++)
        if (strcmp(name, names[i]) == 0)
            return (1u << i) | (i == 3 ? T_INT : 0); /* every integer is a number */
    return 0;
}

static unsigned type_mask(const cJSON *t)
{
    unsigned m = 0;
    if (cJSON_IsString(t))
        return type_bit(t->valuestring);
    for (const cJSON *e = cJSON_IsArray(t) ? t->child : NULL; e; e = e->next)
        if (cJSON_IsString(e))
            m |= type_bit(e->valuestring);
    return m;
}

/* What the other keywords suggest when no schema in the view says "type". */
static unsigned implied_types(const view *v)
{
    static const struct {
        const char *kw;
        unsigned type;
    } hints[] = {
        {"properties", T_OBJ}, {"required", T_OBJ},    {"additionalProperties", T_OBJ},
        {"items", T_ARR},      {"prefixItems", T_ARR}, {"minItems", T_ARR},
        {"contains", T_ARR},   {"minLength", T_STR},   {"maxLength", T_STR},
        {"pattern", T_STR},    {"format", T_STR},      {"minimum", T_NUM},
        {"maximum", T_NUM},    {"multipleOf", T_NUM},  {"exclusiveMinimum", T_NUM},
    };
    unsigned m = 0;
    for (size_t i = 0; i < sizeof hints / sizeof *hints; i++)
        if (vget(v, hints[i].kw))
            m |= hints[i].type;
    return m ? m : T_NULL | T_BOOL | T_INT | T_NUM | T_STR;
}

/* Allowed types: the intersection of every "type" in the view. */
static unsigned allowed_types(const view *v)
{
    unsigned m = 0x7F;
    bool any = false;
    for (size_t i = 0; i < v->n; i++) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(v->s[i], "type");
        if (t) {
            m &= type_mask(t);
            any = true;
        }
    }
    return any ? m : implied_types(v);
}

static unsigned choose_type(gctx *g, unsigned mask)
{
    unsigned opts[7], n = 0;
    for (unsigned b = 1; b <= T_OBJ; b <<= 1)
        if (mask & b)
            opts[n++] = b;
    return n ? opts[below(g, n)] : 0;
}

/* ---- numbers -------------------------------------------------------------------- */

typedef struct range {
    double lo, hi;
    bool has_lo, has_hi;
} range;

static void tighten(range *r, const cJSON *k, bool upper, bool exclusive, double step)
{
    if (!cJSON_IsNumber(k))
        return;
    double x = k->valuedouble + (exclusive ? (upper ? -step : step) : 0);
    if (upper && (!r->has_hi || x < r->hi))
        r->hi = x, r->has_hi = true;
    if (!upper && (!r->has_lo || x > r->lo))
        r->lo = x, r->has_lo = true;
}

/* The numeric range of the view; step is the smallest gap an exclusive bound leaves. */
static range number_range(const view *v, double step)
{
    range r = {0, 0, false, false};
    for (size_t i = 0; i < v->n; i++) {
        const cJSON *s = v->s[i];
        bool old_max = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "exclusiveMaximum"));
        bool old_min = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "exclusiveMinimum"));
        tighten(&r, cJSON_GetObjectItemCaseSensitive(s, "maximum"), true, old_max, step);
        tighten(&r, cJSON_GetObjectItemCaseSensitive(s, "minimum"), false, old_min, step);
        tighten(&r, cJSON_GetObjectItemCaseSensitive(s, "exclusiveMaximum"), true, true, step);
        tighten(&r, cJSON_GetObjectItemCaseSensitive(s, "exclusiveMinimum"), false, true, step);
    }
    if (!r.has_lo)
        r.lo = r.has_hi ? r.hi - SPAN : 0;
    if (!r.has_hi)
        r.hi = r.lo + SPAN;
    r.lo = fmax(r.lo, -1e15);
    r.hi = fmin(r.hi, 1e15);
    return r;
}

/* K * 10^scale as JSON number text, without an exponent. */
static cJSON *scaled_number(long long k, int scale)
{
    char digits[32];
    mcps_buf b = {0};
    unsigned long long mag = k < 0 ? 0ULL - (unsigned long long)k : (unsigned long long)k;
    int n = snprintf(digits, sizeof digits, "%llu", mag);
    if (k < 0)
        mcps_buf_putc(&b, '-');
    if (scale >= 0) {
        mcps_buf_puts(&b, digits);
        for (int i = 0; i < scale && mag; i++)
            mcps_buf_putc(&b, '0');
    } else {
        int f = -scale, point = n - f; /* digits before the decimal point */
        if (point <= 0)
            mcps_buf_putc(&b, '0');
        else
            mcps_buf_append(&b, digits, (size_t)point);
        mcps_buf_putc(&b, '.');
        for (int i = point; i < 0; i++)
            mcps_buf_putc(&b, '0');
        mcps_buf_puts(&b, digits + (point > 0 ? point : 0));
    }
    char *text = mcps_buf_take(&b);
    cJSON *out = text ? mcps_json_create_number_text(text) : NULL;
    free(text);
    return out;
}

/* multipleOf as M * 10^scale with M a small integer; false when it is not that simple. */
static bool step_of(const cJSON *m, long long *mant, int *scale)
{
    mcps_si_dec d;
    if (!cJSON_IsNumber(m) || !mcps_si_dec_init(&d, m))
        return false;
    bool ok = d.n > 0 && !d.neg && d.n <= 12 && d.exp - (long long)d.n >= -12 &&
              d.exp - (long long)d.n <= 12;
    if (ok) {
        *mant = 0;
        for (size_t i = 0; i < d.n; i++)
            *mant = *mant * 10 + (d.d[i] - '0');
        *scale = (int)(d.exp - (long long)d.n);
    }
    mcps_si_dec_free(&d);
    return ok;
}

static cJSON *gen_number(gctx *g, const view *v, bool integer)
{
    long long mant = 1;
    int scale = integer ? 0 : -2; /* plain numbers get two decimals */
    const cJSON *mult = vget(v, "multipleOf");
    if (mult && !step_of(mult, &mant, &scale))
        return NULL;
    if (integer && scale < 0) { /* an integer multiple of 0.5 is a multiple of 1 */
        mant = 1;
        scale = 0;
    }
    double unit = (double)mant * pow(10.0, scale);
    range r = number_range(v, unit);
    double kmax = 9e17 / (double)mant; /* keep k * mant inside a long long */
    double klo = fmax(ceil(r.lo / unit), -kmax), khi = fmin(floor(r.hi / unit), kmax);
    if (klo > khi)
        return NULL;
    long long k = (long long)klo + (long long)below(g, (uint64_t)(khi - klo) + 1);
    return scaled_number(k * mant, scale);
}

/* ---- strings -------------------------------------------------------------------- */

static void random_word(gctx *g, mcps_buf *b, size_t n)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (size_t i = 0; i < n; i++)
        mcps_buf_putc(b, alphabet[below(g, sizeof alphabet - 1)]);
}

static bool sample_format(gctx *g, const char *f, mcps_buf *b)
{
    unsigned a = (unsigned)below(g, 12) + 1, d = (unsigned)below(g, 28) + 1,
             h = (unsigned)below(g, 24), m = (unsigned)below(g, 60), n = (unsigned)below(g, 1000);
    if (strcmp(f, "date-time") == 0)
        mcps_buf_printf(b, "2024-%02u-%02uT%02u:%02u:%02uZ", a, d, h, m, m);
    else if (strcmp(f, "date") == 0)
        mcps_buf_printf(b, "2024-%02u-%02u", a, d);
    else if (strcmp(f, "time") == 0)
        mcps_buf_printf(b, "%02u:%02u:%02uZ", h, m, m);
    else if (strcmp(f, "email") == 0)
        mcps_buf_printf(b, "user%u@example.com", n);
    else if (strcmp(f, "uri") == 0)
        mcps_buf_printf(b, "https://example.com/item/%u", n);
    else if (strcmp(f, "hostname") == 0)
        mcps_buf_printf(b, "host%u.example.com", n);
    else if (strcmp(f, "ipv4") == 0)
        mcps_buf_printf(b, "10.%u.%u.%u", a, d, m);
    else if (strcmp(f, "ipv6") == 0)
        mcps_buf_printf(b, "2001:db8::%x", n);
    else if (strcmp(f, "uuid") == 0)
        mcps_buf_printf(b, "%08x-%04x-4%03x-a%03x-%012llx", (unsigned)below(g, 1ULL << 32),
                        (unsigned)below(g, 1u << 16), (unsigned)below(g, 1u << 12),
                        (unsigned)below(g, 1u << 12), (unsigned long long)below(g, 1ULL << 48));
    else
        return false;
    return true;
}

static size_t count_kw(const view *v, const char *name, size_t fallback)
{
    const cJSON *k = vget(v, name);
    return cJSON_IsNumber(k) && k->valuedouble >= 0 ? (size_t)fmin(k->valuedouble, 1e6) : fallback;
}

static bool from_pattern(gctx *g, const char *pattern, size_t target, mcps_buf *b)
{
    mcps_schema_regex *re = NULL;
    bool ok =
        mcps_schema_regex_compile(pattern, strlen(pattern), &re, NULL, 0) == MCPS_SCHEMA_REGEX_OK &&
        mcps_si_regex_generate(re, g->prng, target, b);
    mcps_schema_regex_free(re);
    return ok;
}

static cJSON *gen_string(gctx *g, const view *v)
{
    mcps_buf b = {0};
    size_t min = count_kw(v, "minLength", 0), max = count_kw(v, "maxLength", min + 12);
    if (min > 4096 || max < min)
        return NULL;
    size_t span = max - min < 12 ? max - min : 12;
    size_t target = min + (size_t)below(g, span + 1);
    const cJSON *pattern = vget(v, "pattern"), *format = vget(v, "format");
    bool done = false;
    if (cJSON_IsString(pattern))
        done = from_pattern(g, pattern->valuestring, target, &b);
    else if (cJSON_IsString(format))
        done = sample_format(g, format->valuestring, &b);
    if (!done && !cJSON_IsString(pattern)) {
        mcps_buf_clear(&b);
        random_word(g, &b, target);
        done = true;
    }
    char *s = done ? mcps_buf_take(&b) : NULL;
    mcps_buf_free(&b);
    cJSON *out = s ? cJSON_CreateString(s) : NULL;
    free(s);
    return out;
}

/* ---- containers ----------------------------------------------------------------- */

static cJSON *gen_view(gctx *g, const view *v);

/* A value for one subschema, or for anything at all when sub is NULL. */
static cJSON *gen_schema(gctx *g, const cJSON *sub)
{
    view v = {{0}, 0, false};
    view_add(g, &v, sub, 0);
    return gen_view(g, &v);
}

/* The schema for array position i: tuple entry, else the rest schema; NULL means any. */
static const cJSON *item_schema(gctx *g, const view *v, size_t i, bool *forbidden)
{
    const cJSON *tuple = g->draft07 ? vget(v, "items") : vget(v, "prefixItems");
    const cJSON *rest = g->draft07 ? vget(v, "additionalItems") : vget(v, "items");
    *forbidden = false;
    if (cJSON_IsArray(tuple) && i < (size_t)cJSON_GetArraySize(tuple))
        return cJSON_GetArrayItem(tuple, (int)i);
    if (g->draft07 && !cJSON_IsArray(tuple))
        rest = tuple; /* draft-07 items as one schema */
    *forbidden = cJSON_IsFalse(rest);
    return rest;
}

/* Add item, retrying a few times when uniqueItems wants it distinct. */
static bool add_item(gctx *g, cJSON *arr, const cJSON *sub, bool unique)
{
    for (int tries = 0; tries < 8; tries++) {
        cJSON *item = gen_schema(g, sub);
        if (!item)
            return false;
        bool dup = false;
        size_t budget = 100000;
        for (const cJSON *e = arr->child; e && unique && !dup; e = e->next)
            dup = mcps_si_equal(e, item, &budget) != 0;
        if (!dup) {
            cJSON_AddItemToArray(arr, item);
            return true;
        }
        cJSON_Delete(item);
    }
    return false;
}

/* Put values from the contains schema at random positions. */
static bool place_contains(gctx *g, const view *v, cJSON *arr)
{
    const cJSON *contains = vget(v, "contains");
    if (!contains)
        return true;
    size_t want = g->draft07 ? 1 : count_kw(v, "minContains", 1);
    for (size_t i = 0; i < want && i < 16; i++) {
        cJSON *item = gen_schema(g, contains);
        if (!item)
            return false;
        int n = cJSON_GetArraySize(arr);
        if (n > 0 && below(g, 2))
            cJSON_ReplaceItemInArray(arr, (int)below(g, (uint64_t)n), item);
        else
            cJSON_AddItemToArray(arr, item);
    }
    return true;
}

static cJSON *gen_array(gctx *g, const view *v)
{
    size_t min = count_kw(v, "minItems", 0), max = count_kw(v, "maxItems", min + 3);
    bool unique = cJSON_IsTrue(vget(v, "uniqueItems")), forbidden;
    if (max < min || min > 256)
        return NULL;
    size_t n = min + (size_t)below(g, (max - min < 3 ? max - min : 3) + 1);
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < n; i++) {
        const cJSON *sub = item_schema(g, v, i, &forbidden);
        if (forbidden)
            break;
        if (!add_item(g, arr, sub, unique)) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    if (arr && !place_contains(g, v, arr)) {
        cJSON_Delete(arr);
        return NULL;
    }
    return arr;
}

static bool regex_matches(const char *pattern, const char *text)
{
    mcps_schema_regex *re = NULL;
    size_t budget = 100000;
    bool hit =
        mcps_schema_regex_compile(pattern, strlen(pattern), &re, NULL, 0) == MCPS_SCHEMA_REGEX_OK &&
        mcps_schema_regex_search(re, text, strlen(text), &budget) == 1;
    mcps_schema_regex_free(re);
    return hit;
}

/* Every subschema the view applies to property name: properties, patterns, or the rest. */
static void property_view(gctx *g, const view *v, const char *name, view *out)
{
    bool named = false;
    for (size_t i = 0; i < v->n; i++) {
        const cJSON *props = cJSON_GetObjectItemCaseSensitive(v->s[i], "properties");
        const cJSON *pats = cJSON_GetObjectItemCaseSensitive(v->s[i], "patternProperties");
        const cJSON *sub =
            cJSON_IsObject(props) ? cJSON_GetObjectItemCaseSensitive(props, name) : NULL;
        if (sub) {
            view_add(g, out, sub, 0);
            named = true;
        }
        for (const cJSON *p = cJSON_IsObject(pats) ? pats->child : NULL; p; p = p->next) {
            if (regex_matches(p->string, name)) {
                view_add(g, out, p, 0);
                named = true;
            }
        }
    }
    const cJSON *extra = vget(v, "additionalProperties");
    if (!named && extra)
        view_add(g, out, extra, 0);
}

static bool add_property(gctx *g, const view *v, cJSON *obj, const char *name)
{
    view pv = {{0}, 0, false};
    if (cJSON_GetObjectItemCaseSensitive(obj, name))
        return true;
    property_view(g, v, name, &pv);
    cJSON *val = gen_view(g, &pv);
    if (!val)
        return false;
    cJSON_AddItemToObject(obj, name, val);
    return true;
}

static bool add_required(gctx *g, const view *v, cJSON *obj)
{
    for (size_t i = 0; i < v->n; i++) {
        const cJSON *req = cJSON_GetObjectItemCaseSensitive(v->s[i], "required");
        for (const cJSON *e = cJSON_IsArray(req) ? req->child : NULL; e; e = e->next)
            if (cJSON_IsString(e) && !add_property(g, v, obj, e->valuestring))
                return false;
    }
    return true;
}

/* Optional properties: each one about half the time. */
static bool add_optional(gctx *g, const view *v, cJSON *obj, size_t max)
{
    for (size_t i = 0; i < v->n; i++) {
        const cJSON *props = cJSON_GetObjectItemCaseSensitive(v->s[i], "properties");
        for (const cJSON *p = cJSON_IsObject(props) ? props->child : NULL; p; p = p->next) {
            if ((size_t)cJSON_GetArraySize(obj) >= max || below(g, 2) || cJSON_IsFalse(p))
                continue;
            if (!add_property(g, v, obj, p->string))
                return false;
        }
    }
    return true;
}

/* Fill up to minProperties with made-up names, where additionalProperties allows it. */
static bool add_filler(gctx *g, const view *v, cJSON *obj, size_t min)
{
    char name[32];
    if ((size_t)cJSON_GetArraySize(obj) < min && cJSON_IsFalse(vget(v, "additionalProperties")))
        return false;
    for (unsigned i = 0; (size_t)cJSON_GetArraySize(obj) < min && i < 64; i++) {
        snprintf(name, sizeof name, "extra_%u", i);
        if (!add_property(g, v, obj, name))
            return false;
    }
    return true;
}

/* dependentRequired (and draft-07 name dependencies) pull in more properties. */
static bool add_dependents(gctx *g, const view *v, cJSON *obj)
{
    const cJSON *deps = vget(v, g->draft07 ? "dependencies" : "dependentRequired");
    for (const cJSON *d = cJSON_IsObject(deps) ? deps->child : NULL; d; d = d->next) {
        if (!cJSON_IsArray(d) || !cJSON_GetObjectItemCaseSensitive(obj, d->string))
            continue;
        for (const cJSON *e = d->child; e; e = e->next)
            if (cJSON_IsString(e) && !add_property(g, v, obj, e->valuestring))
                return false;
    }
    return true;
}

static cJSON *gen_object(gctx *g, const view *v)
{
    size_t min = count_kw(v, "minProperties", 0), max = count_kw(v, "maxProperties", 64);
    cJSON *obj = cJSON_CreateObject();
    if (obj && add_required(g, v, obj) && add_optional(g, v, obj, max) &&
        add_filler(g, v, obj, min) && add_dependents(g, v, obj))
        return obj;
    cJSON_Delete(obj);
    return NULL;
}

/* ---- dispatch ------------------------------------------------------------------- */

static cJSON *gen_typed(gctx *g, const view *v, unsigned type)
{
    switch (type) {
    case T_NULL:
        return cJSON_CreateNull();
    case T_BOOL:
        return cJSON_CreateBool(below(g, 2));
    case T_INT:
        return gen_number(g, v, true);
    case T_NUM:
        return gen_number(g, v, vget(v, "multipleOf") == NULL && below(g, 2));
    case T_STR:
        return gen_string(g, v);
    case T_ARR:
        return gen_array(g, v);
    case T_OBJ:
        return gen_object(g, v);
    default:
        return NULL;
    }
}

static cJSON *gen_view(gctx *g, const view *v)
{
    if (v->never || g->depth >= GEN_DEPTH || ++g->nodes > GEN_NODES)
        return NULL;
    const cJSON *c = vget(v, "const"), *e = vget(v, "enum");
    if (c)
        return cJSON_Duplicate(c, true);
    if (cJSON_IsArray(e))
        return e->child ? cJSON_Duplicate(pick(g, e), true) : NULL;
    unsigned mask = allowed_types(v);
    if (g->depth > GEN_DEPTH / 2 && (mask & ~(unsigned)(T_ARR | T_OBJ)))
        mask &= ~(unsigned)(T_ARR | T_OBJ); /* deep down, prefer leaves */
    g->depth++;
    cJSON *out = gen_typed(g, v, choose_type(g, mask));
    g->depth--;
    return out;
}

cJSON *mcps_schema_generate(const cJSON *schema, mcps_schema_prng *prng)
{
    mcps_schema_options opts = mcps_schema_default_options();
    opts.format_assertion = true; /* a generated "email" should really be one */
    for (int attempt = 0; schema && attempt < GEN_ATTEMPTS; attempt++) {
        gctx g = {schema, mcps_schema_dialect_of(schema) == MCPS_SCHEMA_DIALECT_DRAFT_07, prng, 0,
                  0};
        cJSON *v = gen_schema(&g, schema);
        mcps_schema_result r;
        if (!v)
            continue;
        mcps_schema_verdict verdict = mcps_schema_validate(schema, v, &opts, &r);
        mcps_schema_result_free(&r);
        if (verdict == MCPS_SCHEMA_VALID)
            return v;
        cJSON_Delete(v);
    }
    return NULL;
}
