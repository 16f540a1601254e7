/*
 * listen.c - subscriptions/listen, protocol revision 2026-07-28 on stdio.
 *
 * From 2026-07-28 change notifications travel only on listen streams: a
 * client opens one with subscriptions/listen and a filter, refserver
 * acknowledges it first (SUB-003) with the part of the filter it honours
 * (SUB-004) and from then on delivers list_changed and resources/updated
 * only to the streams that opted in (SUB-002, SUB-013), each tagged with
 * _meta subscriptionId = the listen request's id (SUB-006). The request gets
 * no answer while the stream is open; notifications/cancelled from the client
 * ends it silently, and at the end of input refserver answers every open
 * listen with its closing result (SUB-009) before it exits. Progress and log
 * messages never go on a stream (SUB-012): they are the calling request's.
 */
#include "server.h"

#include "codec/json.h"
#include "codec/rpc.h"

#include <stdlib.h>
#include <string.h>

#define META_SUBSCRIPTION "io.modelcontextprotocol/subscriptionId"

/* The filter's booleans, in the order of rs_list. */
static const char *const filter_names[RS_LIST_COUNT] = {"toolsListChanged", "resourcesListChanged",
                                                        "promptsListChanged"};
static const char *const list_methods[RS_LIST_COUNT] = {"notifications/tools/list_changed",
                                                        "notifications/resources/list_changed",
                                                        "notifications/prompts/list_changed"};
static const char *const cap_names[RS_LIST_COUNT] = {"tools", "resources", "prompts"};

struct rs_listen {
    cJSON *id;                 /* the listen request's id: the subscription id */
    bool lists[RS_LIST_COUNT]; /* list_changed types it opted into and refserver honours */
    cJSON *uris;               /* resourceSubscriptions honoured, or NULL */
    rs_listen *next;
};

/* The stream's id as the fault listen-id-stringified writes it: a number's text. */
static cJSON *subscription_id(const rs_server *s, const cJSON *id)
{
    if (cJSON_IsNumber(id) && rs_fault_on(s, RS_FAULT_LISTEN_ID_STRINGIFIED)) {
        char *text = cJSON_PrintUnformatted(id);
        cJSON *str = cJSON_CreateString(text ? text : "");
        free(text);
        return str;
    }
    return cJSON_Duplicate(id, true);
}

/* params (taken, may be NULL) with _meta subscriptionId set: a notification for the stream. */
static void send_tagged(rs_server *s, const rs_listen *l, const char *method, cJSON *params)
{
    cJSON *p = params ? params : cJSON_CreateObject();
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(p, "_meta");
    if (!cJSON_IsObject(meta)) {
        cJSON_DeleteItemFromObjectCaseSensitive(p, "_meta");
        meta = cJSON_AddObjectToObject(p, "_meta");
    }
    cJSON_AddItemToObject(meta, META_SUBSCRIPTION, subscription_id(s, l->id));
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddStringToObject(m, "method", method);
    cJSON_AddItemToObject(m, "params", p);
    rs_write_response(s, m);
}

/* Does the server declare cap.flag in what server/discover says? (SUB-004: honour only that.) */
static bool declared(const rs_server *s, const char *cap, const char *flag)
{
    cJSON *caps = rs_capabilities(s);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(caps, cap);
    bool yes = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, flag));
    mcps_json_delete(caps);
    return yes;
}

/* The acknowledged filter: what was asked for and is honoured (the overclaim fault: all). */
static cJSON *acknowledged(const rs_server *s, const rs_listen *l, const cJSON *filter)
{
    cJSON *ack = cJSON_CreateObject();
    bool echo = rs_fault_on(s, RS_FAULT_LISTEN_ACK_OVERCLAIMS);
    for (int i = 0; i < RS_LIST_COUNT; i++)
        if (l->lists[i] ||
            (echo && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(filter, filter_names[i]))))
            cJSON_AddBoolToObject(ack, filter_names[i], true);
    if (l->uris)
        cJSON_AddItemToObject(ack, "resourceSubscriptions", cJSON_Duplicate(l->uris, true));
    return ack;
}

static bool uris_valid(const cJSON *uris)
{
    if (!cJSON_IsArray(uris))
        return false;
    for (const cJSON *u = uris->child; u; u = u->next)
        if (!cJSON_IsString(u))
            return false;
    return true;
}

static rs_listen *listen_new(const rs_server *s, const rs_req *req, const cJSON *filter)
{
    rs_listen *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->id = cJSON_Duplicate(req->id, true);
    for (int i = 0; i < RS_LIST_COUNT; i++)
        l->lists[i] = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(filter, filter_names[i])) &&
                      declared(s, cap_names[i], "listChanged");
    const cJSON *uris = cJSON_GetObjectItemCaseSensitive(filter, "resourceSubscriptions");
    if (cJSON_GetArraySize(uris) > 0 && declared(s, "resources", "subscribe"))
        l->uris = cJSON_Duplicate(uris, true);
    return l;
}

static void listen_free(rs_listen *l)
{
    mcps_json_delete(l->id);
    mcps_json_delete(l->uris);
    free(l);
}

void rs_listen_open(rs_server *s, const rs_req *req, rs_reply *r)
{
    const cJSON *filter = cJSON_GetObjectItemCaseSensitive(req->params, "notifications");
    const cJSON *uris = cJSON_GetObjectItemCaseSensitive(filter, "resourceSubscriptions");
    if (!req->id || req->batch) {
        rs_fail(r, RS_INVALID_REQUEST, "subscriptions/listen must be a request of its own");
        return;
    }
    if (!cJSON_IsObject(filter) || (uris && !uris_valid(uris))) {
        rs_fail_params(s, r, "Invalid params: notifications must be a subscription filter");
        return;
    }
    rs_listen *l = listen_new(s, req, filter);
    if (!l) {
        rs_fail(r, RS_INTERNAL_ERROR, "Out of memory");
        return;
    }
    l->next = s->listens;
    s->listens = l;
    r->handled = true; /* answered only when the stream closes */
    if (rs_fault_on(s, RS_FAULT_LISTEN_ACK_LATE))
        send_tagged(s, l, list_methods[RS_LIST_TOOLS], NULL);
    cJSON *p = cJSON_CreateObject();
    cJSON_AddItemToObject(p, "notifications", acknowledged(s, l, filter));
    send_tagged(s, l, "notifications/subscriptions/acknowledged", p);
}

/* uri is sub, or below it ("sub/..."): resources/updated covers sub-resources (SUB-013). */
static bool covers(const char *sub, const char *uri)
{
    size_t n = strlen(sub);
    return strncmp(sub, uri, n) == 0 && (uri[n] == '\0' || uri[n] == '/' || sub[n - 1] == '/');
}

static bool wants_update(const rs_listen *l, const char *uri)
{
    for (const cJSON *u = l->uris ? l->uris->child : NULL; u; u = u->next)
        if (u->valuestring[0] && covers(u->valuestring, uri))
            return true;
    return false;
}

/* Does l take this notification? The listen-unfiltered fault: every stream takes every one. */
static bool wants(const rs_server *s, const rs_listen *l, const char *method, const cJSON *params)
{
    if (rs_fault_on(s, RS_FAULT_LISTEN_UNFILTERED))
        return true;
    if (l->uris && rs_fault_on(s, RS_FAULT_LISTEN_UPDATES_ALL) &&
        strcmp(method, "notifications/resources/updated") == 0)
        return true;
    for (int i = 0; i < RS_LIST_COUNT; i++)
        if (strcmp(method, list_methods[i]) == 0)
            return l->lists[i];
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(params, "uri");
    return cJSON_IsString(uri) && wants_update(l, uri->valuestring);
}

bool rs_listen_routed(const char *method)
{
    for (int i = 0; i < RS_LIST_COUNT; i++)
        if (strcmp(method, list_methods[i]) == 0)
            return true;
    return strcmp(method, "notifications/resources/updated") == 0;
}

void rs_listen_deliver(rs_server *s, const char *method, const cJSON *params)
{
    for (const rs_listen *l = s->listens; l; l = l->next)
        if (wants(s, l, method, params))
            send_tagged(s, l, method, params ? cJSON_Duplicate(params, true) : NULL);
}

void rs_listen_misroute(const rs_server *s, const char *method, cJSON *params)
{
    if (!s->listens || !cJSON_IsObject(params) ||
        !rs_fault_on(s, RS_FAULT_LISTEN_CARRIES_PROGRESS) ||
        strcmp(method, "notifications/progress") != 0)
        return;
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    if (!cJSON_IsObject(meta))
        meta = cJSON_AddObjectToObject(params, "_meta");
    if (meta && !cJSON_HasObjectItem(meta, META_SUBSCRIPTION))
        cJSON_AddItemToObject(meta, META_SUBSCRIPTION, subscription_id(s, s->listens->id));
}

bool rs_listen_cancel(rs_server *s, const cJSON *id)
{
    if (rs_fault_on(s, RS_FAULT_LISTEN_SURVIVES_CANCEL))
        return false;
    for (rs_listen **link = &s->listens; *link; link = &(*link)->next) {
        rs_listen *l = *link;
        if (mcps_rpc_id_equal(l->id, id)) {
            *link = l->next;
            listen_free(l);
            return true;
        }
    }
    return false;
}

/* SUB-009: the closing result, resultType complete and the subscription id in _meta. */
static void close_stream(rs_server *s, rs_listen *l)
{
    cJSON *result = cJSON_CreateObject();
    cJSON_AddStringToObject(result, "resultType", "complete");
    cJSON_AddItemToObject(cJSON_AddObjectToObject(result, "_meta"), META_SUBSCRIPTION,
                          subscription_id(s, l->id));
    rs_reply r = {0};
    rs_ok(&r, result);
    rs_answer(s, l->id, NULL, &r);
}

void rs_listen_close_all(rs_server *s)
{
    while (s->listens) {
        rs_listen *l = s->listens;
        s->listens = l->next;
        if (!rs_fault_on(s, RS_FAULT_LISTEN_UNCLOSED_AT_EXIT))
            close_stream(s, l);
        listen_free(l);
    }
}

void rs_listen_free(rs_server *s)
{
    while (s->listens) {
        rs_listen *l = s->listens;
        s->listens = l->next;
        listen_free(l);
    }
}
