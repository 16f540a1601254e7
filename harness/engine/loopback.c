/*
 * loopback.c - discovery/loopback-only: does a server mcpspec starts for an
 * HTTP run listen on loopback only? (HTTP-004 from 2025-03-26, SSE-006 in
 * 2024-11-05: a SHOULD.) No client sees this on the wire, but when mcpspec
 * launched the server (--server with --url) its sockets are in /proc, as the
 * catalog's observation says. One record per revision the run covers
 * (2026-07-28 too: HTTP-004 applies there); SKIP, with the reason, when
 * mcpspec did not start the server or could not read its sockets.
 */
#include "engine/internal.h"

#include "base/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_ID    "discovery/loopback-only"
#define CHECK_TITLE "A server mcpspec starts listens on loopback only"
#define CHECK_REQS  "HTTP-004 SSE-006"

bool mcps_loopback_check(const char **id, const char **title, const char **reqs, mcps_rev_set *revs)
{
    *id = CHECK_ID;
    *title = CHECK_TITLE;
    *reqs = CHECK_REQS;
    *revs = MCPS_REV_ALL;
    return true;
}

static void describe(mcps_case_result *c, mcps_rev rev)
{
    c->id = strdup(CHECK_ID);
    c->suite = strdup("discovery");
    c->title = strdup(CHECK_TITLE);
    c->section = strdup("basic/transports");
    c->revision = rev;
    c->requirements = strdup(rev == MCPS_REV_2024_11_05 ? "SSE-006" : "HTTP-004");
    c->level = MCPS_LEVEL_SHOULD;
    c->expected = strdup("Every TCP socket the server's processes listen on is bound to a "
                         "loopback address (127.0.0.0/8 or ::1), not 0.0.0.0, :: or an "
                         "interface's address.");
}

static char *addresses(const mcps_listening *l)
{
    mcps_buf b = {0};
    for (size_t i = 0; i < l->n; i++)
        mcps_buf_printf(&b, "%s%s", i ? ", " : "", l->addr[i]);
    if (l->dropped)
        mcps_buf_printf(&b, " and %zu more", l->dropped);
    return mcps_buf_take(&b);
}

static void judge(mcps_case_result *c, const mcps_listening *l, const char *skip)
{
    if (skip) {
        c->verdict = MCPS_VERDICT_SKIP;
        c->reason = strdup(skip);
        return;
    }
    char *list = addresses(l);
    mcps_buf b = {0};
    mcps_buf_printf(&b, "the server's processes listen on %s", list ? list : "?");
    c->observed = mcps_buf_take(&b);
    if (mcps_listening_exposed(l)) {
        c->verdict = MCPS_VERDICT_WARN;
        c->broken = strdup(c->requirements);
        c->reason = strdup(c->observed);
    } else {
        c->verdict = MCPS_VERDICT_PASS;
    }
    free(list);
}

void mcps_loopback_results(const mcps_run_config *cfg, const mcps_discovery *d,
                           const mcps_listening *l, bool started, mcps_run_result *out)
{
    if (cfg->target.kind == MCPS_TRANSPORT_STDIO)
        return;
    const char *skip = NULL;
    if (!started)
        skip = "mcpspec did not start the server (--url without --server): the addresses it "
               "listens on cannot be seen from here";
    else if (!l)
        skip = "the server's sockets could not be read from /proc";
    else if (!l->n)
        skip = "no listening socket was found among the server's processes";
    for (int r = 0; r < MCPS_REV_COUNT; r++) {
        if (!mcps_discovery_supports(d, (mcps_rev)r) ||
            (cfg->revisions && !mcps_rev_set_has(cfg->revisions, (mcps_rev)r)))
            continue;
        mcps_case_result c = {0};
        describe(&c, (mcps_rev)r);
        judge(&c, l, skip);
        if (cfg->hooks.case_finished)
            cfg->hooks.case_finished(cfg->hooks.ctx, &c, 0, 0);
        mcps_run_result_push(out, &c);
    }
}
