/*
 * server.h - the server `mcpspec fuzz --server CMD --url URL` starts and
 * fuzzes over HTTP. Sessions come and go on it, but a crash takes the whole
 * process: it is started again before the next session, and what it said
 * before dying (a sanitizer report) is judged from the host's kept output.
 * Not shared between threads: --jobs must be 1 with it.
 */
#ifndef MCPS_LIVE_SERVER_H
#define MCPS_LIVE_SERVER_H

#include "live/oracle.h"
#include "transport/host.h"

typedef struct mcps_live_server {
    mcps_target_config cfg; /* argv, cwd, env, guard, url */
    double probe_timeout;   /* seconds for the URL to listen after a start */
    mcps_host *host;        /* NULL until started, and after it died */
    size_t starts;
} mcps_live_server;

/* Started and listening, starting it when it is not running; false with err. */
bool mcps_live_server_ensure(mcps_live_server *sv, char *err, size_t errlen);
/* Whether it still runs. */
bool mcps_live_server_alive(mcps_live_server *sv);
/* When it died (or dies within grace_ms: an exit is known a moment after its connections
 * close): judge its exit after input at and its last output (a sanitizer report), and let it
 * go, so the next ensure starts it again. False when it is still running. */
bool mcps_live_server_judge_death(mcps_live_server *sv, mcps_live_judge *j, size_t at,
                                  int grace_ms);
pid_t mcps_live_server_pid(const mcps_live_server *sv);
void mcps_live_server_stop(mcps_live_server *sv);

#endif
