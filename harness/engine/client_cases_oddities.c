/*
 * client_cases_oddities.c - the client checks of the oddities scenario:
 * things a server may send that a client must take in its stride. Before
 * its ping the scripted server sends notifications/elicitation/complete for
 * an elicitation nobody started (ignored: ELIC-011) and a url-mode
 * elicitation/create (refused with -32602 by a client that declared form
 * only: ELIC-008); the ping carries an io.modelcontextprotocol/ _meta key no
 * revision defines (the request served as usual: GEN-META-005). On 2025-11-25 its
 * tool list is modern-serve's 2020-12 tool, whose call must validate against it read
 * as 2020-12 (GEN-JSCH-001).
 *
 * A table of its own, after client_cases_tasks.c's (mcps_client_check_at).
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

/* The revision answered, when it is from since on; else NULL (with g set to SKIP). */
static bool answered_from(const mcps_client_trace *t, mcps_rev since, mcps_client_grade *g)
{
    mcps_rev r = mcps_rev_parse(t->answered);
    if (!t->answered[0] || r == MCPS_REV_NONE || r < since) {
        mcps_client_skip(g, "%s was not negotiated (nor a later handshake-era revision)",
                         mcps_rev_name(since));
        return false;
    }
    return true;
}

static int unknown_meta_key(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!answered_from(t, MCPS_REV_2025_06_18, g))
        return 0;
    if (!t->injected)
        return mcps_client_skip(g, "the client sent no request after initialize: no ping was sent");
    if (!t->inject_answer)
        return mcps_client_broke(
            g, "GEN-META-005",
            "a ping carrying _meta %s (a key no revision defines) was not answered",
            MCPS_CLIENT_ODD_META);
    if (!member(t->inject_answer, "result"))
        return mcps_client_broke(
            g, "GEN-META-005",
            "a ping carrying _meta %s was refused with an error: the key's meaning "
            "was assumed",
            MCPS_CLIENT_ODD_META);
    return mcps_client_pass(g, "a ping carrying _meta %s was answered as usual",
                            MCPS_CLIENT_ODD_META);
}

static int complete_unknown(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!answered_from(t, MCPS_REV_2025_11_25, g))
        return 0;
    if (!t->injected)
        return mcps_client_skip(g, "the client sent no request after initialize: nothing was sent");
    for (size_t i = t->inject_at; i < t->nmsgs; i++) {
        const cJSON *m = t->msgs[i].json;
        if (m && cJSON_IsNull(member(m, "id")) && member(m, "error"))
            return mcps_client_broke(
                g, "ELIC-011",
                "the client answered notifications/elicitation/complete for an unknown "
                "elicitation with an error");
    }
    if (!t->inject_answer)
        return mcps_client_broke(
            g, "ELIC-011",
            "after notifications/elicitation/complete for an elicitation it never "
            "saw, the client left the next ping unanswered%s",
            t->exited ? " (it exited)" : "");
    return mcps_client_pass(
        g, "notifications/elicitation/complete for an unknown elicitation ignored; the "
           "ping after it answered");
}

/* The client's response to the url-mode elicitation; NULL when none. */
static const cJSON *url_answer(const mcps_client_trace *t)
{
    for (size_t i = t->inject_at; i < t->nmsgs; i++) {
        const cJSON *m = t->msgs[i].json, *id = member(m, "id");
        if (m && !member(m, "method") && cJSON_IsString(id) &&
            strcmp(id->valuestring, MCPS_CLIENT_CANCELLED_ID) == 0)
            return m;
    }
    return NULL;
}

static int url_undeclared(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!answered_from(t, MCPS_REV_2025_11_25, g))
        return 0;
    const cJSON *e = member(member(t->init_params, "capabilities"), "elicitation");
    if (!cJSON_IsObject(e))
        return mcps_client_skip(
            g, "the client declared no elicitation (client/elicitation judges a refusal)");
    if (member(e, "url"))
        return mcps_client_skip(g, "the client declared elicitation url mode");
    if (!t->injected)
        return mcps_client_skip(g, "the client sent no request after initialize: nothing was sent");
    const cJSON *a = url_answer(t);
    const cJSON *code = member(member(a, "error"), "code");
    if (!a)
        return mcps_client_skip(g, "the client did not answer the url-mode elicitation/create");
    if (!cJSON_IsNumber(code) || code->valuedouble != -32602)
        return mcps_client_broke(
            g, "ELIC-008",
            "a url-mode elicitation/create to a client declaring form only was "
            "answered %s, not -32602",
            code ? "with another error" : "with a result");
    return mcps_client_pass(
        g, "a url-mode elicitation/create to a client declaring form only: -32602");
}

/* On 2025-11-25 the tool list is modern-serve's 2020-12 tool ($defs, prefixItems): the call
 * validates against it read as 2020-12 (GEN-JSCH-001 came with 2025-11-25). */
static int schema_2020_12(const mcps_client_trace *t, mcps_client_grade *g)
{
    if (!answered_from(t, MCPS_REV_2025_11_25, g))
        return 0;
    return mcps_client_schema_2020_12(t, g);
}

#define FROM_0618 (MCPS_REV_BIT(MCPS_REV_2025_06_18) | MCPS_REV_BIT(MCPS_REV_2025_11_25))
#define ON_1125   MCPS_REV_BIT(MCPS_REV_2025_11_25)

static const mcps_client_check oddity_checks[] = {
    {"client/unknown-meta-key",
     "A request carrying an unknown io.modelcontextprotocol/ _meta key is served as usual",
     "basic/index", "GEN-META-005", MCPS_CSC_ODDITIES, false, unknown_meta_key, MCPS_CT_STDIO,
     false, FROM_0618},
    {"client/elicit-complete-unknown",
     "notifications/elicitation/complete for an unknown elicitation is ignored",
     "client/elicitation", "ELIC-011", MCPS_CSC_ODDITIES, false, complete_unknown, MCPS_CT_STDIO,
     false, ON_1125},
    {"client/elicit-mode-undeclared",
     "An elicitation in a mode the client did not declare (url) is refused with -32602",
     "client/elicitation", "ELIC-008", MCPS_CSC_ODDITIES, false, url_undeclared, MCPS_CT_STDIO,
     false, ON_1125},
    {"client/schema-2020-12-handshake",
     "2025-11-25: a tool's inputSchema without $schema is read as JSON Schema 2020-12 ($defs, "
     "prefixItems): the call's arguments validate against it",
     "basic", "GEN-JSCH-001", MCPS_CSC_ODDITIES, false, schema_2020_12, MCPS_CT_STDIO, false,
     ON_1125},
};

const mcps_client_check *mcps_client_oddities_check_at(size_t i)
{
    return i < sizeof oddity_checks / sizeof *oddity_checks ? &oddity_checks[i] : NULL;
}
