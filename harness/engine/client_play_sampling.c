/*
 * client_play_sampling.c - the sampling scenario's further requests
 * (mcps_client_sampling_step), asked of a client that declared sampling once
 * it has answered the first: one without messages (RPC-ERR-006, every
 * handshake revision), and on 2025-11-25 one carrying tools (SAMP-009 without
 * sampling.tools, SAMP-014 with it) and, to a client declaring sampling.tools,
 * one whose last user message mixes text and a tool_result (SAMP-012).
 *
 * Apart from client_play.c, which sends them one at a time (a client may
 * answer sampling slowly, through a person or a model) and keeps the answers;
 * client_cases_sampling.c judges them.
 */
#include "engine/client_internal.h"

#include <stdio.h>
#include <string.h>

#include "codec/rev.h"

static const cJSON *member(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

static cJSON *text_block(const char *text)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "type", "text");
    cJSON_AddStringToObject(b, "text", text);
    return b;
}

static cJSON *message(const char *role, cJSON *content)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", role);
    cJSON_AddItemToObject(m, "content", content);
    return m;
}

/* The spec's own example tool, with toolChoice auto. */
static void add_tools(cJSON *p)
{
    cJSON *tool = cJSON_CreateObject();
    cJSON_AddStringToObject(tool, "name", "get_weather");
    cJSON_AddStringToObject(tool, "description", "Get current weather for a city");
    cJSON *schema = cJSON_AddObjectToObject(tool, "inputSchema");
    cJSON_AddStringToObject(schema, "type", "object");
    cJSON_AddStringToObject(
        cJSON_AddObjectToObject(cJSON_AddObjectToObject(schema, "properties"), "city"), "type",
        "string");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "tools"), tool);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "toolChoice"), "mode", "auto");
}

/* A balanced tool loop (the tool_use answered by a tool_result) but for one thing: the last
 * user message holds text beside its tool_result, which only SAMP-010 forbids. */
static cJSON *mixed_messages(void)
{
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, message("user", text_block("What is the weather in Paris?")));
    cJSON *use = cJSON_CreateObject();
    cJSON_AddStringToObject(use, "type", "tool_use");
    cJSON_AddStringToObject(use, "id", "mcpspec-call-1");
    cJSON_AddStringToObject(use, "name", "get_weather");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(use, "input"), "city", "Paris");
    cJSON *uses = cJSON_CreateArray();
    cJSON_AddItemToArray(uses, use);
    cJSON_AddItemToArray(a, message("assistant", uses));
    cJSON *result = cJSON_CreateObject();
    cJSON_AddStringToObject(result, "type", "tool_result");
    cJSON_AddStringToObject(result, "toolUseId", "mcpspec-call-1");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(result, "content"),
                         text_block("Weather in Paris: 18 C, partly cloudy"));
    cJSON *mixed = cJSON_CreateArray();
    cJSON_AddItemToArray(mixed, text_block("Here are the results:"));
    cJSON_AddItemToArray(mixed, result);
    cJSON_AddItemToArray(a, message("user", mixed));
    return a;
}

static cJSON *step_params(mcps_client_sampling_step k)
{
    cJSON *p = cJSON_CreateObject();
    if (k == MCPS_CSS_TOOLS) {
        cJSON *a = cJSON_AddArrayToObject(p, "messages");
        cJSON_AddItemToArray(a, message("user", text_block("What is the weather in Paris?")));
    } else if (k == MCPS_CSS_MIXED)
        cJSON_AddItemToObject(p, "messages", mixed_messages());
    if (k != MCPS_CSS_NO_MESSAGES)
        add_tools(p);
    cJSON_AddNumberToObject(p, "maxTokens", 20);
    return p;
}

cJSON *mcps_client_sampling_step_request(const mcps_client_trace *t, int k)
{
    const cJSON *sampling = member(member(t->init_params, "capabilities"), "sampling");
    if (k < 0 || k >= MCPS_CSS_COUNT || !cJSON_IsObject(sampling))
        return NULL;
    /* tools in sampling came with 2025-11-25; to a client without sampling.tools only the
     * request SAMP-009 is about goes (the scripted server breaks SAMP-008 on purpose) */
    if (k != MCPS_CSS_NO_MESSAGES && mcps_rev_parse(t->answered) != MCPS_REV_2025_11_25)
        return NULL;
    if (k == MCPS_CSS_MIXED && !cJSON_IsObject(member(sampling, "tools")))
        return NULL;
    char id[32];
    snprintf(id, sizeof id, MCPS_CLIENT_SAMPLING_STEP_ID, k + 1);
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddStringToObject(m, "id", id);
    cJSON_AddStringToObject(m, "method", "sampling/createMessage");
    cJSON_AddItemToObject(m, "params", step_params((mcps_client_sampling_step)k));
    return m;
}
