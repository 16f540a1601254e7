/*
 * client_cases_modern_client.c - 2026-07-28 client checks about what a
 * client declares and answers: the deprecated roots and sampling capabilities
 * (VER-011, an observer: INFO, since an existing implementation may keep them
 * through the deprecation window), their MRTR input requests in scenario
 * modern-deprecated (roots/list and sampling/createMessage in inputRequests,
 * asked only of a client declaring them, answered in the retry's
 * inputResponses; a sampling request carrying tools, which a client without
 * sampling.tools must not fulfil: SAMP-009, conflict 25 of the catalog, and
 * one with it answers with well-formed tool_use blocks: SAMP-014), an
 * unknown io.modelcontextprotocol/ _meta key on a DiscoverResult
 * (GEN-META-005), the id of every error response the client writes
 * (RPC-ERR-008, an observer from 2025-11-25; on 2026-07-28 a client writes no
 * responses, so it judges only one that breaks STDIO-007 as well), and
 * accepted elicitation content against the requestedSchema sent (ELIC-018, an
 * observer from 2025-06-18, MRTR's inputResponses included).
 *
 * A table of its own, after client_cases_oddities.c's (mcps_client_check_at),
 * so that it grows apart from the others; verdicts go through client_grade.c.
 */
#include "engine/client_cases.h"

#include <stdio.h>
#include <string.h>

#include "codec/rev.h"
#include "codec/rpc.h"

static const cJSON *member(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

/* ---- VER-011: roots and sampling are deprecated in 2026-07-28 ---- */

static int deprecated_caps(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nmsgs; i++) {
        if (!mcps_client_request_is(t, i, NULL) || !mcps_client_meta_version(t->msgs[i].json))
            continue;
        n++;
        bool roots = mcps_client_declared_cap(t->msgs[i].json, "roots") != NULL;
        bool sampling = mcps_client_declared_cap(t->msgs[i].json, "sampling") != NULL;
        if (roots || sampling)
            return mcps_client_info(
                g,
                "the client declares %s in clientCapabilities, deprecated in 2026-07-28: an "
                "existing implementation may keep %s through the deprecation window, a new "
                "one SHOULD NOT adopt %s (VER-011)",
                roots && sampling ? "roots and sampling"
                : roots           ? "roots"
                                  : "sampling",
                roots && sampling ? "them" : "it", roots && sampling ? "them" : "it");
    }
    if (!n)
        return mcps_client_skip(g, "the client sent no 2026-07-28 request");
    return mcps_client_pass(
        g, "%zu 2026-07-28 requests, none declaring the deprecated roots or sampling", n);
}

/* ---- modern-deprecated: an unknown reserved _meta key on the DiscoverResult ---- */

static int unknown_meta(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!t->discovered)
        return mcps_client_skip(g, "the client did not ask server/discover: it never saw the key");
    size_t d = mcps_client_find_request(t, 0, "server/discover");
    for (size_t j = d + 1; j < t->nmsgs; j++) {
        if (mcps_client_request_is(t, j, "server/discover") ||
            mcps_client_request_is(t, j, "initialize"))
            return mcps_client_broke(
                g, "GEN-META-005",
                "after a DiscoverResult whose _meta held %s (a key no revision defines), the "
                "client sent %s again, as if the key meant something",
                MCPS_CLIENT_ODD_META,
                mcps_client_request_is(t, j, "initialize") ? "initialize" : "server/discover");
        if (mcps_client_request_is(t, j, NULL))
            return mcps_client_pass(
                g, "a DiscoverResult whose _meta held %s was used as usual: the client went on",
                MCPS_CLIENT_ODD_META);
    }
    return mcps_client_broke(
        g, "GEN-META-005",
        "after a DiscoverResult whose _meta held %s (a key no revision defines), the client "
        "sent no request%s",
        MCPS_CLIENT_ODD_META, t->exited ? " (it exited)" : "");
}

/* ---- modern-deprecated: roots/list and sampling/createMessage as MRTR inputRequests ---- */

/* The first tools/call (the one answered with an InputRequiredResult) and its retry, with g set
 * to SKIP when there is none to judge for capability cap; false then. */
static bool call_and_retry(const mcps_client_trace *t, const char *cap, size_t *call, size_t *retry,
                           mcps_client_grade *g)
{
    *call = mcps_client_find_request(t, 0, "tools/call");
    if (*call >= t->nmsgs)
        return mcps_client_skip(g, "the client called no tool"), false;
    if (!cJSON_IsObject(mcps_client_declared_cap(t->msgs[*call].json, cap)))
        return mcps_client_skip(g,
                                "the client's tools/call declares no %s (deprecated in "
                                "2026-07-28): none was asked of it (MRTR-005)",
                                cap),
               false;
    if (!t->input_asked)
        return mcps_client_skip(g, "no InputRequiredResult was sent"), false;
    *retry = mcps_client_find_request(t, *call + 1, "tools/call");
    if (*retry >= t->nmsgs)
        return mcps_client_skip(g, "the client did not retry the tools/call answered with an "
                                   "InputRequiredResult (it may give up)"),
               false;
    return true;
}

/* The retry's answer under key; NULL (g set to SKIP) when it gives none. */
static const cJSON *input_answer(const mcps_client_trace *t, size_t retry, const char *key,
                                 const char *what, mcps_client_grade *g)
{
    const cJSON *a = member(member(member(t->msgs[retry].json, "params"), "inputResponses"), key);
    if (!a)
        mcps_client_skip(g,
                         "the retry's inputResponses does not answer the %s inputRequest "
                         "(client/input-required judges what a retry must hold)",
                         what);
    return a;
}

/* The retry's answer to the cap inputRequest (under key, for method), cap declared on the retry
 * itself (cap_req); NULL with g's verdict given (SKIP, or cap_req broken) otherwise. */
static const cJSON *declared_answer(const mcps_client_trace *t, const char *cap, const char *key,
                                    const char *method, const char *cap_req, mcps_client_grade *g)
{
    size_t call, retry;
    if (!call_and_retry(t, cap, &call, &retry, g))
        return NULL;
    const cJSON *a = input_answer(t, retry, key, method, g);
    if (a && !cJSON_IsObject(mcps_client_declared_cap(t->msgs[retry].json, cap))) {
        mcps_client_broke(g, cap_req,
                          "the retry answers %s, but its own clientCapabilities declare no %s",
                          method, cap);
        return NULL;
    }
    return a;
}

static int input_roots(const mcps_client_trace *t, mcps_client_grade *g)
{
    const cJSON *a =
        declared_answer(t, "roots", MCPS_CLIENT_ROOTS_KEY, "roots/list", "CAP-CLI-001", g);
    if (!a)
        return 0;
    const char *broken = mcps_client_roots_broken(a);
    if (broken)
        return mcps_client_broke(g, broken, "the roots/list answer in inputResponses %s",
                                 strcmp(broken, "ROOTS-002") == 0
                                     ? "lists a root whose uri is not a file:// URI"
                                     : "is no roots array of roots with a string uri (and a "
                                       "string name, if any)");
    return mcps_client_pass(g,
                            "roots declared on the retry; its roots/list answer lists %d "
                            "file:// root(s)",
                            cJSON_GetArraySize(member(a, "roots")));
}

static int input_sampling(const mcps_client_trace *t, mcps_client_grade *g)
{
    const cJSON *a = declared_answer(t, "sampling", MCPS_CLIENT_SAMPLING_KEY,
                                     "sampling/createMessage", "CAP-CLI-002", g);
    if (!a)
        return 0;
    const cJSON *content = member(a, "content"), *block;
    if (!mcps_client_sampling_ok(a))
        return mcps_client_broke(g, "SAMP-002",
                                 "the sampling answer in inputResponses lacks a string role, a "
                                 "string model or content");
    for (block = cJSON_IsArray(content) ? content->child : content; block;
         block = cJSON_IsArray(content) ? block->next : NULL) {
        const cJSON *type = member(block, "type");
        if (!cJSON_IsString(type) ||
            !mcps_client_sampling_type_in(type->valuestring, MCPS_REV_2026_07_28))
            return mcps_client_broke(g, "SAMP-003",
                                     "a content block of the sampling answer has a type that is "
                                     "not one of 2026-07-28's");
    }
    return mcps_client_pass(g, "sampling declared on the retry; its sampling/createMessage "
                               "answer is a well-formed CreateMessageResult");
}

/* A client declaring sampling.tools: the answer to the request carrying tools, its tool_use
 * and tool_result blocks well formed (SAMP-014). */
static int sampling_tool_blocks(const cJSON *a, mcps_client_grade *g)
{
    size_t n = 0;
    if (!a)
        return mcps_client_skip(g, "the client declares sampling.tools but its retry does not "
                                   "answer the sampling request carrying tools");
    if (!mcps_client_tool_blocks_ok(a, &n))
        return mcps_client_broke(g, "SAMP-014",
                                 "a tool_use block without a string id, a string name and "
                                 "an object input (or a tool_result without toolUseId and "
                                 "a content array)");
    if (!n)
        return mcps_client_skip(g, "the answer to the sampling request carrying tools used no "
                                   "tool (it need not): no tool_use block to judge");
    return mcps_client_pass(g, "%zu tool_use/tool_result block(s), each well formed", n);
}

static int input_sampling_tools(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t call, retry;
    if (!call_and_retry(t, "sampling", &call, &retry, g))
        return 0;
    const cJSON *sampling = mcps_client_declared_cap(t->msgs[call].json, "sampling");
    const cJSON *a = member(member(member(t->msgs[retry].json, "params"), "inputResponses"),
                            MCPS_CLIENT_TOOLS_KEY);
    if (member(sampling, "tools"))
        return sampling_tool_blocks(a, g);
    if (a)
        return mcps_client_broke(g, "SAMP-009",
                                 "a sampling/createMessage inputRequest carrying tools, to a "
                                 "client declaring sampling without sampling.tools, was "
                                 "answered in the retry's inputResponses (it must be refused; "
                                 "2026-07-28 has no error slot there, so by leaving it out)");
    return mcps_client_pass(g, "the sampling inputRequest carrying tools (no sampling.tools "
                               "declared) was left unanswered in the retry");
}

/* ---- RPC-ERR-008: an error response echoes the id of the request it answers ---- */

/* Whether the scripted server sent the client, in scenario sc, something with no id it could
 * echo: a line that is not JSON, a notification, a response. */
static bool sent_idless(mcps_client_scenario sc)
{
    return sc == MCPS_CSC_JUNK_JSON || sc == MCPS_CSC_JUNK_ID || sc == MCPS_CSC_JUNK_NOTIF ||
           sc == MCPS_CSC_JUNK_DUP || sc == MCPS_CSC_CANCEL || sc == MCPS_CSC_ODDITIES;
}

static int error_ids(const mcps_client_trace *t, mcps_client_grade *g)
{
    mcps_rev r = mcps_rev_parse(t->answered[0] ? t->answered : t->modern);
    if (r == MCPS_REV_NONE || r < MCPS_REV_2025_11_25)
        return mcps_client_skip(g, "neither 2025-11-25 nor 2026-07-28 was spoken (the rule "
                                   "came with 2025-11-25)");
    size_t n = 0;
    for (size_t i = 0; i < t->nmsgs; i++) {
        const cJSON *m = t->msgs[i].json, *id = member(m, "id");
        if (!cJSON_IsObject(m) || member(m, "method") || !member(m, "error"))
            continue;
        n++;
        char text[64];
        mcps_rpc_id_text(id, text, sizeof text);
        if ((!id || cJSON_IsNull(id)) && !sent_idless(t->scenario))
            return mcps_client_broke(g, "RPC-ERR-008",
                                     "an error response %s id, though every message the "
                                     "scripted server sent in scenario %s had a readable id",
                                     id ? "with a null" : "without an",
                                     mcps_client_scenario_name(t->scenario));
        if (id && !cJSON_IsNull(id) &&
            !(cJSON_IsString(id) && strncmp(id->valuestring, "mcpspec-", 8) == 0))
            return mcps_client_broke(g, "RPC-ERR-008",
                                     "an error response with id %s, which is no request's of "
                                     "the scripted server (all strings)",
                                     text);
    }
    if (!n)
        return mcps_client_skip(g, "the client sent no error response");
    return mcps_client_pass(g,
                            "%zu error responses, each echoing the id of the request it "
                            "answers (or none, for what had no id to read)",
                            n);
}

/* ---- ELIC-018: accepted content validates against the requestedSchema sent ---- */

/* The scripted server's requestedSchema is {"name": {"type": "string"}}: content is an object of
 * primitive values (or arrays of strings, 2025-11-25's multi-select) with name a string. */
static bool elicit_content_ok(const cJSON *content)
{
    const cJSON *v, *e;
    if (!cJSON_IsObject(content))
        return false;
    cJSON_ArrayForEach(v, content)
    {
        bool primitive = cJSON_IsString(v) || cJSON_IsNumber(v) || cJSON_IsBool(v);
        if (cJSON_IsArray(v)) {
            primitive = true;
            cJSON_ArrayForEach(e, v) primitive = primitive && cJSON_IsString(e);
        }
        if (!primitive || (strcmp(v->string, "name") == 0 && !cJSON_IsString(v)))
            return false;
    }
    return true;
}

/* The ElicitResults of trace t that accept: the answer to the scripted elicitation/create, or
 * the one in a 2026-07-28 retry's inputResponses. *n counts them; false once one breaks. */
static bool accepted_ok(const mcps_client_trace *t, size_t *n)
{
    const cJSON *answers[2] = {NULL, NULL};
    if (t->inject_method && strncmp(t->inject_method, "elicitation/create", 18) == 0)
        answers[0] = member(t->inject_answer, "result");
    for (size_t i = 0; i < t->nmsgs && !answers[1]; i++)
        if (mcps_client_request_is(t, i, NULL))
            answers[1] = member(member(member(t->msgs[i].json, "params"), "inputResponses"),
                                MCPS_CLIENT_INPUT_KEY);
    for (size_t k = 0; k < 2; k++) {
        const cJSON *action = member(answers[k], "action");
        if (!cJSON_IsString(action) || strcmp(action->valuestring, "accept") != 0)
            continue;
        ++*n;
        if (!elicit_content_ok(member(answers[k], "content")))
            return false;
    }
    return true;
}

static int elicit_content(const mcps_client_trace *t, mcps_client_grade *g)
{
    mcps_rev r = mcps_rev_parse(t->answered[0] ? t->answered : t->modern);
    if (r == MCPS_REV_NONE || r < MCPS_REV_2025_06_18)
        return mcps_client_skip(g, "elicitation came with 2025-06-18, which was not spoken");
    size_t n = 0;
    if (!accepted_ok(t, &n))
        return mcps_client_broke(g, "ELIC-018",
                                 "an elicitation was accepted with content that does not "
                                 "validate against the requestedSchema sent (name: a string)");
    if (!n)
        return mcps_client_skip(g, "the client accepted no elicitation (it declined, cancelled "
                                   "or was not asked): no content to validate");
    return mcps_client_pass(g, "accepted content validates against the requestedSchema sent");
}

#define MODERN    MCPS_REV_BIT(MCPS_REV_2026_07_28)
#define FROM_1125 (MCPS_REV_BIT(MCPS_REV_2025_11_25) | MODERN)

#define FROM_0618 (MCPS_REV_BIT(MCPS_REV_2025_06_18) | MCPS_REV_BIT(MCPS_REV_2025_11_25) | MODERN)

static const mcps_client_check modern_client_checks[] = {
    {"client/deprecated-capabilities",
     "2026-07-28: the deprecated roots and sampling are not declared (INFO when they are)",
     "basic/versioning", "VER-011", MCPS_CSC_MODERN, true, deprecated_caps, MCPS_CT_BOTH, true,
     MODERN},
    {"client/modern-unknown-meta",
     "2026-07-28: a DiscoverResult carrying an unknown io.modelcontextprotocol/ _meta key is "
     "used as usual",
     "basic/index", "GEN-META-005", MCPS_CSC_MODERN_DEPRECATED, false, unknown_meta, MCPS_CT_STDIO,
     true, MODERN},
    {"client/input-roots",
     "2026-07-28: a roots/list inputRequest is answered in inputResponses with file:// roots, "
     "roots declared",
     "client/roots", "CAP-CLI-001 ROOTS-001 ROOTS-002", MCPS_CSC_MODERN_DEPRECATED, false,
     input_roots, MCPS_CT_STDIO, true, MODERN},
    {"client/input-sampling",
     "2026-07-28: a sampling/createMessage inputRequest is answered in inputResponses with a "
     "CreateMessageResult, sampling declared",
     "client/sampling", "CAP-CLI-002 SAMP-002 SAMP-003", MCPS_CSC_MODERN_DEPRECATED, false,
     input_sampling, MCPS_CT_STDIO, true, MODERN},
    {"client/input-sampling-tools",
     "2026-07-28: a sampling inputRequest carrying tools is not fulfilled without sampling.tools, "
     "and answered with well-formed tool_use blocks with it",
     "client/sampling", "SAMP-009 SAMP-014", MCPS_CSC_MODERN_DEPRECATED, false,
     input_sampling_tools, MCPS_CT_STDIO, true, MODERN},
    {"client/error-ids",
     "An error response carries the id of the request it answers (none only for what had none)",
     "basic", "RPC-ERR-008", MCPS_CSC_UNKNOWN, true, error_ids, MCPS_CT_BOTH, false, FROM_1125},
    {"client/elicit-content",
     "Accepted elicitation content validates against the requestedSchema sent",
     "client/elicitation", "ELIC-018", MCPS_CSC_ELICIT, true, elicit_content, MCPS_CT_BOTH, false,
     FROM_0618},
};

const mcps_client_check *mcps_client_modern_client_check_at(size_t i)
{
    return i < sizeof modern_client_checks / sizeof *modern_client_checks ? &modern_client_checks[i]
                                                                          : NULL;
}
