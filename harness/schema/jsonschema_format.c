/*
 * jsonschema_format.c - the cheap "format" checks: dates and times (RFC 3339),
 * email, hostname, uri and uri-reference (RFC 3986, codec/uri), uri-template
 * (RFC 6570, codec/uritemplate), json-pointer and relative-json-pointer,
 * duration (RFC 3339 appendix A), uuid, ipv4, ipv6, regex.
 * docs/json-schema-unsupported.md lists what the official suite asks beyond these.
 *
 * Format is an annotation in 2020-12 unless the caller opts in, so these run
 * only when asked. Each check is a hand-written scanner over ASCII (no regex,
 * no allocation); anything outside the grammar is invalid. Unknown formats are
 * not ours to judge and pass.
 */
#include "schema/jsonschema_internal.h"

#include "base/hex.h"

#include "uri/uri.h"
#include "uri/uritemplate.h"

#include <string.h>

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
    return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

/* n decimal digits at *p, their value in *v; advances *p. */
static bool digits(const char **p, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (!is_digit(**p))
            return false;
        *v = *v * 10 + (**p - '0');
    }
    return true;
}

static bool expect(const char **p, char c)
{
    if (**p != c)
        return false;
    (*p)++;
    return true;
}

/* ---- RFC 3339 ----------------------------------------------------------------- */

static int days_in_month(int y, int m)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : days[m - 1];
}

static bool full_date(const char **p)
{
    int y, m, d;
    return digits(p, 4, &y) && expect(p, '-') && digits(p, 2, &m) && expect(p, '-') &&
           digits(p, 2, &d) && m >= 1 && m <= 12 && d >= 1 && d <= days_in_month(y, m);
}

/* The offset in minutes east of UTC into *minutes. */
static bool time_offset(const char **p, int *minutes)
{
    int h, m;
    *minutes = 0;
    if (**p == 'Z' || **p == 'z') {
        (*p)++;
        return true;
    }
    if (**p != '+' && **p != '-')
        return false;
    int sign = *(*p)++ == '-' ? -1 : 1;
    if (!(digits(p, 2, &h) && expect(p, ':') && digits(p, 2, &m) && h <= 23 && m <= 59))
        return false;
    *minutes = sign * (h * 60 + m);
    return true;
}

static bool full_time(const char **p)
{
    int h, m, s, off;
    if (!(digits(p, 2, &h) && expect(p, ':') && digits(p, 2, &m) && expect(p, ':') &&
          digits(p, 2, &s) && h <= 23 && m <= 59 && s <= 60))
        return false;
    if (**p == '.') {
        (*p)++;
        if (!is_digit(**p))
            return false;
        while (is_digit(**p))
            (*p)++;
    }
    if (!time_offset(p, &off))
        return false;
    /* A leap second is the last second of a UTC day: 23:59:60 once the offset is taken off. */
    int utc = ((h * 60 + m - off) % 1440 + 1440) % 1440;
    return s < 60 || utc == 23 * 60 + 59;
}

static bool check_date(const char *s)
{
    return full_date(&s) && *s == '\0';
}

static bool check_time(const char *s)
{
    return full_time(&s) && *s == '\0';
}

static bool check_date_time(const char *s)
{
    return full_date(&s) && (*s == 'T' || *s == 't') && (s++, full_time(&s)) && *s == '\0';
}

/* ---- names and addresses ------------------------------------------------------- */

static bool check_hostname_n(const char *s, size_t n)
{
    size_t label = 0;
    if (n == 0 || n > 253)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.') {
            if (label == 0 || s[i - 1] == '-')
                return false;
            label = 0;
        } else if (is_alpha(c) || is_digit(c) || (c == '-' && label > 0)) {
            if (++label > 63)
                return false;
        } else {
            return false;
        }
    }
    return label > 0 && s[n - 1] != '-';
}

static bool check_hostname(const char *s)
{
    return check_hostname_n(s, strlen(s));
}

static bool check_ipv4_n(const char *s, size_t n)
{
    const char *p = s, *end = s + n;
    for (int part = 0; part < 4; part++) {
        if (part && (p >= end || *p++ != '.'))
            return false;
        int v = 0, len = 0;
        const char *start = p;
        while (p < end && is_digit(*p) && len < 4)
            v = v * 10 + (*p++ - '0'), len++;
        if (len == 0 || len > 3 || v > 255 || (len > 1 && *start == '0'))
            return false;
    }
    return p == end;
}

static bool check_ipv4(const char *s)
{
    return check_ipv4_n(s, strlen(s));
}

/* Groups of 1-4 hex digits split by ':', one "::" at most, an IPv4 tail allowed. */
static bool check_ipv6_n(const char *s, size_t n)
{
    const char *p = s, *end = s + n;
    int groups = 0;
    bool gap = false;
    if (n >= 2 && p[0] == ':' && p[1] == ':') {
        gap = true;
        p += 2;
    } else if (n && p[0] == ':') {
        return false;
    }
    while (p < end) {
        const char *start = p;
        while (p < end && mcps_hex_value(*p) >= 0 && p - start < 5)
            p++;
        if (p < end && *p == '.')
            return groups <= 6 && check_ipv4_n(start, (size_t)(end - start)) &&
                   (groups + 2 == 8 || (gap && groups + 2 < 8));
        if (p == start || p - start > 4)
            return false;
        groups++;
        if (p == end)
            break;
        if (*p++ != ':' || p == end)
            return false;
        if (*p == ':') {
            if (gap)
                return false;
            gap = true;
            p++;
        }
    }
    return gap ? groups < 8 : groups == 8;
}

static bool check_ipv6(const char *s)
{
    return check_ipv6_n(s, strlen(s));
}

/* RFC 5321 Quoted-string: printable ASCII, with \ quoting the next character. */
static bool email_quoted(const char *s, size_t n)
{
    for (size_t i = 1; i + 1 < n; i++) {
        if (s[i] < 0x20 || s[i] > 0x7E || s[i] == '"')
            return false;
        if (s[i] == '\\' && ++i + 1 >= n)
            return false;
    }
    return true;
}

static bool email_local(const char *s, size_t n)
{
    static const char atext[] = "!#$%&'*+/=?^_`{|}~-";
    if (n >= 2 && n <= 64 && s[0] == '"' && s[n - 1] == '"')
        return email_quoted(s, n);
    if (n == 0 || n > 64 || s[0] == '.' || s[n - 1] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.' ? s[i + 1] == '.' : !(is_alpha(c) || is_digit(c) || strchr(atext, c)))
            return false;
    }
    return true;
}

static bool email_domain(const char *s, size_t n)
{
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
        if (n > 7 && strncmp(s + 1, "IPv6:", 5) == 0)
            return check_ipv6_n(s + 6, n - 7);
        return check_ipv4_n(s + 1, n - 2);
    }
    return check_hostname_n(s, n);
}

static bool check_email(const char *s)
{
    const char *at = strrchr(s, '@');
    return at && email_local(s, (size_t)(at - s)) && email_domain(at + 1, strlen(at + 1));
}

/* ---- URIs and identifiers ------------------------------------------------------- */

static bool uri_char(const char **p)
{
    static const char allowed[] = "-._~:/?#[]@!$&'()*+,;=";
    char c = **p;
    if (c == '%') {
        if (mcps_hex_byte(*p + 1) < 0)
            return false;
        *p += 3;
        return true;
    }
    if (!(is_alpha(c) || is_digit(c) || (c && strchr(allowed, c))))
        return false;
    (*p)++;
    return true;
}

static bool check_uri_rfc3986(const char *s)
{
    return mcps_uri_validate(s, strlen(s), NULL);
}

static bool check_uri(const char *s)
{
    if (!check_uri_rfc3986(s))
        return false;
    const char *p = s;
    if (!is_alpha(*p))
        return false;
    while (is_alpha(*p) || is_digit(*p) || *p == '+' || *p == '-' || *p == '.')
        p++;
    if (*p++ != ':')
        return false;
    const char *hash = strchr(p, '#');
    if (hash && strchr(hash + 1, '#'))
        return false;
    while (*p)
        if (!uri_char(&p))
            return false;
    return true;
}

static bool check_uri_reference(const char *s)
{
    mcps_uri u;
    return mcps_uri_parse(s, strlen(s), &u, NULL);
}

static bool check_uri_template(const char *s)
{
    return mcps_tmpl_validate(s, strlen(s), NULL);
}

/* RFC 6901: "" or "/token" repeated, ~ only as ~0 or ~1. */
static bool check_json_pointer(const char *s)
{
    if (*s && *s != '/')
        return false;
    for (; *s; s++)
        if (*s == '~' && s[1] != '0' && s[1] != '1')
            return false;
    return true;
}

/* A non-negative integer without leading zeros, then "#" or a JSON Pointer. */
static bool check_relative_json_pointer(const char *s)
{
    if (!is_digit(*s) || (s[0] == '0' && is_digit(s[1])))
        return false;
    while (is_digit(*s))
        s++;
    if (*s == '+' || *s == '-') { /* an index adjustment: a non-zero integer */
        s++;
        if (!is_digit(*s) || *s == '0')
            return false;
        while (is_digit(*s))
            s++;
    }
    return (s[0] == '#' && s[1] == '\0') || check_json_pointer(s);
}

/* Fields "<digits><unit>" whose units are consecutive letters of units ("YMD": Y, YM,
 * YMD, M, MD or D); *count gets how many. False on a gap, a repeat or a stray letter. */
static bool duration_fields(const char **p, const char *units, int *count)
{
    const char *next = NULL; /* the unit that must come next, once one was seen */
    *count = 0;
    while (is_digit(**p)) {
        while (is_digit(**p))
            (*p)++;
        const char *at = **p ? strchr(units, **p) : NULL;
        if (!at || (next && at != next))
            return false;
        next = at + 1;
        (*p)++;
        (*count)++;
    }
    return true;
}

/* RFC 3339 appendix A: "P", then "<n>W" alone, or date fields and/or "T" and time fields. */
static bool check_duration(const char *s)
{
    int dates = 0, times = 0;
    if (*s++ != 'P')
        return false;
    const char *w = s;
    while (is_digit(*w))
        w++;
    if (w > s && w[0] == 'W')
        return w[1] == '\0';
    if (!duration_fields(&s, "YMD", &dates))
        return false;
    if (*s == 'T') {
        s++;
        if (!duration_fields(&s, "HMS", &times) || times == 0)
            return false;
    }
    return *s == '\0' && dates + times > 0;
}

static bool check_uuid(const char *s)
{
    static const int groups[] = {8, 4, 4, 4, 12};
    for (int g = 0; g < 5; g++) {
        if (g && *s++ != '-')
            return false;
        for (int i = 0; i < groups[g]; i++)
            if (mcps_hex_value(*s++) < 0)
                return false;
    }
    return *s == '\0';
}

static bool check_regex(const char *s)
{
    mcps_schema_regex *re = NULL;
    mcps_schema_regex_status st = mcps_schema_regex_compile(s, strlen(s), &re, NULL, 0);
    mcps_schema_regex_free(re);
    return st != MCPS_SCHEMA_REGEX_SYNTAX;
}

int mcps_si_format_check(const char *format, const char *s)
{
    static const struct {
        const char *name;
        bool (*check)(const char *);
    } formats[] = {
        {"date-time", check_date_time},
        {"date", check_date},
        {"time", check_time},
        {"email", check_email},
        {"hostname", check_hostname},
        {"ipv4", check_ipv4},
        {"ipv6", check_ipv6},
        {"uri", check_uri},
        {"uuid", check_uuid},
        {"regex", check_regex},
        {"uri-reference", check_uri_reference},
        {"uri-template", check_uri_template},
        {"json-pointer", check_json_pointer},
        {"relative-json-pointer", check_relative_json_pointer},
        {"duration", check_duration},
    };
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (strcmp(format, formats[i].name) == 0)
            return formats[i].check(s);
    return -1;
}
