/*
 * buf.c - growable byte buffer; see buf.h.
 */
#include "base/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool mcps_buf_reserve(mcps_buf *b, size_t n)
{
    if (b->oom)
        return false;
    if (n < b->cap - b->len && b->data)
        return true;
    size_t need = b->len + n + 1;
    if (need < b->len) {
        b->oom = true;
        return false;
    }
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) {
        if (cap > ((size_t)-1) / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    p[b->len] = '\0'; /* a reserved buffer is already the (empty) C string */
    b->data = p;
    b->cap = cap;
    return true;
}

void mcps_buf_append(mcps_buf *b, const void *bytes, size_t n)
{
    if (!mcps_buf_reserve(b, n))
        return;
    if (n)
        memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void mcps_buf_puts(mcps_buf *b, const char *s)
{
    mcps_buf_append(b, s, strlen(s));
}

void mcps_buf_putc(mcps_buf *b, char c)
{
    mcps_buf_append(b, &c, 1);
}

void mcps_buf_vprintf(mcps_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0 || !mcps_buf_reserve(b, (size_t)n))
        return;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void mcps_buf_printf(mcps_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mcps_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void mcps_buf_consume(mcps_buf *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
    } else {
        memmove(b->data, b->data + n, b->len - n);
        b->len -= n;
    }
    if (b->data)
        b->data[b->len] = '\0';
}

void mcps_buf_clear(mcps_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

char *mcps_buf_take(mcps_buf *b)
{
    char *p = b->oom ? NULL : b->data;
    if (b->oom)
        free(b->data);
    else if (!p)
        p = calloc(1, 1);
    *b = (mcps_buf){0};
    return p;
}

void mcps_buf_free(mcps_buf *b)
{
    free(b->data);
    *b = (mcps_buf){0};
}
