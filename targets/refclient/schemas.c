/*
 * schemas.c - what refclient does with the JSON Schemas of a tool list on
 * 2026-07-28: fill a tuple argument (prefixItems, 2020-12) of the tool it
 * calls, measure how deep a schema nests, and - only under the fetch-ref
 * fault - fetch the http(s) $refs it finds. Clean, refclient never resolves a
 * network $ref (GEN-JSCH-004) and evaluates no schema, so a deep one costs it
 * nothing (GEN-JSCH-006).
 */
#include "refclient.h"

#include <string.h>

#include <curl/curl.h>

#define FETCH_TIMEOUT_MS 2000L
#define MAX_FETCHES      4

static const cJSON *member(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

/* A value of the schema's type: "a", 1, true or null. */
static cJSON *sample_of(const cJSON *schema)
{
    const cJSON *type = member(schema, "type");
    const char *t = cJSON_IsString(type) ? type->valuestring : "";
    if (strcmp(t, "string") == 0)
        return cJSON_CreateString("a");
    if (strcmp(t, "integer") == 0 || strcmp(t, "number") == 0)
        return cJSON_CreateNumber(1);
    if (strcmp(t, "boolean") == 0)
        return cJSON_CreateTrue();
    return cJSON_CreateNull();
}

/* A tuple for an array schema with prefixItems: one sample per prefix item; the draft-07
 * reading of the schema-draft7 fault, which knows no prefixItems, takes every element from
 * items. */
static cJSON *tuple_of(const rc_client *c, const cJSON *schema)
{
    const cJSON *prefix = member(schema, "prefixItems"), *p;
    cJSON *out = cJSON_CreateArray();
    cJSON_ArrayForEach(p, prefix)
    {
        cJSON_AddItemToArray(
            out, sample_of(rc_on(c, RC_FAULT_SCHEMA_DRAFT7) || rc_on(c, RC_FAULT_TUPLE_DRAFT7)
                               ? member(schema, "items")
                               : p));
    }
    return out;
}

void rc_schema_fill(const rc_client *c, const cJSON *tool, cJSON *arguments)
{
    const cJSON *props = member(member(tool, "inputSchema"), "properties"), *p;
    cJSON_ArrayForEach(p, props)
    {
        if (p->string && cJSON_IsArray(member(p, "prefixItems")) && !member(arguments, p->string))
            cJSON_AddItemToObject(arguments, p->string, tuple_of(c, p));
    }
}

int rc_schema_depth(const cJSON *v)
{
    int deepest = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        int d = rc_schema_depth(e);
        if (d > deepest)
            deepest = d;
    }
    return (cJSON_IsObject(v) || cJSON_IsArray(v)) ? deepest + 1 : 0;
}

static size_t discard(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    (void)ptr;
    (void)userdata;
    return size * nmemb;
}

static void fetch(const char *url)
{
    CURL *easy = curl_easy_init();
    if (!easy)
        return;
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, FETCH_TIMEOUT_MS);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
    fprintf(stderr, "refclient: fetching the $ref %s (fault)\n", url);
    curl_easy_perform(easy);
    curl_easy_cleanup(easy);
}

static void fetch_in(const cJSON *v, int *left)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        if (*left <= 0)
            return;
        if (e->string && strcmp(e->string, "$ref") == 0 && cJSON_IsString(e) &&
            (strncmp(e->valuestring, "http://", 7) == 0 ||
             strncmp(e->valuestring, "https://", 8) == 0)) {
            fetch(e->valuestring);
            (*left)--;
        } else
            fetch_in(e, left);
    }
}

void rc_schema_fetch_refs(const rc_client *c, const cJSON *list)
{
    int left = MAX_FETCHES;
    if (rc_on(c, RC_FAULT_FETCH_REF))
        fetch_in(list, &left);
}
