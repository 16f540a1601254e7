/*
 * buf.h - a growable byte buffer, the one string builder every module shares.
 *
 * Plain struct, caller-owned: zero-initialise it (mcps_buf b = {0};), append,
 * then take the bytes or free them. The contents are always NUL-terminated once
 * anything was appended or reserved, so b.data can be used as a C string for text.
 * Allocation failure is sticky: appends become no-ops and b.oom is set, so
 * callers check once at the end instead of after every append.
 */
#ifndef MCPS_BASE_BUF_H
#define MCPS_BASE_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct mcps_buf {
    char *data;
    size_t len;
    size_t cap;
    bool oom;
} mcps_buf;

void mcps_buf_append(mcps_buf *b, const void *bytes, size_t n);
void mcps_buf_puts(mcps_buf *b, const char *s);
void mcps_buf_putc(mcps_buf *b, char c);
void mcps_buf_printf(mcps_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mcps_buf_vprintf(mcps_buf *b, const char *fmt, va_list ap);
/* Make room for n more bytes; false on allocation failure. */
bool mcps_buf_reserve(mcps_buf *b, size_t n);
/* Drop the first n bytes, keeping the rest. */
void mcps_buf_consume(mcps_buf *b, size_t n);
void mcps_buf_clear(mcps_buf *b);
/* Hand the bytes to the caller (free() them) and reset the buffer; NULL on oom. */
char *mcps_buf_take(mcps_buf *b);
void mcps_buf_free(mcps_buf *b);

#endif
