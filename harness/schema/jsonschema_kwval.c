/*
 * jsonschema_kwval.c - the keywords that judge one value: type, enum, const,
 * numeric bounds, string length, pattern, format, and the array keywords.
 *
 * Numbers are compared exactly (jsonschema_value.c), so 9007199254740993 is
 * above a maximum of 9007199254740992 and 1.0 is an integer. String lengths
 * count code points, as JSON Schema defines them, not bytes. Each handler first
 * checks its own value is well-formed, then whether it applies to this
 * instance's type, then judges.
 */
#include "schema/jsonschema_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool type_matches(const char *name, const cJSON *inst)
{
    if (strcmp(name, "integer") == 0)
        return cJSON_IsNumber(inst) && mcps_si_num_is_integer(inst);
    return strcmp(name, mcps_si_type_name(inst)) == 0;
}

/* ---- type, enum, const ---------------------------------------------------------- */

static mcps_si_outcome kw_type(mcps_si_vctx *c, const mcps_si_kw *k)
{
    const cJSON *t = k->kw;
    const char *got = mcps_si_type_name(k->inst);
    if (cJSON_IsString(t)) {
        if (!mcps_si_known_type(t->valuestring))
            return mcps_si_bad_schema(c, k, "unknown type name");
        if (type_matches(t->valuestring, k->inst))
            return R_OK;
        return mcps_si_fail(c, k, k->ip, "expected %s, got %s", t->valuestring, got);
    }
    if (!cJSON_IsArray(t) || !t->child)
        return mcps_si_bad_schema(c, k, "type must be a type name or a non-empty array of them");
    char want[160] = "";
    for (const cJSON *e = t->child; e; e = e->next) {
        if (!cJSON_IsString(e) || !mcps_si_known_type(e->valuestring))
            return mcps_si_bad_schema(c, k, "type array holds something that is not a type name");
        if (type_matches(e->valuestring, k->inst))
            return R_OK;
        size_t used = strlen(want);
        snprintf(want + used, sizeof want - used, "%s%s", used ? " or " : "", e->valuestring);
    }
    return mcps_si_fail(c, k, k->ip, "expected %s, got %s", want, got);
}

static mcps_si_outcome kw_enum(mcps_si_vctx *c, const mcps_si_kw *k)
{
    char shown[100];
    if (!cJSON_IsArray(k->kw))
        return mcps_si_bad_schema(c, k, "enum must be an array");
    for (const cJSON *e = k->kw->child; e; e = e->next) {
        int r = mcps_si_equal_charged(c, k->inst, e);
        if (r < 0)
            return mcps_si_out_of_budget(c, k);
        if (r)
            return R_OK;
    }
    return mcps_si_fail(c, k, k->ip, "value is not one of the allowed values %s",
                        mcps_si_brief_into(c, shown, sizeof shown, k->kw));
}

static mcps_si_outcome kw_const(mcps_si_vctx *c, const mcps_si_kw *k)
{
    char shown[100];
    int r = mcps_si_equal_charged(c, k->inst, k->kw);
    if (r < 0)
        return mcps_si_out_of_budget(c, k);
    return r ? R_OK
             : mcps_si_fail(c, k, k->ip, "value must be %s",
                            mcps_si_brief_into(c, shown, sizeof shown, k->kw));
}

/* ---- numbers -------------------------------------------------------------------- */

/* Compare the instance with the bound; strict makes equality a failure too. */
static mcps_si_outcome bound(mcps_si_vctx *c, const mcps_si_kw *k, int sign, bool strict,
                             const char *what)
{
    char a[48], b[48];
    if (!cJSON_IsNumber(k->inst))
        return R_OK;
    int r = mcps_si_num_cmp(k->inst, k->kw);
    if (r == -2)
        return mcps_si_out_of_budget(c, k);
    if (r * sign < 0 || (r == 0 && !strict))
        return R_OK;
    return mcps_si_fail(c, k, k->ip, "%s is %s %s %s", mcps_si_brief_into(c, a, sizeof a, k->inst),
                        r == 0     ? "equal to"
                        : sign > 0 ? "greater than"
                                   : "less than",
                        what, mcps_si_brief_into(c, b, sizeof b, k->kw));
}

/* draft-04's boolean exclusiveMaximum/Minimum modifies the plain bound; we honour it. */
static bool legacy_exclusive(const mcps_si_kw *k, const char *name)
{
    return cJSON_IsTrue(mcps_si_sibling(k, name));
}

static mcps_si_outcome kw_maximum(mcps_si_vctx *c, const mcps_si_kw *k)
{
    if (!cJSON_IsNumber(k->kw))
        return mcps_si_bad_schema(c, k, "maximum must be a number");
    bool ex = legacy_exclusive(k, "exclusiveMaximum");
    return bound(c, k, 1, ex, ex ? "the exclusive maximum" : "the maximum");
}

static mcps_si_outcome kw_minimum(mcps_si_vctx *c, const mcps_si_kw *k)
{
    if (!cJSON_IsNumber(k->kw))
        return mcps_si_bad_schema(c, k, "minimum must be a number");
    bool ex = legacy_exclusive(k, "exclusiveMinimum");
    return bound(c, k, -1, ex, ex ? "the exclusive minimum" : "the minimum");
}

static mcps_si_outcome kw_exclusive_maximum(mcps_si_vctx *c, const mcps_si_kw *k)
{
    if (cJSON_IsBool(k->kw))
        return R_OK; /* draft-04 form, applied by maximum */
    if (!cJSON_IsNumber(k->kw))
        return mcps_si_bad_schema(c, k, "exclusiveMaximum must be a number");
    return bound(c, k, 1, true, "the exclusive maximum");
}

static mcps_si_outcome kw_exclusive_minimum(mcps_si_vctx *c, const mcps_si_kw *k)
{
    if (cJSON_IsBool(k->kw))
        return R_OK;
    if (!cJSON_IsNumber(k->kw))
        return mcps_si_bad_schema(c, k, "exclusiveMinimum must be a number");
    return bound(c, k, -1, true, "the exclusive minimum");
}

static bool positive(const cJSON *number)
{
    mcps_si_dec d;
    bool ok = mcps_si_dec_init(&d, number) && d.n > 0 && !d.neg;
    mcps_si_dec_free(&d);
    return ok;
}

static mcps_si_outcome kw_multiple_of(mcps_si_vctx *c, const mcps_si_kw *k)
{
    char a[48], b[48];
    mcps_si_dec x, m;
    if (!cJSON_IsNumber(k->kw) || !positive(k->kw))
        return mcps_si_bad_schema(c, k, "multipleOf must be a number greater than 0");
    if (!cJSON_IsNumber(k->inst))
        return R_OK;
    bool ok_x = mcps_si_dec_init(&x, k->inst), ok_m = mcps_si_dec_init(&m, k->kw);
    int r = ok_x && ok_m ? mcps_si_dec_multiple_of(&x, &m) : -1;
    mcps_si_dec_free(&x);
    mcps_si_dec_free(&m);
    if (r < 0)
        return mcps_si_out_of_budget(c, k);
    return r ? R_OK
             : mcps_si_fail(c, k, k->ip, "%s is not a multiple of %s",
                            mcps_si_brief_into(c, a, sizeof a, k->inst),
                            mcps_si_brief_into(c, b, sizeof b, k->kw));
}

/* ---- strings -------------------------------------------------------------------- */

static mcps_si_outcome length_bound(mcps_si_vctx *c, const mcps_si_kw *k, bool is_max)
{
    size_t limit;
    if (!mcps_si_count_value(k->kw, &limit))
        return mcps_si_bad_schema(c, k, "must be a non-negative integer");
    if (!cJSON_IsString(k->inst))
        return R_OK;
    size_t n = mcps_si_utf8_count(k->inst->valuestring);
    if (is_max ? n <= limit : n >= limit)
        return R_OK;
    return mcps_si_fail(c, k, k->ip, "string is %zu characters long, %s %s %zu", n,
                        is_max ? "more than" : "fewer than", k->kw->string, limit);
}

static mcps_si_outcome kw_max_length(mcps_si_vctx *c, const mcps_si_kw *k)
{
    return length_bound(c, k, true);
}

static mcps_si_outcome kw_min_length(mcps_si_vctx *c, const mcps_si_kw *k)
{
    return length_bound(c, k, false);
}

static mcps_si_outcome kw_pattern(mcps_si_vctx *c, const mcps_si_kw *k)
{
    if (!cJSON_IsString(k->kw))
        return mcps_si_bad_schema(c, k, "pattern must be a string");
    if (!cJSON_IsString(k->inst))
        return R_OK;
    mcps_si_rx_site at = {k->ip, k->sp, k->kw->string};
    int r = mcps_si_regex_test(c, at, k->kw->valuestring, k->inst->valuestring);
    if (r == -2)
        return R_ABORT;
    if (r == -1)
        return mcps_si_regex_unknown(c, at, k->kw->valuestring, "pattern");
    return r ? R_OK
             : mcps_si_fail(c, k, k->ip, "string does not match pattern \"%.80s\"",
                            k->kw->valuestring);
}

static mcps_si_outcome kw_format(mcps_si_vctx *c, const mcps_si_kw *k)
{
    if (!cJSON_IsString(k->kw))
        return mcps_si_bad_schema(c, k, "format must be a string");
    if (!c->opt.format_assertion || !cJSON_IsString(k->inst))
        return R_OK;
    if (mcps_si_format_check(k->kw->valuestring, k->inst->valuestring) != 0)
        return R_OK;
    return mcps_si_fail(c, k, k->ip, "\"%.60s\" is not a valid %s", k->inst->valuestring,
                        k->kw->valuestring);
}

/* ---- arrays --------------------------------------------------------------------- */

/* Apply sub to every item from index first on. */
static mcps_si_outcome each_item(mcps_si_vctx *c, const mcps_si_kw *k, const cJSON *sub,
                                 const mcps_si_path *sp, size_t first)
{
    mcps_si_outcome acc = R_OK;
    size_t i = 0;
    for (const cJSON *item = k->inst->child; item && !mcps_si_done(c, acc);
         item = item->next, i++) {
        if (i < first)
            continue;
        INDEX_PATH(ip, k->ip, i);
        acc = mcps_si_both(acc, mcps_si_apply(c, sub, item, sp, &ip));
    }
    return acc;
}

/* Apply the schemas of a tuple array to the items in the same positions. */
static mcps_si_outcome tuple(mcps_si_vctx *c, const mcps_si_kw *k)
{
    KW_PATH(sp, k);
    mcps_si_outcome acc = R_OK;
    const cJSON *item = k->inst->child;
    size_t i = 0;
    for (const cJSON *sub = k->kw->child; sub && item && !mcps_si_done(c, acc);
         sub = sub->next, item = item->next, i++) {
        INDEX_PATH(ssp, &sp, i);
        INDEX_PATH(ip, k->ip, i);
        acc = mcps_si_both(acc, mcps_si_apply(c, sub, item, &ssp, &ip));
    }
    return acc;
}

static mcps_si_outcome kw_items(mcps_si_vctx *c, const mcps_si_kw *k)
{
    KW_PATH(sp, k);
    bool tuple_form = cJSON_IsArray(k->kw);
    if (tuple_form && !c->draft07)
        return mcps_si_bad_schema(c, k,
                                  "in 2020-12 items takes one schema; tuples use prefixItems");
    if (!tuple_form && !mcps_si_is_schema(k->kw))
        return mcps_si_bad_schema(c, k, "items must be a schema");
    if (!cJSON_IsArray(k->inst))
        return R_OK;
    if (tuple_form)
        return tuple(c, k);
    const cJSON *prefix = c->draft07 ? NULL : mcps_si_sibling(k, "prefixItems");
    size_t first = cJSON_IsArray(prefix) ? (size_t)cJSON_GetArraySize(prefix) : 0;
    mcps_si_mark_from(c, k->inst, first);
    return each_item(c, k, k->kw, &sp, first);
}

static mcps_si_outcome kw_prefix_items(mcps_si_vctx *c, const mcps_si_kw *k)
{
    if (!cJSON_IsArray(k->kw) || !k->kw->child)
        return mcps_si_bad_schema(c, k, "prefixItems must be a non-empty array of schemas");
    if (!cJSON_IsArray(k->inst))
        return R_OK;
    size_t n = (size_t)cJSON_GetArraySize(k->kw);
    for (size_t i = 0; i < n; i++)
        mcps_si_mark(c, k->inst, i);
    return tuple(c, k);
}

static mcps_si_outcome kw_additional_items(mcps_si_vctx *c, const mcps_si_kw *k)
{
    KW_PATH(sp, k);
    const cJSON *items = mcps_si_sibling(k, "items");
    if (!mcps_si_is_schema(k->kw))
        return mcps_si_bad_schema(c, k, "additionalItems must be a schema");
    if (!cJSON_IsArray(k->inst) || !cJSON_IsArray(items))
        return R_OK;
    size_t first = (size_t)cJSON_GetArraySize(items);
    if (cJSON_IsFalse(k->kw) && (size_t)cJSON_GetArraySize(k->inst) > first)
        return mcps_si_fail(c, k, k->ip, "array has %d items; the tuple allows only %zu",
                            cJSON_GetArraySize(k->inst), first);
    return each_item(c, k, k->kw, &sp, first);
}

/* minItems and friends: n is the instance's size, when the instance is of the right type. */
mcps_si_outcome mcps_si_count_bound(mcps_si_vctx *c, const mcps_si_kw *k, bool applies, size_t n,
                                    bool is_max)
{
    size_t limit;
    if (!mcps_si_count_value(k->kw, &limit))
        return mcps_si_bad_schema(c, k, "must be a non-negative integer");
    if (!applies || (is_max ? n <= limit : n >= limit))
        return R_OK;
    bool arr = cJSON_IsArray(k->inst);
    return mcps_si_fail(c, k, k->ip, "%s has %zu %s, %s %s %zu", arr ? "array" : "object", n,
                        arr ? "items" : "properties", is_max ? "more than" : "fewer than",
                        k->kw->string, limit);
}

static size_t size_of(const cJSON *v)
{
    return (size_t)cJSON_GetArraySize(v);
}

static mcps_si_outcome kw_max_items(mcps_si_vctx *c, const mcps_si_kw *k)
{
    return mcps_si_count_bound(c, k, cJSON_IsArray(k->inst), size_of(k->inst), true);
}

static mcps_si_outcome kw_min_items(mcps_si_vctx *c, const mcps_si_kw *k)
{
    return mcps_si_count_bound(c, k, cJSON_IsArray(k->inst), size_of(k->inst), false);
}

typedef struct hashed {
    uint64_t h;
    size_t i;
    const cJSON *v;
} hashed;

static int hashed_order(const void *a, const void *b)
{
    const hashed *x = a, *y = b;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Find two equal items: sort by a value hash, compare only within equal hashes. */
static int find_duplicate(mcps_si_vctx *c, const cJSON *arr, size_t *first, size_t *second)
{
    size_t n = (size_t)cJSON_GetArraySize(arr), i = 0;
    hashed *t = malloc((n ? n : 1) * sizeof *t);
    int found = 0;
    if (!t)
        return -1;
    for (const cJSON *e = arr->child; e; e = e->next, i++)
        t[i] = (hashed){mcps_si_hash(e, 16), i, e};
    mcps_si_spend(c, n);
    qsort(t, n, sizeof *t, hashed_order);
    for (i = 0; i < n && !found; i++) {
        for (size_t j = i + 1; j < n && t[j].h == t[i].h && !found; j++) {
            found = mcps_si_equal_charged(c, t[i].v, t[j].v);
            *first = t[i].i;
            *second = t[j].i;
        }
    }
    free(t);
    return found;
}

static mcps_si_outcome kw_unique_items(mcps_si_vctx *c, const mcps_si_kw *k)
{
    size_t a = 0, b = 0;
    if (!cJSON_IsBool(k->kw))
        return mcps_si_bad_schema(c, k, "uniqueItems must be a boolean");
    if (cJSON_IsFalse(k->kw) || !cJSON_IsArray(k->inst))
        return R_OK;
    int r = find_duplicate(c, k->inst, &a, &b);
    if (r < 0)
        return mcps_si_out_of_budget(c, k);
    return r ? mcps_si_fail(c, k, k->ip,
                            "items %zu and %zu are equal; uniqueItems requires distinct items", a,
                            b)
             : R_OK;
}

/* How many items the contains schema accepts: [*lo, *hi] when some cannot be told. */
static mcps_si_outcome count_contains(mcps_si_vctx *c, const mcps_si_kw *k, size_t *lo, size_t *hi)
{
    KW_PATH(sp, k);
    size_t i = 0;
    *lo = *hi = 0;
    c->quiet++;
    for (const cJSON *item = k->inst->child; item; item = item->next, i++) {
        INDEX_PATH(ip, k->ip, i);
        mcps_si_outcome r = mcps_si_apply(c, k->kw, item, &sp, &ip);
        if (r == R_ABORT) {
            c->quiet--;
            return R_ABORT;
        }
        *lo += r == R_OK;
        *hi += r != R_FAIL;
        if (r == R_OK)
            mcps_si_mark(c, k->inst, i);
    }
    c->quiet--;
    return R_OK;
}

static bool contains_limit(mcps_si_vctx *c, const mcps_si_kw *k, const char *name, size_t *v)
{
    const cJSON *n = c->draft07 ? NULL : mcps_si_sibling(k, name);
    return !n || mcps_si_count_value(n, v);
}

static mcps_si_outcome kw_contains(mcps_si_vctx *c, const mcps_si_kw *k)
{
    size_t min = 1, max = SIZE_MAX, lo, hi, mark = c->out->nerrors;
    if (!mcps_si_is_schema(k->kw))
        return mcps_si_bad_schema(c, k, "contains must be a schema");
    if (!contains_limit(c, k, "minContains", &min) || !contains_limit(c, k, "maxContains", &max))
        return mcps_si_bad_schema(c, k,
                                  "minContains and maxContains must be non-negative integers");
    if (!cJSON_IsArray(k->inst))
        return R_OK;
    if (count_contains(c, k, &lo, &hi) == R_ABORT)
        return R_ABORT;
    /* The true count lies in [lo, hi]; decide only if every value in it agrees. */
    if (lo >= min && hi <= max) {
        mcps_si_result_rollback(c->out, mark);
        return R_OK;
    }
    if (hi >= min && lo <= max)
        return R_UNKNOWN; /* the items we cannot check decide; their notes stay */
    mcps_si_result_rollback(c->out, mark);
    if (lo > max)
        return mcps_si_fail(c, k, k->ip,
                            "array has %zu items matching contains, more than maxContains %zu", lo,
                            max);
    if (min == 1)
        return mcps_si_fail(c, k, k->ip, "array has no item matching the contains schema");
    return mcps_si_fail(
        c, k, k->ip, "array has %zu items matching contains, fewer than minContains %zu", hi, min);
}

/* minContains/maxContains are read by contains; alone they only need a valid value. */
static mcps_si_outcome kw_contains_bound(mcps_si_vctx *c, const mcps_si_kw *k)
{
    size_t v;
    return mcps_si_count_value(k->kw, &v)
               ? R_OK
               : mcps_si_bad_schema(c, k, "must be a non-negative integer");
}

/* unevaluatedItems: as unevaluatedProperties does for members (jsonschema_kwobj.c). */
static mcps_si_outcome kw_unevaluated_items(mcps_si_vctx *c, const mcps_si_kw *k)
{
    KW_PATH(sp, k);
    mcps_si_outcome acc = R_OK;
    if (!mcps_si_is_schema(k->kw))
        return mcps_si_bad_schema(c, k, "must be a schema");
    if (!cJSON_IsArray(k->inst))
        return R_OK;
    size_t pos = 0;
    for (const cJSON *item = k->inst->child; item && !mcps_si_done(c, acc);
         item = item->next, pos++) {
        mcps_si_spend(c, 1);
        if (mcps_si_marked(c, pos))
            continue;
        INDEX_PATH(ip, k->ip, pos);
        mcps_si_outcome r =
            cJSON_IsFalse(k->kw)
                ? mcps_si_fail(c, k, &ip,
                               "item %zu is not allowed (it is unevaluated and unevaluatedItems "
                               "is false)",
                               pos)
                : mcps_si_apply(c, k->kw, item, &sp, &ip);
        acc = mcps_si_both(acc, r);
    }
    if (acc == R_OK)
        mcps_si_mark_from(c, k->inst, 0);
    return acc;
}

/* ---- table ---------------------------------------------------------------------- */

static const mcps_si_keyword KEYWORDS[] = {
    /* sorted by strcmp: looked up with bsearch */
    {"additionalItems", D07, kw_additional_items},
    {"const", DALL, kw_const},
    {"contains", DALL, kw_contains},
    {"enum", DALL, kw_enum},
    {"exclusiveMaximum", DALL, kw_exclusive_maximum},
    {"exclusiveMinimum", DALL, kw_exclusive_minimum},
    {"format", DALL, kw_format},
    {"items", DALL, kw_items},
    {"maxContains", D20, kw_contains_bound},
    {"maxItems", DALL, kw_max_items},
    {"maxLength", DALL, kw_max_length},
    {"maximum", DALL, kw_maximum},
    {"minContains", D20, kw_contains_bound},
    {"minItems", DALL, kw_min_items},
    {"minLength", DALL, kw_min_length},
    {"minimum", DALL, kw_minimum},
    {"multipleOf", DALL, kw_multiple_of},
    {"pattern", DALL, kw_pattern},
    {"prefixItems", D20, kw_prefix_items},
    {"type", DALL, kw_type},
    {"unevaluatedItems", D20, kw_unevaluated_items},
    {"uniqueItems", DALL, kw_unique_items},
};

mcps_si_kw_fn mcps_si_value_keyword(const char *name, bool draft07)
{
    return mcps_si_find_keyword(KEYWORDS, sizeof KEYWORDS / sizeof *KEYWORDS, name, draft07);
}
