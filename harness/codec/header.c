/*
 * header.c - the Value Encoding of 2026-07-28's mirrored HTTP headers
 * (header.h), as its streamable-http transport page states it.
 */
#include "codec/header.h"

#include <stdlib.h>
#include <string.h>

#define SENTINEL_HEAD "=?base64?"
#define SENTINEL_TAIL "?="

bool mcps_header_needs_encoding(const char *value)
{
    size_t n = strlen(value);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)value[i] < 0x20 || (unsigned char)value[i] > 0x7e)
            return true;
    if (n && (value[0] == ' ' || value[n - 1] == ' '))
        return true;
    size_t head = strlen(SENTINEL_HEAD), tail = strlen(SENTINEL_TAIL);
    return n >= head + tail && strncmp(value, SENTINEL_HEAD, head) == 0 &&
           strcmp(value + n - tail, SENTINEL_TAIL) == 0;
}

char *mcps_header_encode(const char *value)
{
    if (!mcps_header_needs_encoding(value))
        return strdup(value);
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(value);
    char *out = malloc(strlen(SENTINEL_HEAD) + (n + 2) / 3 * 4 + strlen(SENTINEL_TAIL) + 1);
    if (!out)
        return NULL;
    memcpy(out, SENTINEL_HEAD, strlen(SENTINEL_HEAD));
    char *o = out + strlen(SENTINEL_HEAD);
    const unsigned char *in = (const unsigned char *)value;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        *o++ = digits[v >> 18 & 63];
        *o++ = digits[v >> 12 & 63];
        *o++ = i + 1 < n ? digits[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? digits[v & 63] : '=';
    }
    memcpy(o, SENTINEL_TAIL, strlen(SENTINEL_TAIL) + 1);
    return out;
}
