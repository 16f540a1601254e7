/*
 * client_cases_sse.c - the client checks only 2024-11-05's HTTP+SSE
 * transport ({sse-url}, session/play_http.c's legacy mode) shows: the
 * client's messages are POSTs to the URI the SSE stream's `endpoint` event
 * gave, as given (SSE-003: its query string too, which carries the session).
 *
 * A table of its own (mcps_client_check_at lists it last), graded on
 * 2024-11-05, the transport's revision, whatever revision the client asked.
 */
#include "engine/client_cases.h"

#include <stdio.h>
#include <string.h>

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

static const mcps_client_check sse_checks[] = {
    {"client/sse-endpoint",
     "HTTP+SSE: every message is POSTed to the endpoint event's URI, unchanged", "basic/transports",
     "SSE-003", MCPS_CSC_PLAIN, true, endpoint_used, MCPS_CT_SSE, false, MCPS_CLIENT_SSE_REVS},
};

const mcps_client_check *mcps_client_sse_check_at(size_t i)
{
    size_t n = sizeof sse_checks / sizeof *sse_checks;
    return i < n ? &sse_checks[i] : NULL;
}
