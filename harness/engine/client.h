/*
 * client.h - `mcpspec run --client`: testing an MCP client, with mcpspec
 * playing its server over stdio ({server}), Streamable HTTP ({url}) or
 * 2024-11-05's HTTP+SSE ({sse-url}).
 *
 * The client is launched with {server} in its arguments expanded to a
 * command that relays its server's stdio to us (transport/relay.h), or with
 * {url} (or {sse-url}) expanded to an endpoint we serve (transport/httpd.h). Each
 * scenario is a scripted server behaviour; the client is started afresh for
 * each, does what it does when started (connect, list tools, call one,
 * exit, for most), and the checks grade what it sent, against the catalog
 * rows that bind clients. The results are the same records a server run
 * makes, so every report format works. Cases are a C table for now
 * (client_cases.c), not suite files.
 */
#ifndef MCPS_ENGINE_CLIENT_H
#define MCPS_ENGINE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/result.h"
#include "engine/run.h"
#include "transport/transport.h"

typedef struct mcps_client_config {
    mcps_target_config target;     /* argv (with {server} unexpanded), cwd, env, limits, guard */
    const char *target_text;       /* the command as the user wrote it */
    const char *self;              /* the mcpspec program, for {server} */
    const char *const *case_globs; /* --case filters (NULL: all) */
    double timeout;         /* seconds the client may stay silent when a move is due (default 5) */
    double connect_timeout; /* seconds for it to start its server (default 10) */
    bool stays; /* it keeps running once done (an IDE, an agent): the case ends when it goes
                   quiet, and the shutdown check has nothing to judge */
    bool http;  /* {url} in argv: mcpspec serves Streamable HTTP on loopback (transport/httpd.h)
                   instead of relaying stdio */
    bool sse;   /* {sse-url} in argv: the legacy HTTP+SSE transport instead (http is set too) */
    mcps_run_hooks hooks;
} mcps_client_config;

void mcps_client_config_defaults(mcps_client_config *cfg);

/* Run every selected client case; always fills a complete result (out->fatal when the client
 * could not be started at all). */
void mcps_client_run(const mcps_client_config *cfg, mcps_run_result *out);

/* The client cases, for listing: false past the last one. */
bool mcps_client_case_at(size_t i, const char **id, const char **title, const char **reqs);

/* The revisions client case i is graded on over stdio ({server}), over Streamable HTTP
 * ({url}) and over HTTP+SSE ({sse-url}); 0 for a transport it does not run on. False past the
 * last one. */
bool mcps_client_case_revisions(size_t i, mcps_rev_set *stdio, mcps_rev_set *http,
                                mcps_rev_set *sse);

/* Expand {server} in argv (see the README): a word that is exactly {server} becomes the
 * relay's words, one containing it gets them as one shell-quoted string. NULL on oom. */
char **mcps_client_expand(char *const *argv, const char *self, const char *socket_path);
/* Replace key ({url}, {sse-url}) in every word of argv by url. NULL on oom. */
char **mcps_client_expand_url(char *const *argv, const char *key, const char *url);

#endif
