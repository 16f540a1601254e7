/*
 * discover.c - which protocol revisions does the target speak?
 *
 * The catalog's negotiation section, step 1: for each handshake-era revision
 * V, a fresh process gets `initialize` with protocolVersion V. An answer
 * naming V means V is supported (LIFE-VER-003); another version means it is
 * not; an error or silence means it is not, and is recorded. Every probe is
 * kept as a "discovery" record with its wire log, so a user can see why a
 * revision was not tested. The probes are independent processes and run at
 * once, so a target that never answers costs one probe timeout, not five.
 * 2026-07-28 has no handshake: its probe, server/discover on a process of its
 * own beside these (step 2), is in discover_stateless.c.
 */
#include "engine/internal.h"

#include "base/buf.h"
#include "codec/json.h"
#include "base/clock.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#define PROBE_ID "\"mcpspec-probe\""

cJSON *mcps_exec_initialize_request(const char *id, const char *version, const cJSON *client_caps)
{
    cJSON *params = cJSON_CreateObject();
    cJSON_AddStringToObject(params, "protocolVersion", version);
    cJSON_AddItemToObject(params, "capabilities",
                          client_caps ? cJSON_Duplicate(client_caps, true) : cJSON_CreateObject());
    cJSON *info = cJSON_AddObjectToObject(params, "clientInfo");
    cJSON_AddStringToObject(info, "name", "mcpspec");
    cJSON_AddStringToObject(info, "version", MCPS_VERSION);
    return mcps_rpc_request(id, "initialize", params);
}

bool mcps_discovery_supports(const mcps_discovery *d, mcps_rev rev)
{
    return rev >= 0 && rev < MCPS_REV_COUNT && d->probes[rev].supported;
}

/* HTTP refused the request (an error, or a redirect mcpspec does not follow) or failed below
 * it: what is queued still counts, briefly. */
#define HTTP_DRAIN_MS 50

static bool http_refused(const mcps_session *s)
{
    return s->http && (s->http_failed || s->http_status >= 300);
}

/* The answer to the request with this id (JSON text), or NULL after the deadline or the exit. */
const cJSON *mcps_discovery_await(mcps_session *s, const char *id, int64_t deadline)
{
    cJSON *want = mcps_json_parse_simple(id, strlen(id));
    const cJSON *found = NULL;
    bool refused = false;
    while (!found) {
        if (!refused && http_refused(s)) {
            refused = true;
            int64_t drain = mcps_clock_ms() + HTTP_DRAIN_MS;
            deadline = drain < deadline ? drain : deadline;
        }
        for (size_t i = 0; i < s->ninbox && !found; i++) {
            const mcps_inmsg *m = &s->inbox[i];
            if (m->shape == MCPS_SHAPE_RESPONSE &&
                mcps_rpc_id_equal(cJSON_GetObjectItemCaseSensitive(m->msg, "id"), want))
                found = m->msg;
        }
        if (!found && (mcps_session_idle(s) || !mcps_session_poll(s, deadline)))
            break;
    }
    mcps_json_delete(want);
    return found;
}

void mcps_discovery_detail(mcps_rev_probe *p, const char *fmt, ...)
{
    mcps_buf d = {0};
    va_list ap;
    va_start(ap, fmt);
    mcps_buf_vprintf(&d, fmt, ap);
    va_end(ap);
    free(p->detail);
    p->detail = mcps_buf_take(&d);
}

#define set_detail mcps_discovery_detail

/* Read the answer: supported, another version, or an error. */
static mcps_verdict judge_answer(mcps_discovery *d, mcps_rev rev, const cJSON *answer)
{
    mcps_rev_probe *p = &d->probes[rev];
    const char *name = mcps_rev_name(rev);
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(answer, "result");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(result, "protocolVersion");
    if (cJSON_IsString(v) && strcmp(v->valuestring, name) == 0) {
        p->supported = true;
        d->init_result[rev] = cJSON_Duplicate(result, true);
        set_detail(p, "initialize %s answered %s", name, name);
        return MCPS_VERDICT_PASS;
    }
    if (cJSON_IsString(v)) {
        set_detail(p, "initialize %s answered %.40s instead: not supported", name, v->valuestring);
        return MCPS_VERDICT_INFO;
    }
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(answer, "error");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(error, "message");
    if (error) {
        set_detail(p, "initialize %s answered with an error (%.120s): not supported", name,
                   cJSON_IsString(msg) ? msg->valuestring : "no message");
        return MCPS_VERDICT_INFO;
    }
    set_detail(p, "initialize %s got a response with no protocolVersion%s", name, "");
    return MCPS_VERDICT_FAIL;
}

#define CHECK_ID    "discovery/initialize"
#define CHECK_TITLE "Revision discovery: initialize on a fresh process"
#define CHECK_REQS  "LIFE-INIT-003 LIFE-VER-003"

bool mcps_run_discovery_check(size_t i, const char **id, const char **title, const char **reqs,
                              mcps_rev_set *revs)
{
    if (i == 1)
        return mcps_discovery_stateless_check(id, title, reqs, revs);
    if (i == 2)
        return mcps_loopback_check(id, title, reqs, revs);
    if (i > 2)
        return false;
    *id = CHECK_ID;
    *title = CHECK_TITLE;
    *reqs = CHECK_REQS;
    *revs = MCPS_REV_HANDSHAKE_ERA;
    return true;
}

unsigned mcps_run_discovery_transports(size_t i)
{
    return i == 2 ? (1u << MCPS_TRANSPORT_STREAMABLE_HTTP) | (1u << MCPS_TRANSPORT_SSE) : 0;
}

static void describe_probe(mcps_case_result *c, mcps_rev rev)
{
    c->id = strdup(CHECK_ID);
    c->suite = strdup("discovery");
    c->title = strdup(CHECK_TITLE);
    c->section = strdup("basic/lifecycle");
    c->revision = rev;
    c->requirements = strdup(CHECK_REQS);
    c->level = MCPS_LEVEL_MUST;
    c->expected = strdup("The target answers initialize with this revision if it speaks it, or "
                         "with another revision it speaks.");
}

/* One probe touches only its own revision's slots of d, and fatal[rev]. */
static void probe(const mcps_run_config *cfg, mcps_discovery *d, mcps_rev rev, char *fatal,
                  size_t fatal_len)
{
    mcps_case_result *c = &d->cases[rev];
    d->has_case[rev] = true;
    describe_probe(c, rev);
    d->probes[rev].probed = true;
    int64_t t0 = mcps_clock_ms();
    mcps_session_config sc = {.target = cfg->target, .rev = rev};
    char err[240];
    mcps_session *s = mcps_session_open(&sc, err, sizeof err);
    if (!s) {
        snprintf(fatal, fatal_len, "cannot start the target: %.200s", err);
        c->verdict = MCPS_VERDICT_ERROR;
        c->reason = strdup(fatal);
        set_detail(&d->probes[rev], "%s%s", fatal, "");
        return;
    }
    cJSON *init = mcps_exec_initialize_request(PROBE_ID, mcps_rev_name(rev), NULL);
    const cJSON *answer = NULL;
    if (mcps_session_send(s, init, err, sizeof err))
        answer = mcps_discovery_await(s, PROBE_ID, mcps_clock_deadline(cfg->probe_timeout));
    cJSON_Delete(init);
    if (answer) {
        int64_t none = 0;
        atomic_compare_exchange_strong(&d->answered_ms, &none, mcps_clock_ms());
        c->verdict = judge_answer(d, rev, answer);
        c->observed = strdup(d->probes[rev].detail);
    } else {
        char why[200];
        d->http_status[rev] = s->http_status;
        if (s->http && s->http_status)
            snprintf(why, sizeof why, "initialize answered HTTP %d, with no JSON-RPC answer",
                     s->http_status);
        else if (s->http && s->http_failed)
            snprintf(why, sizeof why, "no answer to initialize: %s", s->last_event);
        else if (s->exited || s->gone)
            snprintf(why, sizeof why, "no answer to initialize: %s",
                     s->last_event[0] ? s->last_event : "the target is gone");
        else
            snprintf(why, sizeof why, "no answer to initialize within %.0f s", cfg->probe_timeout);
        set_detail(&d->probes[rev], "%s%s", why, "");
        c->verdict = MCPS_VERDICT_ERROR;
        c->reason = strdup(why);
        c->observed = strdup(why);
    }
    mcps_session_shutdown(s, NULL);
    mcps_case_take_log(c, s);
    mcps_session_free(s);
    c->seconds = (double)(mcps_clock_ms() - t0) / 1000.0;
}

typedef struct probe_job {
    const mcps_run_config *cfg;
    mcps_discovery *d;
    mcps_rev rev;
    char fatal[240];
} probe_job;

static int probe_thread(void *arg)
{
    probe_job *j = arg;
    if (mcps_rev_is_handshake(j->rev))
        probe(j->cfg, j->d, j->rev, j->fatal, sizeof j->fatal);
    else
        mcps_discover_stateless(j->cfg, j->d, j->fatal, sizeof j->fatal);
    return 0;
}

/* Which revisions to probe; the others get a detail saying why not. */
static bool wanted(const mcps_run_config *cfg, mcps_discovery *d, mcps_rev rev)
{
    if (!mcps_rev_is_handshake(rev) && cfg->target.kind == MCPS_TRANSPORT_SSE) {
        set_detail(&d->probes[rev], "%s",
                   "not probed: the HTTP+SSE transport (2024-11-05) carries no 2026-07-28");
        return false;
    }
    /* A handshake revision --revision leaves out is still probed: which revisions the target
     * speaks is what the version-negotiation cases judge its answers by. */
    if (cfg->revisions && !mcps_rev_set_has(cfg->revisions, rev) && !mcps_rev_is_handshake(rev)) {
        set_detail(&d->probes[rev], "%s", "not probed: excluded by --revision");
        return false;
    }
    return true;
}

/* A revision probed though --revision left it out: known to be spoken or not, but untested, so
 * its discovery record is not a check of this run. */
static void set_aside(const mcps_run_config *cfg, mcps_discovery *d, mcps_rev rev)
{
    if (!cfg->revisions || mcps_rev_set_has(cfg->revisions, rev) || !d->probes[rev].probed)
        return;
    char was[400];
    snprintf(was, sizeof was, "%s", d->probes[rev].detail ? d->probes[rev].detail : "");
    set_detail(&d->probes[rev],
               "not tested, excluded by --revision (probed for the "
               "version-negotiation cases: %s)",
               was);
    if (d->has_case[rev])
        mcps_case_result_free(&d->cases[rev]);
    d->has_case[rev] = false;
}

void mcps_discover(const mcps_run_config *cfg, mcps_discovery *d)
{
    *d = (mcps_discovery){0};
    probe_job jobs[MCPS_REV_COUNT];
    thrd_t threads[MCPS_REV_COUNT];
    bool threaded[MCPS_REV_COUNT] = {false};
    for (int r = 0; r < MCPS_REV_COUNT; r++) {
        d->probes[r].revision = (mcps_rev)r;
        jobs[r] = (probe_job){cfg, d, (mcps_rev)r, ""};
        if (!wanted(cfg, d, (mcps_rev)r))
            continue;
        threaded[r] = thrd_create(&threads[r], probe_thread, &jobs[r]) == thrd_success;
        if (!threaded[r])
            probe_thread(&jobs[r]);
    }
    bool any = false, probed = false;
    for (int r = 0; r < MCPS_REV_COUNT; r++) {
        if (threaded[r])
            thrd_join(threads[r], NULL);
        if (jobs[r].fatal[0] && !d->fatal[0])
            snprintf(d->fatal, sizeof d->fatal, "%s", jobs[r].fatal);
        any |= d->probes[r].supported;
        probed |= d->probes[r].probed;
        set_aside(cfg, d, (mcps_rev)r);
    }
    mcps_discovery_stateless_settle(d, any);
    for (int r = 0; r < MCPS_REV_COUNT; r++)
        d->probes[r].tested = d->probes[r].supported &&
                              (!cfg->revisions || mcps_rev_set_has(cfg->revisions, (mcps_rev)r));
    if (probed && !any && !d->fatal[0])
        snprintf(d->fatal, sizeof d->fatal,
                 "the target speaks none of the probed revisions: nothing to test (see the "
                 "discovery records)");
}

void mcps_discovery_free(mcps_discovery *d)
{
    for (int r = 0; r < MCPS_REV_COUNT; r++) {
        free(d->probes[r].detail);
        mcps_json_delete(d->init_result[r]);
        if (d->has_case[r])
            mcps_case_result_free(&d->cases[r]);
    }
}
