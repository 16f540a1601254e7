/*
 * http.c - placeholder until the libcurl transport lands: every HTTP target is
 * refused with a reason, so a run against one is ERROR, never a pass.
 */
#include "transport/http.h"
#include <stdio.h>
mcps_transport *mcps_http_open(const mcps_target_config *cfg, char *err, size_t errlen)
{
    (void)cfg;
    snprintf(err, errlen, "this build has no HTTP transport yet");
    return NULL;
}
unsigned mcps_http_send(mcps_transport *t, const mcps_http_request *rq, char *err, size_t errlen)
{
    (void)t;
    (void)rq;
    snprintf(err, errlen, "this build has no HTTP transport yet");
    return 0;
}
void mcps_http_set_header(mcps_transport *t, const char *name, const char *value)
{
    (void)t;
    (void)name;
    (void)value;
}
const char *mcps_http_session_id(const mcps_transport *t)
{
    (void)t;
    return NULL;
}
unsigned mcps_http_last_request(const mcps_transport *t)
{
    (void)t;
    return 0;
}
bool mcps_http_wait_listening(const char *url, int64_t deadline_ms, const mcps_guard *guard,
                              char *err, size_t errlen)
{
    (void)url;
    (void)deadline_ms;
    (void)guard;
    snprintf(err, errlen, "this build has no HTTP transport yet");
    return false;
}
