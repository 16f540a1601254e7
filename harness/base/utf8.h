/*
 * utf8.h - the one UTF-8 decoder of the tree. mcpspec judges whether targets
 * send valid UTF-8, so every layer that reads text must agree on what that is:
 * well-formed sequences as in Unicode table 3-7 (no overlongs, no surrogates,
 * nothing past U+10FFFF). Other files decode through these, never their own.
 */
#ifndef MCPS_BASE_UTF8_H
#define MCPS_BASE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The well-formed sequence at s[0..len): its length (1..4) with *cp set, or 0
 * when s does not start one (len 0 included), with *why saying what is wrong
 * (why may be NULL).
 */
size_t mcps_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp, const char **why);

/* Whether buf[0..len) is all well-formed; else the first bad byte's offset. */
bool mcps_utf8_valid(const char *buf, size_t len, size_t *bad_offset);

/* Code points in a NUL-terminated string of valid UTF-8 (C0 80, the codec's
 * stored U+0000, counts as one). */
size_t mcps_utf8_count(const char *s);

/* cp (at most U+10FFFF) into out; U+0000 as C0 80, as codec/json.h stores it
 * so C strings stay whole. Returns the bytes written, 1..4. */
size_t mcps_utf8_encode(uint32_t cp, unsigned char out[4]);

/* What a person may safely see in place of cp: C0 controls and DEL as their Control
 * Pictures (U+2400..), C1 controls and the noncharacters U+FFFE/U+FFFF as U+FFFD, the
 * rest as itself. The report writers and `mcpspec diff` show target text through it. */
static inline uint32_t mcps_utf8_visible(uint32_t cp)
{
    if (cp < 0x20)
        return 0x2400 + cp;
    if (cp == 0x7F)
        return 0x2421;
    if ((cp >= 0x80 && cp <= 0x9F) || cp == 0xFFFE || cp == 0xFFFF)
        return 0xFFFD;
    return cp;
}

#endif
