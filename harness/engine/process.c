/*
 * process.c - the target processes cases run on: start, handshake, fit, end.
 *
 * A process is started for a case before the case runs (the worker does it
 * while the previous case is still going, so Node.js start-up and our
 * initialize overlap other work), and with --isolation shared it may serve
 * several cases that need the same handshake (revision and client
 * capabilities). The handshake is the one every initialized case gets:
 * initialize with the case's revision, then notifications/initialized; on
 * 2026-07-28 there is none, and the session stamps every request with the
 * case's revision and client capabilities instead (session_stateless.c).
 */
#include "engine/internal.h"

#include "codec/json.h"
#include "base/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INIT_ID "\"mcpspec-init\""

static char *caps_text(const cJSON *caps)
{
    return caps ? mcps_json_print(caps, NULL) : strdup("");
}

static bool send_initialize(mcps_proc *p, const cJSON *client_caps, char *why, size_t n)
{
    char err[200];
    cJSON *init = mcps_exec_initialize_request(INIT_ID, mcps_rev_name(p->rev), client_caps);
    bool sent = mcps_session_send(p->s, init, err, sizeof err);
    cJSON_Delete(init);
    if (!sent)
        snprintf(why, n, "could not send initialize: %s", err);
    p->init_sent = sent;
    return sent;
}

mcps_proc *mcps_proc_start(const mcps_exec_env *env, const mcps_case *c, mcps_rev rev, char *why,
                           size_t n)
{
    mcps_proc *p = calloc(1, sizeof *p);
    char *caps = caps_text(c->client_capabilities);
    mcps_session_config sc = {.target = env->cfg->target, .rev = rev};
    if (!p || !caps) {
        snprintf(why, n, "out of memory");
        free(p);
        free(caps);
        return NULL;
    }
    *p = (mcps_proc){.rev = rev, .caps = caps, .raw = c->session == MCPS_SESSION_RAW};
    p->s = mcps_session_open(&sc, why, n);
    if (!p->s) {
        mcps_proc_free(p);
        return NULL;
    }
    p->pid = p->s->http ? -1 : mcps_stdio_pid(p->s->t);
    /* 2026-07-28 has no handshake: each request declares these itself. */
    mcps_session_set_client(p->s, c->client_capabilities);
    /* A failed send is found again, and reported, by the handshake. */
    if (!p->raw && mcps_rev_is_handshake(rev))
        send_initialize(p, c->client_capabilities, why, n);
    return p;
}

static mcps_inmsg *init_answer(mcps_session *s, const cJSON *id)
{
    for (size_t i = 0; i < s->ninbox; i++)
        if (s->inbox[i].shape == MCPS_SHAPE_RESPONSE && !s->inbox[i].consumed &&
            mcps_rpc_id_equal(cJSON_GetObjectItemCaseSensitive(s->inbox[i].msg, "id"), id))
            return &s->inbox[i];
    return NULL;
}

static bool await_init_answer(mcps_proc *p, const mcps_exec_env *env, char *why, size_t n)
{
    cJSON *id = mcps_json_parse_simple(INIT_ID, strlen(INIT_ID));
    double seconds = env->cfg->probe_timeout;
    int64_t deadline = mcps_clock_deadline(seconds);
    mcps_inmsg *m;
    while (!(m = init_answer(p->s, id)) && !mcps_session_idle(p->s))
        if (!mcps_session_poll(p->s, deadline) && (p->s->gone || mcps_clock_ms() >= deadline))
            break;
    mcps_json_delete(id);
    if (!m && mcps_session_idle(p->s)) {
        snprintf(why, n, "its HTTP exchange ended without an answer to initialize");
        return false;
    }
    if (!m) {
        snprintf(why, n, "no answer to initialize within %.0f s", seconds);
        return false;
    }
    m->consumed = true;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(m->msg, "result"), "protocolVersion");
    if (!cJSON_IsString(v) || strcmp(v->valuestring, mcps_rev_name(p->rev)) != 0) {
        char *text = mcps_json_print(m->msg, NULL);
        char ex[200];
        mcps_excerpt(text ? text : "", text ? strlen(text) : 0, ex, sizeof ex);
        free(text);
        snprintf(why, n, "initialize %s did not succeed this time: %s", mcps_rev_name(p->rev), ex);
        return false;
    }
    return true;
}

bool mcps_proc_handshake(mcps_proc *p, const mcps_exec_env *env, const cJSON *client_caps,
                         char *why, size_t n)
{
    if (!mcps_rev_is_handshake(p->rev)) /* 2026-07-28: nothing to do before the first request */
        return p->ready = true;
    if (!p->init_sent && !send_initialize(p, client_caps, why, n))
        return false;
    if (!await_init_answer(p, env, why, n))
        return false;
    char err[200];
    cJSON *done = mcps_rpc_notification("notifications/initialized", NULL);
    bool sent = mcps_session_send(p->s, done, err, sizeof err);
    cJSON_Delete(done);
    if (!sent)
        snprintf(why, n, "could not send notifications/initialized: %s", err);
    p->ready = sent;
    return sent;
}

bool mcps_proc_fits(const mcps_proc *p, const mcps_case *c, mcps_rev rev)
{
    if (!p || p->rev != rev || p->raw != (c->session == MCPS_SESSION_RAW))
        return false;
    char *caps = caps_text(c->client_capabilities);
    bool same = caps && strcmp(caps, p->caps) == 0;
    free(caps);
    return same;
}

bool mcps_proc_usable(const mcps_proc *p)
{
    const mcps_session *s = p ? p->s : NULL;
    return s && !s->exited && !s->gone && !s->stream_closed && !s->input_closed;
}

void mcps_proc_free(mcps_proc *p)
{
    if (!p)
        return;
    mcps_session_free(p->s);
    free(p->caps);
    free(p);
}
