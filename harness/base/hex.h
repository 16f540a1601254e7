/*
 * hex.h - the one hex-digit decoder of the tree (JSON \u escapes, URI percent
 * escapes, regex \x and \u, suite files, the reference server's file URIs).
 */
#ifndef MCPS_BASE_HEX_H
#define MCPS_BASE_HEX_H

/* 0..15 for 0-9, a-f, A-F; -1 for anything else (any int, EOF included). */
int mcps_hex_value(int c);

/* The byte that the two hex digits at s[0], s[1] spell, or -1 when either is
 * not one (s[0] a NUL stops there). */
int mcps_hex_byte(const char *s);

#endif
