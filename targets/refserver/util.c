/*
 * util.c - small helpers: monotonic and wall clocks, base64, stderr diagnostics.
 */
#include "server.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t rs_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wall-clock time, unlike rs_now_ms: only for timestamps shown to clients (task createdAt). */
int64_t rs_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *rs_base64(const unsigned char *data, size_t len)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc((len + 2) / 3 * 4 + 1);
    if (!out)
        return NULL;
    char *o = out;
    for (size_t i = 0; i < len; i += 3) {
        unsigned v = (unsigned)data[i] << 16;
        if (i + 1 < len)
            v |= (unsigned)data[i + 1] << 8;
        if (i + 2 < len)
            v |= data[i + 2];
        *o++ = alphabet[(v >> 18) & 63];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
        *o++ = i + 2 < len ? alphabet[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

/* Diagnostics go to stderr only, and only with --verbose: stdout is MCP alone. */
void rs_debug(const rs_server *s, const char *fmt, ...)
{
    if (!s->verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("refserver: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

bool rs_streq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}
