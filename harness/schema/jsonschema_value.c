/*
 * jsonschema_value.c - values as JSON Schema sees them: exact numbers, equality,
 * JSON Pointers, local $ref resolution, and the error list.
 *
 * JSON Schema compares numbers by mathematical value (1 == 1.0, and 1.0 is an
 * integer), while a double cannot tell 9007199254740993 from ...992. Number
 * nodes from codec/json.h keep their source text, so numbers are normalised to
 * (sign, significant digits, decimal exponent) and compared exactly. That same
 * form answers integer-ness and, for all but absurd operands, multipleOf.
 *
 * Equality walks both trees with an explicit stack and a caller budget, so a
 * deep or huge enum value cannot recurse or run unbounded.
 */
#include "schema/jsonschema_internal.h"

#include "base/array.h"
#include "base/hex.h"

#include "codec/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXP_CAP 1000000000000000LL /* exponents saturate here; no real number gets close */

/* ---- exact decimals --------------------------------------------------------- */

static long long read_exponent(const char *p)
{
    bool neg = *p == '-';
    long long e = 0;
    p += *p == '-' || *p == '+';
    for (; *p >= '0' && *p <= '9'; p++)
        e = e < EXP_CAP ? e * 10 + (*p - '0') : EXP_CAP;
    return neg ? -e : e;
}

/* Copy the digits of int and fraction parts, dropping leading and trailing zeros. */
static void collect_digits(mcps_si_dec *x, char *dst, const char *t, size_t nint, size_t nfrac,
                           long long e)
{
    size_t n = 0;
    long long point = (long long)nint;
    for (size_t i = 0; i < nint + nfrac; i++) {
        char c = i < nint ? t[i] : t[i + 1]; /* skip the '.' */
        if (n == 0 && c == '0') {
            point--;
            continue;
        }
        dst[n++] = c;
    }
    while (n && dst[n - 1] == '0')
        n--;
    x->d = dst;
    x->n = n;
    x->exp = n ? point + e : 0;
    if (!n)
        x->neg = false;
}

bool mcps_si_dec_init(mcps_si_dec *x, const cJSON *number)
{
    char tmp[40];
    const char *t = mcps_json_number_text(number);
    memset(x, 0, sizeof *x);
    if (!t) {
        double v = number->valuedouble;
        snprintf(tmp, sizeof tmp, "%.17g", isfinite(v) ? v : 0.0);
        t = tmp;
    }
    x->neg = *t == '-';
    t += x->neg;
    size_t nint = strspn(t, "0123456789"), nfrac = 0;
    if (t[nint] == '.')
        nfrac = strspn(t + nint + 1, "0123456789");
    const char *ep = t + nint + (nfrac ? nfrac + 1 : 0);
    long long e = (*ep == 'e' || *ep == 'E') ? read_exponent(ep + 1) : 0;
    char *dst = x->small;
    if (nint + nfrac > sizeof x->small) {
        dst = x->heap = malloc(nint + nfrac);
        if (!dst)
            return false;
    }
    collect_digits(x, dst, t, nint, nfrac, e);
    return true;
}

void mcps_si_dec_free(mcps_si_dec *x)
{
    free(x->heap);
    x->heap = NULL;
}

static int sign_of(const mcps_si_dec *x)
{
    return x->n == 0 ? 0 : x->neg ? -1 : 1;
}

int mcps_si_dec_cmp(const mcps_si_dec *a, const mcps_si_dec *b)
{
    int sa = sign_of(a), sb = sign_of(b);
    if (sa != sb)
        return sa < sb ? -1 : 1;
    if (sa == 0)
        return 0;
    int mag;
    if (a->exp != b->exp) {
        mag = a->exp < b->exp ? -1 : 1;
    } else {
        size_t m = a->n < b->n ? a->n : b->n;
        int c = memcmp(a->d, b->d, m);
        mag = c ? (c < 0 ? -1 : 1) : a->n == b->n ? 0 : a->n < b->n ? -1 : 1;
    }
    return sa * mag;
}

bool mcps_si_dec_is_integer(const mcps_si_dec *x)
{
    return x->n == 0 || x->exp >= (long long)x->n;
}

static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m)
{
    uint64_t r = 0;
    a %= m;
    while (b) {
        if (b & 1)
            r = (r + a) % m;
        a = (a * 2) % m;
        b >>= 1;
    }
    return r;
}

static uint64_t powmod10(long long k, uint64_t m)
{
    uint64_t r = 1 % m, base = 10 % m;
    for (; k > 0; k >>= 1) {
        if (k & 1)
            r = mulmod(r, base, m);
        base = mulmod(base, base, m);
    }
    return r;
}

/* digits * 10^zeros as an integer below 2^63, if it is one. */
static bool small_integer(const mcps_si_dec *x, long long zeros, uint64_t *out)
{
    uint64_t v = 0;
    const uint64_t limit = (uint64_t)1 << 63;
    if ((long long)x->n + zeros > 19)
        return false;
    for (size_t i = 0; i < x->n; i++)
        v = v * 10 + (uint64_t)(x->d[i] - '0');
    for (long long z = 0; z < zeros; z++)
        v *= 10;
    *out = v;
    return v < limit;
}

/* digits mod m, then times 10^zeros mod m. */
static uint64_t digits_mod(const mcps_si_dec *x, long long zeros, uint64_t m)
{
    uint64_t r = 0;
    for (size_t i = 0; i < x->n; i++)
        r = (mulmod(r, 10, m) + (uint64_t)(x->d[i] - '0')) % m;
    return mulmod(r, powmod10(zeros, m), m);
}

/* Approximate value, for the rare operands exact arithmetic cannot take. */
static double dec_to_double(const mcps_si_dec *x)
{
    double m = 0;
    size_t k = x->n < 17 ? x->n : 17;
    for (size_t i = 0; i < k; i++)
        m = m * 10 + (x->d[i] - '0');
    double e = (double)(x->exp - (long long)k);
    return (x->neg ? -m : m) * pow(10.0, e > 400 ? 400 : e < -400 ? -400 : e);
}

int mcps_si_dec_multiple_of(const mcps_si_dec *a, const mcps_si_dec *b)
{
    if (a->n == 0)
        return 1;
    /* a = A * 10^sa, b = B * 10^sb with A, B the digit strings as integers. */
    long long sa = a->exp - (long long)a->n, sb = b->exp - (long long)b->n;
    uint64_t m;
    if (small_integer(b, sa >= sb ? 0 : sb - sa, &m) && m)
        return digits_mod(a, sa >= sb ? sa - sb : 0, m) == 0;
    /* b has too many digits for exact arithmetic: fall back to doubles. */
    double q = fabs(dec_to_double(a)) / dec_to_double(b);
    return isfinite(q) && fabs(q - nearbyint(q)) < 1e-9 * (q > 1 ? q : 1);
}

int mcps_si_num_cmp(const cJSON *a, const cJSON *b)
{
    mcps_si_dec x, y;
    bool ok_x = mcps_si_dec_init(&x, a), ok_y = mcps_si_dec_init(&y, b);
    int r = ok_x && ok_y ? mcps_si_dec_cmp(&x, &y) : -2;
    mcps_si_dec_free(&x);
    mcps_si_dec_free(&y);
    return r;
}

bool mcps_si_num_is_integer(const cJSON *number)
{
    mcps_si_dec x;
    bool r = mcps_si_dec_init(&x, number) ? mcps_si_dec_is_integer(&x)
                                          : isfinite(number->valuedouble) &&
                                                number->valuedouble == floor(number->valuedouble);
    mcps_si_dec_free(&x);
    return r;
}

/* ---- equality and hashing -------------------------------------------------- */

const char *mcps_si_type_name(const cJSON *v)
{
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsBool(v))
        return "boolean";
    if (cJSON_IsNumber(v))
        return "number";
    if (cJSON_IsString(v))
        return "string";
    if (cJSON_IsArray(v))
        return "array";
    if (cJSON_IsObject(v))
        return "object";
    return "invalid";
}

typedef struct pair_stack {
    const cJSON **v; /* a0, b0, a1, b1, ... */
    size_t n, cap;
} pair_stack;

static bool pair_push(pair_stack *s, const cJSON *a, const cJSON *b)
{
    if (!mcps_array_reserve(&s->v, &s->cap, s->n + 2, sizeof *s->v, 32))
        return false;
    s->v[s->n++] = a;
    s->v[s->n++] = b;
    return true;
}

/* Compare the scalar parts of one pair: 1 equal, 0 not, -1 OOM; children go on s. */
static int pair_step(pair_stack *s, const cJSON *a, const cJSON *b, size_t *budget)
{
    if (strcmp(mcps_si_type_name(a), mcps_si_type_name(b)) != 0)
        return 0;
    if (cJSON_IsNumber(a)) {
        int c = mcps_si_num_cmp(a, b);
        return c == -2 ? -1 : c == 0;
    }
    if (cJSON_IsString(a))
        return strcmp(a->valuestring, b->valuestring) == 0;
    if (cJSON_IsBool(a))
        return cJSON_IsTrue(a) == cJSON_IsTrue(b);
    if (!cJSON_IsArray(a) && !cJSON_IsObject(a))
        return 1;
    if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
        return 0;
    const cJSON *y = b->child;
    for (const cJSON *x = a->child; x; x = x->next) {
        if (cJSON_IsObject(a)) {
            size_t scanned = (size_t)cJSON_GetArraySize(b);
            *budget = *budget > scanned ? *budget - scanned : 0;
            y = cJSON_GetObjectItemCaseSensitive(b, x->string);
            if (!y)
                return 0;
        }
        if (!pair_push(s, x, y))
            return -1;
        if (cJSON_IsArray(a))
            y = y->next;
    }
    return 1;
}

int mcps_si_equal(const cJSON *a, const cJSON *b, size_t *budget)
{
    pair_stack s = {0};
    int r = pair_push(&s, a, b) ? 1 : -1;
    while (r == 1 && s.n) {
        if (*budget == 0) {
            r = -1;
            break;
        }
        (*budget)--;
        s.n -= 2;
        r = pair_step(&s, s.v[s.n], s.v[s.n + 1], budget);
    }
    free(s.v);
    return r;
}

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001B3ULL;
    return h;
}

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static uint64_t hash_number(const cJSON *v)
{
    mcps_si_dec x;
    uint64_t h = 0xCBF29CE484222325ULL;
    if (!mcps_si_dec_init(&x, v))
        return h;
    h = hash_bytes(h, &x.neg, sizeof x.neg);
    h = hash_bytes(h, &x.exp, sizeof x.exp);
    h = hash_bytes(h, x.d, x.n);
    mcps_si_dec_free(&x);
    return h;
}

uint64_t mcps_si_hash(const cJSON *v, size_t depth)
{
    const char *type = mcps_si_type_name(v);
    uint64_t h = hash_bytes(0xCBF29CE484222325ULL, type, strlen(type));
    if (cJSON_IsNumber(v))
        return mix(h ^ hash_number(v));
    if (cJSON_IsString(v))
        return mix(hash_bytes(h, v->valuestring, strlen(v->valuestring)));
    if (cJSON_IsBool(v))
        return mix(h + (uint64_t)cJSON_IsTrue(v));
    if (depth == 0 || !(cJSON_IsArray(v) || cJSON_IsObject(v)))
        return mix(h);
    uint64_t acc = 0;
    for (const cJSON *c = v->child; c; c = c->next) {
        uint64_t ch = mcps_si_hash(c, depth - 1);
        if (cJSON_IsObject(v)) /* members in any order hash the same */
            acc += mix(hash_bytes(0xCBF29CE484222325ULL, c->string, strlen(c->string)) ^ ch);
        else
            acc = mix(acc ^ ch);
    }
    return mix(h ^ acc);
}

void mcps_si_brief(mcps_buf *b, const cJSON *v, size_t max)
{
    size_t len = 0;
    char *s = mcps_json_print(v, &len);
    if (!s) {
        mcps_buf_puts(b, "(value)");
        return;
    }
    if (len > max) {
        while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
            max--; /* do not cut a UTF-8 sequence in half */
        mcps_buf_append(b, s, max);
        mcps_buf_puts(b, "...");
    } else {
        mcps_buf_append(b, s, len);
    }
    free(s);
}

/* ---- JSON Pointers ----------------------------------------------------------- */

static void put_token(mcps_buf *b, const char *key)
{
    mcps_buf_putc(b, '/');
    for (; *key; key++) {
        if (*key == '~')
            mcps_buf_puts(b, "~0");
        else if (*key == '/')
            mcps_buf_puts(b, "~1");
        else
            mcps_buf_putc(b, *key);
    }
}

/* s percent-decoded; false when malformed (or when it encodes a NUL). */
static bool decode_percent(mcps_buf *out, const char *s)
{
    for (const char *p = s; *p; p++) {
        if (*p != '%') {
            mcps_buf_putc(out, *p);
            continue;
        }
        int v = mcps_hex_byte(p + 1);
        if (v <= 0) /* malformed, or an encoded NUL */
            return false;
        mcps_buf_putc(out, (char)v);
        p += 2;
    }
    return true;
}

/* The fragment of a URI reference, percent-decoded; false when malformed. */
static bool decode_fragment(mcps_buf *out, const char *ref)
{
    const char *hash = strchr(ref, '#');
    return !hash || decode_percent(out, hash + 1);
}

void mcps_si_path_render(mcps_buf *b, const mcps_si_path *p)
{
    size_t n = 0;
    const mcps_si_path *q = p;
    for (; q && !q->base; q = q->up)
        n++;
    if (q)
        decode_fragment(b, q->base);
    const mcps_si_path **steps = malloc((n ? n : 1) * sizeof *steps);
    if (!steps) {
        b->oom = true;
        return;
    }
    size_t i = n;
    for (q = p; i > 0; q = q->up)
        steps[--i] = q;
    for (i = 0; i < n; i++) {
        if (steps[i]->key)
            put_token(b, steps[i]->key);
        else
            mcps_buf_printf(b, "/%zu", steps[i]->index);
    }
    free(steps);
}

/* ---- $ref --------------------------------------------------------------------- */

/* Does ref[0..n) name the root document itself (its $id, fragment aside)? */
static bool names_root(const cJSON *root, const char *ref, size_t n)
{
    const cJSON *id = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "$id") : NULL;
    if (!cJSON_IsString(id))
        return false;
    size_t idlen = strcspn(id->valuestring, "#");
    return idlen == n && memcmp(id->valuestring, ref, n) == 0;
}

/* Take one reference token off *p, unescaping ~0 and ~1, into tok. */
static bool next_token(const char **p, mcps_buf *tok)
{
    mcps_buf_clear(tok);
    for ((*p)++; **p && **p != '/'; (*p)++) {
        if (**p != '~') {
            mcps_buf_putc(tok, **p);
        } else if ((*p)[1] == '0' || (*p)[1] == '1') {
            mcps_buf_putc(tok, (*p)[1] == '0' ? '~' : '/');
            (*p)++;
        } else {
            return false;
        }
    }
    return !tok->oom;
}

static const char *text_of(const mcps_buf *b)
{
    return b->data ? b->data : "";
}

static const cJSON *array_step(const cJSON *arr, const char *tok)
{
    size_t len = strlen(tok);
    if (len == 0 || len > 9 || strspn(tok, "0123456789") != len || (tok[0] == '0' && len > 1))
        return NULL;
    return cJSON_GetArrayItem(arr, atoi(tok));
}

static const cJSON *walk_pointer(const cJSON *node, const char *ptr)
{
    mcps_buf tok = {0};
    while (node && *ptr == '/') {
        if (!next_token(&ptr, &tok)) {
            node = NULL;
            break;
        }
        if (cJSON_IsObject(node))
            node = cJSON_GetObjectItemCaseSensitive(node, text_of(&tok));
        else if (cJSON_IsArray(node))
            node = array_step(node, text_of(&tok));
        else
            node = NULL;
    }
    mcps_buf_free(&tok);
    return *ptr ? NULL : node;
}

mcps_si_ref_status mcps_si_ref_resolve(const cJSON *root, const char *ref, const cJSON **target)
{
    size_t urilen = strcspn(ref, "#");
    *target = NULL;
    if (urilen > 0 && !names_root(root, ref, urilen))
        return MCPS_SI_REF_EXTERNAL;
    const char *frag = ref + urilen + (ref[urilen] == '#');
    if (*frag == '\0') {
        *target = root;
        return MCPS_SI_REF_OK;
    }
    if (*frag != '/' && *frag != '%')
        return MCPS_SI_REF_EXTERNAL; /* a plain-name fragment: an anchor */
    mcps_buf ptr = {0};
    bool ok = decode_fragment(&ptr, ref) && !ptr.oom && text_of(&ptr)[0] == '/';
    *target = ok ? walk_pointer(root, text_of(&ptr)) : NULL;
    mcps_buf_free(&ptr);
    return *target ? MCPS_SI_REF_OK : MCPS_SI_REF_BROKEN;
}

const cJSON *mcps_si_pointer_walk(const cJSON *root, const char *fragment)
{
    if (!*fragment)
        return root;
    mcps_buf ptr = {0};
    bool ok = decode_percent(&ptr, fragment) && !ptr.oom && text_of(&ptr)[0] == '/';
    const cJSON *target = ok ? walk_pointer(root, text_of(&ptr)) : NULL;
    mcps_buf_free(&ptr);
    return target;
}

/* ---- the error list ------------------------------------------------------------ */

static char *render(const mcps_si_path *p, const char *key)
{
    mcps_buf b = {0};
    mcps_si_path_render(&b, p);
    if (key)
        put_token(&b, key);
    return mcps_buf_take(&b);
}

void mcps_si_result_add(mcps_schema_result *r, mcps_schema_verdict kind, const mcps_si_path *ip,
                        const mcps_si_path *sp, const char *key, const char *fmt, ...)
{
    r->nerrors++;
    if (r->nkept >= MCPS_SCHEMA_MAX_ERRORS)
        return;
    mcps_buf msg = {0};
    va_list ap;
    va_start(ap, fmt);
    mcps_buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    mcps_schema_error e = {kind, render(ip, NULL), render(sp, key), mcps_buf_take(&msg)};
    if (!e.instance_path || !e.schema_path || !e.message) {
        free(e.instance_path);
        free(e.schema_path);
        free(e.message);
        return;
    }
    r->errors[r->nkept++] = e;
}

static void error_free(mcps_schema_error *e)
{
    free(e->instance_path);
    free(e->schema_path);
    free(e->message);
    memset(e, 0, sizeof *e);
}

void mcps_si_result_rollback(mcps_schema_result *r, size_t nerrors)
{
    while (r->nkept > nerrors)
        error_free(&r->errors[--r->nkept]);
    if (r->nerrors > nerrors)
        r->nerrors = nerrors;
}

void mcps_schema_result_free(mcps_schema_result *out)
{
    if (!out)
        return;
    while (out->nkept)
        error_free(&out->errors[--out->nkept]);
    out->nerrors = 0;
}

const char *mcps_schema_verdict_name(mcps_schema_verdict v)
{
    switch (v) {
    case MCPS_SCHEMA_VALID:
        return "valid";
    case MCPS_SCHEMA_INVALID:
        return "invalid";
    case MCPS_SCHEMA_SCHEMA_ERROR:
        return "schema error";
    case MCPS_SCHEMA_UNSUPPORTED:
        return "unsupported";
    case MCPS_SCHEMA_TOO_COMPLEX:
        return "too complex";
    }
    return "?";
}
