/*
 * client_cases_modern_serve.c - 2026-07-28 client checks over stdio on what
 * the scripted server serves (client_play_serve.c): a subscription (listen
 * requests, an acknowledgment that honours nothing, a fresh listen after a
 * dropped connection), the notifications a client must not answer, tool
 * schemas of 2020-12 (a network $ref, a deep nesting) and an array
 * structuredContent, and a server that dies mid-request.
 *
 * A table of its own, listed last by mcps_client_check_at. Verdicts go
 * through client_grade.c. Where a client never does what a check needs (no
 * listen, no tool called) the check SKIPs with that reason.
 */
#include "engine/client_cases.h"

#include <stdio.h>
#include <string.h>

#include "codec/rev.h"
#include "codec/rpc.h"
#include "schema/jsonschema.h"

static const cJSON *member(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

/* The method of the first request at or after from that is not method `but`; NULL: none. */
static const char *request_after(const mcps_client_trace *t, size_t from, const char *but)
{
    for (size_t i = from; i < t->nmsgs; i++)
        if (mcps_client_request_is(t, i, NULL) && !mcps_client_request_is(t, i, but))
            return member(t->msgs[i].json, "method")->valuestring;
    return NULL;
}

/* How the client ended, for a person: "exited with code 1", ... */
static const char *ending(const mcps_client_trace *t, char *buf, size_t n)
{
    if (!t->exited)
        snprintf(buf, n, "was still running");
    else if (t->term_signal)
        snprintf(buf, n, "was killed by signal %d", t->term_signal);
    else
        snprintf(buf, n, "exited with code %d", t->exit_code);
    return buf;
}

static bool exited_badly(const mcps_client_trace *t)
{
    return t->exited && (t->exit_code != 0 || t->term_signal);
}

/* The client's move after message `from` (a request, or a clean exit), graded: PASS when it
 * went on, `ids` broken when it exited badly; when it did neither, `ids` broken if `hung` (the
 * silence is the fault: a responsiveness check) and the configuration does not say it stays,
 * else INFO. what: the server's doing, for the text. */
static int went_on(const mcps_client_trace *t, size_t from, const char *ids, bool hung,
                   const char *what, mcps_client_grade *g)
{
    char buf[64];
    const char *next = request_after(t, from, "subscriptions/listen");
    if (next)
        return mcps_client_pass(g, "after %s, the client went on with %s", what, next);
    if (t->exited && !exited_badly(t))
        return mcps_client_pass(g, "after %s, the client exited cleanly (code 0)", what);
    if (exited_badly(t))
        return mcps_client_broke(g, ids, "after %s, the client %s, asking nothing more", what,
                                 ending(t, buf, sizeof buf));
    if (t->stays || !hung)
        return mcps_client_info(g,
                                "after %s, the client stayed silent%s: whether it coped "
                                "cannot be told",
                                what, t->stays ? " (it keeps running, as configured)" : "");
    return mcps_client_broke(g, ids, "after %s, the client neither asked anything more nor exited",
                             what);
}

/* ---- subscriptions (SUB-001, SUB-005) ---- */

static const char *filter_fault(const cJSON *f)
{
    static const char *const flags[] = {"toolsListChanged", "promptsListChanged",
                                        "resourcesListChanged"};
    if (!cJSON_IsObject(f))
        return "params.notifications (the filter) is missing or not an object";
    for (size_t k = 0; k < sizeof flags / sizeof *flags; k++)
        if (member(f, flags[k]) && !cJSON_IsBool(member(f, flags[k])))
            return "a filter flag (toolsListChanged, promptsListChanged, resourcesListChanged) "
                   "is not a boolean";
    const cJSON *uris = member(f, "resourceSubscriptions"), *u;
    if (uris && !cJSON_IsArray(uris))
        return "resourceSubscriptions is not an array";
    cJSON_ArrayForEach(u, uris)
    {
        if (!cJSON_IsString(u))
            return "resourceSubscriptions holds something other than a URI string";
    }
    return NULL;
}

static int listen_request(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nmsgs; i++) {
        if (mcps_client_request_is(t, i, "resources/subscribe") ||
            mcps_client_request_is(t, i, "resources/unsubscribe"))
            return mcps_client_broke(g, "SUB-001",
                                     "%s to a 2026-07-28 server, where subscriptions/listen "
                                     "replaced it",
                                     member(t->msgs[i].json, "method")->valuestring);
        if (!mcps_client_request_is(t, i, "subscriptions/listen"))
            continue;
        n++;
        const char *why = filter_fault(member(member(t->msgs[i].json, "params"), "notifications"));
        if (why)
            return mcps_client_broke(g, "SUB-001", "a subscriptions/listen where %s", why);
    }
    if (!n)
        return mcps_client_skip(g, "the client opened no subscription (no subscriptions/listen, "
                                   "though the server declared tools.listChanged): it need not");
    return mcps_client_pass(g,
                            "%zu subscriptions/listen, each with a filter of the spec's fields "
                            "and types",
                            n);
}

static int listen_narrowed(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->acked)
        return mcps_client_skip(g, "the client opened no subscription: no acknowledgment to "
                                   "compare with its filter");
    size_t again = 0;
    for (size_t i = t->acked_at; i < t->nmsgs; i++)
        again += mcps_client_request_is(t, i, "subscriptions/listen");
    if (again > 2)
        return mcps_client_broke(g, "SUB-005",
                                 "after an acknowledgment that honoured none of the types asked, "
                                 "the client opened %zu more subscriptions (a loop, not a "
                                 "graceful fallback)",
                                 again);
    return went_on(t, t->acked_at, "SUB-005", false,
                   "an acknowledgment whose filter honoured none of the types it asked", g);
}

/* ---- notifications (RPC-NOT-002) ---- */

static int notification_unanswered(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->notified)
        return mcps_client_skip(g, "the scripted server sent the client no notification (it "
                                   "opened no subscription and its tools/call asked no progress)");
    for (size_t i = t->notified_at; i < t->nmsgs; i++) {
        const cJSON *m = t->msgs[i].json;
        if (cJSON_IsObject(m) && !member(m, "method") &&
            (member(m, "result") || member(m, "error")))
            return mcps_client_broke(g, "RPC-NOT-002",
                                     "a response written after the server's notification (a "
                                     "2026-07-28 server sends no requests, so it answers the "
                                     "notification)");
    }
    return mcps_client_pass(g, "no response to the server's notifications (acknowledgment, "
                               "progress)");
}

/* ---- tool schemas and results (TOOL-018, GEN-JSCH-001, -004, -006) ---- */

static int structured_array(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->called)
        return mcps_client_skip(g, "the client called no tool: no structuredContent to accept");
    return went_on(t, t->called_at, "TOOL-018", false,
                   "a tools/call result whose structuredContent is an array (its outputSchema "
                   "one too)",
                   g);
}

/* The first tools/call of the 2020-12 tool; t->nmsgs when none. */
static size_t echo_call(const mcps_client_trace *t)
{
    for (size_t i = 0; i < t->nmsgs; i++) {
        const cJSON *name = member(member(t->msgs[i].json, "params"), "name");
        if (mcps_client_request_is(t, i, "tools/call") && cJSON_IsString(name) &&
            strcmp(name->valuestring, MCPS_CLIENT_SERVE_TOOL) == 0)
            return i;
    }
    return t->nmsgs;
}

int mcps_client_schema_2020_12(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t i = echo_call(t);
    if (i >= t->nmsgs || !t->echo_schema)
        return mcps_client_skip(g,
                                "the client did not call %s, the tool whose inputSchema uses "
                                "2020-12 keywords",
                                MCPS_CLIENT_SERVE_TOOL);
    const cJSON *args = member(member(t->msgs[i].json, "params"), "arguments");
    if (!args)
        return mcps_client_pass(g, "%s called without arguments, which its schema allows",
                                MCPS_CLIENT_SERVE_TOOL);
    mcps_schema_result r;
    mcps_schema_verdict v = mcps_schema_validate(t->echo_schema, args, NULL, &r);
    char *text = cJSON_PrintUnformatted(args);
    if (v == MCPS_SCHEMA_VALID)
        mcps_client_pass(g,
                         "the arguments %.120s validate against the inputSchema under 2020-12 "
                         "($defs, prefixItems)",
                         text ? text : "?");
    else if (v == MCPS_SCHEMA_INVALID)
        mcps_client_broke(g, "GEN-JSCH-001",
                          "the arguments %.120s do not validate against the inputSchema read as "
                          "2020-12 (%s at %s): read with another dialect's rules?",
                          text ? text : "?", r.nkept ? r.errors[0].message : "?",
                          r.nkept && r.errors[0].instance_path[0] ? r.errors[0].instance_path
                                                                  : "the root");
    else
        mcps_buf_printf(&g->reason, "the arguments could not be judged (validator verdict %d)",
                        (int)v);
    cJSON_free(text);
    mcps_schema_result_free(&r);
    return 0;
}

static int no_remote_ref(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->fetch_url[0]) {
        mcps_buf_puts(&g->reason, "the run could not open the loopback listener the $ref names");
        return 0;
    }
    if (t->fetched[0])
        return mcps_client_broke(g, "GEN-JSCH-004",
                                 "the client fetched the network $ref of %s's inputSchema: %s "
                                 "reached the run's loopback listener",
                                 MCPS_CLIENT_PROBE_TOOL, t->fetched);
    if (!t->listed)
        return mcps_client_skip(g, "the client did not list the tools: it never saw the $ref");
    return mcps_client_pass(g,
                            "the client listed%s the tools and no request reached the "
                            "loopback listener the $ref names (a resolver that refuses "
                            "loopback would not show here either)",
                            t->called ? " and called" : "");
}

static int deep_schema(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->listed)
        return mcps_client_skip(g, "the client did not list the tools: no schema to evaluate");
    char what[160];
    snprintf(what, sizeof what,
             "a tool list whose %s nests allOf %d levels deep and fans $defs out to 2^20 paths",
             MCPS_CLIENT_PROBE_TOOL, MCPS_CLIENT_DEEP_LEVELS);
    return went_on(t, t->listed_at, "GEN-JSCH-006", true, what, g);
}

/* ---- a server that dies mid-request (STDIO-013, SUB-011) ---- */

static bool reconnected(const mcps_client_trace *t)
{
    for (size_t i = t->dropped_at; i < t->nmsgs; i++)
        if (t->msgs[i].conn > t->drop_conn)
            return true;
    return t->connections > t->drop_conn;
}

static int server_restart(const mcps_client_trace *t, mcps_client_grade *g)
{
    char buf[64];
    if (!t->dropped)
        return mcps_client_skip(g, "the client sent no request after server/discover: nothing "
                                   "to drop");
    if (reconnected(t))
        return mcps_client_pass(g,
                                "the server's connection dropped mid-request; the client "
                                "started it again (connection %u)",
                                t->drop_conn + 1);
    return mcps_client_broke(g, "STDIO-013",
                             "the server's connection dropped mid-request; the client did not "
                             "start it again (it %s)",
                             ending(t, buf, sizeof buf));
}

static int relisten(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->dropped)
        return mcps_client_skip(g, "the client sent no request after server/discover: nothing "
                                   "to drop");
    bool before = false, after = false;
    for (size_t i = 0; i < t->nmsgs; i++) {
        if (!mcps_client_request_is(t, i, "subscriptions/listen"))
            continue;
        before |= t->msgs[i].conn <= t->drop_conn;
        after |= t->msgs[i].conn > t->drop_conn;
    }
    if (!before)
        return mcps_client_skip(g, "the client opened no subscription before the drop: none to "
                                   "open again");
    if (!reconnected(t))
        return mcps_client_skip(g, "the client did not start its server again "
                                   "(client/server-restart judges that)");
    if (after)
        return mcps_client_pass(g, "the client opened its subscription again on the new server "
                                   "process");
    return mcps_client_broke(g, "SUB-011",
                             "the client started its server again but sent it no "
                             "subscriptions/listen (the new process keeps no subscription)");
}

#define MODERN MCPS_REV_BIT(MCPS_REV_2026_07_28)

static const mcps_client_check serve_checks[] = {
    {"client/listen-request",
     "2026-07-28: subscriptions/listen carries a notifications filter of the spec's fields",
     "basic/patterns/subscriptions", "SUB-001", MCPS_CSC_MODERN_SERVE, false, listen_request,
     MCPS_CT_STDIO, true, MODERN},
    {"client/listen-narrowed",
     "2026-07-28: an acknowledgment honouring none of the types asked is coped with",
     "basic/patterns/subscriptions", "SUB-005", MCPS_CSC_MODERN_SERVE, false, listen_narrowed,
     MCPS_CT_STDIO, true, MODERN},
    {"client/notification-unanswered",
     "2026-07-28: the server's notifications (acknowledgment, progress) get no response", "basic",
     "RPC-NOT-002", MCPS_CSC_MODERN_SERVE, false, notification_unanswered, MCPS_CT_STDIO, true,
     MODERN},
    {"client/structured-array",
     "2026-07-28: an array structuredContent (and outputSchema) is accepted", "server/tools",
     "TOOL-018", MCPS_CSC_MODERN_SERVE, false, structured_array, MCPS_CT_STDIO, true, MODERN},
    {"client/schema-2020-12",
     "2026-07-28: a tool whose inputSchema uses $defs and prefixItems is called with arguments "
     "valid under 2020-12",
     "basic", "GEN-JSCH-001", MCPS_CSC_MODERN_SERVE, false, mcps_client_schema_2020_12,
     MCPS_CT_STDIO, true, MODERN},
    {"client/no-remote-ref", "2026-07-28: a $ref to a network URI is not fetched", "basic",
     "GEN-JSCH-004", MCPS_CSC_MODERN_SERVE, false, no_remote_ref, MCPS_CT_STDIO, true, MODERN},
    {"client/deep-schema",
     "2026-07-28: a schema nested deep in allOf and fanned out in $defs leaves the client "
     "responsive",
     "basic", "GEN-JSCH-006", MCPS_CSC_MODERN_SERVE, false, deep_schema, MCPS_CT_STDIO, true,
     MODERN},
    {"client/server-restart", "2026-07-28: a stdio server that dies mid-request is started again",
     "basic/transports", "STDIO-013", MCPS_CSC_MODERN_DROP, false, server_restart, MCPS_CT_STDIO,
     true, MODERN},
    {"client/relisten",
     "2026-07-28: after its server is started again, the client opens its subscription again",
     "basic/patterns/subscriptions", "SUB-011", MCPS_CSC_MODERN_DROP, false, relisten,
     MCPS_CT_STDIO, true, MODERN},
};

const mcps_client_check *mcps_client_modern_serve_check_at(size_t i)
{
    return i < sizeof serve_checks / sizeof *serve_checks ? &serve_checks[i] : NULL;
}
