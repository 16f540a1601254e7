/*
 * server.c - the launched HTTP server of a fuzz run (server.h): start, wait
 * until its URL listens, notice its death, judge it, start it again.
 */
#include "live/server.h"

#include "base/clock.h"
#include "transport/http.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define DEATH_POLL_MS 20

static bool listening_in_time(mcps_live_server *sv, char *err, size_t errlen)
{
    int64_t deadline = mcps_clock_deadline(sv->probe_timeout);
    /* In short slices, so that a server that dies at start is not waited for. */
    while (mcps_host_alive(sv->host)) {
        int64_t slice = mcps_clock_deadline(0.1);
        if (mcps_http_wait_listening(sv->cfg.url, slice < deadline ? slice : deadline,
                                     sv->cfg.guard, err, errlen))
            return true;
        if (mcps_clock_ms() >= deadline || mcps_guard_stopped(sv->cfg.guard))
            break;
    }
    char ended[120] = "the server did not listen within its start-up time";
    if (!mcps_host_alive(sv->host))
        mcps_host_describe_exit(sv->host, ended, sizeof ended);
    char *tail = mcps_host_output(sv->host);
    snprintf(err, errlen, "%s%s%.300s", ended, tail && tail[0] ? "; its last output: " : "",
             tail ? tail : "");
    free(tail);
    return false;
}

bool mcps_live_server_ensure(mcps_live_server *sv, char *err, size_t errlen)
{
    if (sv->host && mcps_host_alive(sv->host))
        return true;
    mcps_live_server_stop(sv);
    sv->host = mcps_host_start(&sv->cfg, err, errlen);
    if (!sv->host)
        return false;
    sv->starts++;
    if (listening_in_time(sv, err, errlen))
        return true;
    mcps_live_server_stop(sv);
    return false;
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
