/*
 * testutil.h - small helpers shared by the cmocka unit tests (header-only).
 */
#ifndef MCPS_TESTUTIL_H
#define MCPS_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>

/* Read a whole file; NULL when it cannot be read. *len gets its size. */
static inline char *testutil_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            char *bigger = realloc(buf, cap);
            if (!bigger)
                free(buf);
            buf = bigger;
        }
    }
    fclose(f);
    if (buf) {
        buf[n < cap ? n : cap - 1] = '\0';
        *len = n;
    }
    return buf;
}

#endif
