/*
 * server.c - the launched HTTP server of a fuzz run (server.h): start, wait
 * until its URL listens, notice its death, judge it, start it again.
 */
#include "live/server.h"

#include "base/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define DEATH_POLL_MS 20

bool mcps_live_server_ensure(mcps_live_server *sv, char *err, size_t errlen)
{
    if (sv->host && mcps_host_alive(sv->host))
        return true;
    mcps_live_server_stop(sv);
    sv->host = mcps_host_start_listening(&sv->cfg, sv->probe_timeout, err, errlen);
    sv->starts += sv->host != NULL;
    return sv->host != NULL;
}

bool mcps_live_server_alive(mcps_live_server *sv)
{
    return sv->host && mcps_host_alive(sv->host);
}

bool mcps_live_server_judge_death(mcps_live_server *sv, mcps_live_judge *j, size_t at, int grace_ms)
{
    if (!sv->host)
        return false;
    int64_t until = mcps_clock_ms() + grace_ms;
    while (mcps_host_alive(sv->host) && mcps_clock_ms() < until) {
        struct timespec ts = {0, DEATH_POLL_MS * 1000000L};
        nanosleep(&ts, NULL);
    }
    int code, sig;
    if (!mcps_host_exit_fields(sv->host, &code, &sig))
        return false;
    mcps_live_judge_exit_status(j, code, sig, at);
    char *tail = mcps_host_output(sv->host);
    if (tail)
        mcps_live_judge_output(j, tail);
    free(tail);
    mcps_live_server_stop(sv);
    return true;
}

pid_t mcps_live_server_pid(const mcps_live_server *sv)
{
    return sv->host ? mcps_host_pid(sv->host) : -1;
}

void mcps_live_server_stop(mcps_live_server *sv)
{
    if (!sv->host)
        return;
    mcps_host_stop(sv->host, NULL);
    mcps_host_free(sv->host);
    sv->host = NULL;
}
