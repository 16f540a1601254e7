/*
 * client_trace.c - finding a client's requests in its trace
 * (client_internal.h): one copy for every table of client checks
 * (client_cases*.c) that looks for "the first tools/call after X".
 */
#include "engine/client_cases.h"

#include <string.h>

#include "codec/rev.h"
#include "codec/rpc.h"

bool mcps_client_request_is(const mcps_client_trace *t, size_t i, const char *method)
{
    mcps_rpc_info in;
    if (i >= t->nmsgs || !t->msgs[i].json)
        return false;
    mcps_rpc_classify(t->msgs[i].json, MCPS_REV_NONE, &in);
    return in.kind == MCPS_RPC_REQUEST && in.method && (!method || strcmp(in.method, method) == 0);
}

size_t mcps_client_find_request(const mcps_client_trace *t, size_t from, const char *method)
{
    while (from < t->nmsgs && !mcps_client_request_is(t, from, method))
        from++;
    return from;
}
