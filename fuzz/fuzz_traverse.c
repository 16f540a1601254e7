/*
 * fuzz_traverse.c - fuzz target for the traversal judge (harness/uri/traverse.h),
 * checked against an independent reference walk written here from the model
 * that traverse.h documents.
 *
 * Input: "ROOT\nCANDIDATE", or just CANDIDATE judged against file:///srv/data.
 *
 * The reference walk splits the candidate at RFC 3986 appendix B boundaries,
 * applies a decoding (percent-decoding once or twice, with or without
 * separators, overlong UTF-8 folding, NUL cut, '\' as '/', the naive "../"
 * strip, the os.path.join restart, or the raw text after the authority),
 * resolves "." and ".." by name and asks whether the result is the root or
 * below it. It runs for no decoding, every single decoding and every valid pair.
 *
 * Invariants, each an abort when broken:
 *  - INSIDE means no reference decoding escapes (the judge's pruning of
 *    irrelevant decodings never hides an escape);
 *  - ESCAPES names a decoding under which the reference escapes too, and none
 *    with fewer flags escapes (the judge reports the simplest trick), and its
 *    path is the reference's path under that decoding;
 *  - another scheme or host always escapes; no scheme or an empty candidate is
 *    INVALID; rfc3986_valid is mcps_uri_validate's verdict;
 *  - a root given as a local path judges like its file: URI;
 *  - every probe mcps_traverse_make_probes builds for a root (as anchor) leaves
 *    the anchor's directory.
 */
#include "fuzz.h"

#include "base/hex.h"
#include "uri/traverse.h"
#include "uri/uri.h"

#include <string.h>

#define TRAVERSE_MAX_LEN 4096 /* keep in step with -max_len in fuzz/traverse.options */
#define NDECODINGS       9

static const char default_root[] = "file:///srv/data";

bool fuzz_seed_wellformed(const uint8_t *data, size_t size, bool handwritten, const char **why)
{
    if (size > TRAVERSE_MAX_LEN) {
        *why = "longer than -max_len in fuzz/traverse.options: the fuzzer would cut it";
        return false;
    }
    const uint8_t *nl = memchr(data, '\n', size);
    if (handwritten && nl && memchr(nl + 1, '\n', size - (size_t)(nl + 1 - data))) {
        *why = "more than one newline: the format is ROOT\\nCANDIDATE or CANDIDATE";
        return false;
    }
    return true;
}

/* ---- a growable byte string -------------------------------------------------- */

typedef struct text {
    char *p;
    size_t n, cap;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        t->cap = (t->n + n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        FUZZ_CHECK(t->p != NULL);
    }
    if (n)
        memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n] = '\0';
}

static void set(text *t, const char *s, size_t n)
{
    t->n = 0;
    put(t, s, n);
}

/* ---- the model, written from traverse.h -------------------------------------- */

typedef struct parts {
    const char *s;
    size_t len, scheme_len, auth_b, auth_e, path_b, path_e, raw_b;
    bool authority;
} parts;

static bool alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static unsigned char lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

static bool ci_equal(const char *a, size_t an, const char *b)
{
    if (an != strlen(b))
        return false;
    for (size_t i = 0; i < an; i++)
        if (lower((unsigned char)a[i]) != (unsigned char)b[i])
            return false;
    return true;
}

static size_t stop_at(const char *s, size_t i, size_t len, const char *stops)
{
    while (i < len && !(s[i] != '\0' && strchr(stops, s[i])))
        i++;
    return i;
}

static bool split(const char *s, size_t len, parts *u)
{
    *u = (parts){.s = s, .len = len};
    if (len == 0 || !alpha((unsigned char)s[0]))
        return false;
    size_t i = 1;
    while (i < len && (alpha((unsigned char)s[i]) || (s[i] >= '0' && s[i] <= '9') || s[i] == '+' ||
                       s[i] == '-' || s[i] == '.'))
        i++;
    if (i >= len || s[i] != ':')
        return false;
    u->scheme_len = i;
    size_t pos = i + 1;
    u->raw_b = pos;
    if (len - pos >= 2 && s[pos] == '/' && s[pos + 1] == '/') {
        u->authority = true;
        u->auth_b = pos + 2;
        u->auth_e = stop_at(s, u->auth_b, len, "/?#");
        pos = u->auth_e;
        u->raw_b = ci_equal(s, u->scheme_len, "file") ? u->auth_b : u->auth_e;
    }
    u->path_b = pos;
    u->path_e = stop_at(s, pos, len, "?#");
    return true;
}

static void pct_pass(text *t, bool separators)
{
    size_t o = 0;
    for (size_t i = 0; i < t->n; i++) {
        int v = t->n - i >= 3 && t->p[i] == '%' ? mcps_hex_byte(t->p + i + 1) : -1;
        if (v >= 0) {
            if (separators || (v != '/' && v != '\\')) {
                t->p[o++] = (char)v;
                i += 2;
                continue;
            }
        }
        t->p[o++] = t->p[i];
    }
    t->n = o;
}

/* C0/C1 xx, E0 80..9F xx, F0 80..8F xx xx sequences whose value is below 0x80. */
static void fold_overlong(text *t)
{
    size_t o = 0;
    const unsigned char *s = (const unsigned char *)t->p;
    for (size_t i = 0; i < t->n; i++) {
        size_t need = (s[i] == 0xC0 || s[i] == 0xC1) ? 2 : s[i] == 0xE0 ? 3 : s[i] == 0xF0 ? 4 : 0;
        unsigned v = need == 2 ? (s[i] & 0x1Fu) : need == 3 ? (s[i] & 0x0Fu) : (s[i] & 0x07u);
        bool ok = need && t->n - i >= need;
        for (size_t k = 1; ok && k < need; k++) {
            ok = (s[i + k] & 0xC0) == 0x80;
            v = (v << 6) | (s[i + k] & 0x3Fu);
        }
        if (ok && v < 0x80) {
            t->p[o++] = (char)v;
            i += need - 1;
        } else {
            t->p[o++] = t->p[i];
        }
    }
    t->n = o;
}

static void decode(text *t, unsigned d)
{
    int passes = (d & MCPS_TRAVERSE_PCT2) ? 2 : (d & MCPS_TRAVERSE_PCT1) ? 1 : 0;
    for (int i = 0; i < passes; i++)
        pct_pass(t, d & MCPS_TRAVERSE_SEP);
    if (d & MCPS_TRAVERSE_OVERLONG)
        fold_overlong(t);
    if (d & MCPS_TRAVERSE_NUL) {
        char *z = memchr(t->p, '\0', t->n);
        if (z)
            t->n = (size_t)(z - t->p);
    }
    if (d & MCPS_TRAVERSE_BACKSLASH)
        for (size_t i = 0; i < t->n; i++)
            if (t->p[i] == '\\')
                t->p[i] = '/';
    if (d & MCPS_TRAVERSE_STRIP) { /* one left-to-right pass of replace("../", "") */
        size_t o = 0;
        for (size_t i = 0; i < t->n; i++) {
            if (t->n - i >= 3 && memcmp(t->p + i, "../", 3) == 0) {
                i += 2;
                continue;
            }
            t->p[o++] = t->p[i];
        }
        t->n = o;
    }
}

/* "/a/b" with the filesystem root spelled ""; relative text starts from base. */
static void walk(const char *s, size_t n, const text *base, text *out)
{
    out->n = 0;
    put(out, "", 0);
    if ((n == 0 || s[0] != '/') && base)
        put(out, base->p, base->n);
    for (size_t i = 0; i <= n;) {
        size_t j = i;
        while (j < n && s[j] != '/')
            j++;
        if (j - i == 2 && s[i] == '.' && s[i + 1] == '.') {
            while (out->n > 0 && out->p[out->n - 1] != '/')
                out->n--;
            if (out->n > 0)
                out->n--;
        } else if (j > i && !(j - i == 1 && s[i] == '.')) {
            put(out, "/", 1);
            put(out, s + i, j - i);
        }
        i = j + 1;
    }
}

static bool below(const text *root, const text *p)
{
    if (root->n == 0)
        return true;
    return p->n >= root->n && memcmp(p->p, root->p, root->n) == 0 &&
           (p->n == root->n || p->p[root->n] == '/');
}

typedef struct model {
    parts root, cand;
    text rt, ct, rp, cp;
} model;

static void source(const parts *u, unsigned d, text *t)
{
    size_t b = (d & MCPS_TRAVERSE_RAW) ? u->raw_b : u->path_b;
    size_t e = (d & MCPS_TRAVERSE_RAW) ? u->len : u->path_e;
    set(t, u->s + b, e - b);
}

/* Does the candidate leave the root under decoding d? Leaves the paths in m->rp, m->cp. */
static bool escapes(model *m, unsigned d)
{
    source(&m->root, d, &m->rt);
    source(&m->cand, d, &m->ct);
    decode(&m->rt, d);
    decode(&m->ct, d);
    size_t skip = 0;
    if (d & MCPS_TRAVERSE_ABSJOIN) { /* "<root>//x" restarts at "/x" */
        size_t r = m->rt.n;
        while (r > 0 && m->rt.p[r - 1] == '/')
            r--;
        if (m->ct.n >= r + 2 && (r == 0 || memcmp(m->ct.p, m->rt.p, r) == 0) && m->ct.p[r] == '/' &&
            m->ct.p[r + 1] == '/')
            skip = r + 1;
    }
    /* A relative candidate is opened from the root, unless the root's own text is relative
     * too (RAW on "file://host/..."): then both start from the same unknown directory. */
    bool root_absolute = m->rt.n > 0 && m->rt.p[0] == '/';
    walk(m->rt.p, m->rt.n, NULL, &m->rp);
    walk(m->ct.p + skip, m->ct.n - skip, root_absolute ? &m->rp : NULL, &m->cp);
    return !below(&m->rp, &m->cp);
}

static void authority_key(const parts *u, text *key)
{
    set(key, u->authority ? u->s + u->auth_b : "", u->authority ? u->auth_e - u->auth_b : 0);
    pct_pass(key, true);
    for (size_t i = 0; i < key->n; i++)
        key->p[i] = (char)lower((unsigned char)key->p[i]);
    if (ci_equal(u->s, u->scheme_len, "file") && key->n == 9 && !memcmp(key->p, "localhost", 9))
        key->n = 0;
}

static bool elsewhere(model *m)
{
    if (m->root.scheme_len != m->cand.scheme_len)
        return true;
    for (size_t i = 0; i < m->root.scheme_len; i++)
        if (lower((unsigned char)m->root.s[i]) != lower((unsigned char)m->cand.s[i]))
            return true;
    authority_key(&m->root, &m->rp);
    authority_key(&m->cand, &m->cp);
    return m->rp.n != m->cp.n || (m->rp.n && memcmp(m->rp.p, m->cp.p, m->rp.n) != 0);
}

/* The root as the judge sees it: scheme ":" ["//" authority] path, file: local as "". */
static bool canonical_root(const char *root, size_t len, text *out)
{
    mcps_uri u;
    if (!mcps_uri_validate(root, len, NULL) || !mcps_uri_parse(root, len, &u, NULL))
        return false;
    if (u.path.len == 0 || u.path.ptr[0] != '/')
        return false;
    set(out, root, u.scheme.len + 1);
    bool local = ci_equal(u.scheme.ptr, u.scheme.len, "file") && !u.userinfo.ptr && !u.port.ptr &&
                 (u.host.len == 0 || ci_equal(u.host.ptr, u.host.len, "localhost"));
    if (u.authority.ptr) {
        put(out, "//", 2);
        if (!local)
            put(out, u.authority.ptr, u.authority.len);
    }
    put(out, u.path.ptr, u.path.len);
    return true;
}

static bool valid_decoding(unsigned d)
{
    if ((d & MCPS_TRAVERSE_PCT1) && (d & MCPS_TRAVERSE_PCT2))
        return false;
    return !(d & MCPS_TRAVERSE_SEP) || (d & (MCPS_TRAVERSE_PCT1 | MCPS_TRAVERSE_PCT2));
}

static int flags(unsigned d)
{
    int n = 0;
    for (; d; d &= d - 1)
        n++;
    return n;
}

/* The judge's display of a path: "/" for the root, control bytes as %HH. */
static bool shown_as(const text *p, const char *shown)
{
    char buf[MCPS_TRAVERSE_PATH_MAX];
    size_t o = 0;
    if (p->n == 0)
        buf[o++] = '/';
    for (size_t i = 0; i < p->n; i++) {
        unsigned char c = (unsigned char)p->p[i];
        if (o + 4 >= sizeof buf - 4)
            return true; /* long paths are cut; not compared */
        if (c < 0x20 || c == 0x7f)
            o += (size_t)snprintf(buf + o, 4, "%%%02X", c);
        else
            buf[o++] = (char)c;
    }
    buf[o] = '\0';
    return strcmp(buf, shown) == 0;
}

/* ---- checks ------------------------------------------------------------------ */

static void check_against_model(const char *root, size_t rn, const char *cand, size_t cn,
                                const mcps_traverse_result *res)
{
    model m = {0};
    text canon = {0};
    bool root_ok = canonical_root(root, rn, &canon);
    if (!root_ok || cn == 0 || !split(cand, cn, &m.cand)) {
        FUZZ_CHECK(res->verdict == MCPS_TRAVERSE_INVALID);
        free(canon.p);
        return;
    }
    FUZZ_CHECK(split(canon.p, canon.n, &m.root));
    if (elsewhere(&m)) {
        FUZZ_CHECK(res->verdict == MCPS_TRAVERSE_ESCAPES && res->decoding == 0);
    } else {
        FUZZ_CHECK(res->verdict != MCPS_TRAVERSE_INVALID);
        int simplest = 99;
        unsigned simplest_d = 0;
        for (unsigned a = 0; a <= NDECODINGS; a++) {
            for (unsigned b = a; b <= NDECODINGS; b++) {
                unsigned d = (a ? 1u << (a - 1) : 0) | (b ? 1u << (b - 1) : 0);
                if (!valid_decoding(d))
                    continue;
                if (flags(d) < simplest && escapes(&m, d)) {
                    simplest = flags(d);
                    simplest_d = d;
                }
            }
        }
        if (res->verdict == MCPS_TRAVERSE_INSIDE) {
            if (simplest != 99) {
                char name[96];
                fprintf(stderr, "fuzz_traverse: judged inside, but decoding %s escapes\n",
                        mcps_traverse_decoding_name(simplest_d, name, sizeof name));
                abort();
            }
            escapes(&m, MCPS_TRAVERSE_PCT1);
            FUZZ_CHECK(shown_as(&m.cp, res->path));
        } else {
            FUZZ_CHECK(res->verdict == MCPS_TRAVERSE_ESCAPES);
            FUZZ_CHECK(valid_decoding(res->decoding));
            FUZZ_CHECK(escapes(&m, res->decoding));
            FUZZ_CHECK(shown_as(&m.cp, res->path));
            FUZZ_CHECK(flags(res->decoding) <= simplest);
        }
    }
    free(canon.p);
    free(m.rt.p);
    free(m.ct.p);
    free(m.rp.p);
    free(m.cp.p);
}

/* Every probe must leave the anchor's directory (its path up to the last '/'). */
static void check_probes(const char *anchor, size_t an)
{
    mcps_traverse_probes probes;
    mcps_uri_error err;
    if (!mcps_traverse_make_probes(anchor, an, &probes, &err))
        return;
    mcps_uri u;
    FUZZ_CHECK(mcps_uri_parse(anchor, an, &u, NULL));
    size_t dir_len = u.path.len;
    while (dir_len > 0 && u.path.ptr[dir_len - 1] != '/')
        dir_len--;
    FUZZ_CHECK(dir_len > 0);
    text root = {0}, dir = {0}, target = {0}, decoded = {0};
    set(&root, anchor, (size_t)(u.path.ptr - anchor) + dir_len);
    /* They aim at /etc/passwd (or /proc/version from under /etc): a directory that
     * holds the target, or whose dot segments already climb, cannot be left that way. */
    set(&decoded, u.path.ptr, dir_len);
    pct_pass(&decoded, true);
    walk(decoded.p, decoded.n, NULL, &dir);
    bool unreachable = false;
    for (size_t i = 0; i < decoded.n; i++)
        if (decoded.p[i] == '.' && (i == 0 || decoded.p[i - 1] == '/') &&
            (i + 1 == decoded.n || decoded.p[i + 1] == '/' ||
             (decoded.p[i + 1] == '.' && (i + 2 == decoded.n || decoded.p[i + 2] == '/'))))
            unreachable = true;
    /* A server that strips only "file:" reads "file://host/dir/" as the directory "host/dir/":
     * with a host named "etc", the probes' target is that very directory. */
    text hosted = {0}, hosted_dir = {0};
    char *joined = malloc(u.host.len + dir_len + 2);
    FUZZ_CHECK(joined != NULL);
    joined[0] = '/';
    memcpy(joined + 1, u.host.ptr ? u.host.ptr : "", u.host.len);
    memcpy(joined + 1 + u.host.len, u.path.ptr, dir_len);
    set(&hosted, joined, u.host.len + dir_len + 1);
    free(joined);
    pct_pass(&hosted, true);
    walk(hosted.p, hosted.n, NULL, &hosted_dir);
    walk("/etc/passwd", 11, NULL, &target);
    unreachable =
        unreachable || below(&dir, &target) || (u.host.len && below(&hosted_dir, &target));
    walk("/proc/version", 13, NULL, &target);
    unreachable =
        unreachable || below(&dir, &target) || (u.host.len && below(&hosted_dir, &target));
    free(hosted.p);
    free(hosted_dir.p);
    /* A directory with bytes that decodings rewrite ("%00", '\\', overlong UTF-8,
     * or ".." inside a name such as "...", which the naive strip also eats) can
     * defeat a trick that relies on the same decoding; plain ".." still works. */
    bool plain = true;
    for (size_t i = 0; i < dir_len; i++) {
        unsigned char c = (unsigned char)u.path.ptr[i];
        plain = plain && c != '%' && c != '\\' && c < 0x80 &&
                !(c == '.' && i + 1 < dir_len && u.path.ptr[i + 1] == '.');
    }
    for (size_t i = 0; i < probes.count; i++) {
        const mcps_traverse_probe *p = &probes.items[i];
        FUZZ_CHECK(p->uri && p->trick && p->len == strlen(p->uri));
        mcps_traverse_result res;
        mcps_traverse_judge(root.p, root.n, p->uri, p->len, &res);
        bool must = !unreachable && (plain || strcmp(p->trick, "dotdot") == 0);
        if (must && res.verdict != MCPS_TRAVERSE_ESCAPES) {
            fprintf(stderr, "fuzz_traverse: probe %s (%s) does not leave %s\n", p->uri, p->trick,
                    root.p);
            abort();
        }
    }
    free(root.p);
    free(dir.p);
    free(target.p);
    free(decoded.p);
    mcps_traverse_probes_free(&probes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > TRAVERSE_MAX_LEN)
        return 0;
    const char *in = (const char *)data;
    const char *nl = memchr(in, '\n', size);
    const char *root = nl ? in : default_root;
    size_t rn = nl ? (size_t)(nl - in) : strlen(default_root);
    const char *cand = nl ? nl + 1 : in;
    size_t cn = nl ? size - rn - 1 : size;

    mcps_traverse_result res;
    mcps_traverse_verdict v = mcps_traverse_judge(root, rn, cand, cn, &res);
    FUZZ_CHECK(v == res.verdict);
    FUZZ_CHECK(memchr(res.path, '\0', sizeof res.path) &&
               memchr(res.reason, '\0', sizeof res.reason));
    FUZZ_CHECK(res.rfc3986_valid == mcps_uri_validate(cand, cn, NULL));
    if (v == MCPS_TRAVERSE_INVALID)
        FUZZ_CHECK(res.reason[0] != '\0');
    char name[96];
    FUZZ_CHECK(strlen(mcps_traverse_decoding_name(res.decoding, name, sizeof name)) > 0);

    if (rn > 0 && root[0] == '/') {
        /* A local-path root judges exactly like its file: URI. */
        size_t un = 0;
        char *uri = mcps_uri_file_from_path(root, rn, &un, NULL);
        if (!uri) {
            FUZZ_CHECK(v == MCPS_TRAVERSE_INVALID);
            return 0;
        }
        mcps_traverse_result again;
        mcps_traverse_judge(uri, un, cand, cn, &again);
        FUZZ_CHECK(again.verdict == res.verdict && again.decoding == res.decoding);
        check_against_model(uri, un, cand, cn, &res);
        free(uri);
        return 0;
    }
    check_against_model(root, rn, cand, cn, &res);
    if (nl)
        check_probes(root, rn);
    return 0;
}
