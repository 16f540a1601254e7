/*
 * http_util.c - small helpers of the HTTP front end: header lookup, media
 * type matching, random session ids, request id keys.
 */
#include "http.h"

#include "codec/json.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

const char *rs_hheader(struct MHD_Connection *conn, const char *name)
{
    return MHD_lookup_connection_value(conn, MHD_HEADER_KIND, name);
}

/* The media range at p (up to ',' or end) without parameters, trimmed, into out. */
static const char *next_range(const char *p, char *out, size_t n)
{
    while (*p == ' ' || *p == '\t' || *p == ',')
        p++;
    size_t len = 0;
    while (*p && *p != ',' && *p != ';' && *p != ' ' && *p != '\t') {
        if (len + 1 < n)
            out[len++] = (char)tolower((unsigned char)*p);
        p++;
    }
    out[len] = '\0';
    while (*p && *p != ',')
        p++; /* parameters (q=...) are not weighed: a listed type is accepted */
    return p;
}

bool rs_haccepts(const char *accept, const char *type)
{
    if (!accept)
        return false;
    const char *slash = strchr(type, '/');
    size_t major = slash ? (size_t)(slash - type) : strlen(type);
    char range[128];
    const char *p = accept;
    while (*p) {
        p = next_range(p, range, sizeof range);
        if (strcmp(range, type) == 0 || strcmp(range, "*/*") == 0)
            return true;
        if (strlen(range) == major + 2 && strncmp(range, type, major) == 0 &&
            strcmp(range + major, "/*") == 0)
            return true;
    }
    return false;
}

bool rs_his_json_type(const char *type)
{
    if (!type)
        return false;
    char range[128];
    next_range(type, range, sizeof range);
    return strcmp(range, "application/json") == 0;
}

bool rs_hrandom_hex(char out[33])
{
    unsigned char bytes[16];
    size_t got = 0;
    while (got < sizeof bytes) {
        ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof bytes; i++) {
        out[2 * i] = "0123456789abcdef"[bytes[i] >> 4];
        out[2 * i + 1] = "0123456789abcdef"[bytes[i] & 15];
    }
    out[32] = '\0';
    return true;
}

char *rs_hid_key(const cJSON *id)
{
    if (!id || !(cJSON_IsString(id) || cJSON_IsNumber(id)))
        return NULL;
    return mcps_json_print(id, NULL);
}
