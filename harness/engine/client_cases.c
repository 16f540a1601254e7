/*
 * client_cases.c - the client checks: which scenario each watches and how it
 * grades what the client did there, against the catalog rows that bind
 * clients (levels per revision from the catalog, as for servers).
 *
 * A C table for this first cut: the checks read a whole trace (order across
 * connections, answers to the server's own requests) in ways the suite
 * format's send/expect steps do not express yet. Every check says SKIP with
 * the reason when the client never did what it needs, and a check that
 * finds nothing to judge never passes silently.
 */
#include "engine/client_cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "codec/json.h"
#include "codec/rev.h"
#include "codec/rpc.h"

/* ---- reading the trace ---- */

static mcps_rpc_kind kind_of(const cJSON *m, const char **method)
{
    mcps_rpc_info info;
    mcps_rpc_classify(m, MCPS_REV_NONE, &info);
    if (method)
        *method = info.method ? info.method : "";
    return info.kind;
}

static bool is(const mcps_client_msg *m, mcps_rpc_kind k, const char *method)
{
    const char *got;
    return m->json && kind_of(m->json, &got) == k && (!method || strcmp(got, method) == 0);
}

static const cJSON *member(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

static const char *text_of(const mcps_client_msg *m, char *buf, size_t n)
{
    if (!m->json)
        snprintf(buf, n, "%.120s", m->raw ? m->raw : "");
    else {
        char *s = cJSON_PrintUnformatted(m->json);
        snprintf(buf, n, "%.160s", s ? s : "?");
        free(s);
    }
    return buf;
}

/* The capability object the client declared for name, or NULL. */
static const cJSON *declared(const mcps_client_trace *t, const char *name)
{
    const cJSON *caps = member(t->init_params, "capabilities");
    const cJSON *c = member(caps, name);
    return cJSON_IsObject(c) ? c : NULL;
}

/* ---- the checks ---- */

static int initialize_first(const mcps_client_trace *t, mcps_client_grade *g)
{
    for (size_t i = 0; i < t->nmsgs; i++) { /* over HTTP: before any session */
        char buf[200];
        if (t->msgs[i].conn == 0)
            return mcps_client_broke(g, "LIFE-INIT-001",
                                     "before any initialize, the client sent: %s",
                                     text_of(&t->msgs[i], buf, sizeof buf));
    }
    for (unsigned conn = 1; conn <= t->connections; conn++) {
        for (size_t i = 0; i < t->nmsgs; i++) {
            if (t->msgs[i].conn != conn)
                continue;
            char buf[200];
            /* a dual-era client's probe, answered -32601 (STDIO-009), and 2026-07-28
             * requests (their own checks judge them) */
            if (is(&t->msgs[i], MCPS_RPC_REQUEST, "server/discover") ||
                (t->msgs[i].json && mcps_client_meta_version(t->msgs[i].json)))
                continue;
            if (!is(&t->msgs[i], MCPS_RPC_REQUEST, "initialize"))
                return mcps_client_broke(
                    g, "LIFE-INIT-001",
                    "connection %u opened with something else than initialize: %s", conn,
                    text_of(&t->msgs[i], buf, sizeof buf));
            break;
        }
    }
    if (!t->init_params)
        return mcps_client_skip(g, "the client sent no initialize request");
    return mcps_client_pass(g, "every connection (%u) opened with an initialize request",
                            t->connections);
}

static bool info_member_ok(const cJSON *info, const char *name)
{
    const cJSON *v = member(info, name);
    return cJSON_IsString(v) && v->valuestring[0];
}

static int initialize_params(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->init_params)
        return mcps_client_skip(g, "the client sent no initialize request");
    const cJSON *p = t->init_params;
    const cJSON *info = member(p, "clientInfo");
    if (!cJSON_IsString(member(p, "protocolVersion")))
        return mcps_client_broke(g, "LIFE-INIT-002",
                                 "params.protocolVersion is missing or not a string");
    if (!cJSON_IsObject(member(p, "capabilities")))
        return mcps_client_broke(g, "LIFE-INIT-002",
                                 "params.capabilities is missing or not an object");
    if (!cJSON_IsObject(info) || !info_member_ok(info, "name") || !info_member_ok(info, "version"))
        return mcps_client_broke(g, "LIFE-INIT-002",
                                 "params.clientInfo is not an object with string name and version");
    return mcps_client_pass(g, "protocolVersion \"%s\", capabilities, clientInfo %s %s", t->asked,
                            member(info, "name")->valuestring,
                            member(info, "version")->valuestring);
}

/* Index of the first message after the initialize answer on the connection of the first
 * initialize; nmsgs when none. */
static size_t first_after_answer(const mcps_client_trace *t)
{
    for (size_t i = 0; i < t->nmsgs; i++)
        if (t->msgs[i].conn == t->init_conn && !t->msgs[i].before_answer)
            return i;
    return t->nmsgs;
}

static int initialized_sent(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->answered[0])
        return mcps_client_skip(g, "the client sent no initialize request");
    for (size_t i = first_after_answer(t); i < t->nmsgs && t->msgs[i].conn == t->init_conn; i++) {
        const mcps_client_msg *m = &t->msgs[i];
        char buf[200];
        if (is(m, MCPS_RPC_NOTIFICATION, "notifications/initialized"))
            return mcps_client_pass(
                g, "notifications/initialized was the client's first message after the "
                   "initialize answer (other than ping)");
        if (is(m, MCPS_RPC_REQUEST, "ping") || !is(m, MCPS_RPC_REQUEST, NULL))
            continue;
        return mcps_client_broke(g, "LIFE-INIT-004",
                                 "a request came before notifications/initialized: %s",
                                 text_of(m, buf, sizeof buf));
    }
    return mcps_client_broke(g, "LIFE-INIT-004",
                             "no notifications/initialized after the initialize answer");
}

static int waits_for_answer(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->answered[0])
        return mcps_client_skip(g, "the client sent no initialize request");
    for (size_t i = 0; i < t->nmsgs; i++) {
        const mcps_client_msg *m = &t->msgs[i];
        char buf[200];
        if (!m->before_answer || is(m, MCPS_RPC_REQUEST, "initialize") ||
            is(m, MCPS_RPC_REQUEST, "ping") || is(m, MCPS_RPC_REQUEST, "server/discover"))
            continue;
        if (is(m, MCPS_RPC_NOTIFICATION, "notifications/initialized"))
            return mcps_client_broke(g, "LIFE-INIT-004",
                                     "notifications/initialized came before the initialize answer");
        if (is(m, MCPS_RPC_REQUEST, NULL))
            return mcps_client_broke(
                g, "LIFE-INIT-005",
                "a request came while initialize was unanswered (answer held 300 ms): "
                "%s",
                text_of(m, buf, sizeof buf));
    }
    return mcps_client_pass(
        g, "with the initialize answer held back 300 ms, the client sent nothing but ping");
}

/* Whether the client went on after the initialize answer: initialized, then a request. */
static bool continued(const mcps_client_trace *t, bool *initialized)
{
    bool request = false;
    *initialized = false;
    for (size_t i = first_after_answer(t); i < t->nmsgs && t->msgs[i].conn == t->init_conn; i++) {
        *initialized |= is(&t->msgs[i], MCPS_RPC_NOTIFICATION, "notifications/initialized");
        request |= is(&t->msgs[i], MCPS_RPC_REQUEST, NULL);
    }
    return *initialized && request;
}

static int older_version(const mcps_client_trace *t, mcps_client_grade *g)
{
    mcps_rev asked = mcps_rev_parse(t->asked);
    if (!t->answered[0])
        return mcps_client_skip(g, "the client sent no initialize request");
    if (asked == MCPS_REV_NONE || !mcps_rev_is_handshake(asked))
        return mcps_client_skip(g, "the client asked for \"%s\", a revision mcpspec does not know",
                                t->asked);
    if (asked == MCPS_REV_2024_11_05)
        return mcps_client_skip(
            g, "the client asked for 2024-11-05, the oldest revision: none is older");
    bool initialized;
    if (continued(t, &initialized))
        return mcps_client_pass(
            g,
            "asked %s, answered %s: the client sent notifications/initialized and "
            "went on",
            t->asked, t->answered);
    return mcps_client_info(
        g, "asked %s, answered %s: the client %s (allowed if it does not speak %s: LIFE-VER-006)",
        t->asked, t->answered,
        initialized ? "sent notifications/initialized but no request" : "did not go on",
        t->answered);
}

static int unsupported_version(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->answered[0])
        return mcps_client_skip(g, "the client sent no initialize request");
    for (size_t i = first_after_answer(t); i < t->nmsgs && t->msgs[i].conn == t->init_conn; i++) {
        char buf[200];
        const mcps_client_msg *m = &t->msgs[i];
        if (is(m, MCPS_RPC_NOTIFICATION, "notifications/initialized") ||
            (is(m, MCPS_RPC_REQUEST, NULL) && !is(m, MCPS_RPC_REQUEST, "ping")))
            return mcps_client_broke(g, "LIFE-VER-007", "answered with %s, the client went on: %s",
                                     t->answered, text_of(m, buf, sizeof buf));
    }
    if (!t->closed && !t->exited)
        return mcps_client_broke(g, "LIFE-VER-007",
                                 "answered with %s, the client neither disconnected nor exited",
                                 t->answered);
    return mcps_client_pass(g, "answered with %s, the client %s without going on", t->answered,
                            t->closed ? "closed the connection" : "exited");
}

/* The common judgement of the answer to the scenario's own request, when nothing was sent. */
static bool injected_or_skip(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->answered[0]) {
        mcps_client_skip(g, "the client sent no initialize request");
        return false;
    }
    if (!t->waited || !t->injected) {
        mcps_client_skip(
            g,
            "the client sent no request after initialize, so it never waited on the server: "
            "no moment to send it %s",
            t->inject_method ? t->inject_method : "a request");
        return false;
    }
    return true;
}

static int ping_answered(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!injected_or_skip(t, g))
        return 0;
    const cJSON *a = t->inject_answer;
    if (!a)
        return mcps_client_broke(g, "PING-001", "no answer to the server's ping");
    const cJSON *r = member(a, "result");
    if (!cJSON_IsObject(r))
        return mcps_client_broke(g, "PING-001", "the ping was answered with an error");
    return mcps_client_pass(g, "the ping was answered with a result");
}

/* Survival: the ping after the bad line answered. */
static int survived(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!injected_or_skip(t, g))
        return 0;
    if (!t->inject_answer)
        return mcps_client_broke(g, "RPC-RSP-004",
                                 "after the bad line, the server's ping went unanswered%s",
                                 t->exited ? " (the client exited)" : "");
    return mcps_client_pass(g, "the client answered the ping that followed the bad line");
}

static int huge_answered(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!injected_or_skip(t, g))
        return 0;
    if (!t->inject_answer)
        return mcps_client_broke(g, "RPC-RSP-004", "the server's ping of %zu KiB went unanswered%s",
                                 MCPS_CLIENT_HUGE_BYTES / 1024,
                                 t->exited ? " (the client exited)" : "");
    return mcps_client_pass(g, "the server's ping of %zu KiB was answered",
                            MCPS_CLIENT_HUGE_BYTES / 1024);
}

static int parse_error_answered(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!injected_or_skip(t, g))
        return 0;
    for (size_t i = 0; i < t->nmsgs; i++) {
        const cJSON *e = t->msgs[i].json ? member(t->msgs[i].json, "error") : NULL;
        const cJSON *code = member(e, "code");
        const cJSON *id = t->msgs[i].json ? member(t->msgs[i].json, "id") : NULL;
        if (cJSON_IsNumber(code) && code->valuedouble == -32700 && (!id || cJSON_IsNull(id)))
            return mcps_client_pass(g, "the line that is not JSON got a -32700 error response");
    }
    return mcps_client_broke(g, "RPC-ERR-003",
                             "no error response (-32700) to the line that is not JSON");
}

/* Answers to a server request for capability cap: declared -> valid(result); else an error. */
static int capability_answer(const mcps_client_trace *t, mcps_client_grade *g, const char *cap,
                             const char *cap_req, const char *shape_req,
                             bool (*valid)(const cJSON *result))
{
    if (!injected_or_skip(t, g))
        return 0;
    bool has = declared(t, cap) != NULL;
    const cJSON *a = t->inject_answer;
    const cJSON *result = a ? member(a, "result") : NULL;
    const cJSON *err = a ? member(a, "error") : NULL;
    const cJSON *code = member(err, "code");
    if (!a)
        return mcps_client_broke(g, "RPC-RSP-004", "no answer to %s (capability %s %s)",
                                 t->inject_method, cap, has ? "declared" : "not declared");
    if (!has && result)
        return mcps_client_broke(g, cap_req, "%s answered with a result, but %s was not declared",
                                 t->inject_method, cap);
    if (!has && !(cJSON_IsNumber(code) && code->valuedouble == -32601))
        return mcps_client_broke(
            g, strcmp(cap, "roots") == 0 ? "CAP-GEN-003 ROOTS-004" : "CAP-GEN-003",
            "%s (not declared) refused with code %g, not -32601", t->inject_method,
            cJSON_IsNumber(code) ? code->valuedouble : 0.0);
    if (!has)
        return mcps_client_pass(g, "%s not declared: refused with -32601", cap);
    /* the elicitation scenario's request has no mode: a form one from 2025-11-25 (ELIC-006), and
     * a client declaring elicitation supports at least one mode (CAP-CLI-004) */
    if (strcmp(cap, "elicitation") == 0 && g->rev >= MCPS_REV_2025_11_25 && cJSON_IsNumber(code) &&
        code->valuedouble == -32602)
        return mcps_client_broke(
            g, "ELIC-006 CAP-CLI-004",
            "elicitation declared, but a request without mode (form) was refused with "
            "-32602");
    if (err)
        return mcps_client_pass(
            g,
            "%s declared: the request was refused with an error (allowed: the user may "
            "decline)",
            cap);
    if (!valid(result))
        return mcps_client_broke(g, shape_req, "%s declared, but the result is malformed", cap);
    return mcps_client_pass(g, "%s declared: answered with a well-formed result", cap);
}

const char *mcps_client_roots_broken(const cJSON *result)
{
    const cJSON *roots = member(result, "roots"), *root;
    if (!cJSON_IsArray(roots))
        return "ROOTS-001";
    cJSON_ArrayForEach(root, roots)
    {
        const cJSON *uri = member(root, "uri"), *name = member(root, "name");
        if (!cJSON_IsString(uri) || (name && !cJSON_IsString(name)))
            return "ROOTS-001";
        if (strncmp(uri->valuestring, "file://", 7) != 0)
            return "ROOTS-002";
    }
    return NULL;
}

static bool roots_ok(const cJSON *r)
{
    return !mcps_client_roots_broken(r);
}

bool mcps_client_sampling_ok(const cJSON *result)
{
    const cJSON *content = member(result, "content");
    return cJSON_IsString(member(result, "role")) && cJSON_IsString(member(result, "model")) &&
           (cJSON_IsObject(content) || cJSON_IsArray(content));
}

static bool elicit_ok(const cJSON *r)
{
    const cJSON *a = member(r, "action");
    if (!cJSON_IsString(a))
        return false;
    if (strcmp(a->valuestring, "accept") == 0)
        return cJSON_IsObject(member(r, "content"));
    return strcmp(a->valuestring, "decline") == 0 || strcmp(a->valuestring, "cancel") == 0;
}

static int roots_answer(const mcps_client_trace *t, mcps_client_grade *g)
{
    return capability_answer(t, g, "roots", "CAP-CLI-001", "ROOTS-001 ROOTS-002", roots_ok);
}

bool mcps_client_sampling_type_in(const char *type, mcps_rev r)
{
    if (strcmp(type, "text") == 0 || strcmp(type, "image") == 0)
        return true;
    if (strcmp(type, "audio") == 0)
        return r >= MCPS_REV_2025_03_26;
    if (strcmp(type, "tool_use") == 0 || strcmp(type, "tool_result") == 0)
        return r >= MCPS_REV_2025_11_25;
    return false;
}

static int sampling_answer(const mcps_client_trace *t, mcps_client_grade *g)
{
    capability_answer(t, g, "sampling", "CAP-CLI-002", "SAMP-002", mcps_client_sampling_ok);
    const cJSON *content = member(member(t->inject_answer, "result"), "content"), *block;
    mcps_rev r = mcps_rev_parse(t->answered);
    if (g->verdict != MCPS_VERDICT_PASS || !content)
        return 0;
    /* one block, or (2025-11-25) an array of them */
    for (block = cJSON_IsArray(content) ? content->child : content; block;
         block = cJSON_IsArray(content) ? block->next : NULL) {
        const cJSON *type = member(block, "type");
        if (!cJSON_IsString(type) || !mcps_client_sampling_type_in(type->valuestring, r))
            return mcps_client_broke(g, "SAMP-003",
                                     "the sampling result's content type %s%.40s%s is not one "
                                     "of %s's",
                                     cJSON_IsString(type) ? "\"" : "",
                                     cJSON_IsString(type) ? type->valuestring : "(none)",
                                     cJSON_IsString(type) ? "\"" : "", t->answered);
    }
    return 0;
}

static int elicit_answer(const mcps_client_trace *t, mcps_client_grade *g)
{
    mcps_rev r = mcps_rev_parse(t->answered);
    if (r != MCPS_REV_NONE && r < MCPS_REV_2025_06_18)
        return mcps_client_skip(g, "elicitation is not part of %s, the revision negotiated",
                                t->answered);
    return capability_answer(t, g, "elicitation", "CAP-CLI-003", "ELIC-003", elicit_ok);
}

/* ---- the server's own requests: cancelled, with progress, batched ---- */

/* Whether m is a response (result or error) to our request with this id. */
static bool responds_to(const cJSON *m, const char *id)
{
    const cJSON *got = member(m, "id");
    return cJSON_IsObject(m) && !member(m, "method") &&
           (member(m, "result") || member(m, "error")) && cJSON_IsString(got) &&
           strcmp(got->valuestring, id) == 0;
}

/* Whether the client answered our request id at or after message from (in a batch too). */
static bool answered_after(const mcps_client_trace *t, size_t from, const char *id)
{
    for (size_t i = from; i < t->nmsgs; i++) {
        const cJSON *m = t->msgs[i].json, *e;
        if (!cJSON_IsArray(m)) {
            if (responds_to(m, id))
                return true;
            continue;
        }
        cJSON_ArrayForEach(e, m)
        {
            if (responds_to(e, id))
                return true;
        }
    }
    return false;
}

/* A response without an id (or with a null one): to a notification, not to a request. */
static bool answers_nothing(const cJSON *m)
{
    const cJSON *id = member(m, "id");
    return cJSON_IsObject(m) && !member(m, "method") &&
           (member(m, "result") || member(m, "error")) && (!id || cJSON_IsNull(id));
}

static int cancel_survived(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!injected_or_skip(t, g))
        return 0;
    for (size_t i = t->inject_at; i < t->nmsgs; i++) {
        char buf[200];
        if (answers_nothing(t->msgs[i].json))
            return mcps_client_broke(g, "RPC-NOT-002",
                                     "a response to a notification (the cancellations): %s",
                                     text_of(&t->msgs[i], buf, sizeof buf));
    }
    if (!t->inject_answer)
        return mcps_client_broke(g, "CANC-006",
                                 "after the server cancelled its own ping (and sent a malformed "
                                 "cancellation), its next ping went unanswered%s",
                                 t->exited ? " (the client exited)" : "");
    return mcps_client_pass(
        g,
        "the cancellations got no response and the next ping was answered; the "
        "cancelled ping was %s",
        answered_after(t, t->inject_at, MCPS_CLIENT_CANCELLED_ID)
            ? "answered (allowed: the cancellation crossed the answer, CANC-006)"
            : "left unanswered (CANC-003)");
}

/* A request of ours whose method is 42 gets an error (RPC-ERR-004); one for a method nobody
 * has gets -32601 (RPC-ERR-005). */
static int unknown_method(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!injected_or_skip(t, g))
        return 0;
    bool invalid_answered = false;
    for (size_t i = t->inject_at; i < t->nmsgs && !invalid_answered; i++) {
        const cJSON *m = t->msgs[i].json;
        invalid_answered =
            (responds_to(m, MCPS_CLIENT_CANCELLED_ID) || answers_nothing(m)) && member(m, "error");
    }
    if (!invalid_answered)
        return mcps_client_broke(
            g, "RPC-ERR-004", "a request whose method is 42 (not a string) got no error response");
    const cJSON *a = t->inject_answer;
    const cJSON *code = member(member(a, "error"), "code");
    if (!a)
        return mcps_client_broke(g, "RPC-RSP-004",
                                 "the request for mcpspec/no-such-method went unanswered%s",
                                 t->exited ? " (the client exited)" : "");
    if (!(cJSON_IsNumber(code) && code->valuedouble == -32601))
        return mcps_client_broke(g, "RPC-ERR-005",
                                 "mcpspec/no-such-method was answered with %s, not -32601",
                                 member(a, "result") ? "a result" : "another error code");
    return mcps_client_pass(g, "the invalid request got an error, the unknown method -32601");
}

/* An integer: a JSON number without a fraction. */
/* One response of the client's: result xor error (RPC-RSP-002), a result an object
 * (RPC-RSP-003), an error with an integer code and a short one-line message (RPC-ERR-001,
 * RPC-ERR-002), the id one of the server's (all strings, RPC-RSP-001) or null for what had
 * none to read. False once it graded a break. */
static bool response_ok(const cJSON *m, mcps_client_grade *g)
{
    const cJSON *result = member(m, "result"), *err = member(m, "error");
    const cJSON *id = member(m, "id"), *msg = member(err, "message");
    char text[64];
    mcps_rpc_id_text(id, text, sizeof text);
    if (result && err)
        mcps_client_broke(g, "RPC-RSP-002", "a response with both result and error (id %s)", text);
    else if (result && !cJSON_IsObject(result))
        mcps_client_broke(g, "RPC-RSP-003", "a result that is not an object (id %s)", text);
    else if (err && (!mcps_json_number_is_integer(member(err, "code")) || !cJSON_IsString(msg)))
        mcps_client_broke(g, "RPC-ERR-001",
                          "an error without an integer code and a string message (id %s)", text);
    else if (err && (!msg->valuestring[0] || strchr(msg->valuestring, '\n') ||
                     strlen(msg->valuestring) > 200))
        mcps_client_broke(
            g, "RPC-ERR-002",
            "an error message that is empty, several lines or over 200 characters (id %s)", text);
    else if (id && !cJSON_IsNull(id) &&
             !(cJSON_IsString(id) && strncmp(id->valuestring, "mcpspec-", 8) == 0))
        mcps_client_broke(g, "RPC-RSP-001",
                          "a response id %s that is none of the server's (all strings)", text);
    else
        return true;
    return false;
}

static int responses(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nmsgs; i++) {
        const cJSON *m = t->msgs[i].json;
        if (!cJSON_IsObject(m) || member(m, "method") ||
            !(member(m, "result") || member(m, "error")))
            continue;
        n++;
        if (!response_ok(m, g))
            return 0;
    }
    if (!n)
        return mcps_client_skip(g, "the client sent no response");
    return mcps_client_pass(g, "%zu responses, each well formed, with an id of the server's", n);
}

/* Index of the client's answer to our request, or nmsgs. */
static size_t answer_index(const mcps_client_trace *t)
{
    size_t i = t->inject_at;
    while (i < t->nmsgs && !responds_to(t->msgs[i].json, MCPS_CLIENT_INJECT_ID))
        i++;
    return i;
}

/* One notifications/progress the client sent at index i; false once it graded a break. */
static bool progress_ok(const mcps_client_trace *t, size_t i, size_t answer, double *last,
                        mcps_client_grade *g)
{
    const cJSON *params = member(t->msgs[i].json, "params");
    const cJSON *token = member(params, "progressToken");
    const cJSON *progress = member(params, "progress");
    const cJSON *message = member(params, "message");
    if (!cJSON_IsString(token) || strcmp(token->valuestring, MCPS_CLIENT_PROGRESS_TOKEN) != 0)
        mcps_client_broke(g, "PROG-006",
                          "progress for a token the server never issued (it issued \"%s\")",
                          MCPS_CLIENT_PROGRESS_TOKEN);
    else if (i > answer)
        mcps_client_broke(g, "PROG-007",
                          "progress for the server's ping after the client answered it");
    else if (!cJSON_IsNumber(progress) || progress->valuedouble <= *last)
        mcps_client_broke(g, "PROG-004",
                          "a progress value that does not increase (or is not a number)");
    else if (message && (!cJSON_IsString(message) || !message->valuestring[0]))
        mcps_client_broke(g, "PROG-009", "a progress message that is not a non-empty string");
    else {
        *last = progress->valuedouble;
        return true;
    }
    return false;
}

static int progress_for_request(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!injected_or_skip(t, g))
        return 0;
    size_t answer = answer_index(t), seen = 0;
    double last = -1e300;
    for (size_t i = t->inject_at; i < t->nmsgs; i++) {
        if (!is(&t->msgs[i], MCPS_RPC_NOTIFICATION, "notifications/progress"))
            continue;
        seen++;
        if (!progress_ok(t, i, answer, &last, g))
            return 0;
    }
    if (!seen)
        return mcps_client_skip(g, "the client sent no progress for the server's ping carrying a "
                                   "progressToken (it need not)");
    return mcps_client_pass(
        g,
        "%zu progress notifications for the server's token, increasing, all before "
        "the answer",
        seen);
}

/* Whether the batch scenario was played on 2025-03-26; else g says why not. */
static bool batches_played(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->answered[0])
        return mcps_client_skip(g, "the client sent no initialize request"), false;
    if (strcmp(t->answered, "2025-03-26") != 0)
        return mcps_client_skip(g, "the client asked for %s: batches are 2025-03-26's alone",
                                t->asked),
               false;
    return injected_or_skip(t, g);
}

static int batch_answered(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!batches_played(t, g))
        return 0;
    bool one = answered_after(t, t->inject_at, MCPS_CLIENT_INJECT_ID);
    bool two = answered_after(t, t->inject_at, MCPS_CLIENT_BATCH_ID2);
    if (!one || !two)
        return mcps_client_broke(g, "BATCH-001", "of the batch's two pings, %s answered%s",
                                 one || two ? "one was" : "neither was",
                                 t->exited ? " (the client exited)" : "");
    return mcps_client_pass(
        g, "with 2025-03-26 negotiated, both pings of the server's batch were answered");
}

/* Of the client's null-id answers after the batches, how many are -32600 objects; a wrong one
 * (in an array, another code, an empty array) is named in *wrong. */
static size_t invalid_request_answers(const mcps_client_trace *t, const char **wrong)
{
    size_t n = 0;
    for (size_t i = t->inject_at; i < t->nmsgs && !*wrong; i++) {
        const cJSON *m = t->msgs[i].json, *e;
        const cJSON *batch = cJSON_IsArray(m) ? m : NULL;
        if (batch && !batch->child)
            *wrong = "an empty array (an empty response array is never sent)";
        cJSON_ArrayForEach(e, batch)
        {
            if (answers_nothing(e))
                *wrong = "a null-id answer inside an array (the empty batch's error is one "
                         "object; the all-notification batch gets no reply)";
        }
        if (!answers_nothing(m))
            continue;
        const cJSON *code = member(member(m, "error"), "code");
        if (!cJSON_IsNumber(code) || code->valuedouble != -32600)
            *wrong = "a null-id answer that is not a -32600 Invalid Request error";
        n++;
    }
    return n;
}

static int batch_edges(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!batches_played(t, g))
        return 0;
    const char *wrong = NULL;
    size_t n = invalid_request_answers(t, &wrong);
    if (wrong)
        return mcps_client_broke(g, "BATCH-004", "after [] and an all-notification batch: %s",
                                 wrong);
    if (n != 1)
        return mcps_client_broke(g, "BATCH-004",
                                 "%zu Invalid Request errors for [] and an all-notification batch "
                                 "(one is due, for [])%s",
                                 n, t->exited && !n ? " (the client exited)" : "");
    return mcps_client_pass(g, "[] got one -32600 error object, the all-notification batch no "
                               "reply");
}

/* The request on the connection of message i, before it, whose id is id; NULL when none. */
static const mcps_client_msg *request_named(const mcps_client_trace *t, size_t i, const cJSON *id)
{
    for (size_t j = 0; j < i; j++)
        if (t->msgs[j].conn == t->msgs[i].conn && is(&t->msgs[j], MCPS_RPC_REQUEST, NULL) &&
            mcps_rpc_id_equal(member(t->msgs[j].json, "id"), id))
            return &t->msgs[j];
    return NULL;
}

/* The client's own cancellations: each names a request it sent on that connection (CANC-001),
 * never its initialize (CANC-002), with requestId (CANC-009). */
static int cancellations(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t seen = 0;
    for (size_t i = 0; i < t->nmsgs; i++) {
        if (!is(&t->msgs[i], MCPS_RPC_NOTIFICATION, "notifications/cancelled"))
            continue;
        const cJSON *id = member(member(t->msgs[i].json, "params"), "requestId");
        const mcps_client_msg *req = id ? request_named(t, i, id) : NULL;
        char text[64];
        mcps_rpc_id_text(id, text, sizeof text);
        seen++;
        if (!id)
            return mcps_client_broke(g, g->rev >= MCPS_REV_2025_11_25 ? "CANC-009" : "CANC-001",
                                     "notifications/cancelled without requestId");
        if (!req)
            return mcps_client_broke(
                g, "CANC-001",
                "notifications/cancelled for %s, which is no request the client sent on "
                "that connection",
                text);
        if (is(req, MCPS_RPC_REQUEST, "initialize"))
            return mcps_client_broke(g, "CANC-002",
                                     "the client cancelled its initialize request (%s)", text);
    }
    if (!seen)
        return mcps_client_skip(g, "the client cancelled nothing (it need not)");
    return mcps_client_pass(
        g, "%zu cancellations, each naming a request of the client's other than initialize", seen);
}

/* ---- paging ---- */

/* The cursor a tools/list request carries: NULL when none (a first page). */
static const cJSON *cursor_of(const mcps_client_msg *m)
{
    return is(m, MCPS_RPC_REQUEST, "tools/list") ? member(member(m->json, "params"), "cursor")
                                                 : NULL;
}

static int cursor_unchanged(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->answered[0])
        return mcps_client_skip(g, "the client sent no initialize request");
    size_t lists = 0, pages = 0;
    bool after_last = false; /* the previous tools/list on the connection got the last page */
    bool empty = false, third = false; /* asked the empty page 2; asked page 3 */
    for (size_t i = 0; i < t->nmsgs; i++) {
        const mcps_client_msg *m = &t->msgs[i];
        if (!is(m, MCPS_RPC_REQUEST, "tools/list"))
            continue;
        const cJSON *c = cursor_of(m);
        bool two = cJSON_IsString(c) && strcmp(c->valuestring, MCPS_CLIENT_CURSOR) == 0;
        bool three = cJSON_IsString(c) && strcmp(c->valuestring, MCPS_CLIENT_CURSOR2) == 0;
        lists++;
        if (c && !two && !three) {
            char text[64];
            mcps_rpc_id_text(c, text, sizeof text);
            return mcps_client_broke(g, "PAGE-004", "the nextCursor came back altered: %s", text);
        }
        if (c && after_last)
            return mcps_client_broke(
                g, "PAGE-007",
                "after a page without nextCursor (the last), the client asked for "
                "another page");
        pages += c != NULL;
        after_last = three;
        empty |= two;
        third |= three;
    }
    if (!lists)
        return mcps_client_skip(g, "the client sent no tools/list");
    if (!pages)
        return mcps_client_skip(
            g, "the client did not ask for the page after the first (it need not)");
    if (empty && !third)
        return mcps_client_broke(
            g, "PAGE-003",
            "page 2 was empty but had a nextCursor, and the client asked no further "
            "(as if an empty page ended the list)");
    return mcps_client_pass(
        g, "each nextCursor came back unchanged, an empty page did not stop the client, "
           "and it stopped at the last page");
}

/* Request ids: string or integer, never null, never reused on a connection. */
static int request_ids(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t requests = 0;
    for (size_t i = 0; i < t->nmsgs; i++) {
        if (!is(&t->msgs[i], MCPS_RPC_REQUEST, NULL))
            continue;
        const cJSON *id = member(t->msgs[i].json, "id");
        char text[64];
        mcps_rpc_id_text(id, text, sizeof text);
        requests++;
        if (cJSON_IsNull(id))
            return mcps_client_broke(g, "RPC-ID-002", "a request with id null");
        if (!mcps_rpc_id_valid(id))
            return mcps_client_broke(g, "RPC-ID-001",
                                     "a request id that is neither string nor integer: %s", text);
        /* 2026-07-28 lets an id be reused once answered (RPC-ID-004), and the scripted server
         * answers those requests at once: only the handshake era's rule is judged here */
        for (size_t j = 0; j < i && !mcps_client_meta_version(t->msgs[i].json); j++)
            if (t->msgs[j].conn == t->msgs[i].conn && is(&t->msgs[j], MCPS_RPC_REQUEST, NULL) &&
                mcps_rpc_id_equal(member(t->msgs[j].json, "id"), id))
                return mcps_client_broke(g, "RPC-ID-003",
                                         "request id %s used twice on one connection", text);
    }
    if (!requests)
        return mcps_client_skip(g, "the client sent no request");
    return mcps_client_pass(g, "%zu requests, each with its own string or integer id", requests);
}

/* Progress tokens on the client's own requests: strings or integers (PROG-001). */
static int progress_tokens(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t tokens = 0;
    for (size_t i = 0; i < t->nmsgs; i++) {
        if (!is(&t->msgs[i], MCPS_RPC_REQUEST, NULL))
            continue;
        const cJSON *meta = member(member(t->msgs[i].json, "params"), "_meta");
        const cJSON *token = member(meta, "progressToken");
        const char *method;
        kind_of(t->msgs[i].json, &method);
        if (!token)
            continue;
        tokens++;
        if (!mcps_rpc_id_valid(token)) {
            char text[64];
            mcps_rpc_id_text(token, text, sizeof text);
            return mcps_client_broke(g, "PROG-001",
                                     "%s carries a progressToken that is neither string nor "
                                     "integer: %s",
                                     method, text);
        }
    }
    if (!tokens)
        return mcps_client_skip(g,
                                "no request of the client's carried a progressToken (it need not)");
    return mcps_client_pass(g, "%zu progress tokens, each a string or an integer", tokens);
}

/* 2026-07-28 over stdio: the server sends no requests, so the client writes no responses. */
static int no_responses(const mcps_client_trace *t, mcps_client_grade *g)
{
    for (size_t i = 0; i < t->nmsgs; i++) {
        char buf[200];
        const cJSON *m = t->msgs[i].json;
        if (cJSON_IsObject(m) && !member(m, "method") &&
            (member(m, "result") || member(m, "error")))
            return mcps_client_broke(g, "STDIO-007 RPC-DIR-001",
                                     "a response written to a 2026-07-28 server: %s",
                                     text_of(&t->msgs[i], buf, sizeof buf));
    }
    if (!t->nmsgs)
        return mcps_client_skip(g, "the client sent nothing");
    return mcps_client_pass(g, "%zu lines to a 2026-07-28 server, none a response", t->nmsgs);
}

/* A stdio line that is a batch: only where 2025-03-26 was answered, never empty, never
 * holding initialize, each element a JSON-RPC 2.0 object; false once it graded a break. */
static bool batch_ok(const mcps_client_trace *t, const cJSON *batch, mcps_client_grade *g)
{
    mcps_rev r = mcps_rev_parse(t->answered);
    const cJSON *e;
    if (r == MCPS_REV_2024_11_05 || r == MCPS_REV_NONE)
        return mcps_client_broke(g, "BATCH-006",
                                 "a batch (JSON array) line, where 2024-11-05 has none"),
               false;
    if (r != MCPS_REV_2025_03_26)
        return mcps_client_broke(g, "BATCH-005",
                                 "a batch (JSON array) line, under %s (batches were removed "
                                 "in 2025-06-18)",
                                 t->answered),
               false;
    if (!batch->child)
        return mcps_client_broke(g, "RPC-MSG-001", "an empty batch"), false;
    cJSON_ArrayForEach(e, batch)
    {
        const cJSON *v = member(e, "jsonrpc");
        const cJSON *method = member(e, "method");
        if (cJSON_IsString(method) && strcmp(method->valuestring, "initialize") == 0)
            return mcps_client_broke(g, "BATCH-003", "initialize inside a batch"), false;
        if (!cJSON_IsObject(e) || !cJSON_IsString(v) || strcmp(v->valuestring, "2.0") != 0)
            return mcps_client_broke(g, "RPC-MSG-001",
                                     "a batch element without \"jsonrpc\":\"2.0\""),
                   false;
    }
    return true;
}

/* Whether the lines from i on (up to 8, on one connection) joined by newlines parse as one
 * JSON value: a message written over several lines (STDIO-001). */
static bool split_message(const mcps_client_trace *t, size_t i)
{
    mcps_buf b = {0};
    bool parsed = false;
    for (size_t j = i; !parsed && j < t->nmsgs && j < i + 8 && !t->msgs[j].json && t->msgs[j].raw &&
                       t->msgs[j].conn == t->msgs[i].conn;
         j++) {
        if (j > i)
            mcps_buf_putc(&b, '\n');
        mcps_buf_puts(&b, t->msgs[j].raw);
        cJSON *v = j > i && !b.oom ? mcps_json_parse_simple(b.data, b.len) : NULL;
        parsed = v != NULL;
        cJSON_Delete(v);
    }
    mcps_buf_free(&b);
    return parsed;
}

/* A line that is not UTF-8 (or starts with a byte order mark): RPC-MSG-002. */
static bool not_utf8(const mcps_client_msg *m)
{
    return m->raw && (strncmp(m->raw, "\xEF\xBB\xBF", 3) == 0 ||
                      !mcps_json_utf8_valid(m->raw, strlen(m->raw), NULL));
}

static int jsonrpc_lines(const mcps_client_trace *t, mcps_client_grade *g)
{
    for (size_t i = 0; i < t->nmsgs; i++) {
        const mcps_client_msg *m = &t->msgs[i];
        char buf[200];
        if (!m->json && not_utf8(m))
            return mcps_client_broke(g, "RPC-MSG-002",
                                     "a %s that is not UTF-8 (or starts with a BOM)",
                                     t->http ? "POST body" : "line");
        if (!m->json && !t->http && split_message(t, i))
            return mcps_client_broke(g, "STDIO-001 STDIO-003",
                                     "a message written over several lines (embedded newlines): %s",
                                     text_of(m, buf, sizeof buf));
        if (!m->json && t->http)
            return mcps_client_broke(g, "RPC-MSG-001", "a POST body that is not JSON: %s",
                                     text_of(m, buf, sizeof buf));
        if (!m->json)
            return mcps_client_broke(g, "STDIO-003", "a line that is not JSON: %s",
                                     text_of(m, buf, sizeof buf));
        if (!t->http && cJSON_IsArray(m->json)) {
            if (!batch_ok(t, m->json, g))
                return 0;
            continue;
        }
        if (t->http && cJSON_IsArray(m->json) && strcmp(t->answered, "2025-03-26") == 0)
            continue; /* allowed there (HTTP-007): client/http-bodies judges its shape */
        if (t->http && cJSON_IsArray(m->json))
            return mcps_client_broke(g, "HTTP-008", "a batch (JSON array) body: %s",
                                     text_of(m, buf, sizeof buf));
        const cJSON *v = member(m->json, "jsonrpc");
        const cJSON *method = member(m->json, "method");
        if (!cJSON_IsObject(m->json) || !cJSON_IsString(v) || strcmp(v->valuestring, "2.0") != 0)
            return mcps_client_broke(g, "RPC-MSG-001", "a message without \"jsonrpc\":\"2.0\": %s",
                                     text_of(m, buf, sizeof buf));
        if (cJSON_IsString(method) && strncmp(method->valuestring, "notifications/", 14) == 0 &&
            member(m->json, "id"))
            return mcps_client_broke(g, "RPC-NOT-001", "a notification with an id: %s",
                                     text_of(m, buf, sizeof buf));
    }
    if (!t->nmsgs)
        return mcps_client_skip(g, "the client sent nothing");
    return mcps_client_pass(g, "%zu %s, each a JSON-RPC 2.0 message", t->nmsgs,
                            t->http ? "POST bodies" : "lines");
}

static int shutdown_by_close(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->closed && t->stays)
        return mcps_client_skip(
            g, "the configuration says the client stays running (\"stays\": true)");
    if (!t->closed)
        return mcps_client_skip(
            g, "the client did not end the connection by itself (mcpspec ended the case)");
    if (t->peer_gone)
        return mcps_client_broke(
            g, "LIFE-SHUT-001",
            "the server process was stopped without its stdin being closed first");
    return mcps_client_pass(g, "the client closed its server's stdin");
}

/* ---- Streamable HTTP ({url}): the requests' headers ---- */

/* Whether e came once a session was live, not being a new initialize (which has none). */
static bool in_session(const mcps_http_seen *e)
{
    return e->session_no > 0 && !e->initialize;
}

static int http_session_id(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t judged = 0;
    for (size_t i = 0; i < t->nhttp; i++) {
        const mcps_http_seen *e = &t->http_reqs[i];
        if (!in_session(e))
            continue;
        judged++;
        if (!e->has_session)
            return mcps_client_broke(
                g, "HTTP-036", "%s %s came without Mcp-Session-Id after session %u was issued",
                e->verb, e->rpc[0] ? e->rpc : "(no body)", e->session_no);
        if (!e->session_ok && !e->expired_session)
            return mcps_client_broke(
                g, "HTTP-036", "%s %s carried an Mcp-Session-Id other than the live session's",
                e->verb, e->rpc[0] ? e->rpc : "(no body)");
    }
    if (!judged)
        return mcps_client_skip(g,
                                "the client made no HTTP request after the session id was issued");
    return mcps_client_pass(g, "%zu requests after initialize, each with the session id issued",
                            judged);
}

static int http_protocol_version(const mcps_client_trace *t, mcps_client_grade *g)
{
    mcps_rev r = mcps_rev_parse(t->answered);
    if (!t->answered[0])
        return mcps_client_skip(g, "the client sent no initialize request");
    if (r == MCPS_REV_NONE || r < MCPS_REV_2025_06_18)
        return mcps_client_skip(g, "MCP-Protocol-Version came with 2025-06-18; %s was negotiated",
                                t->answered);
    size_t judged = 0;
    for (size_t i = 0; i < t->nhttp; i++) {
        const mcps_http_seen *e = &t->http_reqs[i];
        if (!in_session(e) || e->expired_session)
            continue;
        judged++;
        const char *what = e->rpc[0] ? e->rpc : "(no body)";
        if (!e->has_version)
            return mcps_client_broke(g, "HTTP-042", "%s %s came without MCP-Protocol-Version",
                                     e->verb, what);
        if (strcmp(e->version, t->answered) != 0)
            return mcps_client_broke(g, "HTTP-043",
                                     "%s %s: MCP-Protocol-Version: %s, negotiated %s", e->verb,
                                     what, e->version, t->answered);
    }
    if (!judged)
        return mcps_client_skip(g, "the client made no HTTP request after initialize");
    return mcps_client_pass(g, "%zu requests after initialize, each with MCP-Protocol-Version: %s",
                            judged, t->answered);
}

static bool lists(const char *accept, const char *type)
{
    return strstr(accept, type) != NULL;
}

static int http_accept(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t posts = 0;
    for (size_t i = 0; i < t->nhttp; i++) {
        const mcps_http_seen *e = &t->http_reqs[i];
        bool post = strcmp(e->verb, "POST") == 0;
        if (!post && strcmp(e->verb, "GET") != 0)
            continue;
        posts += post;
        const char *a = e->has_accept ? e->accept : "(none)";
        if (post && (!lists(a, "application/json") || !lists(a, "text/event-stream")))
            return mcps_client_broke(g, "HTTP-006", "a POST (%s) with Accept: %s", e->rpc, a);
        if (!post && !lists(a, "text/event-stream"))
            return mcps_client_broke(g, "HTTP-023", "a GET with Accept: %s", a);
    }
    if (!posts)
        return mcps_client_skip(g, "the client sent no POST");
    return mcps_client_pass(g, "%zu POSTs, each accepting application/json and text/event-stream",
                            posts);
}

static int http_session_404(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->answered[0])
        return mcps_client_skip(g, "the client sent no initialize request");
    if (!t->injected)
        return mcps_client_skip(
            g, "the client sent no request after initialize: no moment to forget its "
               "session");
    size_t i = 0;
    while (i < t->nhttp && t->http_reqs[i].status != 404)
        i++;
    for (i++; i < t->nhttp; i++) {
        const mcps_http_seen *e = &t->http_reqs[i];
        if (!e->initialize)
            continue;
        if (e->has_session)
            return mcps_client_broke(g, "HTTP-039",
                                     "after the 404, initialize came with an Mcp-Session-Id");
        return mcps_client_pass(g,
                                "after the 404, the client started over with initialize, without a "
                                "session id");
    }
    return mcps_client_broke(g, "HTTP-039",
                             "after the 404 for its session, the client sent no new "
                             "initialize%s",
                             t->exited ? " (it exited)" : "");
}

static int http_delete(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->answered[0])
        return mcps_client_skip(g, "the client sent no initialize request");
    if (t->deleted)
        return mcps_client_pass(
            g, "the client ended its session with DELETE, carrying the session id");
    if (t->stays)
        return mcps_client_skip(
            g, "the configuration says the client stays running (\"stays\": true)");
    return mcps_client_broke(g, "HTTP-040", "the client %s without ending its session with DELETE",
                             t->exited ? "exited" : "was stopped by mcpspec");
}

/* ---- 2026-07-28: no handshake, every request self-describing ---- */

static const cJSON *meta_of(const cJSON *m)
{
    return member(member(m, "params"), "_meta");
}

/* YYYY-MM-DD, as every revision is named. */
static bool dated(const char *s)
{
    static const char shape[] = "dddd-dd-dd";
    for (size_t i = 0; i < sizeof shape - 1; i++)
        if (shape[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != '-')
            return false;
    return s[sizeof shape - 1] == '\0';
}

/* Index of the first request named method, from index from; nmsgs when none. */
static size_t find_request(const mcps_client_trace *t, size_t from, const char *method)
{
    while (from < t->nmsgs && !is(&t->msgs[from], MCPS_RPC_REQUEST, method))
        from++;
    return from;
}

/* A request the 2026-07-28 rules judge: any but initialize (a legacy fallback). */
static bool modern_request(const mcps_client_msg *m)
{
    return is(m, MCPS_RPC_REQUEST, NULL) && !is(m, MCPS_RPC_REQUEST, "initialize");
}

static int discover_first(const mcps_client_trace *t, mcps_client_grade *g)
{
    char buf[200];
    if (!t->nmsgs)
        return mcps_client_skip(g, "the client sent nothing");
    if (is(&t->msgs[0], MCPS_RPC_REQUEST, "server/discover"))
        return mcps_client_pass(g, "the client's first line was server/discover");
    return mcps_client_broke(g, "STDIO-011", "the client's first line was not server/discover: %s",
                             text_of(&t->msgs[0], buf, sizeof buf));
}

static int no_initialize(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->discovered)
        return mcps_client_skip(
            g, "the client did not ask server/discover: no DiscoverResult to go on from");
    size_t i = find_request(t, 0, "server/discover");
    if (find_request(t, i, "initialize") < t->nmsgs)
        return mcps_client_broke(
            g, "VER-001", "after a DiscoverResult listing %s, the client sent initialize anyway",
            MCPS_CLIENT_MODERN);
    /* the era is a property of the server process: probed once per process (VER-005) */
    size_t again = find_request(t, i + 1, "server/discover");
    if (again < t->nmsgs && t->msgs[again].conn == t->msgs[i].conn)
        return mcps_client_broke(g, "VER-005",
                                 "server/discover again on the connection that already had its "
                                 "DiscoverResult");
    return mcps_client_pass(
        g, "after the DiscoverResult, no initialize and no second probe: the client "
           "went on statelessly");
}

/* Judges one 2026-07-28 request's _meta: true when it holds; false once it has graded the break. */
typedef bool (*meta_judge)(const cJSON *msg, const char *method, mcps_client_grade *g);

/* Every 2026-07-28 request the client sent, judged by judge; SKIP when there was none. */
static int each_modern_request(const mcps_client_trace *t, mcps_client_grade *g, meta_judge judge,
                               const char *holds)
{
    size_t judged = 0;
    for (size_t i = 0; i < t->nmsgs; i++) {
        const mcps_client_msg *m = &t->msgs[i];
        if (!modern_request(m))
            continue;
        const char *method;
        kind_of(m->json, &method);
        judged++;
        if (!judge(m->json, method, g))
            return 0;
    }
    if (!judged)
        return mcps_client_skip(g, "the client sent no request");
    return mcps_client_pass(g, "%zu requests, each with %s", judged, holds);
}

static bool meta_version_of(const cJSON *msg, const char *method, mcps_client_grade *g)
{
    const char *v = mcps_client_meta_version(msg);
    if (!v) {
        mcps_client_broke(g, "VER-001", "%s came without _meta \"%s\"", method,
                          MCPS_CLIENT_META_VERSION);
        return false;
    }
    if (!dated(v)) {
        mcps_client_broke(g, "VER-001", "%s: _meta \"%s\" is \"%.40s\", not YYYY-MM-DD", method,
                          MCPS_CLIENT_META_VERSION, v);
        return false;
    }
    if (!cJSON_IsObject(member(meta_of(msg), MCPS_CLIENT_META_CAPS))) {
        mcps_client_broke(g, "STATE-001", "%s came without a _meta \"%s\" object", method,
                          MCPS_CLIENT_META_CAPS);
        return false;
    }
    return true;
}

static int meta_version(const mcps_client_trace *t, mcps_client_grade *g)
{
    return each_modern_request(t, g, meta_version_of,
                               "_meta protocolVersion and clientCapabilities");
}

static bool client_info_of(const cJSON *msg, const char *method, mcps_client_grade *g)
{
    const cJSON *ci = member(meta_of(msg), MCPS_CLIENT_META_INFO);
    if (cJSON_IsObject(ci) && info_member_ok(ci, "name") && info_member_ok(ci, "version"))
        return true;
    mcps_client_broke(g, "STATE-003", "%s came without a _meta \"%s\" with string name and version",
                      method, MCPS_CLIENT_META_INFO);
    return false;
}

static int meta_client_info(const mcps_client_trace *t, mcps_client_grade *g)
{
    return each_modern_request(t, g, client_info_of, "_meta clientInfo (name, version)");
}

static int discover_version(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->discovered)
        return mcps_client_skip(g, "the client did not ask server/discover");
    size_t judged = 0;
    for (size_t i = find_request(t, 0, "server/discover") + 1; i < t->nmsgs; i++) {
        const char *v = t->msgs[i].json ? mcps_client_meta_version(t->msgs[i].json) : NULL;
        if (!modern_request(&t->msgs[i]) || !v)
            continue;
        judged++;
        if (strcmp(v, MCPS_CLIENT_MODERN) != 0)
            return mcps_client_broke(
                g, "DISC-006", "supportedVersions listed only %s; a later request named \"%.40s\"",
                MCPS_CLIENT_MODERN, v);
    }
    if (!judged)
        return mcps_client_skip(g, "the client sent no request after server/discover");
    return mcps_client_pass(g,
                            "%zu requests after server/discover, each naming %s (the one listed)",
                            judged, MCPS_CLIENT_MODERN);
}

/* The request the refuse scenario answered -32022: the first 2026-07-28 one. */
static size_t refused_at(const mcps_client_trace *t)
{
    size_t i = 0;
    while (i < t->nmsgs &&
           !(modern_request(&t->msgs[i]) && (mcps_client_meta_version(t->msgs[i].json) ||
                                             is(&t->msgs[i], MCPS_RPC_REQUEST, "server/discover"))))
        i++;
    return i;
}

static int version_retry(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->refused)
        return mcps_client_skip(g, "the client sent no 2026-07-28 request to refuse");
    size_t r = refused_at(t);
    size_t i = r + 1;
    while (i < t->nmsgs && !is(&t->msgs[i], MCPS_RPC_REQUEST, NULL))
        i++;
    if (i >= t->nmsgs)
        return mcps_client_broke(
            g, "VER-003",
            "after -32022 with supported [\"%s\"], a version it speaks, the client sent "
            "no further request%s",
            MCPS_CLIENT_MODERN, t->exited ? " (it exited)" : "");
    if (is(&t->msgs[i], MCPS_RPC_REQUEST, "initialize"))
        return mcps_client_broke(
            g, "STDIO-009",
            "after -32022 (a modern server's answer), the client fell back to initialize");
    const char *v = mcps_client_meta_version(t->msgs[i].json);
    if (!v || strcmp(v, MCPS_CLIENT_MODERN) != 0)
        return mcps_client_broke(g, "VER-003",
                                 "after -32022 with supported [\"%s\"], the retry named \"%.40s\"",
                                 MCPS_CLIENT_MODERN, v ? v : "(no version)");
    if (r < t->nmsgs &&
        mcps_rpc_id_equal(member(t->msgs[r].json, "id"), member(t->msgs[i].json, "id")))
        return mcps_client_broke(g, "VER-003", "the retry reused the refused request's id");
    return mcps_client_pass(g, "after -32022, the client retried with %s and a new id",
                            MCPS_CLIENT_MODERN);
}

/* ---- what every message carries: _meta keys, declared features, tool calls ---- */

/* A _meta prefix label: a letter first, a letter or digit last, letters, digits and hyphens
 * inside (GEN-META-001). */
static bool meta_label_ok(const char *s, size_t n)
{
    if (!n || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        bool alnum =
            (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        if (!alnum && !(ch == '-' && i + 1 < n))
            return false;
    }
    return true;
}

/* A _meta name: empty, or alphanumerics at both ends and -, _, . inside (GEN-META-002). */
static bool meta_name_ok(const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        bool alnum =
            (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        if (!alnum && (i == 0 || i + 1 == n || !strchr("-_.", ch)))
            return false;
    }
    return true;
}

/* A _meta prefix split into labels: the first two and the last are all its rules look at. */
typedef struct meta_prefix {
    size_t n;
    bool mcp_before_last; /* a label mcp or modelcontextprotocol with another after it */
    char first[32], second[32], last[32];
} meta_prefix;

static bool mcp_label(const char *l)
{
    return strcmp(l, "modelcontextprotocol") == 0 || strcmp(l, "mcp") == 0;
}

/* The labels of prefix p (n bytes, without its '/'): false when one breaks the grammar. */
static bool meta_prefix_ok(const char *p, size_t n, meta_prefix *out)
{
    *out = (meta_prefix){0};
    for (size_t start = 0; start <= n;) {
        const char *dot = memchr(p + start, '.', n - start);
        size_t end = dot ? (size_t)(dot - p) : n;
        if (!meta_label_ok(p + start, end - start))
            return false;
        /* the label before this one is not the last: an mcp one there is reserved (2025-06-18) */
        out->mcp_before_last |= out->n && mcp_label(out->last);
        int len = (int)(end - start);
        if (out->n < 2)
            snprintf(out->n ? out->second : out->first, 32, "%.*s", len, p + start);
        snprintf(out->last, 32, "%.*s", len, p + start);
        out->n++;
        start = end + 1;
    }
    return true;
}

/* Whether a prefix is reserved for MCP (GEN-META-003): 2025-06-18 reserves a label mcp or
 * modelcontextprotocol followed by another label, 2025-11-25 on one in second place. */
static bool meta_reserved(mcps_rev rev, const meta_prefix *m)
{
    if (rev == MCPS_REV_2025_06_18)
        return m->mcp_before_last;
    return m->n >= 2 && mcp_label(m->second);
}

/* The keys the spec itself defines under io.modelcontextprotocol/ (any revision). */
static bool meta_defined(const char *key)
{
    static const char *const keys[] = {
        "io.modelcontextprotocol/related-task",
        "io.modelcontextprotocol/model-immediate-response",
        MCPS_CLIENT_META_VERSION,
        MCPS_CLIENT_META_CAPS,
        MCPS_CLIENT_META_INFO,
        "io.modelcontextprotocol/logLevel",
        "io.modelcontextprotocol/subscriptionId",
        "io.modelcontextprotocol/serverInfo",
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    return false;
}

/* A forward-DNS prefix (example.com rather than com.example, GEN-META-004): its last label
 * a common top-level domain and its first one not. */
static bool forward_dns(const meta_prefix *m)
{
    static const char *const tlds[] = {"com", "org", "net", "io", "dev", "ai", "app", "co"};
    bool first = false, last = false;
    for (size_t i = 0; m->n >= 2 && i < sizeof tlds / sizeof *tlds; i++) {
        first |= strcmp(m->first, tlds[i]) == 0;
        last |= strcmp(m->last, tlds[i]) == 0;
    }
    return last && !first;
}

/* W3C Trace Context's traceparent: version-traceid-parentid-flags in lowercase hex, neither
 * id all zeros (GEN-META-006). */
static bool traceparent_ok(const char *s)
{
    static const char shape[] = "xx-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-xxxxxxxxxxxxxxxx-xx";
    if (strlen(s) != sizeof shape - 1)
        return false;
    for (size_t i = 0; i < sizeof shape - 1; i++)
        if (shape[i] == 'x' ? !strchr("0123456789abcdef", s[i]) || !s[i] : s[i] != '-')
            return false;
    return strspn(s + 3, "0") < 32 && strspn(s + 36, "0") < 16;
}

/* Whether level is one of the eight RFC 5424 severities (LOG-002). */
static bool log_level_ok(const cJSON *level)
{
    static const char *const levels[] = {"emergency", "alert",  "critical", "error",
                                         "warning",   "notice", "info",     "debug"};
    for (size_t i = 0; cJSON_IsString(level) && i < sizeof levels / sizeof *levels; i++)
        if (strcmp(level->valuestring, levels[i]) == 0)
            return true;
    return false;
}

/* One _meta key (and its value) the client wrote; false once it graded a break. */
static bool meta_key_ok(const cJSON *item, mcps_client_grade *g)
{
    const char *key = item->string, *slash = strrchr(key, '/');
    const char *name = slash ? slash + 1 : key;
    meta_prefix pre = {0};
    if (slash && !meta_prefix_ok(key, (size_t)(slash - key), &pre))
        return mcps_client_broke(g, "GEN-META-001",
                                 "a _meta key whose prefix breaks the label rules: \"%.80s\"", key),
               false;
    if (!meta_name_ok(name))
        return mcps_client_broke(g, "GEN-META-002",
                                 "a _meta key whose name breaks the rules: \"%.80s\"", key),
               false;
    if (slash && meta_reserved(g->rev, &pre) && !meta_defined(key))
        return mcps_client_broke(
                   g, "GEN-META-003",
                   "a _meta key under a prefix reserved for MCP that the spec does not define: "
                   "\"%.80s\"",
                   key),
               false;
    if (slash && g->rev >= MCPS_REV_2025_11_25 && forward_dns(&pre))
        return mcps_client_broke(g, "GEN-META-004", "a _meta prefix in forward-DNS form: \"%.80s\"",
                                 key),
               false;
    if (strcmp(key, "io.modelcontextprotocol/logLevel") == 0 && !log_level_ok(item))
        return mcps_client_broke(g, "LOG-002",
                                 "_meta logLevel is not one of the eight RFC 5424 levels"),
               false;
    if (!slash && g->rev >= MCPS_REV_2026_07_28 && strcmp(key, "traceparent") == 0 &&
        !(cJSON_IsString(item) && traceparent_ok(item->valuestring)))
        return mcps_client_broke(g, "GEN-META-006", "a traceparent that is not W3C Trace Context"),
               false;
    return true;
}

/* Extension identifiers in a 2026-07-28 request's clientCapabilities (VER-009). */
static bool extensions_ok(const cJSON *meta, mcps_client_grade *g)
{
    const cJSON *ext = member(member(meta, MCPS_CLIENT_META_CAPS), "extensions"), *e;
    if (!ext || g->rev < MCPS_REV_2026_07_28)
        return true;
    if (!cJSON_IsObject(ext))
        return mcps_client_broke(g, "VER-009", "clientCapabilities.extensions is not an object"),
               false;
    cJSON_ArrayForEach(e, ext)
    {
        const char *slash = strrchr(e->string, '/');
        meta_prefix pre;
        if (!slash || !meta_prefix_ok(e->string, (size_t)(slash - e->string), &pre) ||
            !meta_name_ok(slash + 1) || !cJSON_IsObject(e))
            return mcps_client_broke(
                       g, "VER-009",
                       "an extension identifier without a valid prefix, or not an object: "
                       "\"%.80s\"",
                       e->string),
                   false;
    }
    return true;
}

/* Every _meta object inside message m (at any depth), judged key by key; counts the keys. */
static bool metas_ok(const cJSON *m, size_t *keys, mcps_client_grade *g)
{
    const cJSON *c, *k;
    cJSON_ArrayForEach(c, m)
    {
        if (c->string && strcmp(c->string, "_meta") == 0 && cJSON_IsObject(c)) {
            cJSON_ArrayForEach(k, c)
            {
                (*keys)++;
                if (!meta_key_ok(k, g))
                    return false;
            }
            if (!extensions_ok(c, g))
                return false;
        }
        if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && !metas_ok(c, keys, g))
            return false;
    }
    return true;
}

static int meta_keys(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (g->rev != MCPS_REV_NONE && g->rev < MCPS_REV_2025_06_18)
        return mcps_client_skip(
            g, "the _meta key rules came with 2025-06-18; the client asked for %s", t->asked);
    size_t keys = 0;
    for (size_t i = 0; i < t->nmsgs; i++) {
        if (t->msgs[i].json && !metas_ok(t->msgs[i].json, &keys, g))
            return 0;
        if (is(&t->msgs[i], MCPS_RPC_REQUEST, "logging/setLevel") &&
            !log_level_ok(member(member(t->msgs[i].json, "params"), "level")))
            return mcps_client_broke(g, "LOG-002",
                                     "logging/setLevel names a level that is not RFC 5424's");
    }
    if (!keys)
        return mcps_client_skip(g, "the client wrote no _meta key");
    return mcps_client_pass(
        g,
        "%zu _meta keys, each well formed, none under a prefix reserved for MCP "
        "but those the spec defines",
        keys);
}

/* Whether method belongs to a feature the scripted server did not declare (it declares
 * tools only, and no tasks): prompts, resources, completions, logging, tasks. */
static bool undeclared_feature(const char *method)
{
    static const char *const prefixes[] = {"prompts/", "resources/", "completion/", "logging/",
                                           "tasks/"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(method, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

/* The client's requests to a server that declared tools only (and no tasks): none for
 * another feature (CAP-GEN-001, CAP-GEN-002; resources/subscribe: RES-007), no task-augmented
 * tools/call (TASK-001, TASK-002, TASK-003). */
static int uses_declared(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->answered[0])
        return mcps_client_skip(
            g, "the client sent no initialize request: nothing was declared to it");
    size_t judged = 0;
    for (size_t i = first_after_answer(t); i < t->nmsgs; i++) {
        const char *method;
        char buf[200];
        if (!t->msgs[i].json || kind_of(t->msgs[i].json, &method) != MCPS_RPC_REQUEST)
            continue;
        judged++;
        if (t->tasks_offered &&
            (strncmp(method, "tasks/", 6) == 0 || strcmp(method, "tools/call") == 0))
            continue; /* declared in the tasks scenario: client_cases_tasks.c judges them */
        bool hard = g->rev >= MCPS_REV_2025_06_18;
        if (strncmp(method, "resources/", 10) == 0 && strstr(method, "subscribe"))
            return mcps_client_broke(
                g, hard ? "RES-007 CAP-GEN-002" : "RES-007 CAP-GEN-001",
                "%s, but the server declared no resources (let alone subscribe)", method);
        if (undeclared_feature(method))
            return mcps_client_broke(g, hard ? "CAP-GEN-002" : "CAP-GEN-001",
                                     "%s, but the server declared tools only: %s", method,
                                     text_of(&t->msgs[i], buf, sizeof buf));
        if (g->rev >= MCPS_REV_2025_11_25 && strcmp(method, "tools/call") == 0 &&
            member(member(t->msgs[i].json, "params"), "task"))
            return mcps_client_broke(
                g, "TASK-002 TASK-001 TASK-003",
                "tools/call with params.task, but the server declared no tasks and its "
                "tool no execution.taskSupport");
    }
    if (!judged)
        return mcps_client_skip(g, "the client sent no request after initialize");
    return mcps_client_pass(
        g, "%zu requests after initialize, each for a feature the server declared", judged);
}

/* Whether method exists in revision r, for the methods a client sends that came later. */
static bool method_in(const char *method, mcps_rev r)
{
    if (strcmp(method, "completion/complete") == 0)
        return r >= MCPS_REV_2025_03_26;
    if (strncmp(method, "tasks/", 6) == 0)
        return r >= MCPS_REV_2025_11_25;
    return true;
}

/* The negotiated revision respected: no request of a later revision's (LIFE-OP-001,
 * LIFE-OP-002), and no params.task before 2025-11-25. */
static int negotiated_only(const mcps_client_trace *t, mcps_client_grade *g)
{
    mcps_rev r = mcps_rev_parse(t->answered);
    if (!t->answered[0] || r == MCPS_REV_NONE || !mcps_rev_is_handshake(r))
        return mcps_client_skip(g, "no handshake-era revision was negotiated");
    /* the rule of the revision negotiated, at its level there */
    const char *req = r >= MCPS_REV_2025_06_18 ? "LIFE-OP-002" : "LIFE-OP-001";
    size_t judged = 0;
    g->rev = r;
    for (size_t i = first_after_answer(t); i < t->nmsgs; i++) {
        const char *method;
        if (!t->msgs[i].json || kind_of(t->msgs[i].json, &method) != MCPS_RPC_REQUEST)
            continue;
        judged++;
        if (!method_in(method, r))
            return mcps_client_broke(g, req,
                                     "%s negotiated, but the client sent %s (a later revision's)",
                                     t->answered, method);
        if (r < MCPS_REV_2025_11_25 && member(member(t->msgs[i].json, "params"), "task"))
            return mcps_client_broke(g, req,
                                     "%s negotiated, but %s carried params.task (2025-11-25's)",
                                     t->answered, method);
    }
    if (!judged)
        return mcps_client_skip(g, "the client sent no request after initialize");
    return mcps_client_pass(g, "%s negotiated: %zu requests, each of that revision", t->answered,
                            judged);
}

/* Every tools/call the client sends: a string name, arguments an object when present
 * (TOOL-005). */
static int tool_calls(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t calls = 0;
    for (size_t i = 0; i < t->nmsgs; i++) {
        if (!is(&t->msgs[i], MCPS_RPC_REQUEST, "tools/call"))
            continue;
        const cJSON *p = member(t->msgs[i].json, "params");
        const cJSON *name = member(p, "name"), *args = member(p, "arguments");
        calls++;
        if (!cJSON_IsString(name) || !name->valuestring[0])
            return mcps_client_broke(g, "TOOL-005", "tools/call without a string params.name");
        if (args && !cJSON_IsObject(args))
            return mcps_client_broke(g, "TOOL-005",
                                     "tools/call \"%.60s\" with arguments that are not an object",
                                     name->valuestring);
    }
    if (!calls)
        return mcps_client_skip(g, "the client called no tool");
    return mcps_client_pass(g, "%zu tools/call requests, each with a name and object arguments",
                            calls);
}

/* Whether the client's own version offer holds: asked a dated revision, and when answered
 * with exactly it, did not leave without a word (LIFE-VER-001). */
static int own_version(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->answered[0])
        return mcps_client_skip(g, "the client sent no initialize request");
    if (!dated(t->asked))
        return mcps_client_broke(
            g, "LIFE-VER-001", "protocolVersion \"%.40s\" is not a YYYY-MM-DD revision", t->asked);
    if (strcmp(t->asked, t->answered) != 0)
        return mcps_client_skip(
            g,
            "the scripted server does not speak %s (answered %s): whether the client "
            "speaks what it offered cannot be seen",
            t->asked, t->answered);
    size_t after = first_after_answer(t);
    bool went_on = after < t->nmsgs && t->msgs[after].conn == t->init_conn;
    if (!went_on && (t->closed || t->exited))
        return mcps_client_broke(
            g, "LIFE-VER-001",
            "offered %s and answered %s, the client %s without a further message: it "
            "does not speak what it offered",
            t->asked, t->answered, t->closed ? "disconnected" : "exited");
    if (!went_on)
        return mcps_client_skip(g, "answered %s, the client neither went on nor left", t->answered);
    return mcps_client_pass(g, "offered %s, answered %s: the client went on with it", t->asked,
                            t->answered);
}

/* 2026-07-28 has no ping (PING-004) and no tasks in its core (TASK-028). */
static int modern_methods(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t judged = 0;
    for (size_t i = 0; i < t->nmsgs; i++) {
        const mcps_client_msg *m = &t->msgs[i];
        const char *method;
        if (!modern_request(m))
            continue;
        kind_of(m->json, &method);
        judged++;
        if (strcmp(method, "ping") == 0)
            return mcps_client_broke(g, "PING-004",
                                     "a ping to a 2026-07-28 server (ping was removed)");
        if (strncmp(method, "tasks/", 6) == 0 || member(member(m->json, "params"), "task"))
            return mcps_client_broke(
                g, "TASK-028",
                "%s: tasks outside the tasks extension, which the server did not "
                "advertise",
                method);
    }
    if (!judged)
        return mcps_client_skip(g, "the client sent no request");
    return mcps_client_pass(g, "%zu requests, none a ping or a task", judged);
}

/* ---- 2026-07-28 multi round-trip requests (MRTR): an InputRequiredResult and the retry ---- */

/* params without the keys a retry adds or renews (_meta, inputResponses, requestState). */
static cJSON *retry_core(const cJSON *m)
{
    cJSON *p = cJSON_Duplicate(member(m, "params"), true);
    if (!p)
        p = cJSON_CreateObject();
    cJSON_DeleteItemFromObjectCaseSensitive(p, "_meta");
    cJSON_DeleteItemFromObjectCaseSensitive(p, "inputResponses");
    cJSON_DeleteItemFromObjectCaseSensitive(p, "requestState");
    return p;
}

/* Whether the retry's params repeat the original's (MRTR-014). */
static bool same_call(const cJSON *original, const cJSON *retry)
{
    cJSON *a = retry_core(original), *b = retry_core(retry);
    bool same = cJSON_Compare(a, b, true);
    cJSON_Delete(a);
    cJSON_Delete(b);
    return same;
}

/* Any request but the retry carrying inputResponses or requestState (MRTR-013); index or
 * nmsgs. */
static size_t leaked_input(const mcps_client_trace *t, size_t retry)
{
    for (size_t i = 0; i < t->nmsgs; i++) {
        const cJSON *p = member(t->msgs[i].json, "params");
        if (i != retry && is(&t->msgs[i], MCPS_RPC_REQUEST, NULL) &&
            (member(p, "inputResponses") || member(p, "requestState")))
            return i;
    }
    return t->nmsgs;
}

/* The elicitation answer in the retry: declared there (CAP-CLI-003), an ElicitResult
 * (ELIC-003). False once it graded a break. */
static bool elicit_input_ok(const cJSON *retry, mcps_client_grade *g)
{
    const cJSON *answer =
        member(member(member(retry, "params"), "inputResponses"), MCPS_CLIENT_INPUT_KEY);
    if (!answer)
        return mcps_client_broke(
                   g, "MRTR-010 MRTR-014 CAP-CLI-004 ELIC-006",
                   "the retry's inputResponses does not answer \"%s\" (a form elicitation of a "
                   "client declaring elicitation)",
                   MCPS_CLIENT_INPUT_KEY),
               false;
    if (!mcps_client_input_elicits(retry))
        return mcps_client_broke(
                   g, "CAP-CLI-003",
                   "the retry answers the elicitation but its clientCapabilities declare none"),
               false;
    if (!elicit_ok(answer))
        return mcps_client_broke(
                   g, "ELIC-003",
                   "the elicitation answer in inputResponses is not an ElicitResult (action "
                   "accept with content, decline or cancel)"),
               false;
    return true;
}

static int input_required_retry(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->input_asked)
        return mcps_client_skip(g, "the client called no tool: no InputRequiredResult to answer");
    size_t original = find_request(t, 0, "tools/call");
    size_t retry = find_request(t, original + 1, "tools/call");
    size_t leak = leaked_input(t, retry);
    bool elicits = mcps_client_input_elicits(t->msgs[original].json);
    if (leak < t->nmsgs)
        return mcps_client_broke(g, "MRTR-013",
                                 "a request other than the retry carried inputResponses or "
                                 "requestState");
    if (retry >= t->nmsgs)
        return mcps_client_skip(g, "the client did not retry the tools/call answered with an "
                                   "InputRequiredResult (it may give up)");
    const cJSON *o = t->msgs[original].json, *r = t->msgs[retry].json;
    const cJSON *state = member(member(r, "params"), "requestState");
    if (mcps_rpc_id_equal(member(o, "id"), member(r, "id")))
        return mcps_client_broke(g, "MRTR-012", "the retry reused the original request's id");
    if (!same_call(o, r))
        return mcps_client_broke(g, "MRTR-014",
                                 "the retry's name or arguments differ from the original's");
    if (!cJSON_IsString(state) || strcmp(state->valuestring, MCPS_CLIENT_REQUEST_STATE) != 0)
        return mcps_client_broke(g, "MRTR-011", "the retry's requestState is %s, not the one given",
                                 cJSON_IsString(state) ? "altered" : "missing");
    if (elicits && !elicit_input_ok(r, g))
        return 0;
    return mcps_client_pass(
        g,
        "the retry had a new id, the same call, the requestState byte for byte%s, and "
        "no other request carried them",
        elicits ? " and an ElicitResult for the elicitation asked" : "");
}

/* The revisions the checks grade: the handshake ones need initialize (not in 2026-07-28). */
#define HS              MCPS_REV_HANDSHAKE_ERA
#define HS_FROM_2025    (MCPS_REV_HANDSHAKE_ERA & ~MCPS_REV_BIT(MCPS_REV_2024_11_05))
#define HS_FROM_2025_06 (MCPS_REV_BIT(MCPS_REV_2025_06_18) | MCPS_REV_BIT(MCPS_REV_2025_11_25))
#define MODERN_REVS     MCPS_REV_BIT(MCPS_REV_2026_07_28)

static const mcps_client_check checks[] = {
    {"client/initialize-first", "The client opens every connection with initialize",
     "basic/lifecycle", "LIFE-INIT-001", MCPS_CSC_PLAIN, false, initialize_first, MCPS_CT_BOTH,
     false, HS},
    {"client/initialize-params", "initialize carries protocolVersion, capabilities, clientInfo",
     "basic/lifecycle", "LIFE-INIT-002", MCPS_CSC_PLAIN, false, initialize_params, MCPS_CT_BOTH,
     false, HS},
    {"client/initialized-notification",
     "notifications/initialized follows the initialize answer, before other requests",
     "basic/lifecycle", "LIFE-INIT-004", MCPS_CSC_PLAIN, false, initialized_sent, MCPS_CT_BOTH,
     false, HS},
    {"client/waits-for-initialize", "Nothing but ping before the initialize answer",
     "basic/lifecycle", "LIFE-INIT-005 LIFE-INIT-004", MCPS_CSC_SLOW_INIT, false, waits_for_answer,
     MCPS_CT_BOTH, false, HS},
    {"client/older-version", "Answered an older revision, the client goes on with it",
     "basic/lifecycle", "LIFE-VER-006", MCPS_CSC_OLDER, false, older_version, MCPS_CT_BOTH, false,
     HS_FROM_2025},
    {"client/unsupported-version", "Answered a revision it cannot speak, the client disconnects",
     "basic/lifecycle", "LIFE-VER-006 LIFE-VER-007", MCPS_CSC_UNSUPPORTED, false,
     unsupported_version, MCPS_CT_BOTH, false, HS},
    {"client/ping", "The server's ping is answered", "basic/utilities/ping", "PING-001",
     MCPS_CSC_PING, false, ping_answered, MCPS_CT_BOTH, false, HS},
    {"client/roots-list", "roots/list answered as the roots capability says", "client/roots",
     "ROOTS-001 ROOTS-002 CAP-CLI-001 CAP-GEN-003 ROOTS-004 RPC-RSP-004", MCPS_CSC_ROOTS, false,
     roots_answer, MCPS_CT_BOTH, false, HS},
    {"client/sampling", "sampling/createMessage answered as the sampling capability says",
     "client/sampling", "SAMP-002 CAP-CLI-002 CAP-GEN-003 RPC-RSP-004 SAMP-003", MCPS_CSC_SAMPLING,
     false, sampling_answer, MCPS_CT_BOTH, false, HS},
    {"client/elicitation", "elicitation/create answered as the elicitation capability says",
     "client/elicitation", "ELIC-003 CAP-CLI-003 CAP-GEN-003 RPC-RSP-004 ELIC-006 CAP-CLI-004",
     MCPS_CSC_ELICIT, false, elicit_answer, MCPS_CT_BOTH, false, HS_FROM_2025_06},
    {"client/request-ids", "Request ids are strings or integers, unique on a connection", "basic",
     "RPC-ID-001 RPC-ID-002 RPC-ID-003", MCPS_CSC_PLAIN, true, request_ids, MCPS_CT_BOTH, false,
     MCPS_REV_ALL},
    {"client/jsonrpc-lines", "Every line the client writes is a JSON-RPC 2.0 message",
     "basic/transports",
     "RPC-MSG-001 STDIO-003 HTTP-008 BATCH-005 BATCH-006 BATCH-003 RPC-NOT-001 STDIO-001 "
     "RPC-MSG-002",
     MCPS_CSC_PLAIN, true, jsonrpc_lines, MCPS_CT_BOTH, false, MCPS_REV_ALL},
    {"client/survives-unknown-id", "A response to no request of its is survived", "basic",
     "RPC-RSP-004", MCPS_CSC_JUNK_ID, false, survived, MCPS_CT_BOTH, false, HS},
    {"client/survives-invalid-json", "A line that is not JSON is survived", "basic", "RPC-RSP-004",
     MCPS_CSC_JUNK_JSON, false, survived, MCPS_CT_BOTH, false, HS},
    {"client/parse-error-answered", "A line that is not JSON gets a -32700 error response", "basic",
     "RPC-ERR-003", MCPS_CSC_JUNK_JSON, false, parse_error_answered, MCPS_CT_BOTH, false, HS},
    {"client/survives-null-id", "A response with a null id (as if to a notification) is survived",
     "basic", "RPC-RSP-004", MCPS_CSC_JUNK_NOTIF, false, survived, MCPS_CT_BOTH, false, HS},
    {"client/survives-duplicate-response",
     "A second response to a request already answered (initialize) is survived", "basic",
     "RPC-RSP-004", MCPS_CSC_JUNK_DUP, false, survived, MCPS_CT_BOTH, false, HS},
    {"client/survives-huge", "A huge message (a ping of 1 MiB) is answered", "basic", "RPC-RSP-004",
     MCPS_CSC_HUGE, false, huge_answered, MCPS_CT_BOTH, false, HS},
    {"client/cancellations",
     "The client cancels only its own requests, never initialize, always naming the request",
     "basic/utilities/cancellation", "CANC-001 CANC-002 CANC-009", MCPS_CSC_SLOW_INIT, true,
     cancellations, MCPS_CT_BOTH, false, MCPS_REV_ALL},
    {"client/progress-tokens", "Progress tokens on the client's requests are strings or integers",
     "basic/utilities/progress", "PROG-001", MCPS_CSC_PLAIN, true, progress_tokens, MCPS_CT_BOTH,
     false, MCPS_REV_ALL},
    {"client/unknown-method",
     "A request with a non-string method gets an error; an unknown method gets -32601", "basic",
     "RPC-ERR-004 RPC-ERR-005 RPC-RSP-004", MCPS_CSC_UNKNOWN, false, unknown_method, MCPS_CT_BOTH,
     false, HS},
    {"client/responses",
     "The client's responses: result or error, an object result, a well-formed error, the "
     "request's id",
     "basic", "RPC-RSP-002 RPC-RSP-003 RPC-ERR-001 RPC-ERR-002 RPC-RSP-001", MCPS_CSC_PING, true,
     responses, MCPS_CT_BOTH, false, MCPS_REV_ALL},
    {"client/cursor-unchanged",
     "A nextCursor is sent back unchanged, an empty page is not the end, and paging stops at "
     "the last page",
     "basic/utilities/pagination", "PAGE-004 PAGE-007 PAGE-003", MCPS_CSC_PAGED, false,
     cursor_unchanged, MCPS_CT_BOTH, false, HS},
    {"client/cancel-survived",
     "The server cancelling its own request is survived; no cancellation is answered",
     "basic/utilities/cancellation", "CANC-006 CANC-007 RPC-NOT-002", MCPS_CSC_CANCEL, false,
     cancel_survived, MCPS_CT_BOTH, false, HS},
    {"client/progress",
     "Progress for the server's request names its token, increases, and ends with the answer",
     "basic/utilities/progress", "PROG-006 PROG-004 PROG-007 PROG-009", MCPS_CSC_PROGRESS, false,
     progress_for_request, MCPS_CT_BOTH, false, HS},
    {"client/batch", "A batch of the server's requests is answered (2025-03-26)", "basic",
     "BATCH-001", MCPS_CSC_BATCH, false, batch_answered, MCPS_CT_BOTH, false,
     MCPS_REV_BIT(MCPS_REV_2025_03_26)},
    {"client/batch-edges",
     "An empty batch gets one Invalid Request error object, an all-notification batch no reply "
     "(2025-03-26)",
     "basic", "BATCH-004", MCPS_CSC_BATCH, false, batch_edges, MCPS_CT_BOTH, false,
     MCPS_REV_BIT(MCPS_REV_2025_03_26)},
    {"client/meta-keys",
     "Every _meta key the client writes is well formed, and none is under a reserved prefix "
     "the spec does not define",
     "basic", "GEN-META-001 GEN-META-002 GEN-META-003 GEN-META-004 GEN-META-006 VER-009 LOG-002",
     MCPS_CSC_PLAIN, true, meta_keys, MCPS_CT_BOTH, false, HS_FROM_2025_06 | MODERN_REVS},
    {"client/uses-declared",
     "The client asks only for features the server declared (tools), and creates no task",
     "basic/lifecycle", "CAP-GEN-001 CAP-GEN-002 RES-007 TASK-001 TASK-002 TASK-003",
     MCPS_CSC_PLAIN, true, uses_declared, MCPS_CT_BOTH, false, HS},
    {"client/negotiated-only", "Answered an older revision, the client sends nothing newer",
     "basic/lifecycle", "LIFE-OP-001 LIFE-OP-002", MCPS_CSC_OLDER, true, negotiated_only,
     MCPS_CT_BOTH, false, HS},
    {"client/tool-calls", "Every tools/call carries a string name and object arguments",
     "server/tools", "TOOL-005", MCPS_CSC_PLAIN, true, tool_calls, MCPS_CT_BOTH, false,
     MCPS_REV_ALL},
    {"client/own-version", "The client speaks the revision it offers", "basic/lifecycle",
     "LIFE-VER-001", MCPS_CSC_PLAIN, false, own_version, MCPS_CT_BOTH, false, HS},
    {"client/shutdown", "The client shuts its server down by closing its stdin", "basic/lifecycle",
     "LIFE-SHUT-001", MCPS_CSC_PLAIN, false, shutdown_by_close, MCPS_CT_STDIO, false, MCPS_REV_ALL},
    {"client/http-session-id", "Mcp-Session-Id is sent on every request after initialize",
     "basic/transports", "HTTP-036", MCPS_CSC_PLAIN, true, http_session_id, MCPS_CT_HTTP, false,
     HS},
    {"client/http-protocol-version",
     "MCP-Protocol-Version, the negotiated one, is sent on every request after initialize",
     "basic/transports", "HTTP-042 HTTP-043", MCPS_CSC_PLAIN, true, http_protocol_version,
     MCPS_CT_HTTP, false, HS_FROM_2025_06},
    {"client/http-accept", "Every POST accepts both application/json and text/event-stream",
     "basic/transports", "HTTP-006 HTTP-023", MCPS_CSC_PLAIN, true, http_accept, MCPS_CT_HTTP,
     false, MCPS_REV_ALL},
    {"client/http-session-404", "A 404 for the session is answered with a new initialize",
     "basic/transports", "HTTP-039", MCPS_CSC_SESSION_404, false, http_session_404, MCPS_CT_HTTP,
     false, HS},
    {"client/http-delete", "The client ends its session with DELETE", "basic/transports",
     "HTTP-040", MCPS_CSC_PLAIN, false, http_delete, MCPS_CT_HTTP, false, HS},
    {"client/discover-first", "The first line to a stdio server is server/discover",
     "basic/lifecycle", "STDIO-011", MCPS_CSC_MODERN, false, discover_first, MCPS_CT_STDIO, true,
     MODERN_REVS},
    {"client/no-initialize-after-discover",
     "After a DiscoverResult, no initialize and no second "
     "probe",
     "basic/lifecycle", "VER-001 STDIO-009 VER-005", MCPS_CSC_MODERN, false, no_initialize,
     MCPS_CT_BOTH, true, MODERN_REVS},
    {"client/meta-protocol-version",
     "Every request carries _meta protocolVersion and clientCapabilities", "basic",
     "VER-001 STATE-001", MCPS_CSC_MODERN, false, meta_version, MCPS_CT_BOTH, true, MODERN_REVS},
    {"client/meta-client-info", "Every request carries _meta clientInfo", "basic", "STATE-003",
     MCPS_CSC_MODERN, false, meta_client_info, MCPS_CT_BOTH, true, MODERN_REVS},
    {"client/discover-version", "Requests name a version server/discover listed", "basic/lifecycle",
     "DISC-006", MCPS_CSC_MODERN, false, discover_version, MCPS_CT_BOTH, true, MODERN_REVS},
    {"client/no-responses", "To a 2026-07-28 stdio server, the client writes no responses",
     "basic/transports", "STDIO-007 RPC-DIR-001", MCPS_CSC_MODERN, false, no_responses,
     MCPS_CT_STDIO, true, MODERN_REVS},
    {"client/modern-methods", "To a 2026-07-28 server, no ping and no task", "basic/lifecycle",
     "PING-004 TASK-028", MCPS_CSC_MODERN, false, modern_methods, MCPS_CT_STDIO, true, MODERN_REVS},
    {"client/input-required",
     "An InputRequiredResult is retried with a new id, the same call, the requestState given and "
     "the inputs asked",
     "basic/patterns/mrtr",
     "MRTR-010 MRTR-011 MRTR-012 MRTR-013 MRTR-014 ELIC-003 ELIC-006 "
     "CAP-CLI-003 CAP-CLI-004",
     MCPS_CSC_MODERN_INPUT, false, input_required_retry, MCPS_CT_STDIO, true, MODERN_REVS},
    {"client/version-retry", "After -32022, the client retries with a supported version",
     "basic/lifecycle", "VER-003 STDIO-009", MCPS_CSC_MODERN_REFUSE, false, version_retry,
     MCPS_CT_BOTH, true, MODERN_REVS},
};

static const mcps_client_check *own_check_at(size_t i)
{
    return i < sizeof checks / sizeof *checks ? &checks[i] : NULL;
}

const mcps_client_check *mcps_client_check_at(size_t i)
{
    static const mcps_client_check *(*const tables[])(size_t) = {own_check_at,
                                                                 mcps_client_http_check_at,
                                                                 mcps_client_http2_check_at,
                                                                 mcps_client_modern_check_at,
                                                                 mcps_client_tasks_check_at,
                                                                 mcps_client_oddities_check_at,
                                                                 mcps_client_modern_client_check_at,
                                                                 mcps_client_modern_serve_check_at,
                                                                 mcps_client_sse_check_at,
                                                                 mcps_client_sampling_check_at,
                                                                 mcps_client_http3_check_at};
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++) {
        size_t n = 0;
        while (tables[t](n))
            n++;
        if (i < n)
            return tables[t](i);
        i -= n;
    }
    return NULL;
}
