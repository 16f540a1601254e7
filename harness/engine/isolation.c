/*
 * isolation.c - which cases may share a target process (--isolation shared).
 *
 * Starting a process per case is most of a run's cost against a Node.js
 * server, but a case that changed the server's state, or whose verdict
 * depends on the process being new, would bleed into the next one. So a case
 * shares only when the suite says so (`isolation shared`) or when its steps
 * prove it harmless; when in doubt, it gets its own process (see suite.h).
 * It also estimates the waits a case cannot cut short, so slow cases start first.
 */
#include "engine/suite.h"

#include "codec/json.h"

#include <string.h>

/* Requests that read and change nothing a later case could see. */
static bool read_only_method(const char *method)
{
    /* ${liveness_method} is the built-in: ping, or server/discover on 2026-07-28. */
    static const char *const methods[] = {
        "ping",         "tools/list",  "resources/list",      "resources/templates/list",
        "prompts/list", "prompts/get", "completion/complete", "resources/read",
        "tasks/get",    "tasks/list",  "server/discover",     "${liveness_method}",
    };
    for (size_t i = 0; i < sizeof methods / sizeof *methods; i++)
        if (strcmp(method, methods[i]) == 0)
            return true;
    return false;
}

/* An id the shared session can make unique and map back: a string, or an integer below 10^6
 * written as one (a variable standing for the whole id could be anything). */
static bool rewritable_id(const cJSON *id)
{
    if (cJSON_IsString(id))
        return strncmp(id->valuestring, "${", 2) != 0 ||
               strchr(id->valuestring, '}') != id->valuestring + strlen(id->valuestring) - 1;
    return cJSON_IsNumber(id) && mcps_json_number_is_integer(id) && id->valuedouble > -1e6 &&
           id->valuedouble < 1e6;
}

static bool harmless_message(const cJSON *msg)
{
    if (!cJSON_IsObject(msg))
        return false; /* a batch, or not a message */
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *jsonrpc = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
    return cJSON_IsString(method) && read_only_method(method->valuestring) &&
           cJSON_IsString(jsonrpc) && strcmp(jsonrpc->valuestring, "2.0") == 0 &&
           rewritable_id(cJSON_GetObjectItemCaseSensitive(msg, "id"));
}

/* ---- on trial: malformed input that a correct server shrugs off ---------------------------- */

/* Methods that change what a later case could see: never sent on a process other cases use. */
static bool state_changing_text(const char *text)
{
    static const char *const words[] = {
        "initialize", "notifications/", "logging/", "subscribe",    "tools/call",
        "tasks/",     "sampling/",      "roots/",   "elicitation/",
    };
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strstr(text, words[i]))
            return true;
    return false;
}

/* A message that reads nothing and changes nothing even when a server executes it: a read-only
 * request, or one without a method a server could run (malformed, or a response). */
static bool trial_message(const cJSON *msg)
{
    if (cJSON_IsArray(msg)) {
        const cJSON *item;
        cJSON_ArrayForEach(item, msg) if (!trial_message(item)) return false;
        return true;
    }
    if (!cJSON_IsObject(msg))
        return true;
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    if (!cJSON_IsString(method))
        return true;
    const char *m = method->valuestring;
    if (strstr(m, "${"))
        return read_only_method(m);
    return !state_changing_text(m); /* the rest of MCP reads only; other names are not found */
}

/* Raw bytes (always sent with a final newline) that name no state-changing method. */
static bool trial_raw(const mcps_step *st)
{
    if (memchr(st->raw, '\0', st->raw_len))
        return false; /* text searches would stop short */
    return !state_changing_text(st->raw);
}

/* Can every step run on a shared process the way `how` asks (ALWAYS: it provably leaves the
 * session clean; ON_TRIAL: it names nothing state-changing)? The two differ in what they let
 * a case send; the rest is common. */
static bool steps_share(const mcps_step *steps, size_t n, mcps_sharing how)
{
    for (size_t i = 0; i < n; i++) {
        const mcps_step *st = &steps[i];
        switch (st->kind) {
        case MCPS_STEP_SEND:
            if (!(how == MCPS_SHARE_ALWAYS ? harmless_message(st->json) : trial_message(st->json)))
                return false;
            break;
        case MCPS_STEP_SEND_RAW: /* a lenient parser may hold half a line: only on trial */
            if (how != MCPS_SHARE_ON_TRIAL || !trial_raw(st))
                return false;
            break;
        case MCPS_STEP_REPEAT:
        case MCPS_STEP_FOREACH:
            if (!steps_share(st->body, st->nbody, how))
                return false;
            break;
        case MCPS_STEP_EXPECT:
            if (st->http) /* a status is the session's, not the case's */
                return false;
            break;
        case MCPS_STEP_NO_RESPONSE: /* late answers to older cases are kept out of the inbox */
        case MCPS_STEP_WAIT:
        case MCPS_STEP_LET:
        case MCPS_STEP_EACH:
        case MCPS_STEP_REQUIRE:
            break;
        case MCPS_STEP_NOTHING:     /* any message counts, one an older case provoked too */
        case MCPS_STEP_NO_MATCH:    /* e.g. a list_changed the server sends once after start */
        case MCPS_STEP_EXIT:        /* ends the process */
        case MCPS_STEP_CLOSE_INPUT: /* ends the session */
        case MCPS_STEP_SEND_HTTP:   /* headers and methods of its own */
        default:
            return false;
        }
    }
    return true;
}

mcps_sharing mcps_case_sharing(const mcps_case *c)
{
    if (c->session != MCPS_SESSION_INITIALIZED || c->isolation == MCPS_ISOLATION_FRESH)
        return MCPS_SHARE_NEVER;
    if (c->isolation == MCPS_ISOLATION_SHARED)
        return MCPS_SHARE_ALWAYS;
    if (c->client_capabilities || c->nneeds)
        return MCPS_SHARE_NEVER;
    if (steps_share(c->steps, c->nsteps, MCPS_SHARE_ALWAYS))
        return MCPS_SHARE_ALWAYS;
    return steps_share(c->steps, c->nsteps, MCPS_SHARE_ON_TRIAL) ? MCPS_SHARE_ON_TRIAL
                                                                 : MCPS_SHARE_NEVER;
}

bool mcps_case_shareable(const mcps_case *c)
{
    return mcps_case_sharing(c) != MCPS_SHARE_NEVER;
}

static double wait_seconds(const mcps_step *steps, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        const mcps_step *st = &steps[i];
        if (st->kind == MCPS_STEP_WAIT || st->kind == MCPS_STEP_NOTHING ||
            st->kind == MCPS_STEP_NO_MATCH || st->kind == MCPS_STEP_NO_RESPONSE)
            sum += st->seconds;
        else if (st->kind == MCPS_STEP_REPEAT || st->kind == MCPS_STEP_FOREACH)
            sum += wait_seconds(st->body, st->nbody);
    }
    return sum;
}

double mcps_case_wait_seconds(const mcps_case *c)
{
    return wait_seconds(c->steps, c->nsteps);
}
