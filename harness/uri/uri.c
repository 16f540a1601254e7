/*
 * uri.c - strict RFC 3986 URI references and RFC 8089 file URIs; see uri.h.
 *
 * The parser splits the reference with the regular-expression boundaries of
 * RFC 3986 appendix B (first ':' after a valid scheme, "//", '?', '#'), then
 * checks each component against its ABNF. Every routine here is one pass over
 * its input, and remove_dot_segments pops segments in amortized O(1), so
 * fuzzers can feed long inputs without quadratic cost.
 */
#include "uri/uri.h"

#include "base/buf.h"
#include "base/hex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef bool (*char_ok_fn)(unsigned char c);

static void fail(mcps_uri_error *err, size_t off, const char *reason)
{
    if (!err)
        return;
    err->offset = off;
    snprintf(err->reason, sizeof err->reason, "%s", reason);
}

static void fail_char(mcps_uri_error *err, size_t off, unsigned char c, const char *where)
{
    if (!err)
        return;
    err->offset = off;
    if (c == ' ')
        snprintf(err->reason, sizeof err->reason, "space in %s (write it as %%20)", where);
    else if (c < 0x20 || c == 0x7f)
        snprintf(err->reason, sizeof err->reason, "control character 0x%02X in %s", c, where);
    else if (c >= 0x80)
        snprintf(err->reason, sizeof err->reason,
                 "non-ASCII byte 0x%02X in %s (URIs percent-encode it)", c, where);
    else
        snprintf(err->reason, sizeof err->reason, "character '%c' not allowed in %s", c, where);
}

static bool is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static unsigned char to_lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

static bool is_sub_delim(unsigned char c)
{
    return c && strchr("!$&'()*+,;=", c) != NULL;
}

bool mcps_uri_is_unreserved(unsigned char c)
{
    return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

bool mcps_uri_is_reserved(unsigned char c)
{
    return is_sub_delim(c) || (c && strchr(":/?#[]@", c) != NULL);
}

static bool userinfo_ok(unsigned char c)
{
    return mcps_uri_is_unreserved(c) || is_sub_delim(c) || c == ':';
}

static bool reg_name_ok(unsigned char c)
{
    return mcps_uri_is_unreserved(c) || is_sub_delim(c);
}

static bool pchar_ok(unsigned char c)
{
    return userinfo_ok(c) || c == '@';
}

static bool path_ok(unsigned char c)
{
    return pchar_ok(c) || c == '/';
}

static bool query_ok(unsigned char c)
{
    return path_ok(c) || c == '?';
}

static bool is_pct(const char *s, size_t i, size_t end)
{
    return end - i >= 3 && s[i] == '%' && mcps_hex_byte(s + i + 1) >= 0;
}

/* s[b..e) must hold only characters ok() accepts, or %HH. */
static bool check_chars(const char *s, size_t b, size_t e, char_ok_fn ok, const char *where,
                        mcps_uri_error *err)
{
    for (size_t i = b; i < e; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '%') {
            if (!is_pct(s, i, e)) {
                fail(err, i, "'%' not followed by two hex digits (percent-encoding is %HH)");
                return false;
            }
            i += 2;
        } else if (!ok(c)) {
            fail_char(err, i, c, where);
            return false;
        }
    }
    return true;
}

static mcps_uri_part part_of(const char *s, size_t b, size_t e)
{
    return (mcps_uri_part){s + b, e - b};
}

/* Index of the ':' ending a valid scheme, or 0 when s does not start with one. */
static size_t scan_scheme(const char *s, size_t len)
{
    if (len == 0 || !is_alpha((unsigned char)s[0]))
        return 0;
    size_t i = 1;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        if (!(is_alpha(c) || is_digit(c) || c == '+' || c == '-' || c == '.'))
            break;
        i++;
    }
    return (i < len && s[i] == ':') ? i : 0;
}

/* dec-octet: 0-255 without leading zeros. */
static bool dec_octet(const char *s, size_t len)
{
    if (len == 0 || len > 3)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!is_digit((unsigned char)s[i]))
            return false;
    if (len > 1 && s[0] == '0')
        return false;
    int v = 0;
    for (size_t i = 0; i < len; i++)
        v = v * 10 + (s[i] - '0');
    return v <= 255;
}

static bool is_ipv4(const char *s, size_t len)
{
    size_t b = 0;
    int dots = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != '.')
            continue;
        if (!dec_octet(s + b, i - b))
            return false;
        if (i < len)
            dots++;
        b = i + 1;
    }
    return dots == 3;
}

/* One IPv6 piece at s[i..j): h16 or, when last, an IPv4 address (two groups). */
static int ipv6_piece(const char *s, size_t i, size_t j, bool last)
{
    if (memchr(s + i, '.', j - i))
        return (last && is_ipv4(s + i, j - i)) ? 2 : -1;
    if (j == i || j - i > 4)
        return -1;
    for (size_t k = i; k < j; k++)
        if (mcps_hex_value((unsigned char)s[k]) < 0)
            return -1;
    return 1;
}

/* RFC 3986 IPv6address; on failure *bad is the offset of the bad piece. */
static bool ipv6_valid(const char *s, size_t len, size_t *bad)
{
    size_t i = 0;
    int groups = 0;
    bool elided = false;
    *bad = 0;
    if (len >= 2 && s[0] == ':' && s[1] == ':') {
        elided = true;
        i = 2;
    }
    while (i < len) {
        size_t j = i;
        while (j < len && s[j] != ':')
            j++;
        int n = ipv6_piece(s, i, j, j == len);
        *bad = i;
        if (n < 0 || (groups += n) > 8)
            return false;
        if (j == len)
            break;
        if (j + 1 < len && s[j + 1] == ':') {
            if (elided)
                return false;
            elided = true;
            i = j + 2;
        } else {
            i = j + 1;
            *bad = i;
            if (i == len)
                return false;
        }
    }
    *bad = len;
    return elided ? groups <= 7 : groups == 8;
}

static bool ipvfuture_valid(const char *s, size_t len)
{
    size_t i = 1;
    while (i < len && mcps_hex_value((unsigned char)s[i]) >= 0)
        i++;
    if (i == 1 || i >= len || s[i] != '.' || i + 1 == len)
        return false;
    for (i++; i < len; i++)
        if (!userinfo_ok((unsigned char)s[i]))
            return false;
    return true;
}

static bool parse_ip_literal(const char *s, size_t b, size_t e, mcps_uri *out, mcps_uri_error *err)
{
    out->host = part_of(s, b, e);
    if (e > b && (s[b] == 'v' || s[b] == 'V')) {
        out->host_kind = MCPS_URI_HOST_IPVFUTURE;
        if (ipvfuture_valid(s + b, e - b))
            return true;
        fail(err, b, "invalid IPvFuture literal (expected v<hex>.<chars>)");
        return false;
    }
    out->host_kind = MCPS_URI_HOST_IPV6;
    const char *pct = memchr(s + b, '%', e - b);
    if (pct) {
        fail(err, (size_t)(pct - s), "IPv6 zone identifiers are not allowed by RFC 3986");
        return false;
    }
    size_t bad;
    if (ipv6_valid(s + b, e - b, &bad))
        return true;
    fail(err, b + bad, "invalid IPv6 address");
    return false;
}

static bool parse_port(const char *s, size_t b, size_t e, mcps_uri *out, mcps_uri_error *err)
{
    for (size_t i = b; i < e; i++) {
        if (!is_digit((unsigned char)s[i])) {
            fail(err, i, "port must be decimal digits only");
            return false;
        }
    }
    out->port = part_of(s, b, e);
    return true;
}

/* The host, and the port after it, in s[b..e). */
static bool parse_host_port(const char *s, size_t b, size_t e, mcps_uri *out, mcps_uri_error *err)
{
    if (b < e && s[b] == '[') {
        const char *close = memchr(s + b, ']', e - b);
        if (!close) {
            fail(err, b, "'[' opens an IP literal that is never closed with ']'");
            return false;
        }
        size_t c = (size_t)(close - s);
        if (!parse_ip_literal(s, b + 1, c, out, err))
            return false;
        if (c + 1 == e)
            return true;
        if (s[c + 1] != ':') {
            fail(err, c + 1, "expected ':' or the end of the authority after ']'");
            return false;
        }
        return parse_port(s, c + 2, e, out, err);
    }
    size_t c = b;
    while (c < e && s[c] != ':')
        c++;
    if (!check_chars(s, b, c, reg_name_ok, "host", err))
        return false;
    out->host = part_of(s, b, c);
    out->host_kind = is_ipv4(s + b, c - b) ? MCPS_URI_HOST_IPV4 : MCPS_URI_HOST_REG_NAME;
    return c == e || parse_port(s, c + 1, e, out, err);
}

static bool parse_authority(const char *s, size_t b, size_t e, mcps_uri *out, mcps_uri_error *err)
{
    out->authority = part_of(s, b, e);
    const char *at = memchr(s + b, '@', e - b);
    size_t hb = b;
    if (at) {
        hb = (size_t)(at - s);
        if (!check_chars(s, b, hb, userinfo_ok, "userinfo", err))
            return false;
        out->userinfo = part_of(s, b, hb);
        hb++;
    }
    return parse_host_port(s, hb, e, out, err);
}

static bool parse_path(const char *s, size_t b, size_t e, mcps_uri *out, mcps_uri_error *err)
{
    if (!check_chars(s, b, e, path_ok, "path", err))
        return false;
    out->path = part_of(s, b, e);
    if (out->scheme.ptr || out->authority.ptr)
        return true;
    for (size_t i = b; i < e && s[i] != '/'; i++) {
        if (s[i] == ':') {
            fail(err, i,
                 "':' in the first segment of a relative path (missing or invalid scheme?)");
            return false;
        }
    }
    return true;
}

size_t mcps_uri_scan_until(const char *s, size_t i, size_t len, const char *stops)
{
    while (i < len && (s[i] == '\0' || !strchr(stops, s[i])))
        i++;
    return i;
}

bool mcps_uri_parse(const char *s, size_t len, mcps_uri *out, mcps_uri_error *err)
{
    *out = (mcps_uri){0};
    out->path.ptr = s;
    if (err)
        *err = (mcps_uri_error){0};
    size_t pos = scan_scheme(s, len);
    if (pos)
        out->scheme = part_of(s, 0, pos++);
    if (len - pos >= 2 && s[pos] == '/' && s[pos + 1] == '/') {
        size_t e = mcps_uri_scan_until(s, pos + 2, len, "/?#");
        if (!parse_authority(s, pos + 2, e, out, err))
            return false;
        pos = e;
    }
    size_t e = mcps_uri_scan_until(s, pos, len, "?#");
    if (!parse_path(s, pos, e, out, err))
        return false;
    pos = e;
    if (pos < len && s[pos] == '?') {
        e = mcps_uri_scan_until(s, pos + 1, len, "#");
        if (!check_chars(s, pos + 1, e, query_ok, "query", err))
            return false;
        out->query = part_of(s, pos + 1, e);
        pos = e;
    }
    if (pos < len) {
        if (!check_chars(s, pos + 1, len, query_ok, "fragment", err))
            return false;
        out->fragment = part_of(s, pos + 1, len);
    }
    return true;
}

bool mcps_uri_validate(const char *s, size_t len, mcps_uri_error *err)
{
    mcps_uri u;
    if (!mcps_uri_parse(s, len, &u, err))
        return false;
    if (u.scheme.ptr)
        return true;
    fail(err, 0, "no scheme: a relative reference is not a URI");
    return false;
}

static bool first_segment_has_colon(mcps_uri_part p)
{
    for (size_t i = 0; i < p.len && p.ptr[i] != '/'; i++)
        if (p.ptr[i] == ':')
            return true;
    return false;
}

static void put_part(mcps_buf *b, mcps_uri_part p)
{
    mcps_buf_append(b, p.ptr, p.len);
}

static void recompose_into(mcps_buf *b, const mcps_uri *u)
{
    if (u->scheme.ptr) {
        put_part(b, u->scheme);
        mcps_buf_putc(b, ':');
    }
    if (u->authority.ptr) {
        mcps_buf_puts(b, "//");
        put_part(b, u->authority);
    } else if (u->path.len >= 2 && u->path.ptr[0] == '/' && u->path.ptr[1] == '/') {
        mcps_buf_puts(b, "/.");
    } else if (!u->scheme.ptr && first_segment_has_colon(u->path)) {
        mcps_buf_puts(b, "./");
    }
    put_part(b, u->path);
    if (u->query.ptr) {
        mcps_buf_putc(b, '?');
        put_part(b, u->query);
    }
    if (u->fragment.ptr) {
        mcps_buf_putc(b, '#');
        put_part(b, u->fragment);
    }
}

static char *take(mcps_buf *b, size_t *out_len)
{
    size_t n = b->len;
    char *s = mcps_buf_take(b);
    if (s && out_len)
        *out_len = n;
    return s;
}

char *mcps_uri_recompose(const mcps_uri *u, size_t *out_len)
{
    mcps_buf b = {0};
    recompose_into(&b, u);
    return take(&b, out_len);
}

/* Drop the last segment and its preceding '/' from out[0..o). */
static size_t pop_segment(const char *out, size_t o)
{
    while (o > 0 && out[o - 1] != '/')
        o--;
    return o > 0 ? o - 1 : 0;
}

static bool starts(const char *r, size_t rest, const char *lit)
{
    size_t n = strlen(lit);
    return rest >= n && memcmp(r, lit, n) == 0;
}

static bool equals(const char *r, size_t rest, const char *lit)
{
    return rest == strlen(lit) && memcmp(r, lit, rest) == 0;
}

/* RFC 3986 5.2.4, steps A-E in order; out must hold n bytes (it never grows). */
static size_t remove_dots_into(const char *in, size_t n, char *out)
{
    size_t i = 0, o = 0;
    while (i < n) {
        const char *r = in + i;
        size_t rest = n - i;
        if (starts(r, rest, "../")) {
            i += 3;
        } else if (starts(r, rest, "./") || starts(r, rest, "/./")) {
            i += 2;
        } else if (equals(r, rest, "/.")) {
            out[o++] = '/';
            i = n;
        } else if (starts(r, rest, "/../")) {
            o = pop_segment(out, o);
            i += 3;
        } else if (equals(r, rest, "/..")) {
            o = pop_segment(out, o);
            out[o++] = '/';
            i = n;
        } else if (equals(r, rest, ".") || equals(r, rest, "..")) {
            i = n;
        } else {
            size_t j = i + (r[0] == '/');
            while (j < n && in[j] != '/')
                j++;
            memcpy(out + o, r, j - i);
            o += j - i;
            i = j;
        }
    }
    return o;
}

char *mcps_uri_remove_dot_segments(const char *path, size_t len, size_t *out_len)
{
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    size_t n = remove_dots_into(path, len, out);
    out[n] = '\0';
    if (out_len)
        *out_len = n;
    return out;
}

/* Section 6.2.2.2: decode %HH of unreserved characters, uppercase the rest. */
static void put_pct_normalized(mcps_buf *b, mcps_uri_part p, bool lower)
{
    for (size_t i = 0; i < p.len; i++) {
        unsigned char c = (unsigned char)p.ptr[i];
        if (c == '%' && is_pct(p.ptr, i, p.len)) {
            unsigned char v = (unsigned char)mcps_hex_byte(p.ptr + i + 1);
            i += 2;
            if (mcps_uri_is_unreserved(v)) {
                mcps_buf_putc(b, (char)(lower ? to_lower(v) : v));
            } else {
                mcps_buf_printf(b, "%%%02X", v);
            }
            continue;
        }
        mcps_buf_putc(b, (char)(lower ? to_lower(c) : c));
    }
}

static bool part_equals_ci(mcps_uri_part p, const char *lit)
{
    size_t n = strlen(lit);
    if (p.len != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (to_lower((unsigned char)p.ptr[i]) != (unsigned char)lit[i])
            return false;
    return true;
}

/* Default port of the schemes MCPS_URI_NORM_SCHEME_BASED knows, or NULL. */
static const char *default_port(mcps_uri_part scheme)
{
    if (part_equals_ci(scheme, "http") || part_equals_ci(scheme, "ws"))
        return "80";
    if (part_equals_ci(scheme, "https") || part_equals_ci(scheme, "wss"))
        return "443";
    return NULL;
}

/* Port digits equal dflt as numbers (leading zeros ignored); empty counts too. */
static bool port_is_default(mcps_uri_part port, const char *dflt)
{
    size_t i = 0;
    while (i + 1 < port.len && port.ptr[i] == '0')
        i++;
    if (port.len == 0)
        return true;
    return port.len - i == strlen(dflt) && memcmp(port.ptr + i, dflt, port.len - i) == 0;
}

static void put_authority(mcps_buf *b, const mcps_uri *u, unsigned flags)
{
    if (u->userinfo.ptr) {
        put_pct_normalized(b, u->userinfo, false);
        mcps_buf_putc(b, '@');
    }
    bool literal = u->host_kind == MCPS_URI_HOST_IPV6 || u->host_kind == MCPS_URI_HOST_IPVFUTURE;
    if (literal)
        mcps_buf_putc(b, '[');
    put_pct_normalized(b, u->host, true);
    if (literal)
        mcps_buf_putc(b, ']');
    const char *dflt = default_port(u->scheme);
    bool drop = (flags & MCPS_URI_NORM_SCHEME_BASED) && dflt && port_is_default(u->port, dflt);
    if (u->port.ptr && !drop) {
        mcps_buf_putc(b, ':');
        put_part(b, u->port);
    }
}

typedef struct norm_bufs {
    mcps_buf scheme, authority, path, dotless, query, fragment;
} norm_bufs;

static void norm_bufs_free(norm_bufs *nb)
{
    mcps_buf *all[] = {&nb->scheme,  &nb->authority, &nb->path,
                       &nb->dotless, &nb->query,     &nb->fragment};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        mcps_buf_free(all[i]);
}

static mcps_uri_part buf_part(const mcps_buf *b)
{
    return (mcps_uri_part){b->data ? b->data : "", b->len};
}

static void normalize_path(norm_bufs *nb, mcps_uri *u, unsigned flags)
{
    put_pct_normalized(&nb->path, u->path, false);
    mcps_uri_part p = buf_part(&nb->path);
    if (u->scheme.ptr && mcps_buf_reserve(&nb->dotless, p.len)) {
        nb->dotless.len = remove_dots_into(p.ptr, p.len, nb->dotless.data);
        nb->dotless.data[nb->dotless.len] = '\0';
        p = buf_part(&nb->dotless);
    }
    bool http = default_port(u->scheme) != NULL;
    if ((flags & MCPS_URI_NORM_SCHEME_BASED) && http && u->authority.ptr && p.len == 0)
        p = (mcps_uri_part){"/", 1};
    u->path = p;
}

static void normalize_parts(norm_bufs *nb, mcps_uri *u, unsigned flags)
{
    if (u->scheme.ptr) {
        put_pct_normalized(&nb->scheme, u->scheme, true);
        u->scheme = buf_part(&nb->scheme);
    }
    if (u->authority.ptr) {
        put_authority(&nb->authority, u, flags);
        u->authority = buf_part(&nb->authority);
    }
    normalize_path(nb, u, flags);
    if (u->query.ptr) {
        put_pct_normalized(&nb->query, u->query, false);
        u->query = buf_part(&nb->query);
    }
    if (u->fragment.ptr) {
        put_pct_normalized(&nb->fragment, u->fragment, false);
        u->fragment = buf_part(&nb->fragment);
    }
}

char *mcps_uri_normalize(const char *s, size_t len, unsigned flags, size_t *out_len,
                         mcps_uri_error *err)
{
    mcps_uri u;
    if (!mcps_uri_parse(s, len, &u, err))
        return NULL;
    norm_bufs nb = {0};
    normalize_parts(&nb, &u, flags);
    bool oom = nb.scheme.oom || nb.authority.oom || nb.path.oom || nb.dotless.oom || nb.query.oom ||
               nb.fragment.oom;
    char *out = oom ? NULL : mcps_uri_recompose(&u, out_len);
    norm_bufs_free(&nb);
    if (!out)
        fail(err, 0, "out of memory");
    return out;
}

/* Section 5.2.3: base path up to its last '/', then the reference path. */
static void merge_paths(mcps_buf *b, const mcps_uri *base, mcps_uri_part ref)
{
    if (base->authority.ptr && base->path.len == 0) {
        mcps_buf_putc(b, '/');
    } else {
        size_t keep = base->path.len;
        while (keep > 0 && base->path.ptr[keep - 1] != '/')
            keep--;
        mcps_buf_append(b, base->path.ptr, keep);
    }
    put_part(b, ref);
}

/* Writes the dot-free form of p into b and returns it as a part. */
static mcps_uri_part dotless(mcps_buf *b, mcps_uri_part p)
{
    mcps_buf_clear(b);
    if (!mcps_buf_reserve(b, p.len))
        return (mcps_uri_part){"", 0};
    b->len = remove_dots_into(p.ptr, p.len, b->data);
    b->data[b->len] = '\0';
    return buf_part(b);
}

/* Section 5.2.2 for a reference without scheme or authority. */
static void resolve_path(mcps_uri *t, const mcps_uri *base, const mcps_uri *ref, mcps_buf *merged,
                         mcps_buf *out)
{
    t->authority = base->authority;
    if (ref->path.len == 0) {
        t->path = base->path;
        t->query = ref->query.ptr ? ref->query : base->query;
        return;
    }
    t->query = ref->query;
    if (ref->path.ptr[0] == '/') {
        t->path = dotless(out, ref->path);
        return;
    }
    merge_paths(merged, base, ref->path);
    t->path = dotless(out, buf_part(merged));
}

static void resolve_parts(mcps_uri *t, const mcps_uri *base, const mcps_uri *ref, mcps_buf *merged,
                          mcps_buf *out)
{
    *t = (mcps_uri){0};
    t->scheme = ref->scheme.ptr ? ref->scheme : base->scheme;
    if (ref->scheme.ptr || ref->authority.ptr) {
        t->authority = ref->authority;
        t->path = dotless(out, ref->path);
        t->query = ref->query;
    } else {
        resolve_path(t, base, ref, merged, out);
    }
    t->fragment = ref->fragment;
}

static bool parse_named(const char *s, size_t len, const char *name, mcps_uri *u,
                        mcps_uri_error *err)
{
    if (mcps_uri_parse(s, len, u, err))
        return true;
    if (err) {
        char reason[sizeof err->reason];
        snprintf(reason, sizeof reason, "%s: %.80s", name, err->reason);
        memcpy(err->reason, reason, sizeof reason);
    }
    return false;
}

char *mcps_uri_resolve(const char *base, size_t base_len, const char *ref, size_t ref_len,
                       size_t *out_len, mcps_uri_error *err)
{
    mcps_uri b, r, t;
    if (!parse_named(base, base_len, "base", &b, err) || !parse_named(ref, ref_len, "ref", &r, err))
        return NULL;
    if (!b.scheme.ptr) {
        fail(err, 0, "base: no scheme (resolution needs an absolute base URI)");
        return NULL;
    }
    mcps_buf merged = {0}, path = {0};
    resolve_parts(&t, &b, &r, &merged, &path);
    char *out = (merged.oom || path.oom) ? NULL : mcps_uri_recompose(&t, out_len);
    mcps_buf_free(&merged);
    mcps_buf_free(&path);
    if (!out)
        fail(err, 0, "out of memory");
    return out;
}

/* RFC 8089: no authority, an empty one, or "localhost"; nothing else is local. */
static bool file_authority_local(const mcps_uri *u, mcps_uri_error *err)
{
    if (!u->authority.ptr)
        return true;
    if (u->userinfo.ptr || u->port.ptr) {
        fail(err, (size_t)(u->authority.ptr - u->scheme.ptr), "file URI with userinfo or port");
        return false;
    }
    if (u->host.len == 0 || part_equals_ci(u->host, "localhost"))
        return true;
    fail(err, (size_t)(u->host.ptr - u->scheme.ptr),
         "file URI names a remote host; only local files map to paths");
    return false;
}

static bool file_uri_checks(const char *s, const mcps_uri *u, mcps_uri_error *err)
{
    if (!u->scheme.ptr || !part_equals_ci(u->scheme, "file")) {
        fail(err, 0, "not a file: URI");
        return false;
    }
    if (!file_authority_local(u, err))
        return false;
    if (u->query.ptr) {
        fail(err, (size_t)(u->query.ptr - s) - 1, "file URI with a query");
        return false;
    }
    if (u->path.len == 0 || u->path.ptr[0] != '/') {
        fail(err, (size_t)(u->path.ptr - s), "file URI path is not absolute");
        return false;
    }
    return true;
}

/* Percent-decodes a file URI path into b, refusing %00 and %2F. */
static bool decode_file_path(const char *s, mcps_uri_part p, mcps_buf *b, mcps_uri_error *err)
{
    for (size_t i = 0; i < p.len; i++) {
        if (p.ptr[i] != '%') {
            mcps_buf_putc(b, p.ptr[i]);
            continue;
        }
        int v = mcps_hex_byte(p.ptr + i + 1);
        size_t off = (size_t)(p.ptr - s) + i;
        if (v == 0 || v == '/') {
            fail(err, off,
                 v ? "encoded '/' (%2F) inside a path segment" : "encoded NUL (%00) in path");
            return false;
        }
        mcps_buf_putc(b, (char)v);
        i += 2;
    }
    return true;
}

char *mcps_uri_file_to_path(const char *s, size_t len, size_t *out_len, mcps_uri_error *err)
{
    mcps_uri u;
    if (!mcps_uri_parse(s, len, &u, err) || !file_uri_checks(s, &u, err))
        return NULL;
    mcps_buf b = {0};
    if (!decode_file_path(s, u.path, &b, err)) {
        mcps_buf_free(&b);
        return NULL;
    }
    char *out = take(&b, out_len);
    if (!out)
        fail(err, 0, "out of memory");
    return out;
}

char *mcps_uri_file_from_path(const char *path, size_t len, size_t *out_len, mcps_uri_error *err)
{
    if (len == 0 || path[0] != '/') {
        fail(err, 0, "path is not absolute");
        return NULL;
    }
    const char *nul = memchr(path, '\0', len);
    if (nul) {
        fail(err, (size_t)(nul - path), "NUL byte in path");
        return NULL;
    }
    mcps_buf b = {0};
    mcps_buf_puts(&b, "file://");
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)path[i];
        if (path_ok(c))
            mcps_buf_putc(&b, (char)c);
        else
            mcps_buf_printf(&b, "%%%02X", c);
    }
    char *out = take(&b, out_len);
    if (!out)
        fail(err, 0, "out of memory");
    return out;
}
