/*
 * traverse.c - lexical path-traversal judge and probe generator; see traverse.h.
 *
 * Each decoding is a pipeline of in-place steps that only ever shrink the
 * text (percent passes and overlong fold, computed once per judge for each of
 * the 20 combinations that need them; then NUL cut, '\' to '/', "../" strip),
 * an optional restart after the root prefix and one lexical resolution pass,
 * so judging costs O(n) per decoding. Decodings whose trigger bytes are absent
 * from both root and candidate are skipped, and the search stops at the first
 * escape, tried in order of fewest flags so the report names the simplest.
 */
#include "uri/traverse.h"
#include "uri/uri.h"

#include "base/buf.h"
#include "base/hex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALL_DECODINGS 0x1ffu

/* A URI split leniently, the way a forgiving server would; offsets into s. */
typedef struct split {
    const char *s;
    size_t len;
    size_t scheme_len;
    bool has_authority;
    size_t auth_b, auth_e;
    size_t path_b, path_e;
    size_t raw_b; /* where RAW takes the path from */
} split;

/* RAW x {none, pct1, pct1+sep, pct2, pct2+sep} x OVERLONG: the costly first steps. */
#define NVARIANTS 20

/* A URI's text after the costly steps of each decoding, computed once per judge. */
typedef struct variants {
    mcps_buf text[NVARIANTS];
    bool ready[NVARIANTS];
} variants;

typedef struct judge_ctx {
    split root, cand;
    variants root_v, cand_v;
    mcps_buf work;      /* candidate text through the pipeline */
    mcps_buf root_text; /* root text through the pipeline */
    mcps_buf root_path; /* root resolved under the current decoding */
    mcps_buf cand_path; /* candidate resolved under the current decoding */
    bool oom;
} judge_ctx;

static unsigned char to_lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

static bool is_scheme_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '-' || c == '.';
}

static size_t scheme_length(const char *s, size_t len)
{
    if (len == 0 || !((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z'))
        return 0;
    size_t i = 1;
    while (i < len && is_scheme_char((unsigned char)s[i]))
        i++;
    return (i < len && s[i] == ':') ? i : 0;
}

static bool scheme_is_file(const split *u)
{
    const char *f = "file";
    if (u->scheme_len != 4)
        return false;
    for (size_t i = 0; i < 4; i++)
        if (to_lower((unsigned char)u->s[i]) != (unsigned char)f[i])
            return false;
    return true;
}

/* RFC 3986 appendix B boundaries, without judging the characters. */
static bool split_uri(const char *s, size_t len, split *u)
{
    *u = (split){.s = s, .len = len};
    u->scheme_len = scheme_length(s, len);
    if (!u->scheme_len)
        return false;
    size_t pos = u->scheme_len + 1;
    u->raw_b = pos;
    if (len - pos >= 2 && s[pos] == '/' && s[pos + 1] == '/') {
        u->has_authority = true;
        u->auth_b = pos + 2;
        u->auth_e = mcps_uri_scan_until(s, u->auth_b, len, "/?#");
        pos = u->auth_e;
        u->raw_b = scheme_is_file(u) ? u->auth_b : u->auth_e;
    }
    u->path_b = pos;
    u->path_e = mcps_uri_scan_until(s, pos, len, "?#");
    return true;
}

/* One lenient percent-decoding pass in place; returns the new length. */
static size_t pct_decode(char *s, size_t n, bool sep)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && n - i >= 3 && mcps_hex_byte(s + i + 1) >= 0) {
            int v = mcps_hex_byte(s + i + 1);
            if (sep || (v != '/' && v != '\\')) {
                s[o++] = (char)v;
                i += 2;
                continue;
            }
        }
        s[o++] = s[i];
    }
    return o;
}

/* Length of an overlong UTF-8 sequence at s[i] that encodes ASCII, else 0. */
static size_t overlong_len(const unsigned char *s, size_t i, size_t n, unsigned char *ascii)
{
    size_t need = s[i] >= 0xF0 ? 4 : s[i] >= 0xE0 ? 3 : s[i] >= 0xC0 ? 2 : 0;
    if (need == 0 || s[i] > 0xF0 || (s[i] > 0xE0 && s[i] < 0xF0) || (s[i] > 0xC1 && s[i] < 0xE0) ||
        n - i < need)
        return 0;
    unsigned v = s[i] & (need == 2 ? 0x1Fu : need == 3 ? 0x0Fu : 0x07u);
    for (size_t k = 1; k < need; k++) {
        if ((s[i + k] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i + k] & 0x3Fu);
    }
    if (v >= 0x80)
        return 0;
    *ascii = (unsigned char)v;
    return need;
}

static size_t overlong_fold(char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c;
        size_t k = overlong_len((const unsigned char *)s, i, n, &c);
        if (k) {
            s[o++] = (char)c;
            i += k - 1;
        } else {
            s[o++] = s[i];
        }
    }
    return o;
}

/* Python's path.replace("../", ""): one left-to-right pass, no rescan. */
static size_t strip_dotdot(char *s, size_t n)
{
    size_t o = 0, i = 0;
    while (i < n) {
        const char *dot = memchr(s + i, '.', n - i);
        size_t j = dot ? (size_t)(dot - s) : n;
        memmove(s + o, s + i, j - i);
        o += j - i;
        i = j;
        if (i < n && n - i >= 3 && s[i + 1] == '.' && s[i + 2] == '/')
            i += 3;
        else if (i < n)
            s[o++] = s[i++];
    }
    return o;
}

/* Percent passes and overlong folding: the steps worth computing once. */
static size_t decode_costly(char *s, size_t n, unsigned d)
{
    int passes = (d & MCPS_TRAVERSE_PCT2) ? 2 : (d & MCPS_TRAVERSE_PCT1) ? 1 : 0;
    for (int p = 0; p < passes; p++)
        n = pct_decode(s, n, d & MCPS_TRAVERSE_SEP);
    if (d & MCPS_TRAVERSE_OVERLONG)
        n = overlong_fold(s, n);
    return n;
}

#define CHEAP_STEPS (MCPS_TRAVERSE_NUL | MCPS_TRAVERSE_BACKSLASH | MCPS_TRAVERSE_STRIP)

/* NUL cut, '\' to '/', "../" strip: the per-decoding rest of the pipeline. */
static size_t decode_cheap(char *s, size_t n, unsigned d)
{
    if (d & MCPS_TRAVERSE_NUL) {
        const char *z = memchr(s, '\0', n);
        n = z ? (size_t)(z - s) : n;
    }
    if (d & MCPS_TRAVERSE_BACKSLASH) {
        for (char *p = memchr(s, '\\', n); p; p = memchr(p + 1, '\\', n - (size_t)(p + 1 - s)))
            *p = '/';
    }
    if (d & MCPS_TRAVERSE_STRIP)
        n = strip_dotdot(s, n);
    return n;
}

/*
 * Lexical resolution of s[0..n) into out, which holds "/a/b" with "/" spelled
 * as the empty string; a relative s starts from base (same spelling).
 */
static void resolve_lexically(const char *s, size_t n, const mcps_buf *base, mcps_buf *out)
{
    mcps_buf_clear(out);
    size_t len = (n == 0 || s[0] != '/') ? base->len : 0;
    if (!mcps_buf_reserve(out, len + n + 2))
        return;
    char *o = out->data;
    if (len)
        memcpy(o, base->data, len);
    for (size_t i = 0; i < n;) {
        const char *slash = memchr(s + i, '/', n - i);
        size_t j = slash ? (size_t)(slash - s) : n, seg = j - i;
        if (seg == 2 && s[i] == '.' && s[i + 1] == '.') {
            while (len > 0 && o[len - 1] != '/')
                len--;
            len -= len > 0;
        } else if (seg > 0 && !(seg == 1 && s[i] == '.')) {
            o[len++] = '/';
            memcpy(o + len, s + i, seg);
            len += seg;
        }
        i = j + 1;
    }
    out->len = len;
    o[len] = '\0';
}

static bool path_inside(const mcps_buf *root, const mcps_buf *p)
{
    if (root->len == 0)
        return true;
    if (p->len < root->len || memcmp(p->data, root->data, root->len) != 0)
        return false;
    return p->len == root->len || p->data[root->len] == '/';
}

/* The text decoding d starts from: the path, or with RAW everything after the prefix. */
static void source_text(const split *u, unsigned d, const char **s, size_t *n)
{
    size_t b = (d & MCPS_TRAVERSE_RAW) ? u->raw_b : u->path_b;
    size_t e = (d & MCPS_TRAVERSE_RAW) ? u->len : u->path_e;
    *s = u->s + b;
    *n = e - b;
}

static size_t variant_index(unsigned d)
{
    size_t pct = (d & MCPS_TRAVERSE_PCT2) ? 3 : (d & MCPS_TRAVERSE_PCT1) ? 1 : 0;
    pct += pct && (d & MCPS_TRAVERSE_SEP);
    return ((d & MCPS_TRAVERSE_RAW) ? 10 : 0) + pct * 2 + ((d & MCPS_TRAVERSE_OVERLONG) ? 1 : 0);
}

static const mcps_buf *costly_variant(variants *v, const split *u, unsigned d)
{
    size_t k = variant_index(d);
    mcps_buf *b = &v->text[k];
    if (!v->ready[k]) {
        const char *s;
        size_t n;
        source_text(u, d, &s, &n);
        mcps_buf_append(b, s, n);
        if (!b->oom && b->data)
            b->len = decode_costly(b->data, n, d);
        v->ready[k] = true;
    }
    return b;
}

/* The text of u under d: the shared costly variant, or a copy finished in b. */
static const mcps_buf *decoded(variants *v, const split *u, unsigned d, mcps_buf *b)
{
    const mcps_buf *base = costly_variant(v, u, d);
    if (!(d & CHEAP_STEPS) || base->oom)
        return base;
    mcps_buf_clear(b);
    mcps_buf_append(b, base->data, base->len);
    if (!b->oom && b->data)
        b->len = decode_cheap(b->data, b->len, d);
    return b;
}

static void variants_free(variants *v)
{
    for (size_t k = 0; k < NVARIANTS; k++)
        mcps_buf_free(&v->text[k]);
}

/*
 * os.path.join(root, rest) drops root when rest is absolute: a server that
 * cuts the root prefix off "/root//etc/passwd" opens "/etc/passwd". Returns
 * the offset where the candidate text restarts, 0 when it does not.
 */
static size_t absjoin_restart(const mcps_buf *root, const mcps_buf *cand)
{
    size_t r = root->len;
    while (r > 0 && root->data[r - 1] == '/')
        r--;
    if (cand->len < r + 2 || (r && memcmp(cand->data, root->data, r) != 0))
        return 0;
    return (cand->data[r] == '/' && cand->data[r + 1] == '/') ? r + 1 : 0;
}

static bool escapes_under(judge_ctx *c, unsigned d)
{
    mcps_buf none = {0};
    const mcps_buf *rt = decoded(&c->root_v, &c->root, d, &c->root_text);
    const mcps_buf *ct = decoded(&c->cand_v, &c->cand, d, &c->work);
    if (rt->oom || ct->oom || !rt->data || !ct->data) {
        c->oom = true;
        return false;
    }
    size_t skip = (d & MCPS_TRAVERSE_ABSJOIN) ? absjoin_restart(rt, ct) : 0;
    resolve_lexically(rt->data, rt->len, &none, &c->root_path);
    /* a relative candidate joins an absolute root; if the root reads as relative
     * too (RAW on "file://host/..."), both start from the same unknown directory */
    bool root_absolute = rt->len && rt->data[0] == '/';
    const mcps_buf *base = root_absolute ? &c->root_path : &none;
    resolve_lexically(ct->data + skip, ct->len - skip, base, &c->cand_path);
    return !path_inside(&c->root_path, &c->cand_path);
}

static bool contains_ci(const char *s, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++) {
        size_t k = 0;
        while (k < m && to_lower((unsigned char)s[i + k]) == (unsigned char)needle[k])
            k++;
        if (k == m)
            return true;
    }
    return false;
}

static bool has_high_byte(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0xC0)
            return true;
    return false;
}

/* Decodings that act on bytes present in s (overlong forms may become any of them). */
static unsigned triggers(const char *s, size_t n)
{
    unsigned r = 0;
    r |= memchr(s, '%', n) ? MCPS_TRAVERSE_PCT1 : 0;
    r |= memchr(s, '\\', n) ? MCPS_TRAVERSE_BACKSLASH | MCPS_TRAVERSE_ABSJOIN : 0;
    r |= memchr(s, '\0', n) ? MCPS_TRAVERSE_NUL : 0;
    r |= contains_ci(s, n, "..") ? MCPS_TRAVERSE_STRIP : 0;
    r |= contains_ci(s, n, "//") ? MCPS_TRAVERSE_ABSJOIN : 0;
    if (has_high_byte(s, n))
        r |= MCPS_TRAVERSE_OVERLONG | MCPS_TRAVERSE_BACKSLASH | MCPS_TRAVERSE_NUL |
             MCPS_TRAVERSE_STRIP | MCPS_TRAVERSE_ABSJOIN;
    return r;
}

/* Triggers after one more decoding pass of the scratch text, which shrinks in place. */
static unsigned triggers_after_pass(mcps_buf *scratch)
{
    scratch->len = pct_decode(scratch->data, scratch->len, false);
    unsigned r = triggers(scratch->data, scratch->len);
    if (contains_ci(scratch->data, scratch->len, "%2f") ||
        contains_ci(scratch->data, scratch->len, "%5c"))
        r |= MCPS_TRAVERSE_SEP | MCPS_TRAVERSE_BACKSLASH | MCPS_TRAVERSE_ABSJOIN;
    return r;
}

/*
 * Decodings that could change anything for u: those whose trigger bytes occur
 * in its text as written, once decoded or twice decoded. Skipping the rest
 * keeps the common case (no '%', no '\\') to a couple of decodings.
 */
static unsigned relevant_in(const split *u, mcps_buf *scratch)
{
    const char *s = u->s + u->raw_b;
    size_t n = u->len - u->raw_b;
    unsigned rel = triggers(s, n);
    bool raw_differs = u->path_e != u->len || (u->has_authority && u->raw_b != u->path_b);
    rel |= raw_differs ? MCPS_TRAVERSE_RAW : 0;
    if (!(rel & MCPS_TRAVERSE_PCT1))
        return rel;
    mcps_buf_clear(scratch);
    mcps_buf_append(scratch, s, n);
    if (scratch->oom)
        return ALL_DECODINGS;
    rel |= triggers_after_pass(scratch);
    if (memchr(scratch->data, '%', scratch->len))
        rel |= MCPS_TRAVERSE_PCT2 | triggers_after_pass(scratch);
    return rel;
}

static bool decoding_valid(unsigned d)
{
    if ((d & MCPS_TRAVERSE_PCT1) && (d & MCPS_TRAVERSE_PCT2))
        return false;
    return !(d & MCPS_TRAVERSE_SEP) || (d & (MCPS_TRAVERSE_PCT1 | MCPS_TRAVERSE_PCT2));
}

static int popcount(unsigned v)
{
    int n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* First escaping decoding among the subsets of rel, fewest flags (then lowest bits) first; -1 if
 * none. */
static long first_escape(judge_ctx *c, unsigned rel)
{
    for (int k = 0; k <= popcount(rel); k++) {
        for (unsigned sub = 0;; sub = (sub - rel) & rel) {
            if (popcount(sub) == k && decoding_valid(sub) && escapes_under(c, sub))
                return (long)sub;
            if (sub == rel)
                break;
        }
    }
    return -1;
}

const char *mcps_traverse_decoding_name(unsigned decoding, char *buf, size_t size)
{
    static const char *const names[] = {"pct1", "pct2",  "sep",     "overlong", "backslash",
                                        "nul",  "strip", "absjoin", "raw"};
    if (size == 0)
        return buf;
    buf[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(decoding & (1u << i)))
            continue;
        size_t need = strlen(names[i]) + (used ? 1 : 0);
        if (used + need >= size)
            break;
        snprintf(buf + used, size - used, "%s%s", used ? "+" : "", names[i]);
        used += need;
    }
    if (!used)
        snprintf(buf, size, "none");
    return buf;
}

/* Copies a resolved path for people: "/" for the root, control bytes as %HH. */
static void show_path(const mcps_buf *p, char *dst, size_t size)
{
    size_t o = 0, limit = size - 4; /* room for "..." and the NUL */
    if (p->len == 0)
        dst[o++] = '/';
    for (size_t i = 0; i < p->len; i++) {
        unsigned char ch = (unsigned char)p->data[i];
        size_t w = (ch < 0x20 || ch == 0x7f) ? 3 : 1;
        if (o + w > limit) {
            memcpy(dst + o, "...", 3);
            o += 3;
            break;
        }
        if (w == 3)
            snprintf(dst + o, 4, "%%%02X", ch);
        else
            dst[o] = (char)ch;
        o += w;
    }
    dst[o] = '\0';
}

static mcps_traverse_verdict invalid(mcps_traverse_result *out, size_t off, const char *what,
                                     const char *why)
{
    out->verdict = MCPS_TRAVERSE_INVALID;
    out->error_offset = off;
    snprintf(out->reason, sizeof out->reason, "%s: %s", what, why);
    return out->verdict;
}

/* Lowercased, once-decoded authority; file: counts "localhost" as empty. */
static void authority_key(const split *u, mcps_buf *key)
{
    mcps_buf_clear(key);
    if (u->has_authority)
        mcps_buf_append(key, u->s + u->auth_b, u->auth_e - u->auth_b);
    if (key->oom || !key->data)
        return;
    key->len = pct_decode(key->data, key->len, true);
    for (size_t i = 0; i < key->len; i++)
        key->data[i] = (char)to_lower((unsigned char)key->data[i]);
    if (scheme_is_file(u) && key->len == 9 && memcmp(key->data, "localhost", 9) == 0)
        key->len = 0;
}

static bool same_scheme(const split *a, const split *b)
{
    if (a->scheme_len != b->scheme_len)
        return false;
    for (size_t i = 0; i < a->scheme_len; i++)
        if (to_lower((unsigned char)a->s[i]) != to_lower((unsigned char)b->s[i]))
            return false;
    return true;
}

/* Another scheme or host is outside the root whatever the decoding. */
static bool names_elsewhere(judge_ctx *c, mcps_traverse_result *out)
{
    if (!same_scheme(&c->root, &c->cand)) {
        snprintf(out->reason, sizeof out->reason, "scheme '%.*s' is not the root's '%.*s'",
                 (int)(c->cand.scheme_len > 40 ? 40 : c->cand.scheme_len), c->cand.s,
                 (int)(c->root.scheme_len > 40 ? 40 : c->root.scheme_len), c->root.s);
        return true;
    }
    authority_key(&c->root, &c->root_path);
    authority_key(&c->cand, &c->cand_path);
    if (c->root_path.len == c->cand_path.len &&
        (c->root_path.len == 0 || !memcmp(c->root_path.data, c->cand_path.data, c->root_path.len)))
        return false;
    size_t n = c->cand_path.len > 60 ? 60 : c->cand_path.len;
    snprintf(out->reason, sizeof out->reason, "names host '%.*s', not the root's", (int)n,
             n ? c->cand_path.data : "");
    return true;
}

static bool part_is_ci(mcps_uri_part p, const char *lit)
{
    size_t n = strlen(lit);
    if (p.len != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (to_lower((unsigned char)p.ptr[i]) != (unsigned char)lit[i])
            return false;
    return true;
}

static bool root_from_path(const char *root, size_t len, mcps_buf *text, mcps_traverse_result *out)
{
    mcps_uri_error err = {0};
    size_t n;
    char *u = mcps_uri_file_from_path(root, len, &n, &err);
    if (!u) {
        invalid(out, err.offset, "root", err.reason);
        return false;
    }
    mcps_buf_append(text, u, n);
    free(u);
    return true;
}

/* Canonical root text: scheme ":" ["//" authority] path, file: without localhost. */
static bool canonical_root(const char *root, size_t len, mcps_buf *text, mcps_traverse_result *out)
{
    if (len > 0 && root[0] == '/')
        return root_from_path(root, len, text, out);
    mcps_uri_error err = {0};
    mcps_uri u;
    if (!mcps_uri_validate(root, len, &err) || !mcps_uri_parse(root, len, &u, &err)) {
        invalid(out, err.offset, "root", err.reason);
        return false;
    }
    if (u.path.len == 0 || u.path.ptr[0] != '/') {
        invalid(out, (size_t)(u.path.ptr - root), "root", "path is not absolute");
        return false;
    }
    mcps_buf_append(text, root, u.scheme.len + 1);
    bool local = part_is_ci(u.scheme, "file") && !u.userinfo.ptr && !u.port.ptr &&
                 (u.host.len == 0 || part_is_ci(u.host, "localhost"));
    if (u.authority.ptr) {
        mcps_buf_puts(text, "//");
        if (!local)
            mcps_buf_append(text, u.authority.ptr, u.authority.len);
    }
    mcps_buf_append(text, u.path.ptr, u.path.len);
    return true;
}

static void report_escape(judge_ctx *c, unsigned d, mcps_traverse_result *out)
{
    char name[96], rootp[160];
    out->verdict = MCPS_TRAVERSE_ESCAPES;
    out->decoding = d;
    show_path(&c->cand_path, out->path, sizeof out->path);
    show_path(&c->root_path, rootp, sizeof rootp);
    mcps_traverse_decoding_name(d, name, sizeof name);
    snprintf(out->reason, sizeof out->reason, "reaches %.60s%s outside %.80s (decoding: %.80s)",
             out->path, strlen(out->path) > 60 ? "..." : "", rootp, name);
}

static void judge_paths(judge_ctx *c, mcps_traverse_result *out)
{
    unsigned rel = relevant_in(&c->root, &c->work) | relevant_in(&c->cand, &c->work);
    long d = first_escape(c, rel & ALL_DECODINGS);
    if (d >= 0) {
        report_escape(c, (unsigned)d, out);
        return;
    }
    escapes_under(c, MCPS_TRAVERSE_PCT1);
    out->verdict = MCPS_TRAVERSE_INSIDE;
    show_path(&c->cand_path, out->path, sizeof out->path);
    char rootp[160];
    show_path(&c->root_path, rootp, sizeof rootp);
    snprintf(out->reason, sizeof out->reason, "stays inside %s under every decoding tried", rootp);
}

static mcps_traverse_verdict judge(judge_ctx *c, mcps_buf *root_text, const char *uri,
                                   size_t uri_len, mcps_traverse_result *out)
{
    split_uri(root_text->data, root_text->len, &c->root);
    if (uri_len == 0)
        return invalid(out, 0, "uri", "empty");
    if (!split_uri(uri, uri_len, &c->cand))
        return invalid(out, 0, "uri", "no scheme, so it names nothing a server could open");
    if (names_elsewhere(c, out)) {
        out->verdict = MCPS_TRAVERSE_ESCAPES;
        return out->verdict;
    }
    judge_paths(c, out);
    bool oom = c->oom || c->root_path.oom || c->cand_path.oom;
    return oom ? invalid(out, 0, "judge", "out of memory") : out->verdict;
}

mcps_traverse_verdict mcps_traverse_judge(const char *root, size_t root_len, const char *uri,
                                          size_t uri_len, mcps_traverse_result *out)
{
    *out = (mcps_traverse_result){0};
    out->rfc3986_valid = mcps_uri_validate(uri, uri_len, NULL);
    mcps_buf root_text = {0};
    judge_ctx c = {0};
    mcps_traverse_verdict v = MCPS_TRAVERSE_INVALID;
    if (canonical_root(root, root_len, &root_text, out)) {
        v = root_text.oom ? invalid(out, 0, "root", "out of memory")
                          : judge(&c, &root_text, uri, uri_len, out);
    }
    mcps_buf_free(&root_text);
    mcps_buf_free(&c.work);
    mcps_buf_free(&c.root_text);
    variants_free(&c.root_v);
    variants_free(&c.cand_v);
    mcps_buf_free(&c.root_path);
    mcps_buf_free(&c.cand_path);
    return v;
}

/* ---- probe generator ---- */

/* How a probe spells the target path after its ".." chain. */
typedef enum tail_kind {
    TAIL_PLAIN,      /* etc/passwd */
    TAIL_NONE,       /* nothing: the directory itself */
    TAIL_BACKSLASH,  /* etc\passwd */
    TAIL_PCT5C,      /* etc%5cpasswd */
    TAIL_DOUBLE5C,   /* etc%255cpasswd */
    TAIL_NUL_SUFFIX, /* etc/passwd%00.txt */
} tail_kind;

typedef struct probe_shape {
    const char *trick;
    const char *lead; /* right after the anchor's directory */
    const char *unit; /* repeated ups (+ extra) times */
    int extra;        /* more units, to cancel a segment the lead adds */
    tail_kind tail;
} probe_shape;

static const probe_shape chain_shapes[] = {
    {"dotdot", "", "../", 0, TAIL_PLAIN},
    {"dotdot-dir", "", "../", 0, TAIL_NONE},
    /* for servers that map the URI's path below a root folder of unknown depth */
    {"deep-dotdot", "", "../", 16, TAIL_PLAIN},
    {"pct-dot", "", "%2e%2e/", 0, TAIL_PLAIN},
    {"pct-dot-mixed-case", "", "%2E%2e/", 0, TAIL_PLAIN},
    {"pct-dot-half", "", ".%2e/", 0, TAIL_PLAIN},
    {"pct-slash", "", "..%2f", 0, TAIL_PLAIN},
    {"pct-all", "", "%2e%2e%2f", 0, TAIL_PLAIN},
    {"pct-all-upper", "", "%2E%2E%2F", 0, TAIL_PLAIN},
    {"double-pct-dot", "", "%252e%252e/", 0, TAIL_PLAIN},
    {"double-pct-all", "", "%252e%252e%252f", 0, TAIL_PLAIN},
    {"nested-pct", "", "%%32%65%%32%65/", 0, TAIL_PLAIN},
    {"backslash", "", "..\\", 0, TAIL_BACKSLASH},
    {"pct-backslash", "", "..%5c", 0, TAIL_PCT5C},
    {"pct-dot-backslash", "", "%2e%2e%5c", 0, TAIL_PCT5C},
    {"double-pct-backslash", "", "%252e%252e%255c", 0, TAIL_DOUBLE5C},
    {"strip-bypass", "", "....//", 0, TAIL_PLAIN},
    {"strip-bypass-dot", "", "..././", 0, TAIL_PLAIN},
    {"overlong-dot", "", "%c0%ae%c0%ae/", 0, TAIL_PLAIN},
    {"overlong-slash", "", "..%c0%af", 0, TAIL_PLAIN},
    {"nul-extension", "", "../", 0, TAIL_NUL_SUFFIX},
    {"nul-dotdot", "..%00/", "", 0, TAIL_PLAIN},
    {"raw-query", "x?/", "../", 1, TAIL_PLAIN},
    {"raw-fragment", "x#/", "../", 1, TAIL_PLAIN},
    {"abs-join", "/", "", 0, TAIL_PLAIN},
    {"abs-join-pct", "%2f", "", 0, TAIL_PLAIN},
};

/* Absolute swaps: a fixed head, then the target. */
static const char *const absolute_heads[][2] = {
    {"abs-path", "file:///"},
    {"abs-localhost", "file://localhost/"},
    {"abs-minimal", "file:/"},
    {"abs-double-slash", "file:////"},
};

#define MAX_PROBES                                                                                 \
    (sizeof chain_shapes / sizeof chain_shapes[0] +                                                \
     sizeof absolute_heads / sizeof absolute_heads[0] + 1)

/* "scheme:" ["//" authority], the directory the probes start from, and the target. */
typedef struct anchor_parts {
    mcps_uri_part head, dir;
    size_t ups;
    bool file;
    const char *const *target; /* path segments, NULL-terminated */
} anchor_parts;

static const char *const target_passwd[] = {"etc", "passwd", NULL};
static const char *const target_version[] = {"proc", "version", NULL};

static bool add_probe(mcps_traverse_probes *out, mcps_buf *b, const char *trick)
{
    size_t n = b->len;
    char *s = mcps_buf_take(b);
    if (!s)
        return false;
    out->items[out->count++] = (mcps_traverse_probe){s, n, trick};
    return true;
}

static void put_repeated(mcps_buf *b, const char *unit, size_t times)
{
    for (size_t i = 0; i < times; i++)
        mcps_buf_puts(b, unit);
}

static void put_target(mcps_buf *b, const anchor_parts *a, tail_kind tail)
{
    static const char *const seps[] = {"/", "", "\\", "%5c", "%255c", "/"};
    if (tail == TAIL_NONE)
        return;
    for (size_t i = 0; a->target[i]; i++) {
        if (i)
            mcps_buf_puts(b, seps[tail]);
        mcps_buf_puts(b, a->target[i]);
    }
    if (tail == TAIL_NUL_SUFFIX)
        mcps_buf_puts(b, "%00.txt");
}

/* Is the first segment of dir (empty segments skipped, as the judge does) "etc"? */
static bool dir_under_etc(mcps_uri_part dir)
{
    size_t i = 0;
    while (i < dir.len && dir.ptr[i] == '/')
        i++;
    return dir.len - i >= 4 && memcmp(dir.ptr + i, "etc/", 4) == 0;
}

/*
 * ".." count that climbs from dir to "/". A prefix-stripping server reads
 * "file://host/dir/..." as the relative "host/dir/...", which the judge joins
 * to the root, so with a host the chain climbs the directory twice plus the
 * host. Surplus ".." stop harmlessly at "/".
 */
static size_t ups_needed(mcps_uri_part dir, bool host_in_raw)
{
    size_t segs = 0;
    for (size_t i = 1; i < dir.len; i++)
        segs += dir.ptr[i] == '/' && dir.ptr[i - 1] != '/';
    size_t ups = host_in_raw ? 2 * segs + 2 : segs + 1;
    return ups < MCPS_TRAVERSE_MAX_UPS ? ups : MCPS_TRAVERSE_MAX_UPS;
}

static bool parse_anchor(const char *s, size_t len, anchor_parts *a, mcps_uri_error *err)
{
    mcps_uri u;
    if (!mcps_uri_validate(s, len, err) || !mcps_uri_parse(s, len, &u, err))
        return false;
    if (u.path.len == 0 || u.path.ptr[0] != '/') {
        if (err) {
            err->offset = (size_t)(u.path.ptr - s);
            snprintf(err->reason, sizeof err->reason, "anchor has no absolute path");
        }
        return false;
    }
    size_t dir_len = u.path.len;
    while (u.path.ptr[dir_len - 1] != '/')
        dir_len--;
    a->head = (mcps_uri_part){s, (size_t)(u.path.ptr - s)};
    a->dir = (mcps_uri_part){u.path.ptr, dir_len};
    a->file = part_is_ci(u.scheme, "file");
    a->ups = ups_needed(a->dir, a->file && u.authority.len);
    /* the target must lie outside the directory the probes try to leave */
    a->target = dir_under_etc(a->dir) ? target_version : target_passwd;
    return true;
}

static bool add_chain(mcps_traverse_probes *out, const anchor_parts *a, const probe_shape *p)
{
    mcps_buf b = {0};
    mcps_buf_append(&b, a->head.ptr, a->head.len);
    mcps_buf_append(&b, a->dir.ptr, a->dir.len);
    mcps_buf_puts(&b, p->lead);
    put_repeated(&b, p->unit, a->ups + (size_t)p->extra);
    put_target(&b, a, p->tail);
    return add_probe(out, &b, p->trick);
}

static bool add_absolute(mcps_traverse_probes *out, const anchor_parts *a, size_t i)
{
    mcps_buf b = {0};
    mcps_buf_puts(&b, absolute_heads[i][1]);
    put_target(&b, a, TAIL_PLAIN);
    return add_probe(out, &b, absolute_heads[i][0]);
}

/* file://../../etc/passwd: a host to strict parsers, a relative path to prefix-strippers. */
static bool add_authority_dotdot(mcps_traverse_probes *out, const anchor_parts *a)
{
    mcps_buf b = {0};
    mcps_buf_puts(&b, "file://..");
    put_repeated(&b, "/..", a->ups);
    mcps_buf_putc(&b, '/');
    put_target(&b, a, TAIL_PLAIN);
    return add_probe(out, &b, "authority-dotdot");
}

static bool make_all(mcps_traverse_probes *out, const anchor_parts *a)
{
    for (size_t i = 0; i < sizeof chain_shapes / sizeof chain_shapes[0]; i++)
        if (!add_chain(out, a, &chain_shapes[i]))
            return false;
    for (size_t i = 0; i < sizeof absolute_heads / sizeof absolute_heads[0]; i++)
        if (!add_absolute(out, a, i))
            return false;
    return !a->file || add_authority_dotdot(out, a);
}

bool mcps_traverse_make_probes(const char *anchor, size_t len, mcps_traverse_probes *out,
                               mcps_uri_error *err)
{
    *out = (mcps_traverse_probes){0};
    anchor_parts a;
    if (!parse_anchor(anchor, len, &a, err))
        return false;
    out->items = calloc(MAX_PROBES, sizeof *out->items);
    if (out->items && make_all(out, &a))
        return true;
    mcps_traverse_probes_free(out);
    if (err) {
        err->offset = 0;
        snprintf(err->reason, sizeof err->reason, "out of memory");
    }
    return false;
}

void mcps_traverse_probes_free(mcps_traverse_probes *p)
{
    for (size_t i = 0; p->items && i < p->count; i++)
        free(p->items[i].uri);
    free(p->items);
    *p = (mcps_traverse_probes){0};
}
