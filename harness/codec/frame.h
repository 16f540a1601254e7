/*
 * frame.h - newline-delimited framing of a byte stream (MCP stdio transport).
 *
 * Bytes arrive in arbitrary chunks; lines come out whole. Memory is bounded:
 * a line longer than max_line is reported once, the moment it crosses the
 * limit, and its remaining bytes are dropped as they arrive, so a target that
 * floods gigabytes without a newline costs at most max_line plus one chunk.
 * Call mcps_framer_next() until it returns false after every feed.
 */
#ifndef MCPS_CODEC_FRAME_H
#define MCPS_CODEC_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

typedef struct mcps_framer {
    mcps_buf buf;    /* unconsumed bytes; buf.data[start..len) is pending */
    size_t start;    /* first byte of the current line */
    size_t scanned;  /* bytes after start known to hold no newline */
    size_t max_line; /* longest line kept, without its newline */
    bool discarding; /* inside an over-long line: drop until newline */
    uint64_t base;   /* stream offset of buf.data[0] */
} mcps_framer;

typedef struct mcps_frame {
    const char *data; /* the line without its '\n'; valid until the next feed/next */
    size_t len;
    uint64_t offset; /* stream offset of the line's first byte */
    bool terminated; /* false for a final line cut off by end of stream */
    bool oversize;   /* the line crossed max_line: data holds only its first bytes */
} mcps_frame;

void mcps_framer_init(mcps_framer *f, size_t max_line);
void mcps_framer_free(mcps_framer *f);
/* Append bytes from the stream; false when memory ran out. */
bool mcps_framer_feed(mcps_framer *f, const char *data, size_t len);
/* The next complete (or over-long) line, if any. */
bool mcps_framer_next(mcps_framer *f, mcps_frame *out);
/* At end of stream: the unterminated last line, if any bytes remain. */
bool mcps_framer_finish(mcps_framer *f, mcps_frame *out);
/* Total bytes fed so far. */
uint64_t mcps_framer_offset(const mcps_framer *f);

#endif
