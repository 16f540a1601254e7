/*
 * observe_mcp_header.c - the x-mcp-header rule of protocol revision 2026-07-28.
 *
 * A tool's inputSchema may mark a property with "x-mcp-header": an HTTP client
 * then copies that argument into an Mcp-Param-{name} header. The client finds
 * the argument by following "properties" keys from the root, and the value
 * must fit in a header, so an annotation is valid only as a non-empty RFC 9110
 * token, unique regardless of case within its schema, on an integer, string
 * or boolean property reached through "properties" alone (TOOL-020). Headers
 * are logged and seen by intermediaries, so a property named like a secret
 * should not be mirrored into one (TOOL-022, a heuristic on the name).
 *
 * Every result with a "tools" array is walked (that is a tools/list result);
 * the rule is graded in engine/observers.c (observe/mcp-headers).
 */
#include "session/observe.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define ANNOTATION  "x-mcp-header"
#define MAX_HEADERS 64 /* per schema; more are judged but not checked for repeats */
#define MAX_DEPTH   64 /* a deeper schema is not walked further */

typedef struct walk {
    mcps_observer *obs; /* NULL: only count the annotations */
    mcps_dir dir;
    uint64_t offset;
    size_t line;
    const char *tool;
    const char *seen[MAX_HEADERS]; /* this schema's header names so far */
    size_t nseen;
    size_t count;
} walk;

static const cJSON *member(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* RFC 9110 token: one or more tchar (no spaces, separators or controls). */
static bool is_token(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("!#$%&'*+-.^_`|~", *s))
            return false;
    return true;
}

static bool primitive_name(const cJSON *t)
{
    return cJSON_IsString(t) &&
           (strcmp(t->valuestring, "integer") == 0 || strcmp(t->valuestring, "string") == 0 ||
            strcmp(t->valuestring, "boolean") == 0);
}

/* "type" names integer, string or boolean only (never number, object or array). */
static bool primitive_type(const cJSON *type)
{
    if (!cJSON_IsArray(type))
        return primitive_name(type);
    if (!type->child)
        return false;
    for (const cJSON *t = type->child; t; t = t->next)
        if (!primitive_name(t))
            return false;
    return true;
}

/* The catalog's heuristic: password|secret|token|api[_-]?key|ssn, in any case. */
static bool sensitive_name(const char *name)
{
    char low[128];
    size_t n = 0;
    for (; name[n] && n < sizeof low - 1; n++)
        low[n] = (char)tolower((unsigned char)name[n]);
    low[n] = '\0';
    if (strstr(low, "password") || strstr(low, "secret") || strstr(low, "token") ||
        strstr(low, "ssn"))
        return true;
    for (const char *api = strstr(low, "api"); api; api = strstr(api + 1, "api")) {
        const char *rest = api + 3;
        if (*rest == '_' || *rest == '-')
            rest++;
        if (strncmp(rest, "key", 3) == 0)
            return true;
    }
    return false;
}

static bool repeated(walk *w, const char *header)
{
    for (size_t i = 0; i < w->nseen; i++)
        if (strcasecmp(w->seen[i], header) == 0)
            return true;
    if (w->nseen < MAX_HEADERS)
        w->seen[w->nseen++] = header;
    return false;
}

/* What makes the annotation on schema invalid, or NULL. prop: the property it is on, if any. */
static const char *invalid(walk *w, const cJSON *schema, const char *prop, bool reachable)
{
    const cJSON *value = member(schema, ANNOTATION);
    if (!cJSON_IsString(value) || !is_token(value->valuestring))
        return "its value is not a non-empty RFC 9110 token";
    if (repeated(w, value->valuestring))
        return "it repeats another annotation's header name (case-insensitively)";
    if (!prop || !reachable)
        return "it is not on a property reached from the root through properties alone";
    if (!primitive_type(member(schema, "type")))
        return "its property's type is not integer, string or boolean";
    return NULL;
}

static void judge(walk *w, const cJSON *schema, const char *prop, bool reachable)
{
    w->count++;
    if (!w->obs)
        return;
    const char *why = invalid(w, schema, prop, reachable);
    if (why)
        mcps_observe_report(w->obs, MCPS_FINDING_MCP_HEADER_INVALID, w->dir, w->offset, w->line,
                            "tool \"%.60s\": an x-mcp-header annotation%s%.60s%s is invalid: %s",
                            w->tool, prop ? " on \"" : "", prop ? prop : "", prop ? "\"" : "", why);
    if (prop && sensitive_name(prop))
        mcps_observe_report(w->obs, MCPS_FINDING_MCP_HEADER_SENSITIVE, w->dir, w->offset, w->line,
                            "tool \"%.60s\": the property \"%.60s\", named like a secret, is "
                            "mirrored into a header by x-mcp-header",
                            w->tool, prop);
}

/* Keywords whose values are data, not schemas: an "x-mcp-header" in them is no annotation. */
static bool data_keyword(const char *k)
{
    return strcmp(k, "const") == 0 || strcmp(k, "enum") == 0 || strcmp(k, "default") == 0 ||
           strcmp(k, "examples") == 0 || strcmp(k, ANNOTATION) == 0;
}

/* Keywords whose values map names to schemas. */
static bool map_keyword(const char *k)
{
    return strcmp(k, "$defs") == 0 || strcmp(k, "definitions") == 0 ||
           strcmp(k, "patternProperties") == 0 || strcmp(k, "dependentSchemas") == 0;
}

/* reachable: the path from the root took "properties" steps only; prop: the last one's name. */
static void walk_schema(walk *w, const cJSON *schema, const char *prop, bool reachable, int depth)
{
    if (!cJSON_IsObject(schema) || depth > MAX_DEPTH)
        return;
    if (member(schema, ANNOTATION))
        judge(w, schema, prop, reachable);
    for (const cJSON *m = schema->child; m; m = m->next) {
        bool properties = strcmp(m->string, "properties") == 0;
        if (data_keyword(m->string))
            continue;
        if (cJSON_IsObject(m) && (properties || map_keyword(m->string))) {
            for (const cJSON *c = m->child; c; c = c->next)
                walk_schema(w, c, properties ? c->string : NULL, properties && reachable,
                            depth + 1);
        } else if (cJSON_IsArray(m)) {
            for (const cJSON *c = m->child; c; c = c->next)
                walk_schema(w, c, NULL, false, depth + 1);
        } else {
            walk_schema(w, m, NULL, false, depth + 1);
        }
    }
}

static void walk_tools(walk *w, const cJSON *result)
{
    const cJSON *tools = member(result, "tools");
    for (const cJSON *t = cJSON_IsArray(tools) ? tools->child : NULL; t; t = t->next) {
        const cJSON *name = member(t, "name");
        w->tool = cJSON_IsString(name) ? name->valuestring : "";
        w->nseen = 0;
        walk_schema(w, member(t, "inputSchema"), NULL, true, 0);
    }
}

size_t mcps_observe_mcp_headers(const mcps_rpc_info *info)
{
    if (info->kind != MCPS_RPC_RESULT)
        return 0;
    walk w = {0};
    walk_tools(&w, info->result);
    return w.count;
}

void mcps_observe_judge_mcp_headers(mcps_observer *obs, const mcps_rpc_info *info, mcps_dir dir,
                                    uint64_t offset, size_t line)
{
    walk w = {.obs = obs, .dir = dir, .offset = offset, .line = line};
    walk_tools(&w, info->result);
}
