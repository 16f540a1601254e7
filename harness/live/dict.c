/*
 * dict.c - the dictionary: one session that reads tools/list, prompts/list,
 * resources/list and resources/templates/list, following nextCursor a few
 * pages, before any fuzzing. A list the target refuses is simply empty. The
 * tools' inputSchemas are kept for the consented calls (mcps_live_dict_consent).
 */
#include "live/dict.h"

#include "base/clock.h"
#include "live/exec.h"
#include "live/uris.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PAGES   8
#define MAX_ENTRIES 64 /* per list: enough to pick from */

void mcps_live_dict_init(mcps_live_dict *d)
{
    d->tools = cJSON_CreateArray();
    d->prompts = cJSON_CreateArray();
    d->uris = cJSON_CreateArray();
    d->templates = cJSON_CreateArray();
    d->cursors = cJSON_CreateObject();
    d->calls = cJSON_CreateArray();
    d->schemas = cJSON_CreateObject();
    d->attacks = cJSON_CreateArray();
}

void mcps_live_dict_free(mcps_live_dict *d)
{
    cJSON *all[] = {d->tools,   d->prompts, d->uris,    d->templates,
                    d->cursors, d->calls,   d->schemas, d->attacks};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        cJSON_Delete(all[i]);
    *d = (mcps_live_dict){0};
}

void mcps_live_dict_consent(mcps_live_dict *d, const char *name, const cJSON *arguments)
{
    cJSON *call = cJSON_CreateObject();
    cJSON_AddStringToObject(call, "name", name);
    cJSON_AddItemToObject(call, "arguments",
                          arguments && cJSON_IsObject(arguments) ? cJSON_Duplicate(arguments, true)
                                                                 : cJSON_CreateObject());
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(d->schemas, name);
    if (cJSON_IsObject(schema))
        cJSON_AddItemToObject(call, "inputSchema", cJSON_Duplicate(schema, true));
    cJSON_AddItemToArray(d->calls, call);
}

static void add_string(cJSON *list, const cJSON *v)
{
    if (cJSON_IsString(v) && cJSON_GetArraySize(list) < MAX_ENTRIES)
        cJSON_AddItemToArray(list, cJSON_CreateString(v->valuestring));
}

static void add_prompt(cJSON *list, const cJSON *p)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
    if (!cJSON_IsString(name) || cJSON_GetArraySize(list) >= MAX_ENTRIES)
        return;
    cJSON *entry = cJSON_CreateObject();
    cJSON_AddStringToObject(entry, "name", name->valuestring);
    cJSON *args = cJSON_AddArrayToObject(entry, "args");
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(p, "arguments"))
        add_string(args, cJSON_GetObjectItemCaseSensitive(a, "name"));
    cJSON_AddItemToArray(list, entry);
}

/* A tool's inputSchema, the first one listed under its name. */
static void add_schema(cJSON *schemas, const cJSON *tool)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(tool, "name");
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(tool, "inputSchema");
    if (cJSON_IsString(name) && cJSON_IsObject(schema) &&
        !cJSON_HasObjectItem(schemas, name->valuestring) &&
        cJSON_GetArraySize(schemas) < MAX_ENTRIES)
        cJSON_AddItemToObject(schemas, name->valuestring, cJSON_Duplicate(schema, true));
}

/* One item of a list result into the dictionary. */
static void take(mcps_live_dict *d, const char *key, const cJSON *item)
{
    if (strcmp(key, "tools") == 0) {
        add_string(d->tools, cJSON_GetObjectItemCaseSensitive(item, "name"));
        add_schema(d->schemas, item);
    } else if (strcmp(key, "prompts") == 0)
        add_prompt(d->prompts, item);
    else if (strcmp(key, "resources") == 0)
        add_string(d->uris, cJSON_GetObjectItemCaseSensitive(item, "uri"));
    else
        add_string(d->templates, cJSON_GetObjectItemCaseSensitive(item, "uriTemplate"));
}

/* Read every page (up to MAX_PAGES) of one list. */
static void read_list(mcps_live_dict *d, mcps_session *s, const mcps_live_target *t,
                      const char *method, const char *key, unsigned *seq, bool *silent)
{
    char *cursor = NULL;
    cJSON *cursors = cJSON_AddArrayToObject(d->cursors, method);
    for (int page = 0; page < MAX_PAGES; page++) {
        char id[40], err[200];
        snprintf(id, sizeof id, "live-list-%u", ++*seq);
        cJSON *params = cJSON_CreateObject();
        if (cursor)
            cJSON_AddStringToObject(params, "cursor", cursor);
        char quoted[48];
        snprintf(quoted, sizeof quoted, "\"%s\"", id);
        cJSON *req = mcps_rpc_request(quoted, method, params);
        bool sent = req && mcps_session_send(s, req, err, sizeof err);
        cJSON_Delete(req);
        free(cursor);
        cursor = NULL;
        const cJSON *got =
            sent ? mcps_live_await(s, id, mcps_clock_deadline(t->start_timeout)) : NULL;
        if (!got) {
            *silent = true; /* a target that does not answer a list will not answer the next */
            return;
        }
        const cJSON *result = cJSON_GetObjectItemCaseSensitive(got, "result");
        const cJSON *item;
        cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(result, key)) take(d, key, item);
        const cJSON *next = cJSON_GetObjectItemCaseSensitive(result, "nextCursor");
        if (!cJSON_IsString(next))
            return;
        add_string(cursors, next);
        cursor = strdup(next->valuestring);
    }
    free(cursor);
}

bool mcps_live_dict_discover(mcps_live_dict *d, const mcps_live_target *t, char *err, size_t errlen)
{
    d->rev = mcps_rev_parse(t->revision);
    mcps_session *s = mcps_live_start(t, NULL, NULL, err, errlen);
    if (!s)
        return false;
    static const char *const lists[][2] = {{"tools/list", "tools"},
                                           {"prompts/list", "prompts"},
                                           {"resources/list", "resources"},
                                           {"resources/templates/list", "resourceTemplates"}};
    unsigned seq = 0;
    bool silent = false;
    for (size_t i = 0; i < sizeof lists / sizeof *lists && !silent; i++)
        read_list(d, s, t, lists[i][0], lists[i][1], &seq, &silent);
    mcps_session_free(s);
    mcps_live_uri_attacks(d->uris, d->templates, d->attacks);
    return true;
}
