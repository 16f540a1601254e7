/*
 * resources.c - resources/list (with --root the files below it first, then
 * mem://readme, mem://blob, mem://item/000..119 so the list paginates, an
 * optional mem://extra), resources/read (text, and base64 blob; mem://broken
 * fails inside the server), resources/templates/list, subscribe/unsubscribe,
 * and the notifications/resources/updated that touch sends to subscribers.
 * file:// URIs are served by fileroot.c, only with --root.
 */
#include "server.h"

#include "base/array.h"
#include "base/buf.h"
#include "codec/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RS_NAMED_RESOURCES 2
#define RS_ITEM_PREFIX     "mem://item/"
/* Exists, but every read of it fails inside the server (not listed). */
#define RS_BROKEN_URI "mem://broken"

typedef struct rs_resource {
    char uri[32];
    const char *name, *title, *description, *mime;
} rs_resource;

static const rs_resource rs_named_resources[RS_NAMED_RESOURCES] = {
    {"mem://readme", "readme", "Read me", "What this server is", "text/markdown"},
    {"mem://blob", "blob", "All byte values", "The bytes 0 to 255", "application/octet-stream"},
};

static const char rs_readme[] = "# mcpspec refserver\n\nA reference MCP server for conformance "
                                "tests; every check is proven against it.\n";

/* ---- the list ---- */

static size_t resource_count(const rs_server *s)
{
    return RS_NAMED_RESOURCES + RS_ITEM_COUNT + (s->extra[RS_LIST_RESOURCES] ? 1 : 0);
}

static void resource_at(size_t i, rs_resource *out)
{
    if (i < RS_NAMED_RESOURCES) {
        *out = rs_named_resources[i];
        return;
    }
    i -= RS_NAMED_RESOURCES;
    if (i >= RS_ITEM_COUNT) {
        *out = (rs_resource){"mem://extra", "extra", "Extra", "Added by the toggle tool",
                             "text/plain"};
        return;
    }
    *out = (rs_resource){"", "item", "Item", "A numbered text item", "text/plain"};
    snprintf(out->uri, sizeof out->uri, RS_ITEM_PREFIX "%03zu", i);
}

static cJSON *annotations(const rs_server *s)
{
    cJSON *a = cJSON_CreateObject();
    cJSON *audience = cJSON_AddArrayToObject(a, "audience");
    cJSON_AddItemToArray(audience, cJSON_CreateString("user"));
    cJSON_AddItemToArray(audience, cJSON_CreateString("assistant"));
    cJSON_AddNumberToObject(a, "priority",
                            rs_fault_on(s, RS_FAULT_RESOURCE_PRIORITY_RANGE) ? 1.5 : 0.5);
    if (rs_rev_at_least(s, MCPS_REV_2025_06_18))
        cJSON_AddStringToObject(a, "lastModified", "2025-01-01T00:00:00Z");
    return a;
}

static cJSON *resource_json(const rs_server *s, const rs_resource *res)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "uri", res->uri);
    if (!rs_fault_on(s, RS_FAULT_RESOURCE_NO_NAME))
        cJSON_AddStringToObject(j, "name", res->name);
    if (rs_rev_at_least(s, MCPS_REV_2025_06_18))
        cJSON_AddStringToObject(j, "title", res->title);
    cJSON_AddStringToObject(j, "description", res->description);
    cJSON_AddStringToObject(j, "mimeType", res->mime);
    if (strcmp(res->name, "readme") == 0)
        cJSON_AddItemToObject(j, "annotations", annotations(s));
    return j;
}

#define RS_MAX_ROOT_FILES 8

static cJSON *file_resource_json(const rs_server *s, const char *rel)
{
    cJSON *j = cJSON_CreateObject();
    mcps_buf uri = {0};
    mcps_buf_printf(&uri, "file:///%s", rel);
    cJSON_AddStringToObject(j, "uri", uri.data ? uri.data : "file:///");
    const char *slash = strrchr(rel, '/');
    cJSON_AddStringToObject(j, "name", slash ? slash + 1 : rel);
    if (rs_rev_at_least(s, MCPS_REV_2025_06_18))
        cJSON_AddStringToObject(j, "title", rel);
    cJSON_AddStringToObject(j, "description", "A file below the server's --root directory");
    mcps_buf_free(&uri);
    return j;
}

/* The files under --root come first, then the mem:// resources. */
void rs_resources_list(rs_server *s, const rs_req *req, rs_reply *r)
{
    char *files[RS_MAX_ROOT_FILES];
    size_t nfiles = rs_root_files(s, files, RS_MAX_ROOT_FILES);
    size_t total = nfiles + resource_count(s), start;
    if (rs_page_start(s, req, r, 'r', total, &start)) {
        cJSON *result = cJSON_CreateObject();
        cJSON *list = cJSON_AddArrayToObject(result, "resources");
        for (size_t i = start; i < total && i < start + rs_page_size('r'); i++) {
            rs_resource res;
            if (i < nfiles) {
                cJSON_AddItemToArray(list, file_resource_json(s, files[i]));
                continue;
            }
            resource_at(i - nfiles, &res);
            cJSON_AddItemToArray(list, resource_json(s, &res));
        }
        rs_page_next(s, result, 'r', start, total);
        rs_ok(r, result);
    }
    for (size_t i = 0; i < nfiles; i++)
        free(files[i]);
}

/* ---- reading ---- */

/* "mem://item/NNN" with exactly three digits below RS_ITEM_COUNT. */
static bool item_index(const char *uri, size_t *index)
{
    size_t n = strlen(RS_ITEM_PREFIX);
    if (strncmp(uri, RS_ITEM_PREFIX, n) != 0 || strlen(uri) != n + 3)
        return false;
    size_t v = 0;
    for (const char *d = uri + n; *d; d++) {
        if (*d < '0' || *d > '9')
            return false;
        v = v * 10 + (size_t)(*d - '0');
    }
    *index = v;
    return v < RS_ITEM_COUNT;
}

static cJSON *contents(const char *uri, const char *mime, const char *key, const char *value)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "uri", uri);
    cJSON_AddStringToObject(c, "mimeType", mime);
    cJSON_AddStringToObject(c, key, value);
    return c;
}

static cJSON *blob_contents(void)
{
    unsigned char bytes[256];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)i;
    char *b64 = rs_base64(bytes, sizeof bytes);
    cJSON *c = b64 ? contents("mem://blob", "application/octet-stream", "blob", b64) : NULL;
    free(b64);
    return c;
}

/* The contents of a mem:// resource, or NULL when there is none. */
cJSON *rs_mem_contents(const rs_server *s, const char *uri)
{
    size_t i;
    if (item_index(uri, &i)) {
        char text[64];
        snprintf(text, sizeof text, "Item %03zu, revision %u.\n", i, s->item_rev[i]);
        return contents(uri, "text/plain", "text", text);
    }
    if (strcmp(uri, "mem://readme") == 0) {
        cJSON *c = contents(uri, "text/markdown", "text", rs_readme);
        if (rs_fault_on(s, RS_FAULT_RESOURCE_TEXT_AND_BLOB))
            cJSON_AddStringToObject(c, "blob", "IyBtY3BzcGVj");
        return c;
    }
    if (strcmp(uri, "mem://blob") == 0)
        return blob_contents();
    if (s->extra[RS_LIST_RESOURCES] && strcmp(uri, "mem://extra") == 0)
        return contents(uri, "text/plain", "text", "The extra resource.\n");
    return NULL;
}

/* Contents of uri; NULL with r untouched when it does not exist. */
static cJSON *lookup(const rs_server *s, const char *uri, rs_reply *r)
{
    if (strcmp(uri, RS_BROKEN_URI) == 0) {
        /* RES-005: a failure inside the server is an internal error, not "not found". */
        if (rs_fault_on(s, RS_FAULT_RESOURCE_INTERNAL_AS_NOT_FOUND))
            return NULL;
        rs_fail(r, RS_INTERNAL_ERROR, "Internal error: the store behind %s is unavailable",
                RS_BROKEN_URI);
        return NULL;
    }
    if (strncmp(uri, "file:", 5) == 0)
        return rs_file_contents(s, uri, r);
    return rs_mem_contents(s, uri);
}

/* RES-004: -32002 with the uri in data, as the spec's example does; 2026-07-28 retired -32002
 * for -32602 (RES-014, RPC-CODE-004). */
static void not_found(const rs_server *s, rs_reply *r, const char *uri)
{
    bool wrong = rs_fault_on(s, RS_FAULT_RESOURCE_NOT_FOUND_WRONG_CODE);
    int code = rs_stateless(s) && !rs_fault_on(s, RS_FAULT_NOT_FOUND_RETIRED_CODE)
                   ? RS_INVALID_PARAMS
                   : RS_RESOURCE_NOT_FOUND;
    rs_fail(r, wrong ? RS_INTERNAL_ERROR : code, "Resource not found");
    r->data = cJSON_CreateObject();
    cJSON_AddStringToObject(r->data, "uri", uri);
}

void rs_resources_read(rs_server *s, const rs_req *req, rs_reply *r)
{
    if (rs_fault_on(s, RS_FAULT_READ_NO_URI_NOT_FOUND) &&
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(req->params, "uri"))) {
        rs_fail(r, RS_RESOURCE_NOT_FOUND, "Resource not found");
        return;
    }
    const char *uri = rs_param_string(s, req->params, "uri", true, r);
    if (r->code)
        return;
    cJSON *item = lookup(s, uri, r);
    if (r->code)
        return;
    if (!item) {
        not_found(s, r, uri);
        return;
    }
    cJSON *result = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(result, "contents"), item);
    rs_ok(r, result);
}

/* ---- templates ---- */

static cJSON *template_json(const rs_server *s, const char *uri_template, const char *name,
                            const char *title, const char *description)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "uriTemplate", uri_template);
    cJSON_AddStringToObject(j, "name", name);
    if (rs_rev_at_least(s, MCPS_REV_2025_06_18))
        cJSON_AddStringToObject(j, "title", title);
    cJSON_AddStringToObject(j, "description", description);
    return j;
}

void rs_resources_templates(rs_server *s, const rs_req *req, rs_reply *r)
{
    size_t total = s->root ? 2 : 1, start;
    if (!rs_page_start(s, req, r, 'T', total, &start))
        return;
    cJSON *result = cJSON_CreateObject();
    cJSON *list = cJSON_AddArrayToObject(result, "resourceTemplates");
    for (size_t i = start; i < total && i < start + rs_page_size('T'); i++) {
        if (i == 0) {
            const char *tpl =
                rs_fault_on(s, RS_FAULT_TEMPLATE_INVALID) ? "mem://item/{id" : "mem://item/{id}";
            cJSON *item = template_json(s, tpl, "item", "Item by id",
                                        "A numbered text item; id is three digits, 000 to 119");
            cJSON_AddStringToObject(item, "mimeType", "text/plain");
            cJSON_AddItemToArray(list, item);
        } else {
            cJSON_AddItemToArray(list,
                                 template_json(s, "file:///{+path}", "file", "File under root",
                                               "A file below the server's --root directory"));
        }
    }
    rs_page_next(s, result, 'T', start, total);
    rs_ok(r, result);
}

/* ---- subscriptions ---- */

/* subscribe and unsubscribe answer an empty result (RES-007). */
static cJSON *empty_result(const rs_server *s)
{
    cJSON *result = cJSON_CreateObject();
    if (rs_fault_on(s, RS_FAULT_SUBSCRIBE_EXTRA_RESULT))
        cJSON_AddBoolToObject(result, "subscribed", true);
    return result;
}

static size_t sub_find(const rs_server *s, const char *uri)
{
    size_t i = 0;
    while (i < s->nsubs && strcmp(s->subs[i], uri) != 0)
        i++;
    return i;
}

static bool sub_add(rs_server *s, const char *uri)
{
    if (sub_find(s, uri) < s->nsubs)
        return true;
    if (!mcps_array_reserve(&s->subs, &s->cap_subs, s->nsubs + 1, sizeof *s->subs, 8))
        return false;
    char *copy = strdup(uri);
    if (!copy)
        return false;
    s->subs[s->nsubs++] = copy;
    return true;
}

void rs_resources_subscribe(rs_server *s, const rs_req *req, rs_reply *r)
{
    const char *uri = rs_param_string(s, req->params, "uri", true, r);
    if (r->code)
        return;
    cJSON *item = lookup(s, uri, r);
    if (r->code)
        return;
    if (!item) {
        not_found(s, r, uri);
        return;
    }
    mcps_json_delete(item);
    if (!sub_add(s, uri)) {
        rs_fail(r, RS_INTERNAL_ERROR, "Out of memory");
        return;
    }
    rs_ok(r, empty_result(s));
    if (rs_fault_on(s, RS_FAULT_UPDATE_UNSUBSCRIBED)) {
        cJSON *params = cJSON_CreateObject();
        cJSON_AddStringToObject(params, "uri", "mem://nobody-subscribed");
        rs_notify(s, "notifications/resources/updated", params);
    }
}

void rs_resources_unsubscribe(rs_server *s, const rs_req *req, rs_reply *r)
{
    const char *uri = rs_param_string(s, req->params, "uri", true, r);
    if (r->code)
        return;
    size_t i = sub_find(s, uri);
    if (i < s->nsubs) {
        free(s->subs[i]);
        s->subs[i] = s->subs[--s->nsubs];
    }
    rs_ok(r, empty_result(s));
}

/* The touch tool: change an item; RES-008: notify only when subscribed. */
bool rs_resource_touch(rs_server *s, const char *uri)
{
    size_t i;
    if (!item_index(uri, &i))
        return false;
    s->item_rev[i]++;
    /* 2026-07-28: listen streams name their URIs themselves (listen.c) */
    if (sub_find(s, uri) < s->nsubs || rs_stateless(s)) {
        cJSON *params = cJSON_CreateObject();
        cJSON_AddStringToObject(params, "uri", uri);
        rs_notify(s, "notifications/resources/updated", params);
    }
    return true;
}

void rs_subs_free(rs_server *s)
{
    for (size_t i = 0; i < s->nsubs; i++)
        free(s->subs[i]);
    free(s->subs);
    s->subs = NULL;
    s->nsubs = s->cap_subs = 0;
}
