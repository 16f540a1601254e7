/*
 * file.c - reading a file whole, with a bound (file.h).
 */
#include "base/file.h"

#include <errno.h>
#include <stdio.h>

int mcps_file_read(mcps_buf *b, const char *path, size_t max)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno ? errno : ENOENT;
    size_t start = b->len, got;
    char chunk[65536];
    while (b->len - start <= max && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
        mcps_buf_append(b, chunk, got);
    int err = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (err)
        return err;
    if (b->oom)
        return ENOMEM;
    if (b->len - start > max)
        return EFBIG;
    return mcps_buf_reserve(b, 1) ? 0 : ENOMEM;
}

size_t mcps_file_line_at(const char *text, size_t len, size_t offset, size_t *column)
{
    size_t line = 1, start = 0, end = offset < len ? offset : len;
    for (size_t i = 0; i < end; i++)
        if (text[i] == '\n') {
            line++;
            start = i + 1;
        }
    if (column)
        *column = end - start + 1;
    return line;
}
