/*
 * rev.c - protocol revision names and sets; see rev.h.
 */
#include "codec/rev.h"

#include <string.h>

static const char *const rev_names[MCPS_REV_COUNT] = {
    "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28",
};

const char *mcps_rev_name(mcps_rev rev)
{
    if (rev < 0 || rev >= MCPS_REV_COUNT)
        return "none";
    return rev_names[rev];
}

mcps_rev mcps_rev_parse(const char *s)
{
    for (int r = 0; r < MCPS_REV_COUNT; r++)
        if (s && strcmp(s, rev_names[r]) == 0)
            return (mcps_rev)r;
    return MCPS_REV_NONE;
}

bool mcps_rev_is_handshake(mcps_rev rev)
{
    return rev >= MCPS_REV_2024_11_05 && rev < MCPS_REV_2026_07_28;
}

bool mcps_rev_set_has(mcps_rev_set set, mcps_rev rev)
{
    return rev >= 0 && rev < MCPS_REV_COUNT && (set & MCPS_REV_BIT(rev));
}

/* Parse a revision name of exactly 10 characters at s. */
static mcps_rev rev_at(const char *s, size_t n)
{
    char name[11];
    if (n != 10)
        return MCPS_REV_NONE;
    memcpy(name, s, 10);
    name[10] = '\0';
    return mcps_rev_parse(name);
}

static size_t trimmed(const char **s, size_t n)
{
    while (n && (**s == ' ' || **s == '\t')) {
        (*s)++;
        n--;
    }
    while (n && ((*s)[n - 1] == ' ' || (*s)[n - 1] == '\t'))
        n--;
    return n;
}

/* One item of a comma list: "X", "X+" or "X..Y". */
static bool parse_item(const char *s, size_t n, mcps_rev_set *out)
{
    n = trimmed(&s, n);
    const char *dots = NULL;
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == '.' && s[i + 1] == '.')
            dots = s + i;
    mcps_rev lo, hi;
    if (n && s[n - 1] == '+') {
        lo = rev_at(s, n - 1);
        hi = MCPS_REV_COUNT - 1;
    } else if (dots) {
        lo = rev_at(s, (size_t)(dots - s));
        hi = rev_at(dots + 2, n - (size_t)(dots + 2 - s));
    } else {
        lo = hi = rev_at(s, n);
    }
    if (lo == MCPS_REV_NONE || hi == MCPS_REV_NONE || hi < lo)
        return false;
    for (int r = lo; r <= (int)hi; r++)
        *out |= MCPS_REV_BIT(r);
    return true;
}

bool mcps_rev_set_parse(const char *s, mcps_rev_set *out)
{
    *out = 0;
    if (strcmp(s, "all") == 0) {
        *out = MCPS_REV_ALL;
        return true;
    }
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        if (!parse_item(s, n, out))
            return false;
        if (!comma)
            return true;
        s = comma + 1;
    }
}
