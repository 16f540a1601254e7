/*
 * json.c - strict RFC 8259 parser building cJSON trees; see json.h.
 *
 * One pass over the input with an explicit stack of open containers, so depth
 * is bounded by a limit rather than by the C stack. Strings are scanned eight
 * bytes at a time while they hold plain ASCII, which is most of MCP traffic;
 * anything else (escapes, UTF-8 sequences, control characters) takes the slow
 * path byte by byte and is validated there.
 */
#include "codec/json.h"

#include "base/buf.h"
#include "base/hex.h"
#include "base/utf8.h"

#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Objects with more members than this get a hash set for duplicate detection. */
#define KEYSET_THRESHOLD 16

/* Open containers held in the parser itself before the stack moves to the heap. */
#define INLINE_FRAMES 16

typedef struct keyset {
    const cJSON **slots; /* open addressing on key hash; NULL = empty */
    size_t cap;          /* power of two */
    size_t used;
} keyset;

typedef struct frame {
    cJSON *node;                 /* the open array or object */
    cJSON *tail;                 /* last child, for O(1) append */
    size_t count;                /* children so far */
    char *pending_key;           /* object key parsed, value not yet attached */
    const unsigned char *key_at; /* where pending_key starts, for spots */
    keyset keys;                 /* only for objects past KEYSET_THRESHOLD */
} frame;

typedef struct parser {
    const unsigned char *start;
    const unsigned char *p;
    const unsigned char *end;
    mcps_json_result *out;
    size_t max_depth;
    frame *stack; /* inline_frames until deeper than INLINE_FRAMES */
    size_t depth;
    size_t cap;
    cJSON *root;
    mcps_json_spots *spots;        /* NULL, or where each node starts (mcps_json_parse_spotted) */
    const unsigned char *value_at; /* where the value being parsed starts */
    frame inline_frames[INLINE_FRAMES];
} parser;

mcps_json_limits mcps_json_default_limits(void)
{
    return (mcps_json_limits){MCPS_JSON_DEFAULT_MAX_DEPTH, MCPS_JSON_DEFAULT_MAX_BYTES};
}

/* ---- errors and findings ---------------------------------------------- */

static bool fail_at(parser *ps, const unsigned char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail_at(parser *ps, const unsigned char *at, const char *fmt, ...)
{
    if (ps->out->error[0])
        return false; /* keep the first, most precise reason */
    ps->out->error_offset = (size_t)(at - ps->start);
    ps->out->incomplete = at >= ps->end;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->out->error, sizeof ps->out->error, fmt, ap);
    va_end(ap);
    return false;
}

static void describe_byte(const unsigned char *at, const unsigned char *end, char *dst, size_t n)
{
    if (at >= end)
        snprintf(dst, n, "end of input");
    else if (*at >= 0x21 && *at < 0x7f)
        snprintf(dst, n, "'%c'", *at);
    else
        snprintf(dst, n, "byte 0x%02X", *at);
}

static bool fail_unexpected(parser *ps, const unsigned char *at, const char *wanted)
{
    char what[32];
    describe_byte(at, ps->end, what, sizeof what);
    return fail_at(ps, at, "expected %s, found %s", wanted, what);
}

static void add_finding(parser *ps, mcps_json_finding_kind kind, const unsigned char *at,
                        const char *detail)
{
    mcps_json_result *r = ps->out;
    if (r->nfindings < MCPS_JSON_MAX_FINDINGS) {
        mcps_json_finding *f = &r->findings[r->nfindings];
        f->kind = kind;
        f->offset = (size_t)(at - ps->start);
        snprintf(f->detail, sizeof f->detail, "%s", detail);
    }
    r->nfindings++;
}

/* ---- UTF-8 (base/utf8.h decides) ------------------------------------------- */

bool mcps_json_utf8_valid(const char *buf, size_t len, size_t *bad_offset)
{
    return mcps_utf8_valid(buf, len, bad_offset);
}

/* ---- strings --------------------------------------------------------------- */

#define ONES  UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

/*
 * Index (0..8) of the first of the eight bytes at s that needs attention: a
 * control character, '"', '\\' or a byte of a UTF-8 sequence; 8 when none does.
 * All lanes are tested at once; a borrow between lanes only runs upward from
 * a lane that is itself flagged, so the lowest flagged lane is exact.
 */
static inline unsigned first_special8(const unsigned char *s)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, s, 8);
    uint64_t quote = (v ^ (ONES * '"')) - ONES;
    uint64_t slash = (v ^ (ONES * '\\')) - ONES;
    uint64_t control = v - ONES * 0x20;
    uint64_t mask = (((quote | slash | control) & ~v) | v) & HIGHS;
    return mask ? (unsigned)__builtin_ctzll(mask) / 8 : 8;
#else
    for (unsigned i = 0; i < 8; i++)
        if (s[i] < 0x20 || s[i] >= 0x80 || s[i] == '"' || s[i] == '\\')
            return i;
    return 8;
#endif
}

static bool read_hex4(parser *ps, const unsigned char *u, unsigned *cp)
{
    if (ps->end - u < 5)
        return fail_at(ps, u - 1, "\\u must be followed by four hex digits");
    unsigned v = 0;
    for (int i = 1; i <= 4; i++) {
        int h = mcps_hex_value(u[i]);
        if (h < 0)
            return fail_at(ps, u - 1, "\\u must be followed by four hex digits");
        v = (v << 4) | (unsigned)h;
    }
    *cp = v;
    return true;
}

/*
 * First pass over a string body starting after the opening quote: validate it
 * and find the closing quote. Sets *escaped when a decoding pass is needed.
 */
static bool scan_string(parser *ps, const unsigned char *s, const unsigned char **close,
                        bool *escaped)
{
    const unsigned char *p = s, *end = ps->end;
    *escaped = false;
    for (;;) {
        while (end - p >= 8) {
            unsigned skip = first_special8(p);
            p += skip;
            if (skip < 8)
                break;
        }
        if (p >= end)
            return fail_at(ps, end, "unterminated string");
        unsigned c = *p;
        if (c == '"') {
            *close = p;
            return true;
        }
        if (c == '\\') {
            *escaped = true;
            if (p + 1 >= end)
                return fail_at(ps, end, "unterminated string");
            unsigned e = p[1];
            if (e == 'u') {
                unsigned cp;
                if (!read_hex4(ps, p + 1, &cp))
                    return false;
                p += 6;
            } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                       e == 'r' || e == 't') {
                p += 2;
            } else {
                char what[32];
                describe_byte(p + 1, end, what, sizeof what);
                return fail_at(ps, p, "invalid escape: backslash followed by %s", what);
            }
        } else if (c < 0x20) {
            return fail_at(ps, p, "raw control character U+%04X in string (must be escaped)", c);
        } else if (c < 0x80) {
            p++;
        } else {
            const char *why;
            uint32_t cp;
            size_t n = mcps_utf8_decode(p, (size_t)(end - p), &cp, &why);
            if (!n)
                return fail_at(ps, p, "%s in string", why);
            p += n;
        }
    }
}

static unsigned char simple_escape(unsigned char e)
{
    switch (e) {
    case 'b':
        return '\b';
    case 'f':
        return '\f';
    case 'n':
        return '\n';
    case 'r':
        return '\r';
    case 't':
        return '\t';
    default:
        return e; /* '"', '\\', '/' */
    }
}

/* Decode the \uXXXX escape at p (pointing at the backslash); returns bytes consumed. */
static size_t decode_unicode_escape(parser *ps, const unsigned char *p, const unsigned char *close,
                                    unsigned char **dst)
{
    unsigned cp = 0;
    read_hex4(ps, p + 1, &cp); /* validated by scan_string */
    if (cp >= 0xD800 && cp <= 0xDBFF && close - p >= 12 && p[6] == '\\' && p[7] == 'u') {
        unsigned lo = 0;
        read_hex4(ps, p + 7, &lo);
        if (lo >= 0xDC00 && lo <= 0xDFFF) {
            *dst += mcps_utf8_encode(0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00), *dst);
            return 12;
        }
    }
    if (cp >= 0xD800 && cp <= 0xDFFF) {
        char detail[32];
        snprintf(detail, sizeof detail, "\\u%04X without its pair", cp);
        add_finding(ps, MCPS_JSON_LONE_SURROGATE, p, detail);
        cp = 0xFFFD;
    }
    *dst += mcps_utf8_encode(cp, *dst);
    return 6;
}

/* Second pass: copy the validated body [s, close) into a fresh C string. */
static char *decode_string(parser *ps, const unsigned char *s, const unsigned char *close,
                           bool escaped)
{
    size_t n = (size_t)(close - s);
    unsigned char *out = cJSON_malloc(n + 1);
    if (!out) {
        fail_at(ps, s, "out of memory");
        return NULL;
    }
    if (!escaped) {
        memcpy(out, s, n);
        out[n] = '\0';
        return (char *)out;
    }
    unsigned char *d = out;
    const unsigned char *p = s;
    while (p < close) {
        const unsigned char *bs = memchr(p, '\\', (size_t)(close - p));
        if (!bs)
            bs = close;
        memcpy(d, p, (size_t)(bs - p));
        d += bs - p;
        p = bs;
        if (p >= close)
            break;
        if (p[1] == 'u') {
            p += decode_unicode_escape(ps, p, close, &d);
        } else {
            *d++ = simple_escape(p[1]);
            p += 2;
        }
    }
    *d = '\0';
    return (char *)out;
}

/* Parse a string at ps->p (the opening quote); advances past the closing quote. */
static char *parse_string_body(parser *ps)
{
    const unsigned char *close = NULL;
    bool escaped = false;
    const unsigned char *s = ps->p + 1;
    if (!scan_string(ps, s, &close, &escaped))
        return NULL;
    char *str = decode_string(ps, s, close, escaped);
    ps->p = close + 1;
    return str;
}

/* ---- numbers --------------------------------------------------------------- */

static inline bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* Validate the RFC 8259 number grammar at ps->p; returns its end or NULL. */
static const unsigned char *scan_number(parser *ps, bool *integer)
{
    const unsigned char *p = ps->p, *end = ps->end;
    *integer = true;
    if (p < end && *p == '-')
        p++;
    if (p >= end || !is_digit(*p))
        return fail_unexpected(ps, p, "a digit"), NULL;
    if (*p == '0') {
        p++;
        if (p < end && is_digit(*p))
            return fail_at(ps, p - 1, "leading zeros are not allowed in numbers"), NULL;
    } else {
        while (p < end && is_digit(*p))
            p++;
    }
    if (p < end && *p == '.') {
        *integer = false;
        p++;
        if (p >= end || !is_digit(*p))
            return fail_unexpected(ps, p, "a digit after the decimal point"), NULL;
        while (p < end && is_digit(*p))
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        *integer = false;
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || !is_digit(*p))
            return fail_unexpected(ps, p, "a digit in the exponent"), NULL;
        while (p < end && is_digit(*p))
            p++;
    }
    return p;
}

static void set_number_value(cJSON *node, const char *text, size_t n, bool integer)
{
    double d;
    bool neg = text[0] == '-';
    size_t digits = n - (neg ? 1 : 0);
    if (integer && digits <= 15) { /* exact in a double: skip strtod */
        int64_t v = 0;
        for (size_t i = neg ? 1 : 0; i < n; i++)
            v = v * 10 + (text[i] - '0');
        d = (double)(neg ? -v : v);
    } else {
        d = strtod(text, NULL);
    }
    node->valuedouble = d;
    if (d >= INT_MAX)
        node->valueint = INT_MAX;
    else if (d <= (double)INT_MIN)
        node->valueint = INT_MIN;
    else
        node->valueint = (int)d;
}

/* ---- tree building --------------------------------------------------------- */

static cJSON *new_node(parser *ps, int type)
{
    cJSON *n = cJSON_malloc(sizeof *n);
    if (!n) {
        fail_at(ps, ps->p, "out of memory");
        return NULL;
    }
    memset(n, 0, sizeof *n);
    n->type = type;
    return n;
}

static void spot(parser *ps, const cJSON *node, const unsigned char *at)
{
    mcps_json_spots *sp = ps->spots;
    if (!sp || sp->failed)
        return;
    if (sp->n == sp->cap) {
        size_t cap = sp->cap ? sp->cap * 2 : 64;
        mcps_json_spot *v = realloc(sp->v, cap * sizeof *v);
        if (!v) {
            sp->failed = true;
            return;
        }
        sp->v = v;
        sp->cap = cap;
    }
    sp->v[sp->n++] = (mcps_json_spot){node, (size_t)(at - ps->start)};
}

/* Attach a finished or freshly opened value to the innermost container. */
static void attach(parser *ps, cJSON *node)
{
    if (ps->depth == 0) {
        spot(ps, node, ps->value_at);
        ps->root = node;
        return;
    }
    frame *f = &ps->stack[ps->depth - 1];
    spot(ps, node, f->pending_key ? f->key_at : ps->value_at);
    if (f->pending_key) {
        node->string = f->pending_key;
        f->pending_key = NULL;
    }
    if (!f->tail) {
        f->node->child = node;
    } else {
        f->tail->next = node;
        node->prev = f->tail;
    }
    f->tail = node;
    f->node->child->prev = node; /* cJSON keeps head->prev at the last child */
    f->count++;
}

static bool parse_number(parser *ps)
{
    bool integer;
    const unsigned char *end = scan_number(ps, &integer);
    if (!end)
        return false;
    size_t n = (size_t)(end - ps->p);
    cJSON *node = new_node(ps, cJSON_Number);
    char *text = node ? cJSON_malloc(n + 1) : NULL;
    if (!text) {
        cJSON_free(node);
        return fail_at(ps, ps->p, "out of memory");
    }
    memcpy(text, ps->p, n);
    text[n] = '\0';
    node->valuestring = text;
    set_number_value(node, text, n, integer);
    attach(ps, node);
    ps->p = end;
    return true;
}

static bool parse_literal(parser *ps, const char *word, int type)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0) {
        size_t i = 0;
        while (i < n && ps->p + i < ps->end && ps->p[i] == (unsigned char)word[i])
            i++;
        return fail_at(ps, ps->p + i, "invalid literal (expected '%s')", word);
    }
    cJSON *node = new_node(ps, type);
    if (!node)
        return false;
    if (type == cJSON_True)
        node->valueint = 1;
    attach(ps, node);
    ps->p += n;
    return true;
}

static bool parse_string_value(parser *ps)
{
    char *s = parse_string_body(ps);
    if (!s)
        return false;
    cJSON *node = new_node(ps, cJSON_String);
    if (!node) {
        cJSON_free(s);
        return false;
    }
    node->valuestring = s;
    attach(ps, node);
    return true;
}

/* ---- duplicate keys ---------------------------------------------------------- */

static uint64_t hash_key(const char *s)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return h;
}

static bool keyset_insert(keyset *ks, const cJSON *item);

static bool keyset_grow(keyset *ks)
{
    keyset bigger = {calloc(ks->cap ? ks->cap * 2 : 64, sizeof(cJSON *)), 0, 0};
    if (!bigger.slots)
        return false;
    bigger.cap = ks->cap ? ks->cap * 2 : 64;
    for (size_t i = 0; i < ks->cap; i++)
        if (ks->slots[i])
            keyset_insert(&bigger, ks->slots[i]);
    free(ks->slots);
    *ks = bigger;
    return true;
}

/* Insert an object member by its key; false when the key is already there. */
static bool keyset_insert(keyset *ks, const cJSON *item)
{
    size_t mask = ks->cap - 1;
    for (size_t i = hash_key(item->string) & mask;; i = (i + 1) & mask) {
        if (!ks->slots[i]) {
            ks->slots[i] = item;
            ks->used++;
            return true;
        }
        if (strcmp(ks->slots[i]->string, item->string) == 0)
            return false;
    }
}

static bool keyset_contains(const keyset *ks, const char *key)
{
    size_t mask = ks->cap - 1;
    for (size_t i = hash_key(key) & mask; ks->slots[i]; i = (i + 1) & mask)
        if (strcmp(ks->slots[i]->string, key) == 0)
            return true;
    return false;
}

/* Index the members so far once the object outgrows a linear scan. */
static void keyset_index(frame *f)
{
    if (f->keys.slots || f->count < KEYSET_THRESHOLD)
        return;
    for (const cJSON *c = f->node->child; c; c = c->next) {
        if (f->keys.used * 2 >= f->keys.cap && !keyset_grow(&f->keys))
            return;
        keyset_insert(&f->keys, c);
    }
}

static bool key_seen(frame *f, const char *key)
{
    keyset_index(f);
    if (f->keys.slots)
        return keyset_contains(&f->keys, key);
    for (const cJSON *c = f->node->child; c; c = c->next)
        if (strcmp(c->string, key) == 0)
            return true;
    return false;
}

/* Record the member just attached so later keys are checked against it. */
static void key_remember(frame *f)
{
    if (!f->keys.slots)
        return;
    if (f->keys.used * 2 >= f->keys.cap && !keyset_grow(&f->keys))
        return;
    keyset_insert(&f->keys, f->tail);
}

/* ---- structure --------------------------------------------------------------- */

static inline void skip_ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
        ps->p++;
}

static bool grow_stack(parser *ps)
{
    size_t cap = ps->cap * 2;
    bool inline_now = ps->stack == ps->inline_frames;
    frame *st = realloc(inline_now ? NULL : ps->stack, cap * sizeof *st);
    if (!st)
        return false;
    if (inline_now)
        memcpy(st, ps->inline_frames, sizeof ps->inline_frames);
    ps->stack = st;
    ps->cap = cap;
    return true;
}

static bool push(parser *ps, int type)
{
    if (ps->depth >= ps->max_depth)
        return fail_at(ps, ps->p, "nesting deeper than the limit of %zu", ps->max_depth);
    if (ps->depth == ps->cap && !grow_stack(ps))
        return fail_at(ps, ps->p, "out of memory");
    cJSON *node = new_node(ps, type);
    if (!node)
        return false;
    attach(ps, node);
    ps->stack[ps->depth++] = (frame){.node = node};
    ps->p++;
    return true;
}

static void pop(parser *ps)
{
    frame *f = &ps->stack[--ps->depth];
    free(f->keys.slots);
    ps->p++;
}

/* Parse an object key and the ':' after it, leaving ps->p at the value. */
static bool parse_key(parser *ps)
{
    frame *f = &ps->stack[ps->depth - 1];
    if (ps->p >= ps->end || *ps->p != '"')
        return fail_unexpected(ps, ps->p, "a string as object key");
    const unsigned char *at = ps->p;
    char *key = parse_string_body(ps);
    if (!key)
        return false;
    if (key_seen(f, key)) {
        char detail[sizeof ps->out->findings[0].detail];
        snprintf(detail, sizeof detail, "key \"%.40s\" appears twice in one object", key);
        add_finding(ps, MCPS_JSON_DUPLICATE_KEY, at, detail);
    }
    f->pending_key = key;
    f->key_at = at;
    skip_ws(ps);
    if (ps->p >= ps->end || *ps->p != ':')
        return fail_unexpected(ps, ps->p, "':' after object key");
    ps->p++;
    skip_ws(ps);
    return true;
}

/* Parse one value at ps->p: a scalar is attached whole, a container is opened. */
static bool parse_value_start(parser *ps)
{
    if (ps->p >= ps->end)
        return fail_at(ps, ps->p, "unexpected end of input, expected a value");
    ps->value_at = ps->p;
    switch (*ps->p) {
    case '{':
        return push(ps, cJSON_Object);
    case '[':
        return push(ps, cJSON_Array);
    case '"':
        return parse_string_value(ps);
    case 't':
        return parse_literal(ps, "true", cJSON_True);
    case 'f':
        return parse_literal(ps, "false", cJSON_False);
    case 'n':
        return parse_literal(ps, "null", cJSON_NULL);
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
        return parse_number(ps);
    case ']':
    case '}':
        return fail_at(ps, ps->p, "expected a value, found '%c' (trailing comma?)", *ps->p);
    default:
        return fail_unexpected(ps, ps->p, "a value");
    }
}

/* After a value inside a container: ',' continues it, the closer ends it. */
static bool parse_after_member(parser *ps, bool *opened_value)
{
    frame *f = &ps->stack[ps->depth - 1];
    bool is_object = f->node->type == cJSON_Object;
    if (is_object)
        key_remember(f);
    skip_ws(ps);
    char closer = is_object ? '}' : ']';
    if (ps->p < ps->end && *ps->p == closer) {
        pop(ps);
        *opened_value = false;
        return true;
    }
    if (ps->p >= ps->end || *ps->p != ',')
        return fail_unexpected(ps, ps->p,
                               is_object ? "',' or '}' after object member"
                                         : "',' or ']' after array element");
    ps->p++;
    skip_ws(ps);
    *opened_value = true;
    return is_object ? parse_key(ps) : true;
}

/* Right after '{' or '[': the container may close at once. */
static bool parse_container_open(parser *ps, bool *opened_value)
{
    frame *f = &ps->stack[ps->depth - 1];
    skip_ws(ps);
    char closer = f->node->type == cJSON_Object ? '}' : ']';
    if (ps->p < ps->end && *ps->p == closer) {
        pop(ps);
        *opened_value = false;
        return true;
    }
    *opened_value = true;
    return f->node->type == cJSON_Object ? parse_key(ps) : true;
}

static bool parse_document(parser *ps)
{
    skip_ws(ps);
    bool want_value = true;
    for (;;) {
        if (want_value) {
            size_t depth_before = ps->depth;
            if (!parse_value_start(ps))
                return false;
            if (ps->depth > depth_before) {
                if (!parse_container_open(ps, &want_value))
                    return false;
                continue;
            }
        }
        if (ps->depth == 0)
            break;
        if (!parse_after_member(ps, &want_value))
            return false;
    }
    skip_ws(ps);
    if (ps->p < ps->end)
        return fail_unexpected(ps, ps->p, "end of input after the JSON value");
    return true;
}

static void parser_cleanup(parser *ps, bool ok)
{
    for (size_t i = 0; i < ps->depth; i++) {
        cJSON_free(ps->stack[i].pending_key);
        free(ps->stack[i].keys.slots);
    }
    if (ps->stack != ps->inline_frames)
        free(ps->stack);
    if (!ok) {
        mcps_json_delete(ps->root);
        ps->root = NULL;
    }
}

bool mcps_json_parse(const char *buf, size_t len, const mcps_json_limits *limits,
                     mcps_json_result *out)
{
    return mcps_json_parse_spotted(buf, len, limits, out, NULL);
}

bool mcps_json_parse_spotted(const char *buf, size_t len, const mcps_json_limits *limits,
                             mcps_json_result *out, mcps_json_spots *spots)
{
    mcps_json_limits lim = limits ? *limits : mcps_json_default_limits();
    memset(out, 0, offsetof(mcps_json_result, findings));
    parser ps = {
        .start = (const unsigned char *)buf,
        .p = (const unsigned char *)buf,
        .end = (const unsigned char *)buf + len,
        .out = out,
        .max_depth = lim.max_depth,
        .cap = INLINE_FRAMES,
        .spots = spots,
    };
    ps.stack = ps.inline_frames;
    if (len > lim.max_bytes) {
        fail_at(&ps, ps.start + lim.max_bytes, "input is %zu bytes, over the limit of %zu", len,
                lim.max_bytes);
        return false;
    }
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
        fail_at(&ps, ps.start, "byte order mark before JSON text (RFC 8259 section 8.1)");
        return false;
    }
    bool ok = parse_document(&ps);
    parser_cleanup(&ps, ok);
    out->root = ps.root;
    if (!ok && spots)
        spots->n = 0; /* the nodes are gone */
    return ok;
}

void mcps_json_delete(cJSON *item)
{
    cJSON *chain = item; /* nodes still to free, linked through ->next */
    while (chain) {
        cJSON *cur = chain;
        chain = cur->next;
        if (cur->child && !(cur->type & cJSON_IsReference)) {
            cJSON *last = cur->child;
            while (last->next)
                last = last->next;
            last->next = chain;
            chain = cur->child;
        }
        if (!(cur->type & cJSON_IsReference))
            cJSON_free(cur->valuestring);
        if (!(cur->type & cJSON_StringIsConst))
            cJSON_free(cur->string);
        cJSON_free(cur);
    }
}

cJSON *mcps_json_parse_simple(const char *buf, size_t len)
{
    mcps_json_result r;
    return mcps_json_parse(buf, len, NULL, &r) ? r.root : NULL;
}

/* ---- numbers from outside the parser ------------------------------------------ */

const char *mcps_json_number_text(const cJSON *number)
{
    if (!number || !(number->type & cJSON_Number))
        return NULL;
    return number->valuestring;
}

cJSON *mcps_json_create_number_text(const char *text)
{
    cJSON *n = mcps_json_parse_simple(text, strlen(text));
    if (n && !cJSON_IsNumber(n)) {
        mcps_json_delete(n);
        return NULL;
    }
    return n;
}

bool mcps_json_number_is_integer(const cJSON *number)
{
    const char *t = mcps_json_number_text(number);
    if (t)
        return strpbrk(t, ".eE") == NULL;
    if (!cJSON_IsNumber(number))
        return false;
    double d = number->valuedouble;
    return isfinite(d) && d == floor(d);
}

const char *mcps_json_scalar_text(const cJSON *v, char *buf, size_t n)
{
    if (cJSON_IsString(v))
        return v->valuestring;
    if (cJSON_IsBool(v))
        return cJSON_IsTrue(v) ? "true" : "false";
    if (!cJSON_IsNumber(v) || !mcps_json_number_is_integer(v))
        return NULL;
    const char *text = mcps_json_number_text(v);
    if (text)
        return text;
    snprintf(buf, n, "%.0f", v->valuedouble);
    return buf;
}

/* ---- printing ------------------------------------------------------------------ */

/*
 * A whole number below 1e17 prints as its digits, what "%.0f" writes (-0.0
 * too), without snprintf: hand-built trees are mostly such numbers (ids,
 * counts), and snprintf of a double costs more than the rest of a print.
 */
static void print_whole(mcps_buf *b, double d)
{
    char tmp[24];
    char *p = tmp + sizeof tmp;
    uint64_t v = (uint64_t)fabs(d); /* exact: |d| < 1e17 < 2^64 */
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (signbit(d))
        *--p = '-';
    mcps_buf_append(b, p, (size_t)(tmp + sizeof tmp - p));
}

static void print_double(mcps_buf *b, double d)
{
    char tmp[32];
    if (!isfinite(d)) {
        mcps_buf_puts(b, "null");
        return;
    }
    if (d == floor(d) && fabs(d) < 1e17) {
        print_whole(b, d);
        return;
    }
    snprintf(tmp, sizeof tmp, "%.15g", d);
    if (strtod(tmp, NULL) != d)
        snprintf(tmp, sizeof tmp, "%.17g", d);
    mcps_buf_puts(b, tmp);
}

static bool needs_escape(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\' || c == 0xC0;
}

/* The end of the bytes from s that print as they are: end, or a byte that needs_escape(). Eight
 * at a time (a fuzz input's strings run to 70 KB), past the UTF-8 bytes first_special8 stops at. */
static const unsigned char *plain_end(const unsigned char *s, const unsigned char *end)
{
    while (s < end) {
        if (end - s >= 8) {
            unsigned skip = first_special8(s);
            s += skip;
            if (skip == 8)
                continue;
        }
        if (needs_escape(*s))
            return s;
        s++;
    }
    return s;
}

static void print_string(mcps_buf *b, const char *str)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    const unsigned char *end = s + strlen((const char *)s);
    mcps_buf_putc(b, '"');
    for (;;) {
        const unsigned char *run = s;
        s = plain_end(s, end);
        mcps_buf_append(b, run, (size_t)(s - run));
        if (s == end)
            break;
        unsigned char c = *s;
        s++;
        if (c == 0xC0 && *s == 0x80) { /* modified UTF-8 NUL */
            mcps_buf_puts(b, "\\u0000");
            s++;
        } else if (c == 0xC0) {
            mcps_buf_putc(b, (char)c);
        } else if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            mcps_buf_append(b, esc, 2);
        } else if (c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f') {
            char esc[2] = {'\\', c == '\n'   ? 'n'
                                 : c == '\r' ? 'r'
                                 : c == '\t' ? 't'
                                 : c == '\b' ? 'b'
                                             : 'f'};
            mcps_buf_append(b, esc, 2);
        } else {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            mcps_buf_append(b, esc, 6);
        }
    }
    mcps_buf_putc(b, '"');
}

/* A scalar, or the opening bracket of a container. */
static void print_open(mcps_buf *b, const cJSON *item)
{
    switch (item->type & 0xFF) {
    case cJSON_False:
        mcps_buf_puts(b, "false");
        break;
    case cJSON_True:
        mcps_buf_puts(b, "true");
        break;
    case cJSON_Number:
        if (item->valuestring)
            mcps_buf_puts(b, item->valuestring);
        else
            print_double(b, item->valuedouble);
        break;
    case cJSON_String:
        print_string(b, item->valuestring);
        break;
    case cJSON_Raw:
        mcps_buf_puts(b, item->valuestring ? item->valuestring : "null");
        break;
    case cJSON_Array:
        mcps_buf_putc(b, '[');
        break;
    case cJSON_Object:
        mcps_buf_putc(b, '{');
        break;
    default:
        mcps_buf_puts(b, "null");
    }
}

static bool is_container(const cJSON *item)
{
    return (item->type & 0xFF) == cJSON_Array || (item->type & 0xFF) == cJSON_Object;
}

static void print_close(mcps_buf *b, const cJSON *container)
{
    mcps_buf_putc(b, (container->type & 0xFF) == cJSON_Object ? '}' : ']');
}

/* Open containers a printer holds before its stack moves to the heap. */
#define PRINT_INLINE_DEPTH 32
/* First buffer size: most messages fit, so printing them costs one allocation. */
#define PRINT_FIRST_BUFFER 512

static bool print_grow_stack(const cJSON ***stack, size_t *cap, const cJSON **inline_stack)
{
    size_t bigger = *cap * 2;
    bool inline_now = *stack == inline_stack;
    const cJSON **st = realloc(inline_now ? NULL : *stack, bigger * sizeof *st);
    if (!st)
        return false;
    if (inline_now)
        memcpy(st, inline_stack, *cap * sizeof *st);
    *stack = st;
    *cap = bigger;
    return true;
}

char *mcps_json_print(const cJSON *item, size_t *out_len)
{
    mcps_buf b = {0};
    mcps_buf_reserve(&b, PRINT_FIRST_BUFFER - 1);
    const cJSON *inline_stack[PRINT_INLINE_DEPTH];
    const cJSON **stack = inline_stack; /* open containers */
    size_t depth = 0, cap = PRINT_INLINE_DEPTH;
    const cJSON *cur = item;
    while (cur) {
        if (depth && (stack[depth - 1]->type & 0xFF) == cJSON_Object) {
            print_string(&b, cur->string);
            mcps_buf_putc(&b, ':');
        }
        print_open(&b, cur);
        if (is_container(cur) && cur->child) {
            if (depth == cap && !print_grow_stack(&stack, &cap, inline_stack)) {
                b.oom = true;
                break;
            }
            stack[depth++] = cur;
            cur = cur->child;
            continue;
        }
        if (is_container(cur))
            print_close(&b, cur);
        while (depth && !cur->next) {
            cur = stack[--depth];
            print_close(&b, cur);
        }
        if (!depth)
            break;
        mcps_buf_putc(&b, ',');
        cur = cur->next;
    }
    if (stack != inline_stack)
        free(stack);
    size_t len = b.len;
    char *s = mcps_buf_take(&b);
    if (out_len)
        *out_len = s ? len : 0;
    return s;
}

/* ---- equality ------------------------------------------------------------------ */

typedef struct pair {
    const cJSON *a, *b;
} pair;

/* Pairs still to compare held inline before the work list moves to the heap. */
#define EQUAL_INLINE_PAIRS 32

typedef struct pairs {
    pair *items; /* first until more than EQUAL_INLINE_PAIRS are pending */
    size_t n, cap;
    bool oom;
    pair first[EQUAL_INLINE_PAIRS];
} pairs;

static void pairs_push(pairs *ps, const cJSON *a, const cJSON *b)
{
    if (ps->n == ps->cap) {
        size_t cap = ps->cap * 2;
        bool inline_now = ps->items == ps->first;
        pair *p = realloc(inline_now ? NULL : ps->items, cap * sizeof *p);
        if (!p) {
            ps->oom = true;
            return;
        }
        if (inline_now)
            memcpy(p, ps->first, sizeof ps->first);
        ps->items = p;
        ps->cap = cap;
    }
    ps->items[ps->n++] = (pair){a, b};
}

static bool numbers_equal(const cJSON *a, const cJSON *b)
{
    if (a->valuestring && b->valuestring)
        return strcmp(a->valuestring, b->valuestring) == 0;
    return a->valuedouble == b->valuedouble;
}

static size_t count_children(const cJSON *c)
{
    size_t n = 0;
    for (c = c->child; c; c = c->next)
        n++;
    return n;
}

/* The k-th member of obj named key (k counts from 0), or NULL. */
static const cJSON *nth_member(const cJSON *obj, const char *key, size_t k)
{
    for (const cJSON *c = obj->child; c; c = c->next)
        if (c->string && strcmp(c->string, key) == 0 && k-- == 0)
            return c;
    return NULL;
}

static size_t occurrence_index(const cJSON *obj, const cJSON *member)
{
    size_t k = 0;
    for (const cJSON *c = obj->child; c != member; c = c->next)
        if (c->string && strcmp(c->string, member->string) == 0)
            k++;
    return k;
}

static bool pair_children(pairs *work, const cJSON *a, const cJSON *b)
{
    if ((a->type & 0xFF) == cJSON_Array) {
        const cJSON *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next)
            pairs_push(work, x, y);
        return !x && !y;
    }
    if (count_children(a) != count_children(b))
        return false;
    for (const cJSON *x = a->child; x; x = x->next) {
        if (!x->string)
            return false;
        const cJSON *y = nth_member(b, x->string, occurrence_index(a, x));
        if (!y)
            return false;
        pairs_push(work, x, y);
    }
    return true;
}

static bool scalars_equal(const cJSON *a, const cJSON *b)
{
    switch (a->type & 0xFF) {
    case cJSON_Number:
        return numbers_equal(a, b);
    case cJSON_String:
    case cJSON_Raw:
        if (!a->valuestring || !b->valuestring)
            return a->valuestring == b->valuestring;
        return strcmp(a->valuestring, b->valuestring) == 0;
    default:
        return true;
    }
}

bool mcps_json_equal(const cJSON *a, const cJSON *b)
{
    pairs work = {.cap = EQUAL_INLINE_PAIRS};
    work.items = work.first;
    bool equal = true;
    pairs_push(&work, a, b);
    while (equal && work.n && !work.oom) {
        pair p = work.items[--work.n];
        if (!p.a || !p.b)
            equal = p.a == p.b;
        else if ((p.a->type & 0xFF) != (p.b->type & 0xFF))
            equal = false;
        else if (is_container(p.a))
            equal = pair_children(&work, p.a, p.b);
        else
            equal = scalars_equal(p.a, p.b);
    }
    equal = equal && !work.oom;
    if (work.items != work.first)
        free(work.items);
    return equal;
}
