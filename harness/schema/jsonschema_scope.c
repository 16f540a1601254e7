/*
 * jsonschema_scope.c - where a $ref lands: base URIs, $id, $anchor and
 * $dynamicAnchor, across the schema and the documents the caller hands over.
 *
 * Before validating, every schema object reachable through keywords that hold
 * subschemas is visited once and indexed: its base URI (the nearest enclosing
 * $id, resolved per RFC 3986, or the document's URI) and its dialect, and the
 * names it defines (a resource URI for $id, "base#name" for an anchor). A
 * reference is then resolved against the base in force where it is written
 * and looked up here; nothing is ever fetched. Values of unknown keywords,
 * enum and const are not walked, so an "$id" inside them defines nothing.
 *
 * The index is work like any other: each visited object spends one unit of
 * the validation budget, and the walk is bounded by the depth limit.
 */
#include "schema/jsonschema_internal.h"

#include "uri/uri.h"

#include <stdlib.h>
#include <string.h>

/* The base of a schema with no $id and no document URI: it names nothing the
 * caller could mean, so only fragment references land in it. */
#define ROOT_BASE "urn:mcpspec:schema"

typedef struct index_node {
    const cJSON *node; /* NULL: free slot */
    const char *base;
    bool draft07;
} index_node;

typedef struct index_name {
    const char *uri; /* NULL: free slot */
    const cJSON *node;
    bool dynamic; /* a $dynamicAnchor */
} index_name;

struct mcps_si_index {
    index_node *nodes;
    size_t ncap, nused;
    index_name *names;
    size_t mcap, mused;
    char **strings; /* every string the index owns */
    size_t nstrings, scap;
    bool oom;
};

/* ---- tables ------------------------------------------------------------------- */

static uint64_t ptr_hash(const void *p)
{
    uint64_t z = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ULL;
    return z ^ (z >> 29);
}

static uint64_t str_hash(const char *s)
{
    uint64_t h = 0xCBF29CE484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001B3ULL;
    return h;
}

static const char *own(mcps_si_index *x, char *s)
{
    if (!s) {
        x->oom = true;
        return NULL;
    }
    if (x->nstrings == x->scap) {
        size_t ncap = x->scap ? x->scap * 2 : 32;
        char **t = realloc(x->strings, ncap * sizeof *t);
        if (!t) {
            free(s);
            x->oom = true;
            return NULL;
        }
        x->strings = t;
        x->scap = ncap;
    }
    return x->strings[x->nstrings++] = s;
}

static bool nodes_grow(mcps_si_index *x)
{
    size_t ncap = x->ncap ? x->ncap * 2 : 64;
    index_node *t = calloc(ncap, sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < x->ncap; i++) {
        if (!x->nodes[i].node)
            continue;
        size_t j = ptr_hash(x->nodes[i].node) & (ncap - 1);
        while (t[j].node)
            j = (j + 1) & (ncap - 1);
        t[j] = x->nodes[i];
    }
    free(x->nodes);
    x->nodes = t;
    x->ncap = ncap;
    return true;
}

/* Record node's base; false when it was indexed already (first visit wins). */
static bool node_put(mcps_si_index *x, const cJSON *node, const char *base, bool draft07)
{
    if ((x->nused + 1) * 2 > x->ncap && !nodes_grow(x)) {
        x->oom = true;
        return false;
    }
    size_t j = ptr_hash(node) & (x->ncap - 1);
    while (x->nodes[j].node && x->nodes[j].node != node)
        j = (j + 1) & (x->ncap - 1);
    if (x->nodes[j].node)
        return false;
    x->nodes[j] = (index_node){node, base, draft07};
    x->nused++;
    return true;
}

static const index_node *node_get(const mcps_si_index *x, const cJSON *node)
{
    if (!x || !x->ncap)
        return NULL;
    size_t j = ptr_hash(node) & (x->ncap - 1);
    while (x->nodes[j].node && x->nodes[j].node != node)
        j = (j + 1) & (x->ncap - 1);
    return x->nodes[j].node ? &x->nodes[j] : NULL;
}

static bool names_grow(mcps_si_index *x)
{
    size_t ncap = x->mcap ? x->mcap * 2 : 32;
    index_name *t = calloc(ncap, sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < x->mcap; i++) {
        if (!x->names[i].uri)
            continue;
        size_t j = str_hash(x->names[i].uri) & (ncap - 1);
        while (t[j].uri)
            j = (j + 1) & (ncap - 1);
        t[j] = x->names[i];
    }
    free(x->names);
    x->names = t;
    x->mcap = ncap;
    return true;
}

static const index_name *name_get(const mcps_si_index *x, const char *uri)
{
    if (!x || !x->mcap)
        return NULL;
    size_t j = str_hash(uri) & (x->mcap - 1);
    while (x->names[j].uri && strcmp(x->names[j].uri, uri) != 0)
        j = (j + 1) & (x->mcap - 1);
    return x->names[j].uri ? &x->names[j] : NULL;
}

/* Define uri (owned by the index already); the first definition wins. */
static void name_put(mcps_si_index *x, const char *uri, const cJSON *node, bool dynamic)
{
    if (!uri || name_get(x, uri))
        return;
    if ((x->mused + 1) * 2 > x->mcap && !names_grow(x)) {
        x->oom = true;
        return;
    }
    size_t j = str_hash(uri) & (x->mcap - 1);
    while (x->names[j].uri)
        j = (j + 1) & (x->mcap - 1);
    x->names[j] = (index_name){uri, node, dynamic};
    x->mused++;
}

/* ---- URIs ------------------------------------------------------------------------ */

/* ref resolved against base, fragment kept; NULL on OOM. A reference the URI
 * parser rejects still works when it is a bare fragment (schemas write "#/a b"). */
static char *resolve(const char *base, const char *ref)
{
    char *abs = mcps_uri_resolve(base, strlen(base), ref, strlen(ref), NULL, NULL);
    if (abs || ref[0] != '#')
        return abs;
    size_t nb = strcspn(base, "#"), nr = strlen(ref);
    abs = malloc(nb + nr + 1);
    if (abs) {
        memcpy(abs, base, nb);
        memcpy(abs + nb, ref, nr + 1);
    }
    return abs;
}

static char *concat(const char *a, size_t na, const char *sep, const char *b)
{
    size_t ns = strlen(sep), nb = strlen(b);
    char *s = malloc(na + ns + nb + 1);
    if (s) {
        memcpy(s, a, na);
        memcpy(s + na, sep, ns);
        memcpy(s + na + ns, b, nb + 1);
    }
    return s;
}

/* "base#name", owned by the index. */
static const char *anchor_uri(mcps_si_index *x, const char *base, const char *name)
{
    return own(x, concat(base, strlen(base), "#", name));
}

/* The URI without its fragment, owned by the index. */
static const char *strip_fragment(mcps_si_index *x, const char *abs)
{
    return own(x, concat(abs, strcspn(abs, "#"), "", ""));
}

/* ---- the walk --------------------------------------------------------------------- */

typedef struct walker {
    mcps_si_vctx *c;
    mcps_si_index *x;
} walker;

static void walk(walker *w, const cJSON *s, const char *base, bool d07, size_t depth);

static void walk_each(walker *w, const cJSON *v, const char *base, bool d07, size_t depth)
{
    if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
        return;
    for (const cJSON *e = v->child; e; e = e->next)
        walk(w, e, base, d07, depth);
}

/* Keywords whose value is a subschema, a map of them, or a list of them. */
static void walk_keyword(walker *w, const cJSON *kw, const char *base, bool d07, size_t depth)
{
    static const char *const single20[] = {"additionalProperties",
                                           "contains",
                                           "contentSchema",
                                           "else",
                                           "if",
                                           "items",
                                           "not",
                                           "propertyNames",
                                           "then",
                                           "unevaluatedItems",
                                           "unevaluatedProperties"};
    static const char *const each20[] = {
        "$defs",       "allOf",     "anyOf", "dependentSchemas", "oneOf", "patternProperties",
        "prefixItems", "properties"};
    static const char *const single07[] = {"additionalItems",
                                           "additionalProperties",
                                           "contains",
                                           "else",
                                           "if",
                                           "not",
                                           "propertyNames",
                                           "then"};
    static const char *const each07[] = {"allOf",        "anyOf", "definitions",
                                         "dependencies", "oneOf", "patternProperties",
                                         "properties"};
    if (d07 && strcmp(kw->string, "items") == 0)
        return cJSON_IsArray(kw) ? walk_each(w, kw, base, d07, depth)
                                 : walk(w, kw, base, d07, depth);
    const char *const *single = d07 ? single07 : single20, *const *each = d07 ? each07 : each20;
    size_t nsingle = d07 ? sizeof single07 / sizeof *single07 : sizeof single20 / sizeof *single20;
    size_t neach = d07 ? sizeof each07 / sizeof *each07 : sizeof each20 / sizeof *each20;
    for (size_t i = 0; i < nsingle; i++)
        if (strcmp(kw->string, single[i]) == 0)
            return walk(w, kw, base, d07, depth);
    for (size_t i = 0; i < neach; i++)
        if (strcmp(kw->string, each[i]) == 0)
            return walk_each(w, kw, base, d07, depth);
}

/* The dialect an embedded $schema asks for; d07 when it names neither. */
static bool dialect_here(const cJSON *s, bool d07)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(s, "$schema");
    mcps_schema_dialect d = mcps_schema_dialect_of(s);
    return !cJSON_IsString(v) || d == MCPS_SCHEMA_DIALECT_UNKNOWN
               ? d07
               : d == MCPS_SCHEMA_DIALECT_DRAFT_07;
}

/* Apply s's $id to base: the new base (owned), or base when s has none. */
static const char *enter_id(walker *w, const cJSON *s, const char *base, bool d07)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(s, "$id");
    if (!cJSON_IsString(id) || (d07 && cJSON_GetObjectItemCaseSensitive(s, "$ref")))
        return base;                        /* draft-07 ignores everything beside $ref, $id too */
    if (d07 && id->valuestring[0] == '#') { /* draft-07's location-independent name */
        name_put(w->x, anchor_uri(w->x, base, id->valuestring + 1), s, false);
        return base;
    }
    char *abs = resolve(base, id->valuestring);
    if (!abs)
        return base;
    const char *nbase = strip_fragment(w->x, abs);
    name_put(w->x, nbase, s, false);
    if (d07 && abs[strcspn(abs, "#")] == '#' && abs[strcspn(abs, "#") + 1])
        name_put(w->x, own(w->x, abs), s, false);
    else
        free(abs);
    return nbase ? nbase : base;
}

static void walk(walker *w, const cJSON *s, const char *base, bool d07, size_t depth)
{
    if (!cJSON_IsObject(s) || depth >= w->c->opt.max_depth || w->x->oom ||
        mcps_si_remaining(w->c) == 0)
        return;
    mcps_si_spend(w->c, 1);
    if (cJSON_GetObjectItemCaseSensitive(s, "$id"))
        d07 = dialect_here(s, d07);
    base = enter_id(w, s, base, d07);
    if (!node_put(w->x, s, base, d07))
        return; /* seen: a document handed over twice, or a shared subtree */
    if (!d07) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(s, "$anchor");
        const cJSON *da = cJSON_GetObjectItemCaseSensitive(s, "$dynamicAnchor");
        if (cJSON_IsString(a))
            name_put(w->x, anchor_uri(w->x, base, a->valuestring), s, false);
        if (cJSON_IsString(da))
            name_put(w->x, anchor_uri(w->x, base, da->valuestring), s, true);
    } else if (cJSON_GetObjectItemCaseSensitive(s, "$ref")) {
        return;
    }
    for (const cJSON *kw = s->child; kw; kw = kw->next)
        walk_keyword(w, kw, base, d07, depth + 1);
}

/* Index one document under uri (NULL: the root, known by its $id only). */
static void index_document(walker *w, const char *uri, const cJSON *doc, bool d07)
{
    const char *base = ROOT_BASE;
    if (uri) {
        char *abs = resolve(uri, "");
        base = abs ? strip_fragment(w->x, abs) : NULL;
        free(abs);
        if (!base)
            return;
    }
    if (cJSON_IsObject(doc))
        d07 = dialect_here(doc, d07);
    name_put(w->x, base, doc, false);
    if (cJSON_IsBool(doc))
        node_put(w->x, doc, base, d07);
    walk(w, doc, base, d07, 0);
}

bool mcps_si_index_build(mcps_si_vctx *c)
{
    mcps_si_index *x = calloc(1, sizeof *x);
    if (!x)
        return false;
    c->index = x;
    walker w = {c, x};
    index_document(&w, NULL, c->root, c->draft07);
    for (size_t i = 0; i < c->opt.ndocuments; i++)
        if (c->opt.documents[i].uri && c->opt.documents[i].schema)
            index_document(&w, c->opt.documents[i].uri, c->opt.documents[i].schema, c->draft07);
    return !x->oom;
}

void mcps_si_index_free(mcps_si_index *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->nstrings; i++)
        free(x->strings[i]);
    free(x->strings);
    free(x->nodes);
    free(x->names);
    free(x);
}

/* ---- lookups ---------------------------------------------------------------------- */

bool mcps_si_index_scope(const mcps_si_vctx *c, const cJSON *node, mcps_si_target *out)
{
    const index_node *n = node_get(c->index, node);
    if (!n)
        return false;
    *out = (mcps_si_target){node, n->base, n->draft07};
    return true;
}

const cJSON *mcps_si_index_document(const mcps_si_vctx *c, const char *uri)
{
    const index_name *n = name_get(c->index, uri);
    return n ? n->node : NULL;
}

/* The outermost resource on the dynamic scope with $dynamicAnchor name, if any. */
static const cJSON *dynamic_target(mcps_si_vctx *c, const char *name)
{
    for (size_t i = 0; i < c->nscope; i++) {
        char *uri = concat(c->scope[i], strlen(c->scope[i]), "#", name);
        const index_name *n = uri ? name_get(c->index, uri) : NULL;
        free(uri);
        if (n && n->dynamic)
            return n->node;
    }
    return NULL;
}

mcps_si_ref_status mcps_si_index_resolve(mcps_si_vctx *c, const char *ref, bool dynamic,
                                         mcps_si_target *out)
{
    char *abs = resolve(c->base ? c->base : ROOT_BASE, ref);
    if (!abs)
        return MCPS_SI_REF_BROKEN;
    size_t ulen = strcspn(abs, "#");
    const char *frag = abs[ulen] ? abs + ulen + 1 : "";
    abs[ulen] = '\0';
    const index_name *doc = name_get(c->index, abs);
    mcps_si_ref_status st = MCPS_SI_REF_EXTERNAL;
    const cJSON *target = NULL;
    if (doc && (frag[0] == '\0' || frag[0] == '/' || frag[0] == '%')) {
        target = mcps_si_pointer_walk(doc->node, frag);
        st = target ? MCPS_SI_REF_OK : MCPS_SI_REF_BROKEN;
    } else if (doc) {
        abs[ulen] = '#';
        const index_name *a = name_get(c->index, abs);
        target = a ? a->node : NULL;
        if (a && a->dynamic && dynamic) {
            const cJSON *outer = dynamic_target(c, frag);
            target = outer ? outer : target;
        }
        st = target ? MCPS_SI_REF_OK : MCPS_SI_REF_BROKEN;
        abs[ulen] = '\0';
    }
    if (st == MCPS_SI_REF_OK && !mcps_si_index_scope(c, target, out))
        *out = (mcps_si_target){target, doc->uri, c->draft07};
    free(abs);
    return st;
}
