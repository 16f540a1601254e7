/*
 * functions.c - the values a suite can compute with `let NAME = FUNC(...)`.
 *
 * Suites are data, but some checks need a value derived from what the target
 * listed: traversal probes aimed at a listed file:// resource, a URI built
 * from a listed template, the required arguments of a listed prompt, or
 * arguments that break a listed tool's inputSchema, or the Mcp-Param headers of a
 * call of a listed tool and their probes; and robustness probes, JSON
 * texts too deep or too big for a careless parser, built here rather than
 * written out as giant lines in a suite file. Each function takes
 * variables and returns a new JSON value, or NULL (the variable stays unset)
 * when there is nothing to compute, with a reason in why.
 */
#include "engine/functions.h"

#include "base/buf.h"
#include "codec/header.h"
#include "codec/json.h"
#include "engine/jsonschema_gen.h"
#include "session/session.h"
#include "uri/traverse.h"
#include "uri/uri.h"
#include "uri/uritemplate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The value every template variable gets: with '/', so a {+path} gains depth. */
#define PROBE_VALUE "mcpspec-probe/a/b"

static const char *uri_of(const cJSON *v)
{
    if (cJSON_IsString(v))
        return v->valuestring;
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(v, "uri");
    if (!cJSON_IsString(u))
        u = cJSON_GetObjectItemCaseSensitive(v, "uriTemplate");
    return cJSON_IsString(u) ? u->valuestring : NULL;
}

/* traversal_probes(${uri}): [{"uri": ..., "trick": ...}] aimed outside the URI's folder. */
static cJSON *traversal_probes(const cJSON *const *args, char *why, size_t n)
{
    const char *anchor = uri_of(args[0]);
    if (!anchor) {
        snprintf(why, n, "traversal_probes needs a URI");
        return NULL;
    }
    mcps_traverse_probes probes;
    mcps_uri_error err;
    if (!mcps_traverse_make_probes(anchor, strlen(anchor), &probes, &err)) {
        snprintf(why, n, "no probes for %.80s: %s", anchor, err.reason);
        return NULL;
    }
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; list && i < probes.count; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "uri", probes.items[i].uri);
        cJSON_AddStringToObject(p, "trick", probes.items[i].trick);
        cJSON_AddItemToArray(list, p);
    }
    mcps_traverse_probes_free(&probes);
    return list;
}

/* expand_template(${template}): the template with every variable set to a probe value. */
static cJSON *expand_template(const cJSON *const *args, char *why, size_t n)
{
    const char *text = uri_of(args[0]);
    if (!text) {
        snprintf(why, n, "expand_template needs a uriTemplate");
        return NULL;
    }
    mcps_tmpl_error err;
    mcps_tmpl *t = mcps_tmpl_parse(text, strlen(text), &err);
    if (!t) {
        snprintf(why, n, "not an RFC 6570 template: %s", err.reason);
        return NULL;
    }
    cJSON *values = cJSON_CreateObject();
    for (size_t i = 0; i < mcps_tmpl_var_count(t); i++)
        if (!cJSON_HasObjectItem(values, mcps_tmpl_var_name(t, i)))
            cJSON_AddStringToObject(values, mcps_tmpl_var_name(t, i), PROBE_VALUE);
    size_t len;
    char *uri = mcps_tmpl_expand(t, values, &len, &err);
    cJSON *out = uri ? cJSON_CreateString(uri) : NULL;
    if (!uri)
        snprintf(why, n, "cannot expand %.80s: %s", text, err.reason);
    free(uri);
    cJSON_Delete(values);
    mcps_tmpl_free(t);
    return out;
}

/* fill_arguments(${prompt}): {"arg": "mcpspec"} for each required argument. */
static cJSON *fill_arguments(const cJSON *const *args, char *why, size_t n)
{
    (void)why;
    (void)n;
    cJSON *out = cJSON_CreateObject();
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(args[0], "arguments");
    for (const cJSON *a = cJSON_IsArray(list) ? list->child : NULL; a; a = a->next) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(a, "name");
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "required")) && cJSON_IsString(name))
            cJSON_AddStringToObject(out, name->valuestring, "mcpspec");
    }
    return out;
}

/* invalid_arguments(${schema}, ${valid}): arguments breaking exactly one keyword, still an
 * object (a tool without arguments to break has none). */
static cJSON *invalid_arguments(const cJSON *const *args, char *why, size_t n)
{
    mcps_schema_prng prng;
    mcps_schema_prng_seed(&prng, 20261122);
    mcps_schema_mutation m;
    if (!mcps_schema_mutate_inside(args[0], args[1], &prng, &m)) {
        snprintf(why, n, "no argument value breaks this inputSchema in a way mcpspec can build");
        return NULL;
    }
    cJSON *out = m.instance;
    m.instance = NULL;
    mcps_schema_mutation_free(&m);
    return out;
}

/* template_variables(${template}): the names of its variables, in order. */
static cJSON *template_variables(const cJSON *const *args, char *why, size_t n)
{
    const char *text = uri_of(args[0]);
    mcps_tmpl_error err;
    mcps_tmpl *t = text ? mcps_tmpl_parse(text, strlen(text), &err) : NULL;
    if (!t) {
        snprintf(why, n, "template_variables needs an RFC 6570 template");
        return NULL;
    }
    cJSON *out = cJSON_CreateArray();
    for (size_t i = 0; i < mcps_tmpl_var_count(t); i++)
        cJSON_AddItemToArray(out, cJSON_CreateString(mcps_tmpl_var_name(t, i)));
    mcps_tmpl_free(t);
    return out;
}

/* The path part of a probe URI as written (no decoding): "file:///a/../b" -> "/a/../b". */
static const char *probe_path(const char *uri)
{
    if (strncmp(uri, "file://", 7) != 0)
        return NULL;
    const char *p = uri + 7;
    return *p == '/' ? p : strchr(p, '/');
}

/*
 * path_probe_arguments(${arguments}, ${path_argument}): for a tool that reads
 * a file named by one argument, copies of arguments whose path climbs out of
 * the folder of the configured path, one per traversal trick:
 * [{"arguments": {...}, "path": "...", "trick": "..."}].
 */
static cJSON *path_probe_arguments(const cJSON *const *args, char *why, size_t n)
{
    const cJSON *key = args[1];
    const cJSON *path =
        cJSON_IsString(key) ? cJSON_GetObjectItemCaseSensitive(args[0], key->valuestring) : NULL;
    if (!cJSON_IsString(path) || path->valuestring[0] != '/') {
        snprintf(why, n, "the configured path argument is not an absolute path");
        return NULL;
    }
    mcps_uri_error err;
    size_t len;
    char *anchor =
        mcps_uri_file_from_path(path->valuestring, strlen(path->valuestring), &len, &err);
    mcps_traverse_probes probes;
    bool ok = anchor && mcps_traverse_make_probes(anchor, len, &probes, &err);
    free(anchor);
    if (!ok) {
        snprintf(why, n, "no probes for %.80s: %s", path->valuestring, err.reason);
        return NULL;
    }
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; list && i < probes.count; i++) {
        const char *p = probe_path(probes.items[i].uri);
        if (!p)
            continue;
        cJSON *item = cJSON_CreateObject();
        cJSON *copy = cJSON_Duplicate(args[0], true);
        cJSON_ReplaceItemInObjectCaseSensitive(copy, key->valuestring, cJSON_CreateString(p));
        cJSON_AddItemToObject(item, "arguments", copy);
        cJSON_AddStringToObject(item, "path", p);
        cJSON_AddStringToObject(item, "trick", probes.items[i].trick);
        cJSON_AddItemToArray(list, item);
    }
    mcps_traverse_probes_free(&probes);
    return list;
}

/* generate_value(${schema}): a value that validates against the schema (deterministic). */
static cJSON *generate_value(const cJSON *const *args, char *why, size_t n)
{
    mcps_schema_prng prng;
    mcps_schema_prng_seed(&prng, 20261122);
    cJSON *v = mcps_schema_generate(args[0], &prng);
    if (!v)
        snprintf(why, n, "mcpspec cannot build a value for this schema");
    return v;
}

/* ---- robustness probes: JSON text too big or too deep for a careless parser ---------------- */

/* The generators' size argument: an integer from 1 to 4 Mi (their texts stay under 16 MiB). */
#define PROBE_MAX_N (4u << 20)

static bool probe_size(const cJSON *arg, const char *fname, size_t *n, char *why, size_t wn)
{
    double v = cJSON_IsNumber(arg) ? arg->valuedouble : 0;
    if (v < 1 || v > PROBE_MAX_N || v != (double)(size_t)v) {
        snprintf(why, wn, "%s needs an integer from 1 to %u", fname, PROBE_MAX_N);
        return false;
    }
    *n = (size_t)v;
    return true;
}

/* The text as a JSON string value (what a raw send splices in), or NULL. */
static cJSON *text_value(mcps_buf *b, char *why, size_t n)
{
    cJSON *out = b->data ? cJSON_CreateString(b->data) : NULL;
    mcps_buf_free(b);
    if (!out)
        snprintf(why, n, "out of memory");
    return out;
}

static void repeat_text(mcps_buf *b, const char *unit, size_t times)
{
    size_t len = strlen(unit);
    if (!mcps_buf_reserve(b, len * times))
        return;
    for (size_t i = 0; i < times; i++)
        mcps_buf_append(b, unit, len);
}

/* json_nested_arrays(${n}): [[[...]]], n levels. */
static cJSON *json_nested_arrays(const cJSON *const *args, char *why, size_t wn)
{
    size_t n;
    if (!probe_size(args[0], "json_nested_arrays", &n, why, wn))
        return NULL;
    mcps_buf b = {0};
    repeat_text(&b, "[", n);
    repeat_text(&b, "]", n);
    return text_value(&b, why, wn);
}

/* json_nested_objects(${n}): {"a":{"a":...{}}}, n levels. */
static cJSON *json_nested_objects(const cJSON *const *args, char *why, size_t wn)
{
    size_t n;
    if (!probe_size(args[0], "json_nested_objects", &n, why, wn))
        return NULL;
    mcps_buf b = {0};
    repeat_text(&b, "{\"a\":", n - 1);
    mcps_buf_puts(&b, "{}");
    repeat_text(&b, "}", n - 1);
    return text_value(&b, why, wn);
}

/* json_long_string(${n}): a JSON string of n characters (quotes included in the text). */
static cJSON *json_long_string(const cJSON *const *args, char *why, size_t wn)
{
    size_t n;
    if (!probe_size(args[0], "json_long_string", &n, why, wn))
        return NULL;
    mcps_buf b = {0};
    mcps_buf_putc(&b, '"');
    repeat_text(&b, "m", n);
    mcps_buf_putc(&b, '"');
    return text_value(&b, why, wn);
}

/* json_long_number(${n}): an integer of n digits, far beyond any double or int64. */
static cJSON *json_long_number(const cJSON *const *args, char *why, size_t wn)
{
    size_t n;
    if (!probe_size(args[0], "json_long_number", &n, why, wn))
        return NULL;
    mcps_buf b = {0};
    mcps_buf_putc(&b, '9');
    repeat_text(&b, "8", n - 1);
    return text_value(&b, why, wn);
}

/* json_many_members(${n}): {"m0":0,"m1":0,...}, n distinct members. */
static cJSON *json_many_members(const cJSON *const *args, char *why, size_t wn)
{
    size_t n;
    if (!probe_size(args[0], "json_many_members", &n, why, wn))
        return NULL;
    mcps_buf b = {0};
    mcps_buf_putc(&b, '{');
    for (size_t i = 0; i < n; i++)
        mcps_buf_printf(&b, "%s\"m%zu\":0", i ? "," : "", i);
    mcps_buf_putc(&b, '}');
    return text_value(&b, why, wn);
}

/* ---- authorization (RFC 9728) ---- */

/* An auth-param's value in a WWW-Authenticate value: a token or a quoted-string. */
static cJSON *auth_param(const char *h, const char *name)
{
    size_t nlen = strlen(name);
    for (const char *p = h; *p; p++) {
        bool starts = p == h || p[-1] == ' ' || p[-1] == ',' || p[-1] == '\t';
        if (!starts || strncasecmp(p, name, nlen) != 0)
            continue;
        const char *v = p + nlen;
        v += strspn(v, " \t");
        if (*v++ != '=')
            continue;
        v += strspn(v, " \t");
        mcps_buf b = {0};
        if (*v == '"') {
            for (v++; *v && *v != '"'; v++)
                mcps_buf_putc(&b, *v == '\\' && v[1] ? *++v : *v);
        } else {
            mcps_buf_append(&b, v, strcspn(v, " \t,"));
        }
        cJSON *out = cJSON_CreateString(b.data ? b.data : "");
        mcps_buf_free(&b);
        return out;
    }
    return NULL;
}

/* protected_resource_metadata(${headers}): where a client finds the protected resource
 * metadata, from the headers of a 401 (or the WWW-Authenticate value itself): the challenge's
 * resource_metadata, else the well-known URI at the origin's root (RFC 9728 section 3). */
static cJSON *protected_resource_metadata(const cJSON *const *args, char *why, size_t wn)
{
    const cJSON *h = args[0];
    if (cJSON_IsObject(h))
        h = cJSON_GetObjectItemCaseSensitive(h, "www-authenticate");
    cJSON *url = cJSON_IsString(h) ? auth_param(h->valuestring, "resource_metadata") : NULL;
    if (!url)
        url = cJSON_CreateString("/.well-known/oauth-protected-resource");
    if (!url)
        snprintf(why, wn, "out of memory");
    return url;
}

/* ---- x-mcp-header (2026-07-28): Mcp-Param-* probes ---- */

#define PARAM_MAX   16 /* annotations used per schema */
#define PARAM_DEPTH 8  /* properties steps from the root */

/* An annotated property: its header, its path of property names, and its argument. */
typedef struct param {
    const char *header;
    const char *keys[PARAM_DEPTH];
    size_t depth;
    bool integer;       /* its schema's type is "integer" */
    bool required;      /* its parent schema requires it */
    const cJSON *value; /* in the configured arguments; NULL when absent or null */
} param;

/* The annotations on properties reached from the root through "properties" alone, the only
 * places a client looks (TOOL-020); keys holds the path so far. */
static void find_params(const cJSON *schema, const char **keys, size_t depth, param *out, size_t *n)
{
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
    if (!cJSON_IsObject(props) || depth == PARAM_DEPTH)
        return;
    const cJSON *required = cJSON_GetObjectItemCaseSensitive(schema, "required");
    for (const cJSON *p = props->child; p && *n < PARAM_MAX; p = p->next) {
        keys[depth] = p->string;
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(p, "x-mcp-header");
        if (cJSON_IsString(h) && h->valuestring[0]) {
            param *q = &out[(*n)++];
            *q = (param){.header = h->valuestring, .depth = depth + 1};
            memcpy(q->keys, keys, (depth + 1) * sizeof *keys);
            const cJSON *type = cJSON_GetObjectItemCaseSensitive(p, "type");
            q->integer = cJSON_IsString(type) && strcmp(type->valuestring, "integer") == 0;
            for (const cJSON *r = cJSON_IsArray(required) ? required->child : NULL; r; r = r->next)
                q->required |= cJSON_IsString(r) && strcmp(r->valuestring, p->string) == 0;
        }
        find_params(p, keys, depth + 1, out, n);
    }
}

/* The member holding the argument at the end of keys (its parent object: *parent), or NULL. */
static cJSON *param_at(cJSON *args, const param *p, cJSON **parent)
{
    cJSON *cur = args;
    for (size_t i = 0; i < p->depth && cur; i++) {
        *parent = cur;
        cur = cJSON_IsObject(cur) ? cJSON_GetObjectItemCaseSensitive(cur, p->keys[i]) : NULL;
    }
    return cur;
}

/* An integer a header can carry exactly (|v| < 2^53). */
static bool exact_integer(const cJSON *v)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble > -9007199254740992.0) ||
        !(v->valuedouble < 9007199254740992.0))
        return false;
    return (double)(long long)v->valuedouble == v->valuedouble;
}

/* The argument as a client stringifies it (HDR-010): a string as it is, an integer in decimal,
 * a boolean as true or false; other values are not mirrored (NULL). bump: a different value of
 * the same kind instead, for a header that disagrees with the body. */
static char *param_text(const cJSON *v, bool bump)
{
    char text[32];
    if (cJSON_IsBool(v))
        return strdup(cJSON_IsTrue(v) != bump ? "true" : "false");
    if (exact_integer(v)) {
        snprintf(text, sizeof text, "%lld", (long long)v->valuedouble + (bump ? 1 : 0));
        return strdup(text);
    }
    if (!cJSON_IsString(v))
        return NULL;
    mcps_buf b = {0};
    mcps_buf_printf(&b, "%s%s", v->valuestring, bump ? "-mcpspec" : "");
    return mcps_buf_take(&b);
}

/* headers with the header of p set to text as a client sends it (NULL: left out). */
static cJSON *with_header(const cJSON *headers, const param *p, const char *text, bool raw)
{
    char name[160];
    snprintf(name, sizeof name, "Mcp-Param-%s", p->header);
    cJSON *copy = cJSON_Duplicate(headers, true);
    cJSON_DeleteItemFromObjectCaseSensitive(copy, name);
    char *encoded = text && !raw ? mcps_header_encode(text) : NULL;
    if (text)
        cJSON_AddStringToObject(copy, name, raw ? text : encoded ? encoded : "");
    free(encoded);
    return copy;
}

static void add_probe(cJSON *list, const char *trick, const param *p, cJSON *headers,
                      cJSON *arguments)
{
    cJSON *probe = cJSON_CreateObject();
    char text[200];
    snprintf(text, sizeof text, "Mcp-Param-%.60s %s", p->header, trick);
    cJSON_AddStringToObject(probe, "trick", text);
    cJSON_AddItemToObject(probe, "headers", headers);
    if (arguments)
        cJSON_AddItemToObject(probe, "arguments", arguments);
    cJSON_AddItemToArray(list, probe);
}

/* Header probes for each annotated argument of the call with a value: left out, saying another
 * value, holding a control character. */
static void refusals(cJSON *out, const cJSON *headers, const param *ps, size_t n)
{
    cJSON *refused = cJSON_AddArrayToObject(out, "refused");
    cJSON *invalid = cJSON_AddArrayToObject(out, "invalid");
    for (size_t i = 0; i < n; i++) {
        if (!ps[i].value)
            continue;
        add_probe(refused, "left out, while the body gives the argument a value", &ps[i],
                  with_header(headers, &ps[i], NULL, false), NULL);
        char *other = param_text(ps[i].value, true);
        add_probe(refused, "saying another value than the body", &ps[i],
                  with_header(headers, &ps[i], other, false), NULL);
        free(other);
        char *text = param_text(ps[i].value, false);
        char *sent = text ? mcps_header_encode(text) : NULL;
        mcps_buf b = {0};
        mcps_buf_printf(&b, "\x01%s", sent ? sent : "");
        add_probe(invalid, "with a control character (U+0001) before the value", &ps[i],
                  with_header(headers, &ps[i], b.data ? b.data : "\x01", true), NULL);
        mcps_buf_free(&b);
        free(sent);
        free(text);
    }
}

/* The argument absent, then null, and its header left out: what a client sends then. One
 * argument, preferably one the schema does not require, so that the call can still succeed. */
static void absences(cJSON *out, const cJSON *headers, const cJSON *args, const param *ps, size_t n)
{
    const param *p = NULL;
    for (size_t i = 0; i < n; i++)
        if (ps[i].value && (!p || (p->required && !ps[i].required)))
            p = &ps[i];
    cJSON *absent = cJSON_AddArrayToObject(out, "absent");
    for (int null = 0; p && null < 2; null++) {
        cJSON *copy = cJSON_Duplicate(args, true), *parent = NULL;
        param_at(copy, p, &parent);
        if (null)
            cJSON_ReplaceItemInObjectCaseSensitive(parent, p->keys[p->depth - 1],
                                                   cJSON_CreateNull());
        else
            cJSON_DeleteItemFromObjectCaseSensitive(parent, p->keys[p->depth - 1]);
        add_probe(absent, null ? "left out, the argument null" : "left out, the argument absent", p,
                  with_header(headers, p, NULL, false), copy);
    }
}

/* An integer argument's header as "<decimal>.0": equal to the body by value (HDR-012). */
static void integer_probe(cJSON *out, const cJSON *headers, const param *ps, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!ps[i].integer || !exact_integer(ps[i].value))
            continue;
        char text[40];
        snprintf(text, sizeof text, "%lld.0", (long long)ps[i].value->valuedouble);
        cJSON *probe = cJSON_AddObjectToObject(out, "integer");
        cJSON_AddItemToObject(probe, "headers", with_header(headers, &ps[i], text, false));
        cJSON_AddStringToObject(probe, "header", text);
        return;
    }
}

/*
 * mcp_param_probes(${inputSchema}, ${arguments}): for a call of a tool whose inputSchema marks
 * properties with x-mcp-header (2026-07-28), the Mcp-Param-* headers a client sends with those
 * arguments ("headers", HDR-009/010, encoded like Mcp-Name, HDR-007), and the probes a server
 * must refuse or accept (HDR-011, HDR-012): {"headers", "refused": [{"trick","headers"}],
 * "invalid": [...], "absent": [{"trick","headers","arguments"}], "integer": {"headers"}}, the
 * last only when an integer argument has a value. NULL when no annotated argument has one.
 */
static cJSON *mcp_param_probes(const cJSON *const *args, char *why, size_t n)
{
    param ps[PARAM_MAX];
    size_t count = 0, valued = 0;
    const char *keys[PARAM_DEPTH];
    find_params(args[0], keys, 0, ps, &count);
    cJSON *call = cJSON_IsObject(args[1]) ? cJSON_Duplicate(args[1], true) : cJSON_CreateObject();
    cJSON *headers = cJSON_CreateObject();
    for (size_t i = 0; i < count; i++) {
        cJSON *parent = NULL, *v = param_at(call, &ps[i], &parent);
        char *text = v && !cJSON_IsNull(v) ? param_text(v, false) : NULL;
        ps[i].value = text ? v : NULL; /* call lives as long as ps */
        cJSON *next = text ? with_header(headers, &ps[i], text, false) : NULL;
        if (next) {
            cJSON_Delete(headers);
            headers = next;
            valued++;
        }
        free(text);
    }
    cJSON *out = NULL;
    if (valued) {
        out = cJSON_CreateObject();
        cJSON_AddItemToObject(out, "headers", cJSON_Duplicate(headers, true));
        refusals(out, headers, ps, count);
        absences(out, headers, call, ps, count);
        integer_probe(out, headers, ps, count);
    } else {
        snprintf(why, n, "%s",
                 count ? "the arguments give no x-mcp-header property a value"
                       : "the inputSchema marks no property with x-mcp-header");
    }
    cJSON_Delete(headers);
    cJSON_Delete(call);
    return out;
}

typedef struct function {
    const char *name;
    size_t nargs;
    cJSON *(*call)(const cJSON *const *args, char *why, size_t n);
} function;

static const function functions[] = {
    {"traversal_probes", 1, traversal_probes},
    {"expand_template", 1, expand_template},
    {"fill_arguments", 1, fill_arguments},
    {"invalid_arguments", 2, invalid_arguments},
    {"template_variables", 1, template_variables},
    {"path_probe_arguments", 2, path_probe_arguments},
    {"generate_value", 1, generate_value},
    {"json_nested_arrays", 1, json_nested_arrays},
    {"json_nested_objects", 1, json_nested_objects},
    {"json_long_string", 1, json_long_string},
    {"json_long_number", 1, json_long_number},
    {"json_many_members", 1, json_many_members},
    {"protected_resource_metadata", 1, protected_resource_metadata},
    {"mcp_param_probes", 2, mcp_param_probes},
};

bool mcps_function_known(const char *name, size_t nargs)
{
    for (size_t i = 0; i < sizeof functions / sizeof *functions; i++)
        if (strcmp(functions[i].name, name) == 0)
            return functions[i].nargs == nargs;
    return false;
}

cJSON *mcps_function_call(const char *name, const cJSON *const *args, size_t nargs, char *why,
                          size_t n)
{
    for (size_t i = 0; i < sizeof functions / sizeof *functions; i++) {
        if (strcmp(functions[i].name, name) != 0)
            continue;
        for (size_t a = 0; a < nargs; a++)
            if (!args[a]) {
                snprintf(why, n, "%s: argument %zu is not set", name, a + 1);
                return NULL;
            }
        return nargs == functions[i].nargs ? functions[i].call(args, why, n) : NULL;
    }
    snprintf(why, n, "unknown function %s", name);
    return NULL;
}
