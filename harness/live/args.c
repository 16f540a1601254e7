/*
 * args.c - tool arguments from an inputSchema (args.h). Boundary values are
 * this file's own: a valid value with one top-level property moved to the
 * edge its schema allows (the maximum itself, a string of maxLength, ...),
 * where off-by-one checks live; one past the edge is the invalid kind's job
 * (mcps_schema_mutate_inside oversteps a bound by one).
 */
#include "live/args.h"

#include "engine/jsonschema_gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EDGE_LEN   65536 /* longest string or array a boundary value builds */
#define MAX_CANDIDATES 64

/* One way to put a property at its edge: the property, its schema, the keyword. */
typedef struct edge {
    const char *name;
    const cJSON *schema;
    const char *keyword;
    double bound;
} edge;

static bool is_integer_schema(const cJSON *schema)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(schema, "type");
    return cJSON_IsString(type) && strcmp(type->valuestring, "integer") == 0;
}

/* The bounded keywords of each top-level property, in schema order. */
static size_t edges_of(const cJSON *schema, edge *out)
{
    static const char *const keywords[] = {"minimum",          "maximum",   "exclusiveMinimum",
                                           "exclusiveMaximum", "minLength", "maxLength",
                                           "minItems",         "maxItems"};
    size_t n = 0;
    const cJSON *prop;
    cJSON_ArrayForEach(prop, cJSON_GetObjectItemCaseSensitive(schema, "properties"))
    {
        for (size_t k = 0; k < sizeof keywords / sizeof *keywords && n < MAX_CANDIDATES; k++) {
            const cJSON *b = cJSON_GetObjectItemCaseSensitive(prop, keywords[k]);
            if (cJSON_IsNumber(b) && isfinite(b->valuedouble))
                out[n++] = (edge){prop->string, prop, keywords[k], b->valuedouble};
        }
    }
    return n;
}

/* n copies of one generated item (NULL when the items schema gives none). */
static cJSON *array_of(const cJSON *schema, size_t n, mcps_live_rng *rng)
{
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(schema, "items");
    cJSON *item = cJSON_IsObject(items) ? mcps_schema_generate(items, rng) : cJSON_CreateNull();
    if (!item)
        return NULL;
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, cJSON_Duplicate(item, true));
    cJSON_Delete(item);
    return arr;
}

static cJSON *string_of(size_t n)
{
    char *s = malloc(n + 1);
    if (!s)
        return NULL;
    memset(s, 'a', n);
    s[n] = '\0';
    cJSON *v = cJSON_CreateString(s);
    free(s);
    return v;
}

/* The value at e's edge: the bound itself, or the nearest value inside an exclusive one. */
static cJSON *edge_value(const edge *e, mcps_live_rng *rng)
{
    double b = e->bound;
    bool integer = is_integer_schema(e->schema);
    if (strcmp(e->keyword, "minimum") == 0 || strcmp(e->keyword, "maximum") == 0)
        return cJSON_CreateNumber(
            integer ? (strcmp(e->keyword, "minimum") == 0 ? ceil(b) : floor(b)) : b);
    if (strcmp(e->keyword, "exclusiveMinimum") == 0)
        return cJSON_CreateNumber(integer ? floor(b) + 1 : nextafter(b, INFINITY));
    if (strcmp(e->keyword, "exclusiveMaximum") == 0)
        return cJSON_CreateNumber(integer ? ceil(b) - 1 : nextafter(b, -INFINITY));
    if (b < 0 || b > MAX_EDGE_LEN)
        return NULL;
    if (strstr(e->keyword, "Length"))
        return string_of((size_t)b);
    return array_of(e->schema, (size_t)b, rng);
}

static bool valid(const cJSON *schema, const cJSON *v)
{
    mcps_schema_options opts = mcps_schema_default_options();
    mcps_schema_result r;
    bool ok = mcps_schema_validate(schema, v, &opts, &r) == MCPS_SCHEMA_VALID;
    mcps_schema_result_free(&r);
    return ok;
}

/* base with one property at an edge, if one the schema states gives a valid value. */
static cJSON *boundary(const cJSON *schema, const cJSON *base, mcps_live_rng *rng)
{
    edge edges[MAX_CANDIDATES];
    size_t n = edges_of(schema, edges);
    if (!n || !cJSON_IsObject(base))
        return NULL;
    const edge *e = &edges[mcps_live_rng_below(rng, n)];
    cJSON *v = edge_value(e, rng);
    if (!v)
        return NULL;
    cJSON *out = cJSON_Duplicate(base, true);
    cJSON_DeleteItemFromObjectCaseSensitive(out, e->name);
    cJSON_AddItemToObject(out, e->name, v);
    if (valid(schema, out))
        return out;
    cJSON_Delete(out);
    return NULL;
}

static cJSON *broken(const cJSON *schema, const cJSON *base, mcps_live_rng *rng)
{
    mcps_schema_mutation m;
    if (!mcps_schema_mutate_inside(schema, base, rng, &m))
        return NULL;
    cJSON *out = m.instance;
    m.instance = NULL;
    mcps_schema_mutation_free(&m);
    return out;
}

cJSON *mcps_live_args_make(const cJSON *schema, const cJSON *configured, mcps_live_args_kind kind,
                           mcps_live_rng *rng, mcps_live_args_kind *made)
{
    cJSON *conf =
        cJSON_IsObject(configured) ? cJSON_Duplicate(configured, true) : cJSON_CreateObject();
    *made = MCPS_LIVE_ARGS_CONFIGURED;
    if (!cJSON_IsObject(schema) || kind == MCPS_LIVE_ARGS_CONFIGURED)
        return conf;
    cJSON *gen = mcps_schema_generate(schema, rng);
    /* The configured arguments are valid too (when they are): a base for the other kinds. */
    const cJSON *base = gen && cJSON_IsObject(gen) ? gen : conf;
    cJSON *out = NULL;
    if (kind == MCPS_LIVE_ARGS_BOUNDARY)
        out = boundary(schema, base, rng);
    else if (kind == MCPS_LIVE_ARGS_INVALID)
        out = broken(schema, base, rng);
    if (out) {
        *made = kind;
    } else if (gen && cJSON_IsObject(gen)) {
        out = gen;
        gen = NULL;
        *made = MCPS_LIVE_ARGS_VALID;
    }
    cJSON_Delete(gen);
    if (!out)
        return conf;
    cJSON_Delete(conf);
    return out;
}
