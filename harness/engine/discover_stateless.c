/*
 * discover_stateless.c - does the target speak 2026-07-28?
 *
 * The catalog's negotiation section, steps 2 and 3: a fresh process gets
 * server/discover as its very first message, with the per-request _meta of
 * 2026-07-28 (the session adds it). A reply counts as modern only when it is
 * a DiscoverResult, a result carrying resultType, or a correctly shaped
 * -32020/-32021/-32022 (conflict 27: legacy servers may use those codes for
 * their own ends). Anything else means a handshake-era server, whatever the
 * code (STDIO-010): silence, an exit, or an error. An error is not the end,
 * though: a modern server without server/discover (DISC-001 broken) would
 * answer -32601 too, so the same process then gets tools/list with the same
 * _meta (the inline negotiation of VER-004), and only a result with
 * resultType or a shaped -32022 makes it modern. The record keeps what the
 * target answered, so a report says why 2026-07-28 was or was not tested.
 * Over Streamable HTTP the same probe is a POST on a fresh connection with the
 * 2026-07-28 headers (the session adds them); a handshake-era server then
 * typically answers 400 without a JSON-RPC body (HTTP-045), or with an error
 * of its own, and only -32020 comes with HTTP 400 (conflict 27).
 */
#include "engine/internal.h"

#include "base/clock.h"
#include "codec/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DISCOVER_ID "\"mcpspec-discover\""
#define INLINE_ID   "\"mcpspec-discover-inline\""
#define REV         MCPS_REV_2026_07_28

#define CHECK_ID    "discovery/server-discover"
#define CHECK_TITLE "Revision discovery: server/discover on a fresh process"
#define CHECK_REQS  "DISC-001 DISC-005"

bool mcps_discovery_stateless_check(const char **id, const char **title, const char **reqs,
                                    mcps_rev_set *revs)
{
    *id = CHECK_ID;
    *title = CHECK_TITLE;
    *reqs = CHECK_REQS;
    *revs = MCPS_REV_BIT(REV);
    return true;
}

static void describe(mcps_case_result *c)
{
    c->id = strdup(CHECK_ID);
    c->suite = strdup("discovery");
    c->title = strdup(CHECK_TITLE);
    c->section = strdup("server/discover");
    c->revision = REV;
    c->requirements = strdup(CHECK_REQS);
    c->level = MCPS_LEVEL_MUST;
    c->expected = strdup("A 2026-07-28 server answers server/discover with a DiscoverResult whose "
                         "supportedVersions includes 2026-07-28; a handshake-era server answers "
                         "anything else, which is recorded as the evidence that it does not speak "
                         "2026-07-28.");
}

static bool has_string(const cJSON *array, const char *s)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        if (cJSON_IsString(item) && strcmp(item->valuestring, s) == 0)
            return true;
    }
    return false;
}

/* What a reply said, short, for the evidence: "error -32601 (Method not found)". */
static void describe_answer(const cJSON *answer, char *out, size_t n)
{
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(answer, "error");
    if (!error) {
        snprintf(out, n, "a result without resultType");
        return;
    }
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(error, "code");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(error, "message");
    char num[32] = "no code";
    if (cJSON_IsNumber(code))
        snprintf(num, sizeof num, "%.0f", code->valuedouble);
    snprintf(out, n, "error %s (%.100s)", num, cJSON_IsString(msg) ? msg->valuestring : "");
}

typedef enum modern_error {
    ERR_LEGACY,      /* nothing only a 2026-07-28 server says */
    ERR_UNSUPPORTED, /* -32022 with data.supported and data.requested: modern, not this version */
    ERR_REFUSED,     /* -32020 or -32021 with data.requiredCapabilities: modern, refused us */
} modern_error;

static modern_error classify_error(const cJSON *error, int http_status)
{
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(error, "code");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(error, "data");
    if (!cJSON_IsNumber(code))
        return ERR_LEGACY;
    if (code->valuedouble == -32022 &&
        cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(data, "supported")) &&
        cJSON_IsString(cJSON_GetObjectItemCaseSensitive(data, "requested")))
        return ERR_UNSUPPORTED;
    /* -32020 is HTTP's alone (headers, with 400); on stdio only -32021's shape is
     * recognisable. */
    if (code->valuedouble == -32020 && http_status == 400)
        return ERR_REFUSED;
    if (code->valuedouble == -32021 &&
        cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(data, "requiredCapabilities")))
        return ERR_REFUSED;
    return ERR_LEGACY;
}

typedef struct probe_ctx {
    const mcps_run_config *cfg;
    mcps_discovery *d;
    mcps_case_result *c;
    mcps_rev_probe *p;
    mcps_session *s;
    int64_t deadline;
    int64_t t0;
} probe_ctx;

/* A target that answered initialize is alive: silence to server/discover for as long again,
 * and two seconds more (a loaded machine can be that slow to start one more process), is an
 * answer (the probe does not wait out --probe-timeout). */
#define AFTER_HANDSHAKE_MS 2000
#define SLICE_MS           50

static int64_t wait_until(const probe_ctx *x)
{
    int64_t answered = atomic_load(&x->d->answered_ms);
    if (!answered)
        return x->deadline;
    int64_t cap = answered + (answered - x->t0) + AFTER_HANDSHAKE_MS;
    return cap < x->deadline ? cap : x->deadline;
}

static const cJSON *await_reply(probe_ctx *x, const char *id)
{
    for (;;) {
        int64_t until = wait_until(x), now = mcps_clock_ms();
        const cJSON *a =
            mcps_discovery_await(x->s, id, now + SLICE_MS < until ? now + SLICE_MS : until);
        if (a || x->s->gone || x->s->exited || mcps_session_idle(x->s) ||
            mcps_clock_ms() >= wait_until(x))
            return a; /* idle: over HTTP the request ended without its answer */
    }
}

static void verdict(probe_ctx *x, mcps_verdict v, bool supported)
{
    x->c->verdict = v;
    x->p->supported = supported;
    x->c->observed = strdup(x->p->detail ? x->p->detail : "");
    if (v == MCPS_VERDICT_ERROR)
        x->c->reason = strdup(x->c->observed);
    if (v == MCPS_VERDICT_FAIL)
        x->c->broken = strdup(supported ? "DISC-001" : "DISC-005");
}

static const cJSON *ask(probe_ctx *x, const char *id, const char *method)
{
    char err[200];
    cJSON *req = mcps_rpc_request(id, method, NULL);
    bool sent = req && mcps_session_send(x->s, req, err, sizeof err);
    cJSON_Delete(req);
    return sent ? await_reply(x, id) : NULL;
}

/* No answer at all: a handshake-era server may drop what precedes initialize, or exit. */
static void no_answer(probe_ctx *x, const char *what)
{
    const mcps_session *s = x->s;
    if (s->http && s->http_status >= 400 && s->http_status < 500) {
        mcps_discovery_detail(x->p,
                              "not spoken: %s got HTTP %d and no response with its id, as a "
                              "handshake-era server refusing MCP-Protocol-Version 2026-07-28 does "
                              "(HTTP-045)",
                              what, s->http_status);
    } else if (s->http) {
        /* A handshake-era HTTP server refuses with a 4xx; a 5xx, a failure or silence says
         * nothing about the revision. */
        if (s->http_status)
            mcps_discovery_detail(x->p, "no answer to %s: HTTP %d", what, s->http_status);
        else if (s->http_failed)
            mcps_discovery_detail(x->p, "no answer to %s: %s", what, s->last_event);
        else
            mcps_discovery_detail(x->p, "no answer to %s within %.0f s", what,
                                  x->cfg->probe_timeout);
        verdict(x, MCPS_VERDICT_ERROR, false);
        return;
    } else if (s->exited || s->gone)
        mcps_discovery_detail(x->p,
                              "not spoken: no answer to %s (%s); a handshake-era server may "
                              "exit on it (STDIO-010)",
                              what, s->last_event[0] ? s->last_event : "the target is gone");
    else
        mcps_discovery_detail(x->p,
                              "not spoken: no answer to %s within %.1f s, as a handshake-era "
                              "server may stay silent before initialize (STDIO-010)",
                              what, (double)(mcps_clock_ms() - x->t0) / 1000.0);
    verdict(x, MCPS_VERDICT_INFO, false);
}

static void unsupported(probe_ctx *x, const char *method, const cJSON *error)
{
    char *list = mcps_json_print(cJSON_GetObjectItemCaseSensitive(
                                     cJSON_GetObjectItemCaseSensitive(error, "data"), "supported"),
                                 NULL);
    mcps_discovery_detail(x->p,
                          "not offered: %s answered -32022 UnsupportedProtocolVersion, "
                          "supported %.200s (a modern server without 2026-07-28)",
                          method, list ? list : "?");
    free(list);
    verdict(x, MCPS_VERDICT_INFO, false);
}

/* server/discover was refused with an error no modern server needs to give: tools/list. */
static void inline_probe(probe_ctx *x, const char *first)
{
    const cJSON *answer = ask(x, INLINE_ID, "tools/list");
    if (!answer) {
        mcps_discovery_detail(x->p,
                              "not spoken: server/discover answered %s, and tools/list with the "
                              "same 2026-07-28 _meta got no answer",
                              first);
        verdict(x, MCPS_VERDICT_INFO, false);
        return;
    }
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(answer, "result");
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(answer, "error");
    char said[200];
    describe_answer(answer, said, sizeof said);
    if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(result, "resultType"))) {
        mcps_discovery_detail(x->p,
                              "spoken, without server/discover: it answered %s, but tools/list "
                              "with the 2026-07-28 _meta got a 2026-07-28 result (resultType)",
                              first);
        verdict(x, MCPS_VERDICT_FAIL, true);
    } else if (error && classify_error(error, x->s->http_status) == ERR_UNSUPPORTED) {
        unsupported(x, "tools/list", error);
    } else {
        mcps_discovery_detail(x->p,
                              "not spoken: server/discover answered %s and tools/list with the "
                              "2026-07-28 _meta answered %s, as a handshake-era server does",
                              first, said);
        verdict(x, MCPS_VERDICT_INFO, false);
    }
}

static void judge_result(probe_ctx *x, const cJSON *result)
{
    const cJSON *versions = cJSON_GetObjectItemCaseSensitive(result, "supportedVersions");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(result, "resultType");
    char *list = mcps_json_print(versions, NULL);
    if (cJSON_IsArray(versions) && has_string(versions, mcps_rev_name(REV))) {
        mcps_discovery_detail(x->p, "spoken: server/discover answered, supportedVersions %.200s",
                              list ? list : "?");
        x->d->init_result[REV] = cJSON_Duplicate(result, true);
        verdict(x, MCPS_VERDICT_PASS, true);
    } else if (cJSON_IsArray(versions) || cJSON_IsString(type)) {
        /* It answered a 2026-07-28 request, so it serves it, but does not say so (DISC-005). */
        mcps_discovery_detail(x->p,
                              "server/discover answered a result whose supportedVersions (%.200s) "
                              "does not include 2026-07-28",
                              list ? list : "absent");
        x->d->init_result[REV] = cJSON_Duplicate(result, true);
        verdict(x, MCPS_VERDICT_FAIL, true);
        free(x->c->broken);
        x->c->broken = strdup("DISC-005"); /* served, so DISC-001 holds */
    } else {
        mcps_discovery_detail(x->p, "not spoken: server/discover answered a result that is no "
                                    "DiscoverResult (no supportedVersions, no resultType)");
        verdict(x, MCPS_VERDICT_INFO, false);
    }
    free(list);
}

static void judge(probe_ctx *x, const cJSON *answer)
{
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(answer, "result");
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(answer, "error");
    if (cJSON_IsObject(result)) {
        judge_result(x, result);
        return;
    }
    char said[200];
    describe_answer(answer, said, sizeof said);
    switch (error ? classify_error(error, x->s->http_status) : ERR_LEGACY) {
    case ERR_UNSUPPORTED:
        unsupported(x, "server/discover", error);
        break;
    case ERR_REFUSED:
        mcps_discovery_detail(x->p,
                              "a modern server refused mcpspec's server/discover with %s: "
                              "mcpspec's request is at fault, not the target",
                              said);
        verdict(x, MCPS_VERDICT_ERROR, false);
        break;
    default:
        inline_probe(x, said);
    }
}

void mcps_discover_stateless(const mcps_run_config *cfg, mcps_discovery *d, char *fatal,
                             size_t fatal_len)
{
    mcps_case_result *c = &d->cases[REV];
    d->has_case[REV] = true;
    describe(c);
    d->probes[REV].probed = true;
    int64_t t0 = mcps_clock_ms();
    mcps_session_config sc = {.target = cfg->target, .rev = REV};
    char err[240];
    mcps_session *s = mcps_session_open(&sc, err, sizeof err);
    probe_ctx x = {cfg, d, c, &d->probes[REV], s, mcps_clock_deadline(cfg->probe_timeout), t0};
    if (!s) {
        snprintf(fatal, fatal_len, "cannot start the target: %.200s", err);
        mcps_discovery_detail(x.p, "%s", fatal);
        verdict(&x, MCPS_VERDICT_ERROR, false);
        return;
    }
    const cJSON *answer = ask(&x, DISCOVER_ID, "server/discover");
    if (answer)
        judge(&x, answer);
    else
        no_answer(&x, "server/discover");
    mcps_session_shutdown(s, NULL);
    mcps_case_take_log(c, s);
    mcps_session_free(s);
    c->seconds = (double)(mcps_clock_ms() - t0) / 1000.0;
}

void mcps_discovery_stateless_settle(mcps_discovery *d, bool any_spoken)
{
    mcps_case_result *c = &d->cases[REV];
    if (any_spoken || !d->has_case[REV] || c->verdict != MCPS_VERDICT_INFO)
        return;
    c->verdict = MCPS_VERDICT_ERROR;
    free(c->reason);
    c->reason = strdup("the target answered no probe of any revision, so its silence to "
                       "server/discover says nothing about 2026-07-28");
}
