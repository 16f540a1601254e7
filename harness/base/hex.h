/*
 * hex.h - the one hex-digit decoder of the tree (JSON \u escapes, URI percent
 * escapes, regex \x and \u, suite files, the reference server's file URIs).
 */
#ifndef MCPS_BASE_HEX_H
#define MCPS_BASE_HEX_H

#include <stdbool.h>

/* 0..15 for 0-9, a-f, A-F; -1 for anything else (any int, EOF included). */
int mcps_hex_value(int c);

/* The byte that the two hex digits at s[0], s[1] spell, or -1 when either is
 * not one (s[0] a NUL stops there). */
int mcps_hex_byte(const char *s);

/* Append s to out with every %XX decoded once; false on a malformed escape, an
 * encoded NUL (a path or pointer must not hide one) or when out ran out of memory. */
struct mcps_buf;
bool mcps_percent_decode(const char *s, struct mcps_buf *out);

#endif
