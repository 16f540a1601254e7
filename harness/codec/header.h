/*
 * header.h - 2026-07-28's Value Encoding of the HTTP headers that mirror a
 * request's body (Mcp-Name, Mcp-Param-*): a value goes as is when it is plain
 * ASCII, else as "=?base64?{standard Base64 of its bytes}?=". One copy of the
 * rule for everyone who writes or judges such a header: the session (server
 * runs), the client checks, refclient.
 */
#ifndef MCPS_CODEC_HEADER_H
#define MCPS_CODEC_HEADER_H

#include <stdbool.h>

/* Whether value must be encoded: a byte outside 0x20..0x7E, a space at either end, or the
 * look of an encoded value itself ("=?base64?" ... "?="). */
bool mcps_header_needs_encoding(const char *value);

/* value as the header carries it (malloc'd; the caller frees it; NULL: out of memory). */
char *mcps_header_encode(const char *value);

#endif
