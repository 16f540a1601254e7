/*
 * file.h - reading a file whole, with a bound: the one way the loaders read
 * what a user hands mcpspec (suites, target configurations, matrices,
 * baselines, reports), so that each refuses a file past its bound instead of
 * reading part of it, and says why in the same words.
 */
#ifndef MCPS_BASE_FILE_H
#define MCPS_BASE_FILE_H

#include "base/buf.h"

#include <stddef.h>

/*
 * Append the whole file at path to b, refusing one longer than max bytes.
 * Returns 0, or why not as an errno: the open or read error, EFBIG when the
 * file is longer than max, ENOMEM when memory ran out. b keeps what was read
 * either way (free it); on success it is NUL-terminated, even when empty.
 */
int mcps_file_read(mcps_buf *b, const char *path, size_t max);

/* The 1-based line of byte offset in text (len bytes), for a loader's error; *column (if not
 * NULL) gets the 1-based column in bytes. An offset past the end counts to the end. */
size_t mcps_file_line_at(const char *text, size_t len, size_t offset, size_t *column);

#endif
