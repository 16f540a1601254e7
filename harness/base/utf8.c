/*
 * utf8.c - the one UTF-8 decoder; see utf8.h.
 */
#include "base/utf8.h"

static size_t utf8_bad(const char **why, const char *what)
{
    if (why)
        *why = what;
    return 0;
}

/* Which second byte is wrong for lead byte c, said as a person would. */
static const char *second_byte_problem(unsigned c, unsigned s1)
{
    if (s1 < 0x80 || s1 > 0xBF)
        return "truncated UTF-8 sequence";
    if (c == 0xED)
        return "UTF-16 surrogate encoded in UTF-8";
    if (c == 0xF4)
        return "code point above U+10FFFF";
    return "overlong UTF-8 encoding";
}

size_t mcps_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp, const char **why)
{
    if (len == 0)
        return utf8_bad(why, "truncated UTF-8 sequence");
    unsigned c = s[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xBF; /* the second byte's range (table 3-7) */
    uint32_t v;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c < 0xC2)
        return utf8_bad(why, c < 0xC0 ? "unexpected UTF-8 continuation byte"
                                      : "overlong UTF-8 encoding");
    if (c < 0xE0) {
        n = 2, v = c & 0x1F;
    } else if (c < 0xF0) {
        n = 3, v = c & 0x0F;
        lo = c == 0xE0 ? 0xA0 : lo;
        hi = c == 0xED ? 0x9F : hi;
    } else if (c < 0xF5) {
        n = 4, v = c & 0x07;
        lo = c == 0xF0 ? 0x90 : lo;
        hi = c == 0xF4 ? 0x8F : hi;
    } else {
        return utf8_bad(why, c < 0xF8 ? "code point above U+10FFFF"
                                      : "byte that never appears in UTF-8");
    }
    if (len < n)
        return utf8_bad(why, "truncated UTF-8 sequence");
    if (s[1] < lo || s[1] > hi)
        return utf8_bad(why, second_byte_problem(c, s[1]));
    for (size_t i = 1; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xBF)
            return utf8_bad(why, "truncated UTF-8 sequence");
        v = (v << 6) | (s[i] & 0x3F);
    }
    *cp = v;
    return n;
}

bool mcps_utf8_valid(const char *buf, size_t len, size_t *bad_offset)
{
    const unsigned char *s = (const unsigned char *)buf, *p = s, *end = s + len;
    while (p < end) {
        if (*p < 0x80) {
            p++;
            continue;
        }
        uint32_t cp;
        size_t n = mcps_utf8_decode(p, (size_t)(end - p), &cp, NULL);
        if (!n) {
            if (bad_offset)
                *bad_offset = (size_t)(p - s);
            return false;
        }
        p += n;
    }
    return true;
}

size_t mcps_utf8_count(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xC0) != 0x80;
    return n;
}

size_t mcps_utf8_encode(uint32_t cp, unsigned char out[4])
{
    if (cp == 0) {
        out[0] = 0xC0, out[1] = 0x80;
        return 2;
    }
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xC0 | (cp >> 6));
        out[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xE0 | (cp >> 12));
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | (cp >> 18));
    out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}
