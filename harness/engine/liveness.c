/*
 * liveness.c - has the target stopped responding? A run-level judgement, so
 * that a target that hangs after the handshake costs a few timeouts, not one
 * per case.
 *
 * A case "stalls" when, at its shutdown, the target was still running and had
 * sent no response for at least --timeout since a request it never answered,
 * or over HTTP had ended every exchange without one (a 500 for everything)
 * (notifications and oversize fragments are no answer: a target that floods
 * them and answers nothing is stalled all the same); it shows the target
 * "responsive" when a request other than initialize got a response, and says
 * nothing otherwise (notifications and silence windows only). When enough
 * cases in a row that say something (in the order they finish) stall, a fresh
 * process must answer initialize and then ping (PING-001), or on 2026-07-28,
 * which has neither, server/discover. If it does not, the run's guard is
 * stopped: no case starts any more, and the rest are ERROR with the reason.
 * One fresh process that answers is enough to go on, so a slow but working
 * target, or one fault in one method, never stops a run.
 */
#include "engine/internal.h"

#include "codec/json.h"
#include "base/clock.h"

#include <stdio.h>
#include <string.h>

#define MIN_STALLS   3  /* stalled cases in a row before a liveness probe, at least */
#define MAX_STALLS   16 /* and at most; between, --jobs (that many stall side by side) */
#define LIVE_INIT_ID "mcpspec-liveness"
#define LIVE_PING_ID "mcpspec-liveness-ping"

bool mcps_liveness_init(mcps_liveness *l)
{
    *l = (mcps_liveness){0};
    return mtx_init(&l->lock, mtx_plain) == thrd_success;
}

void mcps_liveness_free(mcps_liveness *l)
{
    mtx_destroy(&l->lock);
}

/* An answer with this id, before the deadline. */
static bool await_id(mcps_session *s, const char *id, double seconds)
{
    int64_t deadline = mcps_clock_deadline(seconds);
    for (bool more = true;; more = !mcps_session_idle(s) && mcps_session_poll(s, deadline)) {
        for (size_t i = 0; i < s->ninbox; i++) {
            const cJSON *got = cJSON_GetObjectItemCaseSensitive(s->inbox[i].msg, "id");
            if (s->inbox[i].shape == MCPS_SHAPE_RESPONSE && cJSON_IsString(got) &&
                strcmp(got->valuestring, id) == 0)
                return true;
        }
        if (!more)
            return false;
    }
}

static bool live_request(mcps_session *s, cJSON *msg, const char *id, double seconds)
{
    char err[200];
    bool ok = msg && mcps_session_send(s, msg, err, sizeof err) && await_id(s, id, seconds);
    cJSON_Delete(msg);
    return ok;
}

/* A fresh process answers initialize, then ping (PING-001); false with why. A probe the
 * run's stop cut short proves nothing and counts as alive. */
static bool target_alive(const mcps_exec_env *env, char *why, size_t n)
{
    const mcps_run_config *cfg = env->cfg;
    int rev = MCPS_REV_COUNT - 1; /* the newest it speaks */
    while (rev > 0 && !mcps_discovery_supports(env->discovery, (mcps_rev)rev))
        rev--;
    mcps_session_config sc = {.target = cfg->target, .rev = (mcps_rev)rev};
    char err[240];
    mcps_session *s = mcps_session_open(&sc, err, sizeof err);
    if (!s) {
        snprintf(why, n, "a fresh process could not be started: %.120s", err);
        return false;
    }
    bool alive = false;
    if (mcps_session_stateless(s)) { /* 2026-07-28: no handshake, no ping; server/discover */
        alive = live_request(s, mcps_rpc_request("\"" LIVE_PING_ID "\"", "server/discover", NULL),
                             LIVE_PING_ID, cfg->probe_timeout);
        if (!alive)
            snprintf(why, n, "a fresh process did not answer server/discover within %.1f s",
                     cfg->probe_timeout);
    } else if (!live_request(s,
                             mcps_exec_initialize_request("\"" LIVE_INIT_ID "\"",
                                                          mcps_rev_name(sc.rev), NULL),
                             LIVE_INIT_ID, cfg->probe_timeout)) {
        snprintf(why, n, "a fresh process did not answer initialize within %.1f s",
                 cfg->probe_timeout);
    } else {
        cJSON *done = mcps_rpc_notification("notifications/initialized", NULL);
        mcps_session_send(s, done, err, sizeof err);
        cJSON_Delete(done);
        alive = live_request(s, mcps_rpc_request("\"" LIVE_PING_ID "\"", "ping", NULL),
                             LIVE_PING_ID, cfg->timeout);
        if (!alive)
            snprintf(why, n, "a fresh process answered initialize but not ping within %.1f s",
                     cfg->timeout);
    }
    alive |= s->cut;
    mcps_session_shutdown(s, NULL);
    mcps_session_free(s);
    return alive;
}

static size_t stall_limit(const mcps_run_config *cfg)
{
    size_t jobs = cfg->jobs;
    return jobs < MIN_STALLS ? MIN_STALLS : jobs > MAX_STALLS ? MAX_STALLS : jobs;
}

void mcps_liveness_after_case(mcps_liveness *l, const mcps_exec_env *env, const mcps_case_result *r)
{
    const mcps_run_config *cfg = env->cfg;
    if (r->cut || !r->nwire)
        return; /* no process of its own, or cut short: says nothing either way */
    bool stalled = r->stalled_seconds >= cfg->timeout;
    if (!stalled && !r->responsive)
        return; /* it asked nothing of the target but initialize: no evidence */
    mtx_lock(&l->lock);
    l->stalls = stalled ? l->stalls + 1 : 0;
    size_t stalls = l->stalls;
    bool probe = stalls >= stall_limit(cfg) && !l->probing;
    if (probe) {
        l->probing = true;
        l->stalls = 0;
    }
    mtx_unlock(&l->lock);
    if (!probe)
        return;
    char why[200];
    bool alive = target_alive(env, why, sizeof why);
    mtx_lock(&l->lock);
    if (!alive)
        snprintf(l->dead, sizeof l->dead,
                 "the target stopped responding: %zu cases in a row ended with a request "
                 "unanswered for %.1f s or more (or refused at the HTTP level), then %.160s",
                 stalls, cfg->timeout, why);
    l->probing = false;
    mtx_unlock(&l->lock);
    if (!alive)
        mcps_guard_stop(cfg->target.guard, MCPS_STOP_UNRESPONSIVE);
}

void mcps_liveness_stop_reason(mcps_liveness *l, const mcps_guard *g, char *out, size_t n)
{
    char why = mcps_guard_stopped(g);
    mtx_lock(&l->lock);
    if (why == MCPS_STOP_UNRESPONSIVE && l->dead[0])
        snprintf(out, n, "%s", l->dead);
    else
        snprintf(out, n, "%s", mcps_guard_reason(why));
    mtx_unlock(&l->lock);
}
