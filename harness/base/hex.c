/*
 * hex.c - hex digits; see hex.h.
 */
#include "base/hex.h"

int mcps_hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int mcps_hex_byte(const char *s)
{
    int hi = mcps_hex_value((unsigned char)s[0]);
    if (hi < 0)
        return -1;
    int lo = mcps_hex_value((unsigned char)s[1]);
    return lo < 0 ? -1 : hi * 16 + lo;
}
