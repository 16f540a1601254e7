/*
 * client_cases_sse.c - the client checks of 2024-11-05's HTTP+SSE transport
 * (session/play_http.c's legacy mode): over {sse-url}, the client's messages
 * are POSTs to the URI the SSE stream's `endpoint` event gave, as given
 * (SSE-003: its query string too, which carries the session), graded on
 * 2024-11-05, the transport's revision, whatever revision the client asked;
 * over {url} (2025-03-26 to 2025-11-25), a client meeting a legacy server
 * there (scenario legacy-server: its initialize POST refused with 405) falls
 * back to a GET of the URL and uses the endpoint event's URI (HTTP-046).
 *
 * A table of its own (mcps_client_check_at lists it last).
 */
#include "engine/client_cases.h"

#include <stdio.h>
#include <string.h>

#include "codec/rev.h"

/* SSE-003: every POST goes to the newest endpoint event's URI, byte for byte. */
static int endpoint_used(const mcps_client_trace *t, mcps_client_grade *g)
{
    const char *given = NULL;
    size_t posts = 0;
    for (size_t i = 0; i < t->nhttp; i++) {
        const mcps_http_seen *e = &t->http_reqs[i];
        if (strcmp(e->verb, "GET") == 0 && e->endpoint[0])
            given = e->endpoint;
        if (strcmp(e->verb, "POST") != 0)
            continue;
        posts++;
        if (!given)
            return mcps_client_broke(g, "SSE-003",
                                     "POST %s (%s) before any endpoint event: the client's "
                                     "messages go to the URI that event gives",
                                     e->target, e->rpc);
        if (!e->to_endpoint)
            return mcps_client_broke(g, "SSE-003",
                                     "POST %s (%s): not the endpoint event's URI %s, as given",
                                     e->target, e->rpc, given);
    }
    if (!given)
        return mcps_client_skip(g, "the client never opened the SSE stream");
    if (!posts)
        return mcps_client_skip(g, "the client POSTed nothing");
    return mcps_client_pass(g, "%zu POSTs, each to the endpoint event's URI as given (%s)", posts,
                            given);
}

static bool is(const mcps_http_seen *e, const char *verb)
{
    return strcmp(e->verb, verb) == 0;
}

/* HTTP-046: after the 405 to its initialize POST, a GET of the URL (its Accept is not judged:
 * the rule names none), then initialize and the rest POSTed to the endpoint event's URI. Not
 * falling back is INFO: the rule binds a client that supports older servers. */
static int sse_fallback(const mcps_client_trace *t, mcps_client_grade *g)
{
    size_t i = 0, inits = 0, posts = 0;
    while (i < t->nhttp && !(is(&t->http_reqs[i], "POST") && t->http_reqs[i].status == 405))
        i++;
    if (i == t->nhttp)
        return mcps_client_skip(g, "no POST of the client's was refused with 405");
    const char *refused = t->http_reqs[i].rpc;
    if (g->rev == MCPS_REV_NONE) /* no initialize got through: the one refused says */
        g->rev = mcps_rev_parse(t->http_reqs[i].init_version);
    while (i < t->nhttp && !(is(&t->http_reqs[i], "GET") && t->http_reqs[i].endpoint[0]))
        i++;
    if (i == t->nhttp)
        return mcps_client_info(g,
                                "its POST (%s) refused with 405, the client did not GET the URL "
                                "for an HTTP+SSE stream: it supports no older server (HTTP-046 "
                                "binds a client that does)",
                                refused[0] ? refused : "?");
    const mcps_http_seen *get = &t->http_reqs[i];
    for (size_t j = i + 1; j < t->nhttp; j++) {
        const mcps_http_seen *e = &t->http_reqs[j];
        if (!is(e, "POST"))
            continue;
        if (!e->to_endpoint)
            return mcps_client_broke(g, "HTTP-046",
                                     "after the endpoint event (%s), POST %s (%s): not that URI",
                                     get->endpoint, e->target, e->rpc);
        posts++;
        inits += strcmp(e->rpc, "initialize") == 0;
    }
    if (!inits)
        return mcps_client_broke(g, "HTTP-046",
                                 "after the endpoint event (%s), no initialize was POSTed to it",
                                 get->endpoint);
    return mcps_client_pass(
        g,
        "its %s POST refused with 405, the client sent GET to the URL (Accept: %s) "
        "and POSTed %zu messages, initialize among them, to the endpoint "
        "event's URI %s",
        refused, get->has_accept ? get->accept : "-", posts, get->endpoint);
}

static const mcps_client_check sse_checks[] = {
    {"client/sse-endpoint",
     "HTTP+SSE: every message is POSTed to the endpoint event's URI, unchanged", "basic/transports",
     "SSE-003", MCPS_CSC_PLAIN, true, endpoint_used, MCPS_CT_SSE, false, MCPS_CLIENT_SSE_REVS},
    {"client/http-sse-fallback",
     "A legacy server refusing the initialize POST with 405: the client GETs the URL and uses "
     "the endpoint event's URI",
     "basic/transports", "HTTP-046", MCPS_CSC_LEGACY_SERVER, false, sse_fallback, MCPS_CT_HTTP,
     false, MCPS_CLIENT_HTTP_REVS & ~MCPS_REV_BIT(MCPS_REV_2026_07_28)},
};

const mcps_client_check *mcps_client_sse_check_at(size_t i)
{
    size_t n = sizeof sse_checks / sizeof *sse_checks;
    return i < n ? &sse_checks[i] : NULL;
}
