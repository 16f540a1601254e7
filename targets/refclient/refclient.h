/*
 * refclient.h - the reference MCP client: what its files share.
 *
 * refclient launches its server from its argv, speaks stdio to it (newline
 * framed JSON-RPC, on mcpspec's codec), does what most clients do when
 * started (initialize, list tools, call one, exit) and answers the server's
 * requests as its declared capabilities say. It exists to prove mcpspec's
 * client checks (targets/refclient/README.md).
 */
#ifndef RC_REFCLIENT_H
#define RC_REFCLIENT_H

#include <stdbool.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "faults.h"

typedef struct rc_client {
    bool faults[RC_FAULT_COUNT];
    const char *version; /* the protocolVersion it asks for */
    bool caps;           /* declare roots, sampling, elicitation (--no-caps: none) */
    double timeout;      /* seconds to wait for each answer */
    pid_t server;
    int to_server, from_server; /* pipe ends; -1 when closed */
    char *inbuf;                /* bytes read, not yet framed */
    size_t inlen;
    bool verbose;
} rc_client;

bool rc_on(const rc_client *c, rc_fault f);
/* Start the server (argv); false with a message on stderr. */
bool rc_start_server(rc_client *c, char **argv);
/* Close its stdin, wait, then SIGTERM and SIGKILL if it lingers; reap it. */
void rc_stop_server(rc_client *c);
/* One line to the server (newline added); false when it is gone. */
bool rc_write_line(rc_client *c, const char *line);
/* The next line from the server within the timeout: malloc'd, NULL at end or timeout. */
char *rc_read_line(rc_client *c);

/* The session (session.c): 0 done, 1 the server could not be used. */
int rc_session(rc_client *c);

#endif
