/*
 * client_play_serve.c - what the scripted 2026-07-28 server does in the
 * modern-serve and modern-drop scenarios (client_internal.h), apart from
 * client_play.c's plain answers so that these grow on their own:
 *
 * - both declare tools.listChanged, so a client may open subscriptions/listen;
 *   the listen is acknowledged (modern-serve: with an empty filter, every type
 *   dropped, SUB-005) and never answered: the stream stays open;
 * - modern-serve's tool list holds a tool whose inputSchema uses 2020-12
 *   keywords ($defs, prefixItems; GEN-JSCH-001) and whose outputSchema is an
 *   array (TOOL-018), and a second tool whose schema has a $ref to a network
 *   URI, a loopback listener of the run's that notes any request (GEN-JSCH-004),
 *   a chain of allOf nested MCPS_CLIENT_DEEP_LEVELS deep and a $defs fan-out of
 *   2^20 paths (GEN-JSCH-006); its tools/call gets a notifications/progress
 *   first when it asked for progress (RPC-NOT-002), then an array
 *   structuredContent;
 * - the oddities scenario (2025-11-25) serves that tool alone, without its outputSchema
 *   (mcps_client_schema_tool_list: GEN-JSCH-001 in the handshake era);
 * - modern-drop drops the connection at the client's first request after
 *   server/discover and subscriptions/listen (STDIO-013, SUB-011).
 */
#include "engine/client_internal.h"

#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "codec/json.h"
#include "codec/rpc.h"

#define FANOUT_LEVELS 20 /* $defs d0..d19, each referring to the next twice: 2^20 paths */

static const cJSON *member(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

bool mcps_client_serve_list_changed(mcps_client_scenario sc)
{
    return sc == MCPS_CSC_MODERN_SERVE || sc == MCPS_CSC_MODERN_DROP;
}

static void send_owned(mcps_play *play, cJSON *m)
{
    mcps_play_send(play, m);
    cJSON_Delete(m);
}

static cJSON *notification(const char *method, cJSON *params)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddStringToObject(m, "method", method);
    cJSON_AddItemToObject(m, "params", params);
    return m;
}

static void note_notified(mcps_client_trace *t)
{
    if (!t->notified) {
        t->notified = true;
        t->notified_at = t->nmsgs;
    }
}

/* The acknowledgment of a listen (SUB-003): modern-serve honours nothing (an empty filter,
 * SUB-005); modern-drop honours toolsListChanged, the one type it has, when asked. */
static void acknowledge(mcps_play *play, mcps_client_trace *t, const cJSON *req)
{
    const cJSON *asked = member(member(req, "params"), "notifications");
    cJSON *p = cJSON_CreateObject();
    cJSON *filter = cJSON_AddObjectToObject(p, "notifications");
    if (t->scenario == MCPS_CSC_MODERN_DROP && cJSON_IsTrue(member(asked, "toolsListChanged")))
        cJSON_AddTrueToObject(filter, "toolsListChanged");
    cJSON_AddItemToObject(cJSON_AddObjectToObject(p, "_meta"), MCPS_CLIENT_META_SUB,
                          cJSON_Duplicate(member(req, "id"), true));
    send_owned(play, notification("notifications/subscriptions/acknowledged", p));
    if (!t->acked) {
        t->acked = true;
        t->acked_at = t->nmsgs;
    }
    note_notified(t);
}

static cJSON *typed(const char *type)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "type", type);
    return s;
}

/* 2020-12 only: text through $defs, pair a tuple by prefixItems (a draft-07 reader, which
 * knows neither, takes pair for an array of integers). */
static cJSON *echo_input_schema(void)
{
    cJSON *s = typed("object");
    cJSON *word = typed("string");
    cJSON_AddNumberToObject(word, "minLength", 1);
    cJSON_AddItemToObject(cJSON_AddObjectToObject(s, "$defs"), "word", word);
    cJSON *props = cJSON_AddObjectToObject(s, "properties");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(props, "text"), "$ref", "#/$defs/word");
    cJSON *pair = cJSON_AddObjectToObject(props, "pair");
    cJSON_AddStringToObject(pair, "type", "array");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(pair, "prefixItems"), typed("string"));
    cJSON_AddItemToObject(pair, "items", typed("integer"));
    return s;
}

/* allOf nested levels deep around a string. */
static cJSON *deep_schema(int levels)
{
    cJSON *s = typed("string");
    for (int i = 0; i < levels; i++) {
        cJSON *outer = cJSON_CreateObject();
        cJSON_AddItemToArray(cJSON_AddArrayToObject(outer, "allOf"), s);
        s = outer;
    }
    return s;
}

/* $defs d0..d(n-1), each an allOf of two $refs to the next: small on the wire, 2^n paths to a
 * validator that does not cap its work. */
static void add_fanout(cJSON *schema)
{
    cJSON *defs = cJSON_AddObjectToObject(schema, "$defs");
    char name[16], ref[32];
    for (int i = 0; i < FANOUT_LEVELS; i++) {
        snprintf(name, sizeof name, "d%d", i);
        snprintf(ref, sizeof ref, "#/$defs/d%d", i + 1);
        cJSON *d = i + 1 < FANOUT_LEVELS ? cJSON_CreateObject() : typed("string");
        if (i + 1 < FANOUT_LEVELS) {
            cJSON *all = cJSON_AddArrayToObject(d, "allOf");
            for (int k = 0; k < 2; k++) {
                cJSON *r = cJSON_CreateObject();
                cJSON_AddStringToObject(r, "$ref", ref);
                cJSON_AddItemToArray(all, r);
            }
        }
        cJSON_AddItemToObject(defs, name, d);
    }
}

static cJSON *tool(const char *name, const char *description, cJSON *input)
{
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "name", name);
    cJSON_AddStringToObject(t, "description", description);
    cJSON_AddItemToObject(t, "inputSchema", input);
    return t;
}

static cJSON *serve_tool_list(mcps_client_trace *t)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *tools = cJSON_AddArrayToObject(r, "tools");
    cJSON *echo =
        tool(MCPS_CLIENT_SERVE_TOOL, "Returns its text argument, as a list", echo_input_schema());
    cJSON *out = cJSON_AddObjectToObject(echo, "outputSchema");
    cJSON_AddStringToObject(out, "type", "array");
    cJSON_AddItemToObject(out, "items", typed("string"));
    cJSON_AddItemToArray(tools, echo);
    cJSON *probe = typed("object");
    cJSON *props = cJSON_AddObjectToObject(probe, "properties");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(props, "remote"), "$ref", t->fetch_url);
    cJSON_AddItemToObject(props, "deep", deep_schema(MCPS_CLIENT_DEEP_LEVELS));
    cJSON_AddStringToObject(cJSON_AddObjectToObject(props, "wide"), "$ref", "#/$defs/d0");
    add_fanout(probe);
    cJSON_AddItemToArray(tools, tool(MCPS_CLIENT_PROBE_TOOL,
                                     "Not to be called: its schema probes the client's resolver "
                                     "and validator",
                                     probe));
    if (!t->echo_schema)
        t->echo_schema = echo_input_schema();
    return r;
}

cJSON *mcps_client_schema_tool_list(mcps_client_trace *t)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToArray(
        cJSON_AddArrayToObject(r, "tools"),
        tool(MCPS_CLIENT_SERVE_TOOL, "Returns its text argument", echo_input_schema()));
    if (!t->echo_schema)
        t->echo_schema = echo_input_schema();
    return r;
}

static cJSON *response(const cJSON *id, cJSON *result)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, true));
    cJSON_AddItemToObject(m, "result", result);
    return m;
}

/* Progress first when asked (a notification the client must not answer, RPC-NOT-002), then
 * an array structuredContent, which 2026-07-28 allows (TOOL-018). */
static void serve_call(mcps_play *play, mcps_client_trace *t, const cJSON *req)
{
    const cJSON *token = member(member(member(req, "params"), "_meta"), "progressToken");
    if (cJSON_IsString(token) || cJSON_IsNumber(token)) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddItemToObject(p, "progressToken", cJSON_Duplicate(token, true));
        cJSON_AddNumberToObject(p, "progress", 1);
        cJSON_AddNumberToObject(p, "total", 1);
        cJSON_AddStringToObject(p, "message", "mcpspec: done");
        send_owned(play, notification("notifications/progress", p));
        note_notified(t);
    }
    cJSON *r = cJSON_CreateObject();
    cJSON *text = typed("text");
    cJSON_AddStringToObject(text, "text", "[\"hello\"]");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "content"), text);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "structuredContent"),
                         cJSON_CreateString("hello"));
    cJSON_AddFalseToObject(r, "isError");
    send_owned(play, response(member(req, "id"), mcps_client_stamp(r)));
    if (!t->called) {
        t->called = true;
        t->called_at = t->nmsgs;
    }
}

bool mcps_client_serve_request(mcps_play *play, mcps_client_trace *t, const cJSON *req,
                               const char *method)
{
    if (!mcps_client_serve_list_changed(t->scenario))
        return false;
    if (strcmp(method, "subscriptions/listen") == 0) {
        acknowledge(play, t, req);
        return true;
    }
    if (t->scenario == MCPS_CSC_MODERN_DROP) {
        if (t->dropped || strcmp(method, "server/discover") == 0)
            return false;
        t->dropped = true;
        t->dropped_at = t->nmsgs;
        t->drop_conn = t->connections;
        mcps_play_event(play, "the scripted server drops connection %u mid-request (%s)",
                        t->connections, method);
        mcps_play_hang_up(play);
        return true;
    }
    if (strcmp(method, "tools/list") == 0) {
        send_owned(play, response(member(req, "id"), mcps_client_cacheable(serve_tool_list(t), 0)));
        if (!t->listed) {
            t->listed = true;
            t->listed_at = t->nmsgs;
        }
        return true;
    }
    if (strcmp(method, "tools/call") == 0) {
        serve_call(play, t, req);
        return true;
    }
    return false;
}

bool mcps_client_fetch_open(mcps_httpd *h, const mcps_guard *guard, mcps_client_trace *t)
{
    char err[200];
    if (!mcps_httpd_listen(h, guard, 4096, err, sizeof err))
        return false;
    snprintf(t->fetch_url, sizeof t->fetch_url, "%s", h->url); /* its path: any other is 404 */
    return true;
}

void mcps_client_fetch_poll(mcps_httpd *h, mcps_play *play, mcps_client_trace *t)
{
    mcps_httpd_req req;
    char err[200];
    if (h->fd < 0 || mcps_httpd_next(h, mcps_clock_ms() + 1, &req, err, sizeof err) != 1)
        return;
    if (!t->fetched[0]) {
        snprintf(t->fetched, sizeof t->fetched, "%.11s %.140s", req.verb, req.target);
        mcps_play_event(play, "the $ref's listener was fetched: %s", t->fetched);
    }
    static const char body[] = "mcpspec: a $ref is not to be fetched\n";
    mcps_httpd_respond(h, req.handle, 404, NULL, "text/plain", body, sizeof body - 1);
}
