/*
 * fuzz_uri.c - fuzz target for RFC 3986 parse, normalize and resolve
 * (harness/uri/uri.h), with liburiparser as a differential oracle.
 *
 * Input: "BASE\nREF", or just REF, which is then resolved against RFC 3986
 * section 5.4's base "http://a/b/c/d;p?q". No prefix byte: URI seeds are text.
 *
 * Invariants, each an abort when broken:
 *  - parse never reads outside the input; rejection names an offset inside it;
 *  - parse then recompose gives the input back byte for byte;
 *  - normalize is idempotent, with and without scheme-based normalization, and
 *    its output is a reference of the same kind (a URI stays a URI);
 *  - remove_dot_segments agrees with a reference written from section 5.2.4;
 *  - resolve gives a URI; and, where RFC 3986 makes resolution independent of
 *    normalization (base path without dot segments, no percent-encoded '.'),
 *    normalize(resolve(B, R)) == normalize(resolve(normalize(B), normalize(R)));
 *  - file URIs: path -> URI -> path round-trips, and a URI -> path -> URI -> path too;
 *  - liburiparser accepts exactly the references we accept, splits them into the
 *    same components and resolves them to the same text, except for the
 *    differences listed in fuzz/README.md.
 */
#include "fuzz.h"

#include "uri/uri.h"

#include <string.h>
#include <uriparser/Uri.h>

#define URI_MAX_LEN 4096 /* keep in step with -max_len in fuzz/uri.options */

static const char rfc_base[] = "http://a/b/c/d;p?q";

bool fuzz_seed_wellformed(const uint8_t *data, size_t size, bool handwritten, const char **why)
{
    if (size > URI_MAX_LEN) {
        *why = "longer than -max_len in fuzz/uri.options: the fuzzer would cut it";
        return false;
    }
    const uint8_t *nl = memchr(data, '\n', size);
    if (handwritten && nl && memchr(nl + 1, '\n', size - (size_t)(nl + 1 - data))) {
        *why = "more than one newline: the format is BASE\\nREF or REF";
        return false;
    }
    return true;
}

/* ---- small helpers ------------------------------------------------------------ */

static bool same_text(const char *a, size_t an, const char *b, size_t bn)
{
    return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

static bool has_pct_dot(const char *s, size_t n)
{
    for (size_t i = 0; i + 2 < n; i++)
        if (s[i] == '%' && s[i + 1] == '2' && (s[i + 2] == 'e' || s[i + 2] == 'E'))
            return true;
    return false;
}

/* A path with a "." or ".." segment, which resolution treats specially. */
static bool has_dot_segment(mcps_uri_part p)
{
    size_t i = 0;
    while (i <= p.len) {
        size_t j = i;
        while (j < p.len && p.ptr[j] != '/')
            j++;
        size_t n = j - i;
        if ((n == 1 && p.ptr[i] == '.') || (n == 2 && p.ptr[i] == '.' && p.ptr[i + 1] == '.'))
            return true;
        i = j + 1;
    }
    return false;
}

/* ---- remove_dot_segments, written from RFC 3986 section 5.2.4 ------------------- */

static bool begins(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    return n >= m && memcmp(s, lit, m) == 0;
}

static bool is(const char *s, size_t n, const char *lit)
{
    return n == strlen(lit) && memcmp(s, lit, n) == 0;
}

/* The input buffer is rewritten in place as the RFC's steps replace prefixes. */
static size_t reference_remove_dots(const char *path, size_t len, char *out)
{
    char *in = malloc(len + 1);
    FUZZ_CHECK(in != NULL);
    memcpy(in, path, len);
    size_t b = 0, n = len, o = 0; /* input is in[b..b+n) */
    while (n > 0) {
        const char *s = in + b;
        if (begins(s, n, "../")) { /* A */
            b += 3, n -= 3;
        } else if (begins(s, n, "./")) {
            b += 2, n -= 2;
        } else if (begins(s, n, "/./")) { /* B */
            b += 2, n -= 2;
        } else if (is(s, n, "/.")) {
            in[b + 1] = '/';
            b += 1, n -= 1;
        } else if (begins(s, n, "/../") || is(s, n, "/..")) { /* C */
            size_t drop = n == 3 ? 2 : 3;
            b += drop, n -= drop;
            in[b] = '/';
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else if (is(s, n, ".") || is(s, n, "..")) { /* D */
            n = 0;
        } else { /* E: the first segment, with its leading '/', moves to the output */
            size_t k = s[0] == '/' ? 1 : 0;
            while (k < n && s[k] != '/')
                k++;
            memcpy(out + o, s, k);
            o += k;
            b += k, n -= k;
        }
    }
    free(in);
    return o;
}

static void check_remove_dots(const char *s, size_t n)
{
    size_t got_len = 0;
    char *got = mcps_uri_remove_dot_segments(s, n, &got_len);
    char *want = malloc(n + 1);
    FUZZ_CHECK(got != NULL && want != NULL);
    size_t want_len = reference_remove_dots(s, n, want);
    FUZZ_CHECK(same_text(got, got_len, want, want_len));
    free(got);
    free(want);
}

/* ---- our own invariants ----------------------------------------------------------- */

static void check_parse(const char *s, size_t n, mcps_uri *u, bool *ok)
{
    mcps_uri_error err;
    *ok = mcps_uri_parse(s, n, u, &err);
    if (!*ok) {
        FUZZ_CHECK(err.offset <= n && err.reason[0] != '\0');
        FUZZ_CHECK(!mcps_uri_validate(s, n, NULL));
        return;
    }
    FUZZ_CHECK(u->path.ptr != NULL);
    FUZZ_CHECK(mcps_uri_validate(s, n, NULL) == (u->scheme.ptr != NULL));
    size_t rn = 0;
    char *r = mcps_uri_recompose(u, &rn);
    FUZZ_CHECK(r != NULL && same_text(r, rn, s, n));
    free(r);
}

static void check_normalize(const char *s, size_t n, const mcps_uri *u)
{
    for (unsigned flags = 0; flags <= MCPS_URI_NORM_SCHEME_BASED; flags++) {
        size_t n1 = 0, n2 = 0;
        mcps_uri_error err;
        char *once = mcps_uri_normalize(s, n, flags, &n1, &err);
        FUZZ_CHECK(once != NULL);
        mcps_uri nu;
        FUZZ_CHECK(mcps_uri_parse(once, n1, &nu, NULL));
        FUZZ_CHECK((nu.scheme.ptr != NULL) == (u->scheme.ptr != NULL));
        FUZZ_CHECK((nu.query.ptr != NULL) == (u->query.ptr != NULL));
        FUZZ_CHECK((nu.fragment.ptr != NULL) == (u->fragment.ptr != NULL));
        char *twice = mcps_uri_normalize(once, n1, flags, &n2, &err);
        FUZZ_CHECK(twice != NULL);
        if (!same_text(once, n1, twice, n2)) {
            fprintf(stderr, "fuzz_uri: normalize is not idempotent (flags %u): \"%s\" -> \"%s\"\n",
                    flags, once, twice);
            abort();
        }
        free(once);
        free(twice);
    }
}

static char *normalized(const char *s, size_t n, size_t *len)
{
    char *r = mcps_uri_normalize(s, n, 0, len, NULL);
    FUZZ_CHECK(r != NULL);
    return r;
}

static void check_resolve(const char *b, size_t bn, const mcps_uri *bu, const char *r, size_t rn,
                          const mcps_uri *ru, char **resolved, size_t *resolved_len)
{
    mcps_uri_error err;
    char *t = mcps_uri_resolve(b, bn, r, rn, resolved_len, &err);
    *resolved = t;
    if (!bu->scheme.ptr) {
        FUZZ_CHECK(t == NULL);
        return;
    }
    FUZZ_CHECK(t != NULL);
    FUZZ_CHECK(mcps_uri_validate(t, *resolved_len, NULL)); /* a resolved reference is a URI */
    /* Where normalizing first cannot change the outcome, it must not. */
    if (has_dot_segment(bu->path) || has_pct_dot(b, bn) || has_pct_dot(r, rn))
        return;
    (void)ru;
    size_t l1, nb_len, nr_len, t2_len, l2;
    char *n1 = normalized(t, *resolved_len, &l1);
    char *nb = normalized(b, bn, &nb_len);
    char *nr = normalized(r, rn, &nr_len);
    char *t2 = mcps_uri_resolve(nb, nb_len, nr, nr_len, &t2_len, NULL);
    FUZZ_CHECK(t2 != NULL);
    char *n2 = normalized(t2, t2_len, &l2);
    if (!same_text(n1, l1, n2, l2)) {
        fprintf(stderr, "fuzz_uri: resolve and normalize do not commute: %s vs %s\n", n1, n2);
        abort();
    }
    free(n1);
    free(nb);
    free(nr);
    free(t2);
    free(n2);
}

static void check_file_paths(const char *s, size_t n)
{
    size_t pn = 0;
    char *path = mcps_uri_file_to_path(s, n, &pn, NULL);
    if (path) {
        FUZZ_CHECK(pn > 0 && path[0] == '/' && memchr(path, '\0', pn) == NULL);
        size_t un = 0, pn2 = 0;
        char *uri = mcps_uri_file_from_path(path, pn, &un, NULL);
        FUZZ_CHECK(uri != NULL && mcps_uri_validate(uri, un, NULL));
        char *again = mcps_uri_file_to_path(uri, un, &pn2, NULL);
        FUZZ_CHECK(again != NULL && same_text(path, pn, again, pn2));
        free(uri);
        free(again);
        free(path);
    }
    /* The input as a local path: any absolute path without NUL maps to a URI and back. */
    size_t un = 0;
    char *uri = mcps_uri_file_from_path(s, n, &un, NULL);
    FUZZ_CHECK((uri != NULL) == (n > 0 && s[0] == '/' && !memchr(s, '\0', n)));
    if (uri) {
        size_t bn = 0;
        char *back = mcps_uri_file_to_path(uri, un, &bn, NULL);
        FUZZ_CHECK(back != NULL && same_text(back, bn, s, n));
        free(back);
        free(uri);
    }
}

/* ---- the liburiparser oracle --------------------------------------------------- */

static bool range_is(UriTextRangeA r, mcps_uri_part p)
{
    if (!r.first || !p.ptr)
        return !r.first == !p.ptr;
    return same_text(r.first, (size_t)(r.afterLast - r.first), p.ptr, p.len);
}

/* uriparser keeps the path as segments; join them back the way RFC 3986 writes them. */
static bool path_from(const UriUriA *u, const UriPathSegmentA *head, mcps_uri_part p);

static bool path_is(const UriUriA *u, mcps_uri_part p)
{
    return path_from(u, u->pathHead, p);
}

/*
 * README: where a resolved path would start with an empty segment, liburiparser
 * often keeps a "." segment in front ("x:/a" with "../" gives "x:/./" where RFC
 * 3986 gives "x:/"; "http://h///a" with "c" gives "http://h/.///c"). After
 * remove_dot_segments of an absolute path no "." segment is left, so a leading
 * one from liburiparser is that guard and is skipped.
 */
static bool dotted_path_is(const UriUriA *u, mcps_uri_part p)
{
    const UriPathSegmentA *h = u->pathHead;
    if (!h || h->text.afterLast - h->text.first != 1 || h->text.first[0] != '.')
        return false;
    return path_from(u, h->next, p);
}

static bool path_from(const UriUriA *u, const UriPathSegmentA *head, mcps_uri_part p)
{
    char *buf = malloc(p.len + 2 + 64);
    FUZZ_CHECK(buf != NULL);
    size_t o = 0, cap = p.len + 2;
    bool ok = true;
    bool lead = u->hostText.first != NULL || u->absolutePath;
    if (u->absolutePath && !head)
        buf[o++] = '/';
    for (const UriPathSegmentA *seg = head; seg && ok; seg = seg->next) {
        size_t n = (size_t)(seg->text.afterLast - seg->text.first);
        if (seg != head || lead) {
            if (o + 1 > cap) {
                ok = false;
                break;
            }
            buf[o++] = '/';
        }
        if (o + n > cap) {
            ok = false;
            break;
        }
        memcpy(buf + o, seg->text.first, n);
        o += n;
    }
    ok = ok && same_text(buf, o, p.ptr, p.len);
    free(buf);
    return ok;
}

static void oracle_parse(const char *s, size_t n, bool ours_ok, const mcps_uri *u)
{
    UriUriA theirs;
    const char *where = NULL;
    int rc = uriParseSingleUriExA(&theirs, s, s + n, &where);
    if (rc != URI_SUCCESS) {
        if (ours_ok) {
            fprintf(stderr, "fuzz_uri: we accept, liburiparser rejects (at byte %ld)\n",
                    where ? (long)(where - s) : -1L);
            abort();
        }
        return;
    }
    if (!ours_ok) {
        fprintf(stderr, "fuzz_uri: liburiparser accepts, we reject\n");
        abort();
    }
    FUZZ_CHECK(range_is(theirs.scheme, u->scheme));
    FUZZ_CHECK(range_is(theirs.userInfo, u->userinfo));
    FUZZ_CHECK(range_is(theirs.hostText, u->host));
    FUZZ_CHECK(range_is(theirs.portText, u->port));
    FUZZ_CHECK(range_is(theirs.query, u->query));
    FUZZ_CHECK(range_is(theirs.fragment, u->fragment));
    FUZZ_CHECK(path_is(&theirs, u->path));
    FUZZ_CHECK((theirs.hostData.ip4 != NULL) == (u->host_kind == MCPS_URI_HOST_IPV4));
    FUZZ_CHECK((theirs.hostData.ip6 != NULL) == (u->host_kind == MCPS_URI_HOST_IPV6));
    FUZZ_CHECK((theirs.hostData.ipFuture.first != NULL) ==
               (u->host_kind == MCPS_URI_HOST_IPVFUTURE));
    uriFreeUriMembersA(&theirs);
}

/*
 * README: without an authority we write a path that starts with "//" as "/.//"
 * (RFC 3986 5.3 would print "x://y", which reads back with authority "y");
 * liburiparser keeps the "." segment in some cases and drops it in others.
 */
static bool unguarded_path_is(const UriUriA *u, const mcps_uri *t)
{
    if (t->authority.ptr || t->path.len < 4 || memcmp(t->path.ptr, "/.//", 4) != 0)
        return false;
    return path_is(u, (mcps_uri_part){t->path.ptr + 2, t->path.len - 2});
}

/*
 * README: liburiparser departs from RFC 3986 5.2.4 when the path that goes
 * through remove_dot_segments is rootless ("y:a/../../c" gives "y:c", not
 * "y:/c"; base "x:" with "./" + "/" keeps the "."), so resolution is compared
 * only when that path is absolute or empty (section 5.2.2).
 */
static bool dots_removed_from_absolute(const mcps_uri *base, const mcps_uri *ref)
{
    if (ref->scheme.ptr || ref->authority.ptr || ref->path.len == 0)
        return ref->path.len == 0 || ref->path.ptr[0] == '/';
    if (ref->path.ptr[0] == '/')
        return true;
    if (base->authority.ptr && base->path.len == 0)
        return true;
    return base->path.len > 0 && base->path.ptr[0] == '/';
}

/* Resolution compared component by component: uriparser re-prints IPv6 hosts in
 * full eight-group form when it recomposes, so whole strings would differ. */
static void oracle_resolve(const char *b, size_t bn, const char *r, size_t rn, const char *ours,
                           size_t ours_len)
{
    UriUriA base, ref, dest;
    const char *where;
    FUZZ_CHECK(uriParseSingleUriExA(&base, b, b + bn, &where) == URI_SUCCESS);
    FUZZ_CHECK(uriParseSingleUriExA(&ref, r, r + rn, &where) == URI_SUCCESS);
    FUZZ_CHECK(uriAddBaseUriExA(&dest, &ref, &base, URI_RESOLVE_STRICTLY) == URI_SUCCESS);
    mcps_uri t;
    FUZZ_CHECK(mcps_uri_parse(ours, ours_len, &t, NULL));
    bool same =
        range_is(dest.scheme, t.scheme) && range_is(dest.userInfo, t.userinfo) &&
        range_is(dest.hostText, t.host) && range_is(dest.portText, t.port) &&
        range_is(dest.query, t.query) && range_is(dest.fragment, t.fragment) &&
        (path_is(&dest, t.path) || unguarded_path_is(&dest, &t) || dotted_path_is(&dest, t.path));
    if (!same) {
        fprintf(stderr, "fuzz_uri: resolution differs from liburiparser's: ours \"%s\"\n", ours);
        abort();
    }
    uriFreeUriMembersA(&dest);
    uriFreeUriMembersA(&ref);
    uriFreeUriMembersA(&base);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > URI_MAX_LEN)
        return 0;
    const char *in = (const char *)data;
    const char *nl = memchr(in, '\n', size);
    const char *b = nl ? in : rfc_base;
    size_t bn = nl ? (size_t)(nl - in) : strlen(rfc_base);
    const char *r = nl ? nl + 1 : in;
    size_t rn = nl ? size - bn - 1 : size;

    mcps_uri bu, ru;
    bool b_ok, r_ok;
    check_parse(b, bn, &bu, &b_ok);
    check_parse(r, rn, &ru, &r_ok);
    oracle_parse(r, rn, r_ok, &ru);
    if (nl)
        oracle_parse(b, bn, b_ok, &bu);
    check_remove_dots(r, rn);
    check_file_paths(r, rn);
    if (r_ok)
        check_normalize(r, rn, &ru);
    if (b_ok && r_ok) {
        char *t = NULL;
        size_t tn = 0;
        check_resolve(b, bn, &bu, r, rn, &ru, &t, &tn);
        if (t && dots_removed_from_absolute(&bu, &ru))
            oracle_resolve(b, bn, r, rn, t, tn);
        free(t);
    }
    return 0;
}
