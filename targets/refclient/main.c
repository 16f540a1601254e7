/*
 * main.c - refclient's command line: options, faults, the server's argv.
 *
 *   refclient [--fault NAME]... [--protocol-version REV] [--no-caps] [--deprecated-caps]
 *             [--sampling-tools] [--accept-elicitation] [--timeout S] [--verbose]
 *             (-- SERVER [ARGS...] | --url URL [--token T] | --sse-url URL)
 *   refclient --list-faults | --help
 */
#include "refclient.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/rev.h"

static int usage(FILE *out, int rc)
{
    fprintf(
        out,
        "usage: refclient [options] -- SERVER [ARGS...]\n"
        "       refclient [options] --url URL\n"
        "       refclient [options] --sse-url URL\n"
        "  the reference MCP client: starts SERVER, speaks stdio to it (initialize,\n"
        "  tools/list, tools/call of the first tool), then closes its stdin; or does\n"
        "  the same over Streamable HTTP to URL, then DELETEs its session\n"
        "  --url URL               Streamable HTTP to URL instead of a stdio SERVER\n"
        "  --sse-url URL           2024-11-05's HTTP+SSE instead: GET URL for the SSE stream,\n"
        "                          POST to the URI its endpoint event names\n"
        "  --token T               with --url: send Authorization: Bearer T on every request\n"
        "  --fault NAME            switch on a fault (repeatable; --list-faults)\n"
        "  --protocol-version REV  the revision to ask for (default 2025-11-25); 2026-07-28:\n"
        "                          stateless (server/discover, _meta); auto: 2026-07-28\n"
        "                          first, initialize (2025-11-25) if the server is legacy\n"
        "  --no-caps               declare no roots, sampling or elicitation\n"
        "  --deprecated-caps       2026-07-28: declare roots and sampling too (deprecated\n"
        "                          there, still specified)\n"
        "  --sampling-tools        declare sampling.tools (2025-11-25; 2026-07-28 with\n"
        "                          --deprecated-caps) and use the first tool offered\n"
        "  --accept-elicitation    accept elicitations ({\"name\": \"refclient\"}), not decline\n"
        "  --timeout S             seconds to wait for each answer (default 10)\n"
        "  --verbose               log every line on stderr\n"
        "  --list-faults           NAME<TAB>REQUIREMENT-IDS<TAB>CHECK<TAB>description\n");
    return rc;
}

/* Parse options up to "--"; returns the index of SERVER, or -1 with rc set. */
static int parse(rc_client *c, int argc, char **argv, int *rc)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        rc_fault f;
        if (strcmp(a, "--") == 0)
            return i + 1 < argc ? i + 1 : (*rc = usage(stderr, 2), -1);
        if (strcmp(a, "--no-caps") == 0)
            c->caps = false;
        else if (strcmp(a, "--deprecated-caps") == 0)
            c->deprecated = true;
        else if (strcmp(a, "--sampling-tools") == 0)
            c->sampling_tools = true;
        else if (strcmp(a, "--accept-elicitation") == 0)
            c->accept = true;
        else if (strcmp(a, "--verbose") == 0)
            c->verbose = true;
        else if (strcmp(a, "--help") == 0)
            return *rc = usage(stdout, 0), -1;
        else if (strcmp(a, "--list-faults") == 0)
            return rc_fault_list(stdout), *rc = 0, -1;
        else if (i + 1 < argc && strcmp(a, "--fault") == 0 && rc_fault_lookup(argv[i + 1], &f))
            c->faults[f] = true, i++;
        else if (i + 1 < argc && strcmp(a, "--url") == 0)
            c->url = argv[++i];
        else if (i + 1 < argc && strcmp(a, "--sse-url") == 0)
            c->url = argv[++i], c->legacy = true;
        else if (i + 1 < argc && strcmp(a, "--token") == 0)
            c->token = argv[++i];
        else if (i + 1 < argc && strcmp(a, "--protocol-version") == 0) {
            c->version = argv[++i];
            c->auto_era = strcmp(c->version, "auto") == 0;
        } else if (i + 1 < argc && strcmp(a, "--timeout") == 0 && atof(argv[i + 1]) > 0)
            c->timeout = atof(argv[++i]);
        else {
            fprintf(stderr, "refclient: bad argument '%s'\n", a);
            return *rc = usage(stderr, 2), -1;
        }
    }
    if (c->url)
        return argc;
    return *rc = usage(stderr, 2), -1;
}

int main(int argc, char **argv)
{
    rc_client c = {
        .version = "2025-11-25", .caps = true, .timeout = 10, .to_server = -1, .from_server = -1};
    int rc = 0;
    int server = parse(&c, argc, argv, &rc);
    if (server < 0)
        return rc;
    signal(SIGPIPE, SIG_IGN); /* a server gone turns writes into errors */
    if (c.url) {
        if (!rc_http_open(&c))
            return 1;
        rc = rc_session(&c);
        if (c.broken)
            rc = 1; /* a fault gave up on an answer */
        rc_http_close(&c);
        rc_tasks_free(&c);
        return rc;
    }
    c.server_argv = argv + server;
    if (!rc_start_server(&c, argv + server))
        return 1;
    rc = rc_session(&c);
    rc_stop_server(&c);
    rc_tasks_free(&c);
    cJSON_Delete(c.ack);
    free(c.inbuf);
    return rc;
}
