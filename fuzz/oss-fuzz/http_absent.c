/*
 * http_absent.c - the HTTP transport's and the server host's functions for
 * the OSS-Fuzz build, whose image has no libcurl: every call refuses. The
 * fuzz targets never reach HTTP; the session and engine objects some of them
 * link name these functions all the same.
 */
#include "transport/host.h"
#include "transport/http.h"

#include <stdio.h>

static void refuse(char *err, size_t errlen)
{
    snprintf(err, errlen, "this build has no HTTP transport (no libcurl)");
}

mcps_transport *mcps_http_open(const mcps_target_config *cfg, char *err, size_t errlen)
{
    (void)cfg;
    refuse(err, errlen);
    return NULL;
}

unsigned mcps_http_send(mcps_transport *t, const mcps_http_request *rq, char *err, size_t errlen)
{
    (void)t;
    (void)rq;
    refuse(err, errlen);
    return 0;
}

void mcps_http_set_header(mcps_transport *t, const char *name, const char *value)
{
    (void)t;
    (void)name;
    (void)value;
}

unsigned mcps_http_last_request(const mcps_transport *t)
{
    (void)t;
    return 0;
}

bool mcps_http_request_done(const mcps_transport *t, unsigned n)
{
    (void)t;
    (void)n;
    return true;
}

const char *mcps_http_session_id(const mcps_transport *t)
{
    (void)t;
    return NULL;
}

bool mcps_http_wait_listening(const char *url, int64_t deadline_ms, const mcps_guard *guard,
                              char *err, size_t errlen)
{
    (void)url;
    (void)deadline_ms;
    (void)guard;
    refuse(err, errlen);
    return false;
}

mcps_host *mcps_host_start(const mcps_target_config *cfg, char *err, size_t errlen)
{
    (void)cfg;
    refuse(err, errlen);
    return NULL;
}

bool mcps_host_alive(mcps_host *h)
{
    (void)h;
    return false;
}

pid_t mcps_host_pid(const mcps_host *h)
{
    (void)h;
    return -1;
}

char *mcps_host_output(mcps_host *h)
{
    (void)h;
    return NULL;
}

void mcps_host_describe_exit(mcps_host *h, char *out, size_t n)
{
    (void)h;
    if (n)
        out[0] = '\0';
}

void mcps_host_stop(mcps_host *h, mcps_shutdown_report *report)
{
    (void)h;
    if (report)
        *report = (mcps_shutdown_report){.how = MCPS_SHUT_EXITED_BEFORE};
}

void mcps_host_free(mcps_host *h)
{
    (void)h;
}
