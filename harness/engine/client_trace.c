/*
 * client_trace.c - finding a client's requests in its trace, and its headers
 * in the HTTP record (client_cases.h): one copy for every table of client
 * checks (client_cases*.c) that looks for "the first tools/call after X".
 */
#include "engine/client_cases.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

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

const cJSON *mcps_client_call_with_id(const mcps_client_trace *t, const char *id)
{
    for (size_t i = 0; i < t->nmsgs; i++) {
        const cJSON *m = t->msgs[i].json;
        const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
        char text[64];
        mcps_rpc_id_text(cJSON_GetObjectItemCaseSensitive(m, "id"), text, sizeof text);
        if (cJSON_IsString(method) && strcmp(method->valuestring, "tools/call") == 0 &&
            strcmp(text, id) == 0)
            return m;
    }
    return NULL;
}

const char *mcps_client_header_in(const char *lines, const char *name, char *out, size_t n)
{
    size_t nl = strlen(name);
    for (const char *p = lines; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len > nl && p[nl] == ':' && strncasecmp(p, name, nl) == 0) {
            const char *v = p + nl + 1;
            while (*v == ' ')
                v++;
            snprintf(out, n, "%.*s", (int)(len - (size_t)(v - p)), v);
            return out;
        }
        p += len + (eol != NULL);
    }
    return NULL;
}
