/*
 * jsonschema_regex.c - the ECMA-262 regex subset behind "pattern", run on a Pike VM.
 *
 * Schemas come from the servers we test, so a pattern is hostile input. A
 * backtracking matcher lets ^(a+)+$ take exponential time; a Pike VM keeps one
 * thread per program state and steps them in lock-step over the input, so the
 * cost is at most (program size) x (input length), and a budget caps even that.
 *
 * This file parses and compiles; jsonschema_rxvm.c runs the program.
 * The pattern is parsed into a small tree first, so counted repetition (a{2,5})
 * can be expanded by copying, then compiled to instructions. No captures are
 * needed: JSON Schema only asks "does it match somewhere?", so lazy and greedy
 * quantifiers compile the same. Input and pattern are UTF-8 and matched by code
 * point. Syntax follows ECMA-262 with the Annex B leniencies browsers accept
 * (a lone "{" or "]" is a literal). Backreferences, lookaround and \p{...}
 * cannot run on this machine and are reported as unsupported.
 */
#include "schema/jsonschema_internal.h"

#include "base/array.h"
#include "base/hex.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RX_MAX_PROG  20000  /* instructions; bigger patterns are TOO_BIG */
#define RX_MAX_NEST  64     /* group nesting, which bounds parser recursion */
#define RX_MAX_COUNT 100000 /* {n,m} bounds saturate here; the size cap rejects them */

typedef enum rx_kind {
    N_EMPTY,
    N_CHAR,
    N_ANY,
    N_CLASS,
    N_CAT,
    N_ALT,
    N_REPEAT,
    N_BOL,
    N_EOL,
    N_WORDB,
    N_NWORDB,
} rx_kind;

typedef struct rx_node {
    rx_kind kind;
    uint32_t value;    /* code point or class index */
    uint32_t min, max; /* N_REPEAT */
    int32_t child;     /* first child: N_CAT, N_ALT, N_REPEAT */
    int32_t next;      /* next sibling */
} rx_node;

typedef struct rx_parser {
    const unsigned char *p, *end, *start;
    rx_node *nodes;
    size_t nnodes, ncap;
    mcps_si_rx_range *ranges;
    size_t nranges, rcap;
    mcps_si_rx_class *classes;
    size_t nclasses, ccap;
    int depth;
    mcps_schema_regex_status status;
    char *why;
    size_t whylen;
} rx_parser;

/* A set under construction: a class escape or a bracket class. */
typedef struct rx_set {
    mcps_si_rx_range *r;
    size_t n, cap;
} rx_set;

static const mcps_si_rx_range DIGIT_SET[] = {{'0', '9'}};
static const mcps_si_rx_range WORD_SET[] = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
static const mcps_si_rx_range SPACE_SET[] = {
    {0x09, 0x0D},     {0x20, 0x20},     {0xA0, 0xA0},     {0x1680, 0x1680}, {0x2000, 0x200A},
    {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}, {0xFEFF, 0xFEFF}};

/* ---- parser state ------------------------------------------------------------- */

static bool rx_fail(rx_parser *ps, mcps_schema_regex_status st, const char *msg)
{
    if (ps->status == MCPS_SCHEMA_REGEX_OK) {
        ps->status = st;
        if (ps->why && ps->whylen)
            snprintf(ps->why, ps->whylen, "%s at offset %zu", msg, (size_t)(ps->p - ps->start));
    }
    return false;
}

static int32_t new_node(rx_parser *ps, rx_kind kind, uint32_t value)
{
    if (!mcps_array_reserve(&ps->nodes, &ps->ncap, ps->nnodes + 1, sizeof *ps->nodes, 16)) {
        rx_fail(ps, MCPS_SCHEMA_REGEX_TOO_BIG, "out of memory");
        return -1;
    }
    rx_node *nd = &ps->nodes[ps->nnodes];
    memset(nd, 0, sizeof *nd);
    nd->kind = kind;
    nd->value = value;
    nd->child = nd->next = -1;
    return (int32_t)ps->nnodes++;
}

static bool at(const rx_parser *ps, char c)
{
    return ps->p < ps->end && *ps->p == (unsigned char)c;
}

static uint32_t next_cp(rx_parser *ps)
{
    uint32_t cp;
    ps->p += mcps_si_utf8_next(ps->p, (size_t)(ps->end - ps->p), &cp);
    return cp;
}

/* ---- sets --------------------------------------------------------------------- */

static bool set_add(rx_set *s, uint32_t lo, uint32_t hi)
{
    if (!mcps_array_reserve(&s->r, &s->cap, s->n + 1, sizeof *s->r, 16))
        return false;
    s->r[s->n++] = (mcps_si_rx_range){lo, hi};
    return true;
}

static bool set_add_table(rx_set *s, const mcps_si_rx_range *t, size_t n, bool complement)
{
    uint32_t from = 0;
    for (size_t i = 0; i < n; i++) {
        if (!complement) {
            if (!set_add(s, t[i].lo, t[i].hi))
                return false;
        } else {
            if (t[i].lo > from && !set_add(s, from, t[i].lo - 1))
                return false;
            from = t[i].hi + 1;
        }
    }
    return !complement || set_add(s, from, 0x10FFFF);
}

static int range_order(const void *a, const void *b)
{
    const mcps_si_rx_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sort and merge the set into the regex's range table as a new class. */
static int32_t set_commit(rx_parser *ps, rx_set *s, bool negated)
{
    if (s->n)
        qsort(s->r, s->n, sizeof *s->r, range_order);
    size_t m = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (m && s->r[i].lo <= s->r[m - 1].hi + 1) {
            if (s->r[i].hi > s->r[m - 1].hi)
                s->r[m - 1].hi = s->r[i].hi;
        } else {
            s->r[m++] = s->r[i];
        }
    }
    if (!mcps_array_reserve(&ps->ranges, &ps->rcap, ps->nranges + m, sizeof *ps->ranges, 16) ||
        !mcps_array_reserve(&ps->classes, &ps->ccap, ps->nclasses + 1, sizeof *ps->classes, 16)) {
        rx_fail(ps, MCPS_SCHEMA_REGEX_TOO_BIG, "out of memory");
        return -1;
    }
    if (m)
        memcpy(ps->ranges + ps->nranges, s->r, m * sizeof *s->r);
    ps->classes[ps->nclasses] = (mcps_si_rx_class){(uint32_t)ps->nranges, (uint32_t)m, negated};
    ps->nranges += m;
    return new_node(ps, N_CLASS, (uint32_t)ps->nclasses++);
}

/* ---- escapes ------------------------------------------------------------------ */

/* What one escape or class member stands for. */
typedef enum esc_kind { ESC_CP, ESC_SET, ESC_WORDB, ESC_NWORDB, ESC_ERROR } esc_kind;

typedef struct esc {
    esc_kind kind;
    uint32_t cp;
    const mcps_si_rx_range *set;
    size_t nset;
    bool complement;
} esc;

/* Read exactly n hex digits at p; -1 if they are not there. */
static long hex_run(const unsigned char *p, const unsigned char *end, size_t n)
{
    long v = 0;
    if ((size_t)(end - p) < n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int h = mcps_hex_value(p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* \u{...} form; returns the code point or -1 (leaves p unchanged then). */
static long braced_hex(rx_parser *ps)
{
    const unsigned char *q = ps->p + 1;
    long v = 0;
    if (!at(ps, '{'))
        return -1;
    while (q < ps->end && mcps_hex_value(*q) >= 0 && v <= 0x10FFFF)
        v = v * 16 + mcps_hex_value(*q++);
    if (q == ps->p + 1 || q >= ps->end || *q != '}' || v > 0x10FFFF)
        return -1;
    ps->p = q + 1;
    return v;
}

/* \uXXXX, a surrogate pair of them, or \u{X...}; a bare \u is the letter u. */
static uint32_t unicode_escape(rx_parser *ps)
{
    long v = braced_hex(ps);
    if (v >= 0)
        return (uint32_t)v;
    v = hex_run(ps->p, ps->end, 4);
    if (v < 0)
        return 'u';
    ps->p += 4;
    if (v >= 0xD800 && v <= 0xDBFF && ps->end - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u') {
        long lo = hex_run(ps->p + 2, ps->end, 4);
        if (lo >= 0xDC00 && lo <= 0xDFFF) {
            ps->p += 6;
            return (uint32_t)(0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00));
        }
    }
    return (uint32_t)v;
}

static bool class_escape_set(unsigned c, esc *e)
{
    unsigned lower = c | 0x20;
    if (lower == 'd')
        e->set = DIGIT_SET, e->nset = sizeof DIGIT_SET / sizeof *DIGIT_SET;
    else if (lower == 'w')
        e->set = WORD_SET, e->nset = sizeof WORD_SET / sizeof *WORD_SET;
    else if (lower == 's')
        e->set = SPACE_SET, e->nset = sizeof SPACE_SET / sizeof *SPACE_SET;
    else
        return false;
    e->kind = ESC_SET;
    e->complement = c != lower;
    return true;
}

static uint32_t control_escape(unsigned c)
{
    switch (c) {
    case 't':
        return '\t';
    case 'n':
        return '\n';
    case 'v':
        return '\v';
    case 'f':
        return '\f';
    case 'r':
        return '\r';
    default:
        return RX_NONE;
    }
}

/* Escapes no Pike VM can run, or that we chose not to carry. */
static bool unsupported_escape(rx_parser *ps, unsigned c)
{
    if (c >= '1' && c <= '9')
        return rx_fail(ps, MCPS_SCHEMA_REGEX_UNSUPPORTED, "backreference"), true;
    if (c == 'k' && at(ps, '<'))
        return rx_fail(ps, MCPS_SCHEMA_REGEX_UNSUPPORTED, "named backreference"), true;
    if (c == '0' && ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
        return rx_fail(ps, MCPS_SCHEMA_REGEX_UNSUPPORTED, "octal escape"), true;
    return false;
}

static const mcps_si_rx_range ASCII_SET[] = {{0, 0x7F}};
static const mcps_si_rx_range ANY_SET[] = {{0, 0x10FFFF}};

/* The set a \p{...} body names: a General_Category value (alone or as gc= or
 * General_Category=), ASCII, Any or Assigned. Scripts and the other binary
 * properties are valid ECMA-262 but beyond our tables: unsupported. */
static bool property_set(rx_parser *ps, const char *body, size_t len, esc *e)
{
    const char *eq = memchr(body, '=', len);
    if (eq) {
        size_t klen = (size_t)(eq - body);
        bool gc = (klen == 2 && memcmp(body, "gc", 2) == 0) ||
                  (klen == 16 && memcmp(body, "General_Category", 16) == 0);
        if (!gc)
            return rx_fail(ps, MCPS_SCHEMA_REGEX_UNSUPPORTED,
                           "Unicode property other than "
                           "General_Category");
        len -= klen + 1;
        body = eq + 1;
        if (!mcps_si_unicode_category(body, len, &e->set, &e->nset))
            return rx_fail(ps, MCPS_SCHEMA_REGEX_SYNTAX, "unknown General_Category value");
        return true;
    }
    if (mcps_si_unicode_category(body, len, &e->set, &e->nset))
        return true;
    if (len == 5 && memcmp(body, "ASCII", 5) == 0) {
        e->set = ASCII_SET, e->nset = 1;
    } else if (len == 3 && memcmp(body, "Any", 3) == 0) {
        e->set = ANY_SET, e->nset = 1;
    } else if (len == 8 && memcmp(body, "Assigned", 8) == 0) {
        mcps_si_unicode_category("Cn", 2, &e->set, &e->nset);
        e->complement = !e->complement;
    } else {
        return rx_fail(ps, MCPS_SCHEMA_REGEX_UNSUPPORTED, "Unicode property escape");
    }
    return true;
}

/* \p{...} or \P{...}, the p already read; JSON Schema patterns have Unicode semantics. */
static esc property_escape(rx_parser *ps, bool negated)
{
    esc e = {ESC_SET, 0, NULL, 0, negated};
    const unsigned char *body = ps->p + 1, *close = NULL;
    if (at(ps, '{'))
        close = memchr(body, '}', (size_t)(ps->end - body) < 64 ? (size_t)(ps->end - body) : 64);
    if (!close || close == body) {
        rx_fail(ps, MCPS_SCHEMA_REGEX_SYNTAX, "\\p needs {property}");
        return (esc){ESC_ERROR, 0, NULL, 0, false};
    }
    ps->p = close + 1;
    if (!property_set(ps, (const char *)body, (size_t)(close - body), &e))
        e.kind = ESC_ERROR;
    return e;
}

/* Parse the escape after a backslash; in_class changes what \b means. */
static esc parse_escape(rx_parser *ps, bool in_class)
{
    esc e = {ESC_CP, 0, NULL, 0, false};
    if (ps->p >= ps->end) {
        rx_fail(ps, MCPS_SCHEMA_REGEX_SYNTAX, "pattern ends with a backslash");
        return (esc){ESC_ERROR, 0, NULL, 0, false};
    }
    unsigned c = *ps->p;
    if (c < 0x80)
        ps->p++;
    if (c >= 0x80) {
        e.cp = next_cp(ps); /* identity escape of a non-ASCII character */
    } else if (unsupported_escape(ps, c)) {
        e.kind = ESC_ERROR;
    } else if (class_escape_set(c, &e)) {
    } else if (c == 'p' || c == 'P') {
        e = property_escape(ps, c == 'P');
    } else if (c == 'b' || c == 'B') {
        if (in_class && c == 'b')
            e.cp = 0x08;
        else if (in_class)
            rx_fail(ps, MCPS_SCHEMA_REGEX_SYNTAX, "\\B inside a class"), e.kind = ESC_ERROR;
        else
            e.kind = c == 'b' ? ESC_WORDB : ESC_NWORDB;
    } else if (control_escape(c) != RX_NONE) {
        e.cp = control_escape(c);
    } else if (c == '0') {
        e.cp = 0;
    } else if (c == 'c' && ps->p < ps->end && ((*ps->p | 0x20) >= 'a' && (*ps->p | 0x20) <= 'z')) {
        e.cp = *ps->p++ % 32;
    } else if (c == 'x') {
        long v = hex_run(ps->p, ps->end, 2);
        e.cp = v < 0 ? 'x' : (uint32_t)v;
        ps->p += v < 0 ? 0 : 2;
    } else if (c == 'u') {
        e.cp = unicode_escape(ps);
    } else {
        e.cp = c; /* identity escape: \. \/ \- \$ and Annex B's \a */
    }
    return e;
}

/* ---- bracket classes ---------------------------------------------------------- */

static esc class_atom(rx_parser *ps)
{
    if (at(ps, '\\')) {
        ps->p++;
        return parse_escape(ps, true);
    }
    return (esc){ESC_CP, next_cp(ps), NULL, 0, false};
}

static bool class_member(rx_parser *ps, rx_set *s)
{
    esc lo = class_atom(ps);
    if (lo.kind == ESC_ERROR)
        return false;
    bool range = at(ps, '-') && ps->p + 1 < ps->end && ps->p[1] != ']';
    if (!range) {
        if (lo.kind == ESC_SET)
            return set_add_table(s, lo.set, lo.nset, lo.complement) ||
                   rx_fail(ps, MCPS_SCHEMA_REGEX_TOO_BIG, "out of memory");
        return set_add(s, lo.cp, lo.cp) || rx_fail(ps, MCPS_SCHEMA_REGEX_TOO_BIG, "out of memory");
    }
    ps->p++;
    esc hi = class_atom(ps);
    if (hi.kind == ESC_ERROR)
        return false;
    if (lo.kind != ESC_CP || hi.kind != ESC_CP)
        return rx_fail(ps, MCPS_SCHEMA_REGEX_SYNTAX, "class escape used as a range end");
    if (lo.cp > hi.cp)
        return rx_fail(ps, MCPS_SCHEMA_REGEX_SYNTAX, "range out of order in character class");
    return set_add(s, lo.cp, hi.cp) || rx_fail(ps, MCPS_SCHEMA_REGEX_TOO_BIG, "out of memory");
}

static int32_t parse_class(rx_parser *ps)
{
    rx_set s = {0};
    bool negated = at(ps, '^');
    int32_t node = -1;
    ps->p += negated;
    while (ps->p < ps->end && *ps->p != ']') {
        if (!class_member(ps, &s))
            goto out;
    }
    if (ps->p >= ps->end) {
        rx_fail(ps, MCPS_SCHEMA_REGEX_SYNTAX, "unterminated character class");
        goto out;
    }
    ps->p++;
    node = set_commit(ps, &s, negated);
out:
    free(s.r);
    return node;
}

static int32_t escape_node(rx_parser *ps)
{
    esc e = parse_escape(ps, false);
    switch (e.kind) {
    case ESC_CP:
        return new_node(ps, N_CHAR, e.cp);
    case ESC_WORDB:
        return new_node(ps, N_WORDB, 0);
    case ESC_NWORDB:
        return new_node(ps, N_NWORDB, 0);
    case ESC_SET: {
        rx_set s = {0};
        int32_t node = -1;
        if (set_add_table(&s, e.set, e.nset, e.complement))
            node = set_commit(ps, &s, false);
        else
            rx_fail(ps, MCPS_SCHEMA_REGEX_TOO_BIG, "out of memory");
        free(s.r);
        return node;
    }
    default:
        return -1;
    }
}

/* ---- quantifiers ---------------------------------------------------------------- */

static uint32_t read_count(rx_parser *ps)
{
    uint32_t v = 0;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
        v = v * 10 + (uint32_t)(*ps->p++ - '0');
        if (v > RX_MAX_COUNT)
            v = RX_MAX_COUNT;
    }
    return v;
}

/* {n}, {n,} or {n,m} at p; false (p unchanged) when it is not one, so "{" is literal. */
static bool braces(rx_parser *ps, uint32_t *min, uint32_t *max)
{
    const unsigned char *save = ps->p;
    ps->p++;
    if (!(ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9'))
        goto literal;
    *min = *max = read_count(ps);
    if (at(ps, ',')) {
        ps->p++;
        *max = RX_INF;
        if (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            *max = read_count(ps);
    }
    if (!at(ps, '}'))
        goto literal;
    ps->p++;
    return true;
literal:
    ps->p = save;
    return false;
}

/* A quantifier at p; false when there is none. */
static bool quantifier(rx_parser *ps, uint32_t *min, uint32_t *max)
{
    if (ps->p >= ps->end)
        return false;
    switch (*ps->p) {
    case '*':
        *min = 0, *max = RX_INF;
        break;
    case '+':
        *min = 1, *max = RX_INF;
        break;
    case '?':
        *min = 0, *max = 1;
        break;
    case '{':
        if (!braces(ps, min, max))
            return false;
        ps->p--; /* the increment below steps over the closing brace */
        break;
    default:
        return false;
    }
    ps->p++;
    if (at(ps, '?'))
        ps->p++; /* lazy: the same set of matches */
    return true;
}

/* ---- atoms and sequences ------------------------------------------------------ */

static int32_t parse_alt(rx_parser *ps);

/* An ECMA-262 group name: an identifier (ASCII letters, digits, _ and $, not a digit first;
 * bytes of non-ASCII letters and \u escapes are let through unjudged). */
static bool group_name_ok(const unsigned char *p, const unsigned char *end)
{
    if (p == end || (*p >= '0' && *p <= '9'))
        return false;
    for (; p < end; p++)
        if (!(isalnum(*p) || *p == '_' || *p == '$' || *p >= 0x80 ||
              (*p == '\\' && p + 1 < end && p[1] == 'u')))
            return false;
    return true;
}

static int32_t parse_group(rx_parser *ps)
{
    if (at(ps, '?')) {
        const unsigned char *q = ps->p + 1;
        if (q < ps->end && (*q == '=' || *q == '!'))
            return rx_fail(ps, MCPS_SCHEMA_REGEX_UNSUPPORTED, "lookahead"), -1;
        if (q + 1 < ps->end && *q == '<' && (q[1] == '=' || q[1] == '!'))
            return rx_fail(ps, MCPS_SCHEMA_REGEX_UNSUPPORTED, "lookbehind"), -1;
        if (q < ps->end && *q == ':') {
            ps->p = q + 1;
        } else if (q < ps->end && *q == '<') {
            const unsigned char *gt = memchr(q, '>', (size_t)(ps->end - q));
            if (!gt || !group_name_ok(q + 1, gt))
                return rx_fail(ps, MCPS_SCHEMA_REGEX_SYNTAX, "bad group name"), -1;
            ps->p = gt + 1;
        } else {
            return rx_fail(ps, MCPS_SCHEMA_REGEX_SYNTAX, "unknown group type (?"), -1;
        }
    }
    if (++ps->depth > RX_MAX_NEST)
        return rx_fail(ps, MCPS_SCHEMA_REGEX_TOO_BIG, "groups nested too deeply"), -1;
    int32_t inner = parse_alt(ps);
    ps->depth--;
    if (inner < 0)
        return -1;
    if (!at(ps, ')'))
        return rx_fail(ps, MCPS_SCHEMA_REGEX_SYNTAX, "missing )"), -1;
    ps->p++;
    return inner;
}

static int32_t parse_atom(rx_parser *ps)
{
    unsigned c = *ps->p;
    uint32_t lo, hi;
    if (c == '*' || c == '+' || c == '?' || (c == '{' && braces(ps, &lo, &hi)))
        return rx_fail(ps, MCPS_SCHEMA_REGEX_SYNTAX, "nothing to repeat"), -1;
    if (c >= 0x80)
        return new_node(ps, N_CHAR, next_cp(ps));
    ps->p++;
    switch (c) {
    case '(':
        return parse_group(ps);
    case '[':
        return parse_class(ps);
    case '.':
        return new_node(ps, N_ANY, 0);
    case '^':
        return new_node(ps, N_BOL, 0);
    case '$':
        return new_node(ps, N_EOL, 0);
    case '\\':
        return escape_node(ps);
    default:
        return new_node(ps, N_CHAR, c);
    }
}

static bool is_assertion(const rx_node *n)
{
    return n->kind == N_BOL || n->kind == N_EOL || n->kind == N_WORDB || n->kind == N_NWORDB;
}

static int32_t parse_term(rx_parser *ps)
{
    int32_t atom = parse_atom(ps);
    uint32_t min, max;
    if (atom < 0 || !quantifier(ps, &min, &max))
        return atom;
    if (is_assertion(&ps->nodes[atom]))
        return rx_fail(ps, MCPS_SCHEMA_REGEX_SYNTAX, "quantifier after an assertion"), -1;
    if (min > max)
        return rx_fail(ps, MCPS_SCHEMA_REGEX_SYNTAX, "numbers out of order in {} quantifier"), -1;
    int32_t rep = new_node(ps, N_REPEAT, 0);
    if (rep < 0)
        return -1;
    ps->nodes[rep].child = atom;
    ps->nodes[rep].min = min;
    ps->nodes[rep].max = max;
    return rep;
}

/* A node whose children are the items parse_item produces until | or ) or the end. */
static int32_t parse_list(rx_parser *ps, rx_kind kind)
{
    int32_t list = new_node(ps, kind, 0), last = -1;
    if (list < 0)
        return -1;
    for (;;) {
        bool stop = ps->p >= ps->end || *ps->p == ')' || (kind == N_CAT && *ps->p == '|');
        if (kind == N_CAT && stop)
            break;
        int32_t item = kind == N_CAT ? parse_term(ps) : parse_list(ps, N_CAT);
        if (item < 0)
            return -1;
        if (last < 0)
            ps->nodes[list].child = item;
        else
            ps->nodes[last].next = item;
        last = item;
        if (kind == N_ALT && !at(ps, '|'))
            break;
        if (kind == N_ALT)
            ps->p++;
    }
    return list;
}

static int32_t parse_alt(rx_parser *ps)
{
    return parse_list(ps, N_ALT);
}

/* ---- code generation ---------------------------------------------------------- */

static size_t sat_add(size_t a, size_t b)
{
    return a + b < a || a + b > RX_MAX_PROG + 1 ? RX_MAX_PROG + 1 : a + b;
}

static size_t sat_mul(size_t a, size_t b)
{
    return b && a > (RX_MAX_PROG + 1) / b ? RX_MAX_PROG + 1 : sat_add(a * b, 0);
}

/* Instructions node compiles to, saturating just above the cap. */
static size_t node_size(const rx_parser *ps, int32_t i)
{
    const rx_node *n = &ps->nodes[i];
    size_t total = 0, k = 0;
    switch (n->kind) {
    case N_EMPTY:
        return 0;
    case N_CAT:
    case N_ALT:
        for (int32_t c = n->child; c >= 0; c = ps->nodes[c].next, k++)
            total = sat_add(total, node_size(ps, c));
        return n->kind == N_ALT && k ? sat_add(total, 2 * (k - 1)) : total;
    case N_REPEAT: {
        size_t s = node_size(ps, n->child);
        total = sat_mul(s, n->min);
        if (n->max == RX_INF)
            return sat_add(total, n->min ? 1 : s + 2);
        return sat_add(total, sat_mul(s + 1, n->max - n->min));
    }
    default:
        return 1;
    }
}

typedef struct rx_gen {
    mcps_si_rx_inst *prog;
    size_t n;
} rx_gen;

static size_t emit(rx_gen *g, mcps_si_rx_op op, uint32_t x, uint32_t y)
{
    g->prog[g->n] = (mcps_si_rx_inst){(uint8_t)op, false, x, y};
    return g->n++;
}

static void gen_node(rx_gen *g, const rx_parser *ps, int32_t i);

/* Point every instruction of a chain (linked through x or y) at the next free pc. */
static void patch_chain(rx_gen *g, size_t head, bool via_x)
{
    while (head != RX_NONE) {
        uint32_t *field = via_x ? &g->prog[head].x : &g->prog[head].y;
        head = *field;
        *field = (uint32_t)g->n;
    }
}

static void gen_alt(rx_gen *g, const rx_parser *ps, const rx_node *n)
{
    size_t jumps_head = RX_NONE; /* chain of JMPs to patch, linked through x */
    for (int32_t c = n->child; c >= 0; c = ps->nodes[c].next) {
        if (ps->nodes[c].next < 0) {
            gen_node(g, ps, c);
            break;
        }
        size_t split = emit(g, RX_SPLIT, (uint32_t)g->n + 1, 0);
        gen_node(g, ps, c);
        jumps_head = emit(g, RX_JMP, (uint32_t)jumps_head, 0);
        g->prog[split].y = (uint32_t)g->n;
    }
    patch_chain(g, jumps_head, true);
}

static void gen_repeat(rx_gen *g, const rx_parser *ps, const rx_node *n)
{
    /* A body of no instructions matches only the empty string, as its repeats do. Emitting none
     * of them keeps compile time within the program's size: "(x{(x{0}){100000}){1002}" made 10^8
     * calls that emitted nothing (37 s under the fuzzer's instrumentation). */
    if (!node_size(ps, n->child))
        return;
    uint32_t copies = n->max == RX_INF && n->min ? n->min - 1 : n->min;
    for (uint32_t k = 0; k < copies; k++)
        gen_node(g, ps, n->child);
    if (n->max == RX_INF && n->min) { /* x+ : body, then loop back */
        size_t body = g->n;
        gen_node(g, ps, n->child);
        size_t s = emit(g, RX_SPLIT, (uint32_t)body, (uint32_t)g->n + 1);
        g->prog[s].optional = true;
    } else if (n->max == RX_INF) { /* x* */
        size_t s = emit(g, RX_SPLIT, (uint32_t)g->n + 1, 0);
        g->prog[s].optional = true;
        gen_node(g, ps, n->child);
        emit(g, RX_JMP, (uint32_t)s, 0);
        g->prog[s].y = (uint32_t)g->n;
    } else {                    /* x{n,m}: m-n optional copies, each SPLIT skipping to the end */
        size_t chain = RX_NONE; /* SPLITs to patch, linked through y */
        for (uint32_t k = n->min; k < n->max; k++) {
            chain = emit(g, RX_SPLIT, (uint32_t)g->n + 1, (uint32_t)chain);
            g->prog[chain].optional = true;
            gen_node(g, ps, n->child);
        }
        patch_chain(g, chain, false);
    }
}

static void gen_node(rx_gen *g, const rx_parser *ps, int32_t i)
{
    const rx_node *n = &ps->nodes[i];
    static const mcps_si_rx_op simple[] = {
        [N_CHAR] = RX_CHAR, [N_ANY] = RX_ANY,     [N_CLASS] = RX_CLASS,  [N_BOL] = RX_BOL,
        [N_EOL] = RX_EOL,   [N_WORDB] = RX_WORDB, [N_NWORDB] = RX_NWORDB};
    switch (n->kind) {
    case N_EMPTY:
        return;
    case N_CAT:
        for (int32_t c = n->child; c >= 0; c = ps->nodes[c].next)
            gen_node(g, ps, c);
        return;
    case N_ALT:
        gen_alt(g, ps, n);
        return;
    case N_REPEAT:
        gen_repeat(g, ps, n);
        return;
    default:
        emit(g, simple[n->kind], n->value, 0);
    }
}

/* ---- compile -------------------------------------------------------------------- */

static void parser_free(rx_parser *ps)
{
    free(ps->nodes);
    free(ps->ranges);
    free(ps->classes);
}

static mcps_schema_regex *assemble(rx_parser *ps, int32_t root)
{
    size_t size = node_size(ps, root);
    if (size > RX_MAX_PROG) {
        rx_fail(ps, MCPS_SCHEMA_REGEX_TOO_BIG, "pattern expands to too many states");
        return NULL;
    }
    mcps_schema_regex *re = calloc(1, sizeof *re);
    rx_gen g = {malloc((size + 1) * sizeof *g.prog), 0};
    if (!re || !g.prog) {
        free(re);
        free(g.prog);
        rx_fail(ps, MCPS_SCHEMA_REGEX_TOO_BIG, "out of memory");
        return NULL;
    }
    gen_node(&g, ps, root);
    emit(&g, RX_MATCH, 0, 0);
    re->prog = g.prog;
    re->n = g.n;
    re->ranges = ps->ranges;
    re->classes = ps->classes;
    re->anchored = g.prog[0].op == RX_BOL;
    ps->ranges = NULL;
    ps->classes = NULL;
    return re;
}

mcps_schema_regex_status mcps_schema_regex_compile(const char *pattern, size_t len,
                                                   mcps_schema_regex **out, char *why,
                                                   size_t whylen)
{
    rx_parser ps = {0};
    ps.start = ps.p = (const unsigned char *)pattern;
    ps.end = ps.p + len;
    ps.why = why;
    ps.whylen = whylen;
    if (why && whylen)
        why[0] = '\0';
    *out = NULL;
    int32_t root = parse_alt(&ps);
    if (root >= 0 && ps.p < ps.end)
        rx_fail(&ps, MCPS_SCHEMA_REGEX_SYNTAX, "unmatched )");
    if (ps.status == MCPS_SCHEMA_REGEX_OK)
        *out = assemble(&ps, root);
    parser_free(&ps);
    return ps.status;
}

void mcps_schema_regex_free(mcps_schema_regex *re)
{
    if (!re)
        return;
    free(re->prog);
    free(re->ranges);
    free(re->classes);
    free(re);
}
