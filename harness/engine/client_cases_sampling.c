/*
 * client_cases_sampling.c - the client checks of the sampling scenario's
 * further requests (client_play_sampling.c), asked of a client declaring
 * sampling once it has answered the first sampling/createMessage (which
 * client/sampling judges): one without messages, refused with -32602
 * (RPC-ERR-006, a SHOULD: WARN); on 2025-11-25 one carrying tools, refused
 * by a client without sampling.tools (SAMP-009) and answered with well-formed
 * tool_use blocks by one with it (SAMP-014); and to one with it, a user
 * message mixing text and a tool_result, refused with -32602 (SAMP-012).
 * client/input-sampling-tools judges SAMP-009 and SAMP-014 on 2026-07-28.
 *
 * A table of its own, the last (mcps_client_check_at); verdicts go through
 * client_grade.c.
 */
#include "engine/client_cases.h"

#include <stdio.h>
#include <string.h>

#include "codec/rev.h"

static const cJSON *member(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

/* A tool_use block's id, name and input object; a tool_result block's toolUseId and content
 * array (SAMP-014). Other blocks are not this rule's. */
static bool tool_block_ok(const cJSON *b)
{
    const cJSON *type = member(b, "type");
    if (cJSON_IsString(type) && strcmp(type->valuestring, "tool_use") == 0)
        return cJSON_IsString(member(b, "id")) && cJSON_IsString(member(b, "name")) &&
               cJSON_IsObject(member(b, "input"));
    if (cJSON_IsString(type) && strcmp(type->valuestring, "tool_result") == 0)
        return cJSON_IsString(member(b, "toolUseId")) && cJSON_IsArray(member(b, "content"));
    return true;
}

static bool tool_block(const cJSON *b)
{
    const cJSON *type = member(b, "type");
    return cJSON_IsString(type) && (strcmp(type->valuestring, "tool_use") == 0 ||
                                    strcmp(type->valuestring, "tool_result") == 0);
}

bool mcps_client_tool_blocks_ok(const cJSON *result, size_t *n)
{
    const cJSON *content = member(result, "content"), *block;
    for (block = cJSON_IsArray(content) ? content->child : content; block;
         block = cJSON_IsArray(content) ? block->next : NULL) {
        if (!tool_block_ok(block))
            return false;
        *n += tool_block(block);
    }
    return true;
}

/* The answer to step k; NULL with g set to SKIP when the step was not asked (why), or with
 * ids broken when it went unanswered (RPC-RSP-004: every request gets a response). */
static const cJSON *step_answer(const mcps_client_trace *t, mcps_client_sampling_step k,
                                const char *ids, mcps_client_grade *g)
{
    const cJSON *sampling = member(member(t->init_params, "capabilities"), "sampling");
    mcps_rev r = mcps_rev_parse(t->answered);
    if (!t->answered[0])
        return mcps_client_skip(g, "the client sent no initialize request"), NULL;
    if (k != MCPS_CSS_NO_MESSAGES && r != MCPS_REV_2025_11_25)
        return mcps_client_skip(g, "tools in sampling came with 2025-11-25; %s was negotiated",
                                t->answered),
               NULL;
    if (!cJSON_IsObject(sampling))
        return mcps_client_skip(g, "the client declares no sampling (client/sampling judges its "
                                   "refusal)"),
               NULL;
    if (k == MCPS_CSS_MIXED && !cJSON_IsObject(member(sampling, "tools")))
        return mcps_client_skip(g, "the client declares no sampling.tools: no tool loop is sent "
                                   "to it (SAMP-008)"),
               NULL;
    if (!t->waited || !t->injected || !t->inject_answer)
        return mcps_client_skip(g, "the client %s: no moment for the further sampling requests",
                                !t->waited || !t->injected
                                    ? "sent no request after initialize, so it never waited"
                                    : "did not answer the first sampling request"),
               NULL;
    if (!t->sampling_sent[k])
        return mcps_client_skip(g, "the request was not sent (the client's held request was "
                                   "answered when an earlier one went unanswered)"),
               NULL;
    const cJSON *a = t->sampling_steps[k];
    if (!a)
        mcps_client_broke(g, ids, "the request went unanswered%s",
                          t->exited ? " (the client exited)" : "");
    return a;
}

/* A -32602 due (RPC-ERR-006, SAMP-012): PASS, or the id broken with what came instead. */
static int invalid_params(const cJSON *a, const char *id, const char *what, mcps_client_grade *g)
{
    const cJSON *code = member(member(a, "error"), "code");
    if (cJSON_IsNumber(code) && code->valuedouble == -32602)
        return mcps_client_pass(g, "%s was refused with -32602", what);
    if (cJSON_IsNumber(code))
        return mcps_client_broke(g, id, "%s was refused with code %g, not -32602 (Invalid params)",
                                 what, code->valuedouble);
    return mcps_client_broke(g, id, "%s was answered with %s, not a -32602 error", what,
                             member(a, "result") ? "a result" : "no result or error");
}

static int no_messages(const mcps_client_trace *t, mcps_client_grade *g)
{
    const cJSON *a = step_answer(t, MCPS_CSS_NO_MESSAGES, "RPC-RSP-004", g);
    if (!a)
        return 0;
    return invalid_params(a, "RPC-ERR-006", "a sampling/createMessage without messages", g);
}

static int tools(const mcps_client_trace *t, mcps_client_grade *g)
{
    const cJSON *sampling = member(member(t->init_params, "capabilities"), "sampling");
    bool declared = cJSON_IsObject(member(sampling, "tools"));
    const cJSON *a =
        step_answer(t, MCPS_CSS_TOOLS, declared ? "RPC-RSP-004" : "SAMP-009 RPC-RSP-004", g);
    size_t n = 0;
    if (!a)
        return 0;
    if (!declared && member(a, "result"))
        return mcps_client_broke(g, "SAMP-009",
                                 "a sampling/createMessage carrying tools, to a client declaring "
                                 "sampling without sampling.tools, was answered with a result");
    if (!declared && member(a, "error"))
        return mcps_client_pass(g, "no sampling.tools declared: the request carrying tools was "
                                   "refused with an error");
    if (!declared)
        return mcps_client_broke(g, "SAMP-009",
                                 "the request carrying tools got an answer with "
                                 "neither an error nor a result");
    if (!member(a, "result"))
        return mcps_client_skip(g, "sampling.tools declared, but the request carrying tools was "
                                   "refused (allowed: the user may decline): no tool_use block to "
                                   "judge");
    if (!mcps_client_tool_blocks_ok(member(a, "result"), &n))
        return mcps_client_broke(g, "SAMP-014",
                                 "a tool_use block without a string id, a string name and an "
                                 "object input (or a tool_result without toolUseId and a "
                                 "content array)");
    if (!n)
        return mcps_client_skip(g, "the answer to the request carrying tools used no tool (it "
                                   "need not): no tool_use block to judge");
    return mcps_client_pass(g,
                            "sampling.tools declared: %zu tool_use/tool_result block(s), "
                            "each well formed",
                            n);
}

static int mixed(const mcps_client_trace *t, mcps_client_grade *g)
{
    const cJSON *a = step_answer(t, MCPS_CSS_MIXED, "RPC-RSP-004", g);
    if (!a)
        return 0;
    return invalid_params(a, "SAMP-012",
                          "a sampling request whose user message mixes text and a tool_result", g);
}

#define HS    MCPS_REV_HANDSHAKE_ERA
#define R1125 MCPS_REV_BIT(MCPS_REV_2025_11_25)

static const mcps_client_check sampling_checks[] = {
    {"client/sampling-invalid-params",
     "A sampling/createMessage without messages is refused with -32602 (Invalid params)",
     "client/sampling", "RPC-ERR-006 RPC-RSP-004", MCPS_CSC_SAMPLING, false, no_messages,
     MCPS_CT_STDIO, false, HS},
    {"client/sampling-tools",
     "2025-11-25: a sampling request carrying tools is refused without sampling.tools, and "
     "answered with well-formed tool_use blocks with it",
     "client/sampling", "SAMP-009 SAMP-014 RPC-RSP-004", MCPS_CSC_SAMPLING, false, tools,
     MCPS_CT_STDIO, false, R1125},
    {"client/sampling-mixed-results",
     "2025-11-25: a sampling request whose user message mixes text and tool_result is refused "
     "with -32602, sampling.tools declared",
     "client/sampling", "SAMP-012 RPC-RSP-004", MCPS_CSC_SAMPLING, false, mixed, MCPS_CT_STDIO,
     false, R1125},
};

const mcps_client_check *mcps_client_sampling_check_at(size_t i)
{
    return i < sizeof sampling_checks / sizeof *sampling_checks ? &sampling_checks[i] : NULL;
}
